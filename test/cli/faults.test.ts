// `vtask run` against a server that misbehaves in every way the fault server knows: each faulty
// task must end with a clear error within a bound, memory must stay bounded, and the healthy
// tasks' results must still be printed. Small caps and timeouts come from the environment.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { FaultServer, FAULTS } from '../support/faultServer';
import { runCliProcess } from '../support/cliProcess';

const server = new FaultServer({ maxBytes: 256 << 20 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-faults-'));
const LIMITS = { VTASK_MAX_RESPONSE_BYTES: String(1 << 20), VTASK_TIMEOUT_MS: '1000', VTASK_RETRY_BUDGET_MS: '3000' };

before(async () => {
  await server.listen();
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What each fault must end as: its error (none for the healthy ones) and at most how many requests. */
const EXPECT: Record<(typeof FAULTS)[number], { error?: RegExp; requests: [number, number] }> = {
  ok: { requests: [1, 1] },
  '429once': { requests: [2, 2] },
  endless: {
    error: /the answer from http:\/\/127\.0\.0\.1:\d+\/v1 passed 1 MiB: stopped reading \(max_response_bytes/,
    requests: [1, 1],
  },
  hugesse: { error: /passed 1 MiB/, requests: [1, 1] },
  manysse: { error: /passed 1 MiB/, requests: [1, 1] },
  // The last attempt may be cut short by what is left of the budget, so its time varies.
  drip: {
    error: /no complete answer from .* within [\d.]+ s.*retry budget \(retry_budget_ms: 3000\) ran out/,
    requests: [2, 5],
  },
  hang: { error: /no complete answer .*retry budget \(retry_budget_ms: 3000\) ran out/, requests: [2, 5] },
  reset: { error: /the connection to .* closed/, requests: [2, 5] },
  badjson: { error: /malformed JSON/, requests: [2, 5] },
  '429': { error: /is rate-limiting \(429\): slow down/, requests: [2, 4] },
  '500': { error: /failed \(500\): the model crashed/, requests: [2, 5] },
};

test('every fault ends in a clear error within a bound, in bounded memory, and the other tasks still report', async () => {
  const file = path.join(dir, 'faults.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n${FAULTS.map((f) => `  - id: t-${f}\n    prompt: "fault:${f}"\n    samples: 1\n    verify: { math: { answer: "4" } }\n`).join('')}`,
  );
  const r = await runCliProcess(
    ['run', file, '--base-url', server.url, '--model', 'fault-model', '--cache-dir', path.join(dir, 'cache'), '--json'],
    LIMITS,
    20_000,
  );
  assert.equal(r.code, 1, r.stderr);
  const tasks = (
    JSON.parse(r.stdout) as { tasks: { task: string; error?: string; requests: number; pass_rate: number }[] }
  ).tasks;
  assert.deepEqual(tasks.map((t) => t.task).sort(), FAULTS.map((f) => `t-${f}`).sort());
  for (const t of tasks) {
    const want = EXPECT[t.task.slice(2) as keyof typeof EXPECT];
    if (want.error) assert.match(t.error ?? '(no error)', want.error, t.task);
    else {
      assert.equal(t.error, undefined, t.task);
      assert.equal(t.pass_rate, 1, t.task);
    }
    assert.ok(
      t.requests >= want.requests[0] && t.requests <= want.requests[1],
      `${t.task}: ${t.requests} requests, expected ${want.requests.join('..')}`,
    );
    const prompt = `fault:${t.task.slice(2)}`;
    // A fault answered the same way every time is asked exactly as often as the run says: wait for
    // the server to have counted that many (one may still be in flight as the process exits).
    if (want.requests[0] === want.requests[1])
      assert.equal(await server.hitsReached(prompt, t.requests), t.requests, t.task);
  }
  // The budget (3 s) plus one attempt's timeout (1 s) bounds every task; the rest is start-up.
  assert.ok(r.ms < 10_000, `took ${Math.round(r.ms)} ms`);
  assert.ok(r.peakRss !== undefined && r.peakRss < 300 << 20, `peak RSS ${r.peakRss}`);
  // Waiting requests are visible without a terminal: one line per retry, saying task, attempt, why and the wait.
  assert.match(
    r.stderr,
    /^t-500: attempt 1 failed \(http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed \(500\): the model crashed\); retrying in \d+\.\d s$/m,
  );
  assert.match(r.stderr, /^t-429once: attempt 1 failed \(.*rate-limiting \(429\).*\); retrying in 1\.\d s$/m);
});

test('the summary counts HTTP requests, retries included', async () => {
  const file = path.join(dir, 'retried.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: r\n    prompt: "fault:429once summary"\n    samples: 1\n    verify: { math: { answer: "4" } }\n`,
  );
  const r = await runCliProcess(
    ['run', file, '--base-url', server.url, '--model', 'fault-model', '--cache-dir', path.join(dir, 'cache2')],
    LIMITS,
    20_000,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^1 task, 1 sample \(0 from the cache, 2 requests\)$/m);
  assert.equal(
    await server.hitsReached('fault:429once summary', 2),
    2,
    'the server received the two requests the summary counts',
  );
});

test('a bad limit in the environment is a clear error of each task, not a crash', async () => {
  const file = path.join(dir, 'badenv.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: e\n    prompt: "fault:ok"\n    samples: 1\n    verify: { math: { answer: "4" } }\n`,
  );
  const r = await runCliProcess(
    [
      'run',
      file,
      '--base-url',
      server.url,
      '--model',
      'fault-model',
      '--cache-dir',
      path.join(dir, 'cache3'),
      '--json',
    ],
    { VTASK_MAX_RESPONSE_BYTES: '8MB' },
    20_000,
  );
  assert.equal(r.code, 1, r.stderr);
  const t = (JSON.parse(r.stdout) as { tasks: { error?: string }[] }).tasks[0];
  assert.equal(t?.error, '$VTASK_MAX_RESPONSE_BYTES must be a positive whole number, not "8MB"');
});

// Two real `vtask run` processes on one cache: the second waits for the first's claim on a task
// instead of asking the model again, then takes the samples from the cache.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { OpenAIServer } from '../support/openaiServer';
import { startCli } from '../support/cliProcess';
import { runArgs } from '../support/runArgs';

const server = new OpenAIServer({ answer: () => 'x' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-two-runs-'));

before(async () => {
  await server.listen();
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a second run on the same cache waits for the first instead of sending the same requests', async () => {
  const file = path.join(dir, 'two.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: shared\n    prompt: p\n    samples: 4\n    seed: 1\n    verify: { match: { answer: "x" } }\n`,
  );
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  // Every answer is held until the second run has shown that it waits (or has sent requests of its own).
  server.behaviour = () => ({ until: gate });
  const args = [...runArgs(file, server.url, path.join(dir, 'cache')), '--concurrency', '4', '--json'];
  const first = startCli(args);
  await server.waitFor(() => server.samplingRequests.length >= 4, 20_000, "the first run's four requests");
  const second = startCli(args);
  const waiting = new Promise<string>((resolve) => {
    const check = (): void => {
      if (/another vtask run on this cache is sampling it/.test(second.stderr())) resolve('waits');
    };
    second.child.stderr!.on('data', check);
    check();
  });
  const duplicate = server
    .waitFor(() => server.samplingRequests.length > 4, 20_000)
    .then(() => 'sent its own requests');
  const outcome = await Promise.race([waiting, duplicate]);
  open();
  const [a, b] = await Promise.all([first.done, second.done]);
  assert.equal(outcome, 'waits');
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(server.samplingRequests.length, 4, 'four samples, four requests in all');
  const t = (JSON.parse(b.stdout) as { tasks: { requests: number; samples: { cached: boolean }[] }[] }).tasks[0];
  assert.equal(t?.requests, 0);
  assert.deepEqual(
    t?.samples.map((s) => s.cached),
    [true, true, true, true],
  );
  // No claim is left behind.
  assert.deepEqual(fs.readdirSync(path.join(dir, 'cache', 'claims')), []);
});

test('two runs started together on one cache over many tasks send each sample once in all', async () => {
  const tasks = 40;
  const perTask = 8;
  const file = path.join(dir, 'many.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n${Array.from({ length: tasks }, (_, i) => `  - id: t${i}\n    prompt: "many ${i}"\n    samples: ${perTask}\n    seed: 1\n    verify: { match: { answer: "x" } }\n`).join('')}`,
  );
  const before = server.samplingRequests.length;
  server.behaviour = () => ({ delayMs: 5 });
  try {
    const args = [...runArgs(file, server.url, path.join(dir, 'many-cache')), '--concurrency', '4', '--json'];
    const [a, b] = await Promise.all([startCli(args, {}, 120_000).done, startCli(args, {}, 120_000).done]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const requests = (out: string): number =>
      (JSON.parse(out) as { tasks: { requests: number }[] }).tasks.reduce((n, t) => n + t.requests, 0);
    // A sample one run is taking is waited for by the other, and then read from the cache.
    assert.equal(
      server.samplingRequests.length - before,
      tasks * perTask,
      `the runs made ${requests(a.stdout)} and ${requests(b.stdout)} requests`,
    );
  } finally {
    server.behaviour = () => ({});
  }
});

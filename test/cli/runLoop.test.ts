// `vtask run` keeps its provider busy: tasks without a seed send one request (of n samples) each,
// so as many tasks run at once as the profile allows requests (it was 16 whatever
// `--concurrency` said). Measured where it matters, at the project's OpenAI-compatible server,
// which answers each request after a delay and counts the requests it has in flight.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

const server = new OpenAIServer({ answer: () => 'So \\boxed{4}.', behaviour: () => ({ delayMs: 300 }) });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-run-loop-'));
const file = path.join(dir, 'tasks.vtask');
const TASKS = 48;

before(async () => {
  await server.listen();
  const tasks = Array.from(
    { length: TASKS },
    (_, i) => `  - { id: t${i}, prompt: "Task ${i}: 2 + 2?", samples: 2, verify: { math: { answer: "4" } } }`,
  );
  fs.writeFileSync(file, ['vtask: 1', 'tasks:', ...tasks].join('\n') + '\n');
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('vtask run has as many requests in flight as --concurrency allows, then a second run asks nothing', async () => {
  const args = [
    'run',
    file,
    '--base-url',
    server.url,
    '--model',
    'test-model',
    '--concurrency',
    String(TASKS),
    '--cache-dir',
    path.join(dir, 'cache'),
    '--json',
  ];
  const r = await runCliProcess(args, {}, 120_000);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { tasks: { task: string; requests: number; pass_rate: number }[] };
  assert.equal(out.tasks.length, TASKS);
  assert.deepEqual(new Set(out.tasks.map((t) => t.requests)), new Set([1]));
  assert.deepEqual(new Set(out.tasks.map((t) => t.pass_rate)), new Set([1]));
  assert.equal(server.maxInFlight, TASKS);
  const again = await runCliProcess(args, {}, 120_000);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(
    (JSON.parse(again.stdout) as { tasks: { requests: number }[] }).tasks.reduce((a, t) => a + t.requests, 0),
    0,
  );
  const log = fs
    .readFileSync(path.join(dir, 'cache', 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n');
  assert.equal(log.length, 2 * TASKS);
});

// `vtask run` writes each task's output as it ends, in task order, and keeps none of its samples:
// the --json document goes out a piece at a time yet reads as the one JSON.stringify of the
// whole; a stopped run still prints one whole document, and its run log names only tasks whose
// samples the cache holds. Against the project's OpenAI-compatible server, which answers later
// tasks sooner than earlier ones, so that tasks end out of order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../../src/cli/dispatch';
import type { CliIO } from '../../src/cli/io';
import { parseRunRecord } from '../../src/core/overview/runlog/runLog';
import { OpenAIServer } from '../support/openaiServer';
import { runArgs } from '../support/runArgs';

const TASKS = 300;
const taskOf = (body: unknown): number => Number(/Task (\d+):/.exec(JSON.stringify(body))?.[1] ?? 0);

const server = new OpenAIServer({
  // Long answers: the document is several pieces. Odd tasks are right.
  answer: (ctx) => `${'Working it out. '.repeat(40)}So \\boxed{${Number(/Task (\d+):/.exec(ctx.prompt)?.[1]) % 2}}.`,
  // Task k waits (4 - k % 5) × 4 ms: within each five, the later ones end first.
  behaviour: (req) => ({ delayMs: (4 - (taskOf(req.body) % 5)) * 4 }),
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-run-stream-'));
const file = path.join(dir, 'tasks.vtask');

before(async () => {
  await server.listen();
  const tasks = Array.from(
    { length: TASKS },
    (_, i) => `  - { id: t${i}, prompt: "Task ${i}: odd?", samples: 2, verify: { math: { answer: "1" } } }`,
  );
  fs.writeFileSync(file, ['vtask: 1', 'tasks:', ...tasks].join('\n') + '\n');
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An io that keeps each write to stdout apart, with how many requests the server had had by then. */
function capture(onWrite?: (piece: string) => void): {
  io: CliIO;
  pieces: string[];
  requestsAt: number[];
  err: string[];
} {
  const pieces: string[] = [];
  const requestsAt: number[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: {
      write: (s: string) => {
        pieces.push(s);
        requestsAt.push(server.received);
        onWrite?.(s);
        return true;
      },
    },
    stderr: { write: (s: string) => err.push(s) },
    cwd: dir,
  };
  return { io, pieces, requestsAt, err };
}

const args = (cache: string, ...extra: string[]): string[] => [
  ...runArgs(file, server.url, cache),
  '--concurrency',
  '16',
  ...extra,
];

interface Doc {
  tasks: { task: string; requests: number; samples: { cached: boolean }[] }[];
  invalid: number;
  cancelled: boolean;
}

test('--json: the document is written a piece at a time while tasks run, in task order, as one JSON.stringify of it', async () => {
  const cache = path.join(dir, 'cache-json');
  const first = server.received;
  const out = capture();
  assert.equal(await runCli(args(cache, '--json'), out.io), 0, out.err.join(''));
  const text = out.pieces.join('');
  const doc = JSON.parse(text) as Doc;
  assert.equal(text, JSON.stringify(doc) + '\n');
  assert.deepEqual(
    doc.tasks.map((t) => t.task),
    Array.from({ length: TASKS }, (_, i) => `t${i}`),
  );
  assert.equal(doc.cancelled, false);
  assert.ok(out.pieces.length > 2, `written in pieces, not ${out.pieces.length}`);
  // The first piece went out before the run had sent all its requests.
  assert.ok(
    (out.requestsAt[0] ?? Infinity) - first < TASKS,
    `first piece after ${(out.requestsAt[0] ?? 0) - first} of ${TASKS} requests`,
  );

  // The same run from the cache: the same document but for what came from the cache.
  const again = capture();
  assert.equal(await runCli(args(cache, '--json'), again.io), 0);
  const cached = JSON.parse(again.pieces.join('')) as Doc;
  assert.equal(again.pieces.join(''), JSON.stringify(cached) + '\n');
  for (const t of doc.tasks) {
    t.requests = 0;
    for (const s of t.samples) s.cached = true;
  }
  assert.deepEqual(cached, doc);
  // One line per task per run in the run log, each a whole record.
  const log = fs.readFileSync(path.join(cache, 'runs.jsonl'), 'utf8').trim().split('\n');
  assert.equal(log.length, 2 * TASKS);
  assert.ok(log.every((l) => parseRunRecord(l)));
});

test('the text tables are printed whole at the end, from the rows of tasks whose samples were dropped', async () => {
  const cache = path.join(dir, 'cache-text');
  const out = capture();
  assert.equal(await runCli(args(cache), out.io), 0);
  const lines = out.pieces.join('').trimEnd().split('\n');
  assert.equal(lines[0], 'model test-model');
  assert.match(lines[1] ?? '', /^task +pass +pass@1 +pass@k +band/);
  const rows = lines.slice(2, 2 + TASKS);
  assert.deepEqual(
    rows.map((r) => r.split(' ')[0]),
    Array.from({ length: TASKS }, (_, i) => `t${i}`),
  );
  // Odd tasks pass both samples, even ones neither; the columns line up across all rows.
  assert.match(rows[1] ?? '', /^t1 +2\/2 +1\.00 +1\.00 \(k=2\) +too_easy/);
  assert.match(rows[0] ?? '', /^t0 +0\/2 +0\.00 +0\.00 \(k=2\) +too_hard/);
  assert.equal(new Set(rows.map((r) => r.indexOf(' too_'))).size, 1);
  assert.equal(lines[2 + TASKS], `${TASKS} tasks, ${2 * TASKS} samples (0 from the cache, ${TASKS} requests)`);
});

test('a stopped run prints one whole document and logs only tasks whose samples are in the cache', async () => {
  const cache = path.join(dir, 'cache-stop');
  const stop = new AbortController();
  const started = server.received;
  // Stopped once a third of the requests have been sent.
  const watch = setInterval(() => {
    if (server.received - started >= TASKS / 3) stop.abort();
  }, 1);
  const out = capture();
  let code: number;
  try {
    code = await runCli(args(cache, '--json'), out.io, stop.signal);
  } finally {
    clearInterval(watch);
  }
  assert.equal(code, 130);
  const text = out.pieces.join('');
  const doc = JSON.parse(text) as Doc;
  assert.equal(text, JSON.stringify(doc) + '\n');
  assert.equal(doc.cancelled, true);
  assert.deepEqual(
    doc.tasks.map((t) => t.task),
    Array.from({ length: TASKS }, (_, i) => `t${i}`),
  );
  const sampled = doc.tasks.filter((t) => t.samples.length === 2).map((t) => t.task);
  assert.ok(sampled.length > 0 && sampled.length < TASKS, `${sampled.length} tasks sampled before the stop`);
  // Every line of the log is whole, and every task it gives a band (not `error`: the tasks the
  // stop cut short) is answered from the cache.
  const records = fs
    .readFileSync(path.join(cache, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => parseRunRecord(l));
  assert.ok(records.every((r) => r !== undefined));
  const logged = records.filter((r) => r?.band !== 'error').map((r) => r?.task);
  assert.ok(logged.length > 0);
  const again = capture();
  await runCli(args(cache, '--json'), again.io);
  const fromCache = new Set(
    (JSON.parse(again.pieces.join('')) as Doc).tasks.filter((t) => t.requests === 0).map((t) => t.task),
  );
  for (const t of sampled) assert.ok(fromCache.has(t), `${t} was sampled before the stop, and is in the cache`);
  for (const t of logged) assert.ok(t !== undefined && fromCache.has(t), `${t} is logged, and is in the cache`);
});

test('a run that fails half-way closes the --json document it began, and says why on stderr', async () => {
  const cache = path.join(dir, 'cache-fail');
  const part = path.join(dir, 'part.vtask');
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  // The first 100 tasks sampled into the cache; then the file's other tasks, which must be claimed.
  fs.writeFileSync(part, lines.slice(0, 102).join('\n') + '\n');
  const filled = capture();
  assert.equal(
    await runCli(
      [...args(cache, '--json')].map((a) => (a === file ? part : a)),
      filled.io,
    ),
    0,
  );
  // A file where the claims folder should be: claiming a task fails, which ends the run.
  fs.rmSync(path.join(cache, 'claims'), { recursive: true, force: true });
  fs.writeFileSync(path.join(cache, 'claims'), 'not a folder');
  const out = capture();
  assert.equal(await runCli(args(cache, '--json'), out.io), 1);
  assert.match(out.err.join(''), /^vtask run: error: .*claims/m);
  const text = out.pieces.join('');
  const doc = JSON.parse(text) as Doc;
  assert.equal(text, JSON.stringify(doc) + '\n');
  assert.equal(doc.cancelled, false);
  // What was printed: tasks of the cache, in order, from the first.
  assert.ok(doc.tasks.length > 0 && doc.tasks.length <= 100, `${doc.tasks.length} tasks printed`);
  assert.deepEqual(
    doc.tasks.map((t) => t.task),
    Array.from({ length: doc.tasks.length }, (_, i) => `t${i}`),
  );
  assert.ok(doc.tasks.every((t) => t.requests === 0));
});

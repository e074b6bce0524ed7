// `vtask stats` over a folder that holds datasets beside task files: a task file, an
// open-instruct JSONL and a verl Parquet file (both written by `vtask export`) count their rows
// as tasks, and a JSON-lines file that is no dataset is not counted. The real CLI process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-rows-'));
const data = path.join(dir, 'data');
const sources = path.join(dir, 'sources');
const cacheDir = path.join(dir, 'cache');

const task = (id: string, n: number): string =>
  `  - id: ${id}\n    prompt: What is ${n} + ${n}? Answer with the number.\n    verify: { math: { answer: "${2 * n}" } }\n`;

before(async () => {
  fs.mkdirSync(data, { recursive: true });
  fs.mkdirSync(sources, { recursive: true });
  fs.writeFileSync(path.join(data, 'a.vtask'), `vtask: 1\ntasks:\n${task('a1', 1)}${task('a2', 2)}`);
  fs.writeFileSync(path.join(sources, 'b.vtask'), `vtask: 1\ntasks:\n${task('b1', 3)}${task('b2', 4)}${task('b3', 5)}`);
  fs.writeFileSync(
    path.join(sources, 'c.vtask'),
    `vtask: 1\ntasks:\n${task('c1', 6)}${task('c2', 7)}${task('c3', 8)}${task('c4', 9)}`,
  );
  for (const [src, format, out] of [
    ['b.vtask', 'open-instruct', 'b.jsonl'],
    ['c.vtask', 'verl', 'c.parquet'],
  ] as const) {
    const r = await runCliProcess(
      ['export', path.join(sources, src), '--format', format, '-o', path.join(data, out)],
      {},
      60_000,
    );
    assert.equal(r.code, 0, r.stderr);
  }
  // Not a dataset: rows of no known format.
  fs.writeFileSync(
    path.join(data, 'notes.jsonl'),
    `${JSON.stringify({ when: 'today', text: 'nothing to train on' })}\n`,
  );
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the rows of JSONL and Parquet datasets count as tasks beside the task files', async () => {
  const r = await runCliProcess(['stats', data, '--cache-dir', cacheDir, '--json', '--no-duplicates'], {}, 60_000);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as {
    files: number;
    tasks: number;
    per_file: { file: string; tasks: number; kinds: Record<string, number> }[];
  };
  assert.deepEqual(
    s.per_file.map((f) => [path.basename(f.file), f.tasks]),
    [
      ['a.vtask', 2],
      ['b.jsonl', 3],
      ['c.parquet', 4],
    ],
  );
  assert.deepEqual([s.files, s.tasks], [3, 9]);
  assert.deepEqual(
    s.per_file.map((f) => f.kinds),
    [{ math: 2 }, { math: 3 }, { math: 4 }],
    'each row read as a task with its verifier',
  );
  const text = await runCliProcess(['stats', data, '--cache-dir', cacheDir, '--no-duplicates'], {}, 60_000);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^3 files, 9 tasks \(0 invalid\)/m);
  // Named alone, a dataset file is read as rows too.
  const one = JSON.parse(
    (
      await runCliProcess(
        ['stats', path.join(data, 'c.parquet'), '--cache-dir', cacheDir, '--json', '--no-duplicates'],
        {},
        60_000,
      )
    ).stdout,
  ) as { tasks: number };
  assert.equal(one.tasks, 4);
});

// `vtask stats` on one large task file under a heap limit: the file is read a block at a time and
// one task at a time (taskfile/fileStream.ts, stream.ts), each task's row kept in typed arrays
// outside the heap and its prompt in a scratch folder, its cases run a batch at a time. A real
// process on a generated file, with the counts it must give; a task held as objects again (a row,
// its prompt, a Map entry of its id) does not fit the heap.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI } from '../support/cliProcess';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-memory-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** N small tasks (one in ten with a passing and a failing-expected case), the verifier in defaults. */
function compactTasks(n: number): string {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `- {id: t${i}, prompt: "Task ${i}: 2+2?"${i % 10 === 0 ? ', cases: [{response: "\\\\boxed{4}", expect: pass}, {response: "5", expect: fail}]' : ''}}`,
    );
  return lines.join('\n') + '\n';
}

test('vtask stats reads 100,000 tasks of one file in a 40 MB heap, first and from what it remembered (a build that held a row object and a prompt per task ran out of 48 MB)', () => {
  const file = path.join(DIR, 'larger.vtask');
  fs.writeFileSync(file, compactTasks(100_000));
  const run = (): string => {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=40', CLI, 'stats', file, '--json', '--no-tasks', '--cache-dir', path.join(DIR, 'cache2')],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 },
    );
    assert.equal(/out of memory|memory limit/.test(r.stderr), false, r.stderr.slice(-500));
    assert.equal(r.status, 0, r.stderr.slice(-500));
    return r.stdout;
  };
  const first = run();
  const out = JSON.parse(first) as {
    tasks: number;
    totals: {
      kinds: Record<string, number>;
      cases: Record<string, number>;
      tasks_without_cases: number;
      errors: number;
    };
    duplicates: unknown[];
  };
  assert.equal(out.tasks, 100_000);
  assert.deepEqual(out.totals.kinds, { math: 100_000 });
  assert.deepEqual(out.totals.cases, { total: 20_000, passed: 20_000, failed: 0, skipped: 0 });
  assert.equal(out.totals.tasks_without_cases, 90_000);
  assert.equal(out.totals.errors, 0);
  // Every prompt holds its own task number: none is a duplicate of another.
  assert.deepEqual(out.duplicates, []);
  assert.equal(run(), first);
});

/** `vtask stats` on `file` with the cache in `cacheDir`, a heap limit in MB; its stdout. */
function stats(file: string, cacheDir: string, heapMb: number, ...more: string[]): string {
  const r = spawnSync(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, CLI, 'stats', file, '--cache-dir', cacheDir, ...more],
    { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 },
  );
  assert.equal(/out of memory|memory limit/.test(r.stderr), false, r.stderr.slice(-500));
  assert.equal(r.status, 0, r.stderr.slice(-500));
  return r.stdout;
}

/** The one remembered summary file under `cacheDir`. */
function summaryFile(cacheDir: string): string {
  const [v] = fs.readdirSync(path.join(cacheDir, 'stats'));
  const files = path.join(cacheDir, 'stats', v!, 'files');
  const [f] = fs.readdirSync(files);
  return path.join(files, f!);
}

test('a second vtask stats reads the remembered summary of 100,000 tasks in a 20 MB heap (a build that parsed its line whole ran out of 24 MB)', () => {
  const file = path.join(DIR, 'again.vtask');
  fs.writeFileSync(file, compactTasks(100_000));
  const cacheDir = path.join(DIR, 'cache-again');
  const first = stats(file, cacheDir, 64, '--json', '--no-tasks');
  assert.equal(stats(file, cacheDir, 20, '--json', '--no-tasks'), first);
});

test('vtask stats from its cache prints what the first run printed, text and --json, for rows past those kept in memory; a damaged summary is read from the file again', () => {
  // Over 16,384 tasks (the rows past them spill to a scratch folder), ids with quotes, backslashes
  // and characters of several UTF-8 bytes, whose escapes the row scanner must step over.
  const lines = compactTasks(20_000).split('\n');
  for (let i = 4; i < lines.length; i += 997)
    lines[i] = lines[i]!.replace(/id: t(\d+)/, (_, n: string) => `id: 'q"{[\\${n}é\u{1F600}}'`);
  const file = path.join(DIR, 'cached.vtask');
  fs.writeFileSync(file, lines.join('\n'));
  const cacheDir = path.join(DIR, 'cache-cached');
  const runs = (): string[] => [stats(file, cacheDir, 64, '--json'), stats(file, cacheDir, 64)];
  const first = runs();
  const memo = summaryFile(cacheDir);
  const written = fs.readFileSync(memo, 'utf8');
  assert.match(written, /q\\"\{\[\\\\\d+é/, 'the escapes are in the remembered rows');
  assert.deepEqual(runs(), first);
  // The summary is what the second run read, every row of it: a kind changed in the last row shows.
  const last = written.lastIndexOf('"kind":"math"');
  fs.writeFileSync(memo, `${written.slice(0, last)}"kind":"mathy"${written.slice(last + 13)}`);
  assert.match(stats(file, cacheDir, 64, '--json', '--no-tasks'), /"mathy":1/);
  // Cut short, it is no summary: the file is read again, and its summary written again.
  const line = written.indexOf('\n');
  fs.writeFileSync(memo, written.slice(0, line >> 1));
  assert.deepEqual(runs(), first);
  assert.equal(fs.readFileSync(memo, 'utf8'), written);
});

test('many small files whose rows cannot spill (no temporary folder): stats says which folder and why, and exits 1 without a crash', () => {
  // 8 files of 10,000 tasks: past the 65,536 rows kept in memory, in files small enough that each
  // one's rows used to stay there. Over a megabyte of text: parsed in threads where there are cores.
  const dir = path.join(DIR, 'small-files');
  fs.mkdirSync(dir);
  for (let f = 0; f < 8; f++) fs.writeFileSync(path.join(dir, `f${f}.vtask`), compactTasks(10_000));
  const missing = path.join(DIR, 'no-such-folder');
  const r = spawnSync(
    process.execPath,
    [CLI, 'stats', dir, '--json', '--no-duplicates', '--cache-dir', path.join(DIR, 'cache-small')],
    { encoding: 'utf8', timeout: 300_000, env: { ...process.env, TMPDIR: missing } },
  );
  assert.equal(r.status, 1, r.stderr.slice(-500));
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^vtask stats: error: ${missing}/vtask-rows-\\d+-\\w+: it does not exist\\n$`));
});

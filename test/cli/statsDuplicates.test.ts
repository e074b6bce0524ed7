// `vtask stats` finds the same duplicates and overlaps, and prints the same text and JSON, with
// its duplicate search in bounded memory (prompts, features and band keys in a scratch folder,
// buckets sorted there): a dataset with exact copies (one with other case and punctuation), a
// near duplicate, a number written as a word, a template with other numbers, a prompt with no
// word, an invalid task, and a benchmark it overlaps. The expected output is the one the
// in-memory search printed for the same files. The scratch folder is gone when it is done.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI } from '../support/cliProcess';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-duplicates-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const A = `vtask: 1
defaults:
  verify: {math: {answer: "4"}}
tasks:
  - id: sum
    prompt: Natalia sold 48 clips in April and then half as many in May. How many clips did she sell in all?
  - id: sum-copy
    prompt: "natalia sold 48 clips in april, and then half as many in may: how many clips did she sell in all"
  - id: sum-reworded
    prompt: Natalia sold 48 clips in April and then half as many in May. How many clips did she sell in total?
  - id: other-numbers
    prompt: Natalia sold 52 clips in April and then half as many in May. How many clips did she sell in all?
  - id: train
    prompt: A train leaves the station at 9 and travels at 60 miles per hour for 3 hours. How far does it go?
  - id: empty-words
    prompt: "?!"
  - id: invalid
    prompt: An invalid task with a prompt that is the same as another one.
    verify: {nope: {}}
`;
const B = `vtask: 1
defaults:
  verify: {math: {answer: "4"}}
tasks:
  - id: sum-again
    prompt: Natalia sold 48 clips in April and then half as many in May. How many clips did she sell in all?
  - id: train-words
    prompt: A train leaves the station at 9 and travels at 60 miles per hour for three hours. How far does it go?
  - id: train-swapped
    prompt: For 3 hours a train travels at 60 miles per hour after it leaves the station at 9. How far does it go?
  - id: fresh
    prompt: Write the capital of France in one word.
  - id: same-as-invalid
    prompt: An invalid task with a prompt that is the same as another one.
`;
const BENCH = `{"prompt": "Unrelated text about rivers and lakes and the sea and the mountains far away."}
{"prompt": "Quiz: a train leaves the station at 9 and travels at 60 miles per hour for 3 hours. How far?"}
`;

/** `vtask stats` run from DIR with its own temporary folder, which must be left empty. */
function stats(...args: string[]): string {
  return statsWith(fs.mkdtempSync(path.join(DIR, 'cache-')), ...args);
}

function statsWith(cache: string, ...args: string[]): string {
  const tmp = fs.mkdtempSync(path.join(DIR, 'tmp-'));
  const r = spawnSync(
    process.execPath,
    [CLI, 'stats', 'data', '--cache-dir', cache, '--contamination', 'bench.jsonl', '--ngram', '8', ...args],
    { cwd: DIR, encoding: 'utf8', timeout: 60_000, env: { ...process.env, TMPDIR: tmp } },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(fs.readdirSync(tmp), [], 'the scratch folder is removed');
  return r.stdout;
}

fs.mkdirSync(path.join(DIR, 'data'));
fs.writeFileSync(path.join(DIR, 'data', 'a.vtask'), A);
fs.writeFileSync(path.join(DIR, 'data', 'b.vtask'), B);
fs.writeFileSync(path.join(DIR, 'bench.jsonl'), BENCH);

test('the text summary is the same as the in-memory search printed', () => {
  assert.equal(
    stats(),
    [
      '2 files, 12 tasks (1 invalid), 1 validation error',
      'kinds: math 11',
      'cases: 0 (0 passed, 0 failed, 0 skipped); 12 tasks without cases',
      '',
      'file              tasks  invalid   errors    cases   failed no cases',
      'data/a.vtask          7        1        1        0        0        7',
      'data/b.vtask          5        0        0        0        0        5',
      '',
      'models: no runs in the cache (vtask run records them)',
      '',
      'duplicates: 4 pairs',
      "  data/a.vtask:5: 'sum' ~ data/a.vtask:7: 'sum-copy' (same prompt)",
      "  data/a.vtask:5: 'sum' ~ data/b.vtask:5: 'sum-again' (same prompt)",
      "  data/a.vtask:13: 'train' ~ data/b.vtask:7: 'train-words' (similarity 1.00)",
      "  data/a.vtask:5: 'sum' ~ data/a.vtask:9: 'sum-reworded' (similarity 0.90)",
      'contamination: 2 overlaps with the benchmark',
      '  data/a.vtask:13: \'train\' ~ bench.jsonl:2: "A train leaves the station at 9 and travels at 60 miles per hour for 3 hours. H…"',
      '  data/b.vtask:7: \'train-words\' ~ bench.jsonl:2: "A train leaves the station at 9 and travels at 60 miles per hour for"',
      '',
    ].join('\n'),
  );
});

test('a cache folder where nothing can be remembered: the prompts are read again from the files, with the same findings', () => {
  // `stats` is a file there, so no summary is written: a parsed file's prompts are not in memory either.
  const cache = fs.mkdtempSync(path.join(DIR, 'cache-'));
  fs.writeFileSync(path.join(cache, 'stats'), '');
  const unremembered = statsWith(cache);
  assert.equal(unremembered, stats());
  assert.match(unremembered, /^duplicates: 4 pairs$/m);
  assert.match(unremembered, /^contamination: 2 overlaps with the benchmark$/m);
  assert.equal(fs.statSync(path.join(cache, 'stats')).isFile(), true);
});

test('--json: the same duplicates, similarities and overlaps', () => {
  const out = JSON.parse(stats('--json', '--no-tasks')) as { duplicates: unknown; contamination: unknown };
  assert.deepEqual(out.duplicates, [
    {
      a: { file: 'data/a.vtask', task: 'sum', line: 4 },
      b: { file: 'data/a.vtask', task: 'sum-copy', line: 6 },
      similarity: 1,
      exact: true,
    },
    {
      a: { file: 'data/a.vtask', task: 'sum', line: 4 },
      b: { file: 'data/b.vtask', task: 'sum-again', line: 4 },
      similarity: 1,
      exact: true,
    },
    {
      a: { file: 'data/a.vtask', task: 'train', line: 12 },
      b: { file: 'data/b.vtask', task: 'train-words', line: 6 },
      similarity: 1,
      exact: false,
    },
    {
      a: { file: 'data/a.vtask', task: 'sum', line: 4 },
      b: { file: 'data/a.vtask', task: 'sum-reworded', line: 8 },
      similarity: 0.8974358974358975,
      exact: false,
    },
  ]);
  assert.deepEqual(out.contamination, [
    {
      file: 'data/a.vtask',
      task: 'train',
      line: 12,
      benchmark_row: 1,
      overlap: 'A train leaves the station at 9 and travels at 60 miles per hour for 3 hours. How far',
      benchmark: 'bench.jsonl',
    },
    {
      file: 'data/b.vtask',
      task: 'train-words',
      line: 6,
      benchmark_row: 1,
      overlap: 'A train leaves the station at 9 and travels at 60 miles per hour for',
      benchmark: 'bench.jsonl',
    },
  ]);
});

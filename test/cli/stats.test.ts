// `vtask stats` end to end: the real CLI process, runs of two models recorded by `vtask run`
// against the project's OpenAI-compatible server, the JSON keys of the spec, the text summary
// with both places of a duplicate, the HTML report, --fail-on and usage errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { RACY_MS } from '../../src/core/overview/dataset/statIndex';
import { CLI, runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

// model-a solves `easy` always and `mid` half the time; model-b fails everything until `better`.
let better = false;
const server = new OpenAIServer({
  models: ['model-a', 'model-b'],
  answer: (ctx) => {
    const right = ctx.prompt.includes('72') ? '\\boxed{72}' : '\\boxed{9}';
    if (ctx.body.model === 'model-a') return ctx.prompt.includes('easy') || ctx.index % 2 === 0 ? right : '\\boxed{0}';
    return better && ctx.index % 2 === 0 ? right : '\\boxed{0}';
  },
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-cli-'));
const cacheDir = path.join(dir, 'cache');
const data = path.join(dir, 'data');

const TASKS = `vtask: 1
defaults:
  samples: 4
tasks:
  - id: easy
    prompt: An easy one, answer 72. Natalia sold 48 clips in April and then half as many in May, how many in all?
    verify:
      math: { answer: "72" }
    cases:
      - { response: "\\\\boxed{72}", expect: pass }
  - id: mid
    prompt: What is 4 + 5?
    verify:
      math: { answer: "9" }
`;
const MORE = `vtask: 1
tasks:
  - id: copy
    prompt: An easy one, answer 72. Natalia sold 48 clips in April and then half as many in May, how many in all?
    verify:
      match: { answer: "72" }
  - id: bad
    prompt: No verifier here.
`;

before(async () => {
  await server.listen();
  fs.mkdirSync(data, { recursive: true });
  fs.writeFileSync(path.join(data, 'one.vtask'), TASKS);
  fs.writeFileSync(path.join(data, 'two.vtask'), MORE);
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const vtask = (args: string[]) => runCliProcess(args, {}, 60_000);
const stats = (...args: string[]) => vtask(['stats', data, '--cache-dir', cacheDir, ...args]);

/** Samples `one.vtask` with `model` through `vtask run`, which records the run in the run log. */
async function run(model: string, ...extra: string[]): Promise<void> {
  const r = await vtask([
    'run',
    path.join(data, 'one.vtask'),
    '--base-url',
    server.url,
    '--model',
    model,
    '--cache-dir',
    cacheDir,
    ...extra,
  ]);
  assert.equal(r.code, 0, r.stderr);
}

interface Json {
  files: number;
  tasks: number;
  per_file: {
    file: string;
    tasks: number;
    kinds: Record<string, number>;
    cases: Record<string, number>;
    errors: number;
  }[];
  models: Record<
    string,
    {
      tasks: number;
      samples: number;
      histogram: { from: number; to: number; tasks: number }[];
      bands: Record<string, number>;
      changed: { task: string; from: string; to: string }[];
      tokens?: { prompt: number; completion: number };
      cost?: number;
    }
  >;
  results?: { task: string; model: string; pass_rate: number }[];
  comparisons?: { a: string; b: string; tasks: number; separating: { task: string }[]; points?: unknown }[];
  duplicates: { a: { file: string; task: string }; b: { file: string; task: string }; similarity: number }[];
  contamination: { file: string; task: string; benchmark_row: number; overlap: string }[];
}

test('runs of two models from vtask run: the spec keys, bands, histogram, comparison and changed bands', async () => {
  await run('model-a');
  await run('model-b');
  const before = server.samplingRequests.length;
  const r = await stats('--json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.samplingRequests.length, before, 'stats asks no model');
  const s = JSON.parse(r.stdout) as Json;
  for (const key of ['files', 'tasks', 'per_file', 'models', 'duplicates', 'contamination']) assert.ok(key in s, key);
  assert.equal(s.files, 2);
  assert.equal(s.tasks, 4);
  assert.deepEqual(
    s.per_file.map((f) => [path.basename(f.file), f.tasks]),
    [
      ['one.vtask', 2],
      ['two.vtask', 2],
    ],
  );
  assert.deepEqual(s.per_file[0]?.cases, { total: 1, passed: 1, failed: 0, skipped: 0 });
  assert.ok((s.per_file[1]?.errors ?? 0) >= 1);
  const a = s.models['model-a']!;
  const b = s.models['model-b']!;
  assert.deepEqual([a.tasks, a.samples, b.tasks, b.samples], [2, 8, 2, 8]);
  assert.deepEqual(a.bands, { too_easy: 1, learnable: 1, too_hard: 0, error: 0 });
  assert.deepEqual(b.bands, { too_easy: 0, learnable: 0, too_hard: 2, error: 0 });
  assert.deepEqual(
    a.histogram.map((h) => h.tasks),
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 1],
  );
  // The server counts words: 22 and 5 of prompt, one of answer, for each of 4 samples.
  assert.deepEqual(
    [a.tokens, a.cost],
    [{ prompt: 108, completion: 8 }, undefined],
    'tokens from the run log; no price, no cost',
  );
  assert.equal(s.results?.length, 4);
  assert.deepEqual(
    s.comparisons?.map((c) => [c.a, c.b, c.tasks, c.separating[0]?.task, c.points]),
    [['model-a', 'model-b', 2, 'easy', undefined]],
  );
  assert.equal(s.duplicates.length, 1);
  assert.deepEqual([s.duplicates[0]?.a.task, s.duplicates[0]?.b.task], ['easy', 'copy']);
  assert.ok(s.duplicates[0]!.similarity >= 0.8);

  // model-b gets better: its new run moves `mid` (and `easy`) out of too_hard.
  better = true;
  await run('model-b', '--fresh');
  const after = JSON.parse((await stats('--json', '--model', 'model-b', '--no-tasks')).stdout) as Json;
  assert.deepEqual(Object.keys(after.models), ['model-b']);
  assert.equal(after.results, undefined);
  assert.deepEqual(
    after.models['model-b']?.changed.map((c) => [c.task, c.from, c.to]),
    [
      ['easy', 'too_hard', 'learnable'],
      ['mid', 'too_hard', 'learnable'],
    ],
  );
});

test('the text summary: totals, per model bands and histogram, both places of a duplicate and of an overlap', async () => {
  const bench = path.join(dir, 'bench.jsonl');
  fs.writeFileSync(
    bench,
    `${JSON.stringify({ prompt: 'Unrelated text about rivers and lakes.' })}\n${JSON.stringify({ prompt: 'Natalia sold 48 clips in April and then half as many in May, how many in all? Show work.' })}\n`,
  );
  // Run from the temporary folder, so paths print relative to it.
  const r = spawnSync(
    process.execPath,
    [CLI, 'stats', 'data', '--cache-dir', 'cache', '--contamination', 'bench.jsonl'],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /^2 files, 4 tasks \(1 invalid\), \d+ validation errors?$/m);
  assert.match(out, /^kinds: math 2, match 1$/m);
  assert.match(out, /^cases: 1 \(1 passed, 0 failed, 0 skipped\); 3 tasks without cases$/m);
  assert.match(out, /^model model-a: 2 tasks, 8 samples, GRPO signal .*; 108 prompt \+ 8 completion tokens$/m);
  assert.match(out, /^ {2}too_easy {10}1 █+$/m);
  assert.match(out, /^ {2}0\.9–1\.0 {8}1 █+$/m);
  assert.match(out, /^model-a vs model-b: 2 tasks run by both/m);
  assert.match(out, /^ {2}data\/one\.vtask:5: 'easy' ~ data\/two\.vtask:3: 'copy'/m);
  assert.match(out, /^contamination: 2 overlaps with the benchmark$/m);
  assert.match(out, /^ {2}data\/one\.vtask:5: 'easy' ~ bench\.jsonl:2: "/m);
});

test('--html writes a self-contained report; --fail-on exits 1 when something is found', async () => {
  const html = path.join(dir, 'report.html');
  const r = await stats('--html', html);
  assert.equal(r.code, 0, r.stderr);
  const page = fs.readFileSync(html, 'utf8');
  assert.match(page, /^<!doctype html>/);
  assert.match(page, /Content-Security-Policy/);
  assert.match(page, /model-a against model-b/);
  assert.match(page, /108 prompt \+ 8 completion tokens/, "the report says each model's tokens");
  assert.match(r.stdout, /^report: .*report\.html$/m);
  assert.equal((await stats('--fail-on', 'duplicates')).code, 1);
  assert.equal(
    (await vtask(['stats', path.join(data, 'one.vtask'), '--cache-dir', cacheDir, '--fail-on', 'duplicates'])).code,
    0,
    'no duplicate in one file',
  );
  const clean = path.join(dir, 'clean.jsonl');
  fs.writeFileSync(clean, `${JSON.stringify({ prompt: 'Nothing in common with the tasks at all.' })}\n`);
  assert.equal((await stats('--contamination', clean, '--fail-on', 'contamination')).code, 0);
  assert.equal(
    (await stats('--contamination', path.join(dir, 'bench.jsonl'), '--fail-on', 'contamination,duplicates')).code,
    1,
  );
});

test('--ngram sets how long a shared span makes an overlap; remembered results follow it', async () => {
  // Shares 9 words in a row with the task `easy` ("natalia sold 48 clips in april and then half"), no more.
  const bench = path.join(dir, 'short-span.jsonl');
  fs.writeFileSync(
    bench,
    `${JSON.stringify({ question: 'Natalia sold 48 clips in April and then half of them again to friends?' })}\n`,
  );
  const hits = async (...extra: string[]): Promise<string[]> => {
    const r = await stats('--contamination', bench, '--json', '--no-tasks', ...extra);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as Json).contamination.map((c) => c.task).sort();
  };
  assert.deepEqual(await hits(), [], 'no 13-word span');
  assert.deepEqual(await hits('--ngram', '8'), ['copy', 'easy']);
  assert.deepEqual(await hits('--ngram', '10'), [], 'the span is 9 words');
  assert.deepEqual(await hits('--ngram', '8'), ['copy', 'easy'], 'remembered per n');
});

test('a file with a problem is read, and the problem reported, at every run', async () => {
  const folder = path.join(dir, 'latin1');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(
    path.join(folder, 'cafe.vtask'),
    Buffer.from(
      'vtask: 1\ntasks:\n  - id: t\n    prompt: Caf\xe9 au lait?\n    verify: { match: { answer: oui } }\n',
      'latin1',
    ),
  );
  fs.writeFileSync(path.join(folder, 'ok.vtask'), TASKS);
  // Unchanged for long enough that the stat index would trust them.
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
  for (const time of ['first', 'second', 'third']) {
    const r = await vtask(['stats', folder, '--cache-dir', path.join(dir, 'latin1-cache'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /cafe\.vtask:4:\d+: error: invalid UTF-8 \(byte 0xe9\)/, time);
    assert.equal((JSON.parse(r.stdout) as Json).tasks, 3);
  }
});

test('usage errors exit 2 and say what is wrong', async () => {
  const cases: [string[], RegExp][] = [
    [['stats'], /give at least one file or folder/],
    [['stats', data, '--fail-on', 'typos'], /--fail-on takes duplicates, contamination/],
    [['stats', data, '--duplicate-threshold', '2'], /--duplicate-threshold takes a similarity from 0 to 1/],
    [['stats', data, '--jsn'], /unknown option '--jsn' \(did you mean '--json'\?\)/],
    [['stats', data, '--ngram', '2'], /--ngram takes an integer from 4 to 100/],
    [['stats', data, '--fail-on', 'contamination'], /needs a benchmark/],
    [['stats', data, '--contamination', path.join(dir, 'nope.jsonl')], /no such file/],
    [['stats', data, '--html', path.join(dir, 'no-such-folder', 'r.html')], /does not exist/],
  ];
  for (const [args, message] of cases) {
    const r = await vtask(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
  }
});

// `vtask diff` over datasets of rows, end to end: a JSONL file (open-instruct) and a Parquet file
// (verl) written by `vtask export`, run by the real CLI against the project's OpenAI-compatible
// server with two models, then compared by model, by date, and at a git revision of the rows
// (the verifier is in the row) against the rows as they are now.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { DatasetDiff } from '../../src/core/overview/runlog/diff';
import { appendRunRecords, readRunLog } from '../../src/core/overview/runlog/runLog';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { gitIn } from '../support/git';

// `model-a` answers 72, `model-b` 71: right and wrong for `clips`; `pens` wants the bare answer, which neither gives.
const server = new OpenAIServer({
  models: ['model-a', 'model-b'],
  answer: (ctx) => (ctx.body.model === 'model-a' ? 'So \\boxed{72}.' : 'I get \\boxed{71}.'),
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-diff-rows-'));
const cacheDir = path.join(dir, '.vtask-cache');
const source = path.join(dir, 'src', 'tasks.vtask');
const jsonl = path.join(dir, 'data', 'rows.jsonl');
const parquet = path.join(dir, 'data', 'rows.parquet');
/** Samples of a row's run: a row names no sample count, so each task has the default. */
const SAMPLES = 8;
const TASKS = (answer: string): string => `vtask: 1
tasks:
  - id: clips
    prompt: How many clips?
    samples: 4
    verify: { math: { answer: "${answer}" } }
  - id: pens
    prompt: How many pens?
    samples: 2
    verify: { match: { answer: "72" } }
`;

const git = gitIn(dir);

/** The task file as rows: open-instruct JSONL and verl Parquet, as `vtask export` writes them. */
async function exportRows(answer: string): Promise<void> {
  fs.writeFileSync(source, TASKS(answer));
  for (const [format, out] of [
    ['open-instruct', jsonl],
    ['verl', parquet],
  ] as const) {
    const r = await runCliProcess(['export', source, '--format', format, '--out', out], {}, 60_000);
    assert.equal(r.code, 0, r.stderr);
  }
}

before(async () => {
  await server.listen();
  fs.mkdirSync(path.dirname(source), { recursive: true });
  fs.mkdirSync(path.dirname(jsonl), { recursive: true });
  git('init', '-q');
  await exportRows('72');
  for (const model of ['model-a', 'model-b']) {
    const r = await runCliProcess(
      ['run', jsonl, parquet, '--base-url', server.url, '--model', model, '--cache-dir', cacheDir],
      {},
      60_000,
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
  }
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const diff = (...args: string[]) => runCliProcess(['diff', ...args, '--cache-dir', cacheDir], {}, 60_000);
const flips = (d: DatasetDiff) => d.band_flips.map((f) => [path.basename(f.file), f.task, f.kind, f.from, f.to]);

test('`vtask run` runs the rows of a JSONL and a Parquet dataset, each row a task, into the run log', async () => {
  // JSON lines in no known format, named on the command line: an error with where, and no run.
  const bench = path.join(dir, 'bench.jsonl');
  fs.writeFileSync(bench, '{"prompt": "What is the capital of France?"}\n');
  const refused = await runCliProcess(['run', bench, '--cache-dir', cacheDir], {}, 60_000);
  fs.rmSync(bench);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /bench\.jsonl:1:1: error: not a dataset vtask knows: its columns are none of/);

  const runs = [...readRunLog(cacheDir).values()].map((e) => [
    e.latest.file,
    e.latest.task,
    e.latest.model,
    e.latest.band,
  ]);
  assert.deepEqual(
    runs.sort(),
    [
      ['data/rows.jsonl', 'clips', 'model-a', 'too_easy'],
      ['data/rows.jsonl', 'clips', 'model-b', 'too_hard'],
      ['data/rows.jsonl', 'pens', 'model-a', 'too_hard'],
      ['data/rows.jsonl', 'pens', 'model-b', 'too_hard'],
      ['data/rows.parquet', 'clips', 'model-a', 'too_easy'],
      ['data/rows.parquet', 'clips', 'model-b', 'too_hard'],
      ['data/rows.parquet', 'pens', 'model-a', 'too_hard'],
      ['data/rows.parquet', 'pens', 'model-b', 'too_hard'],
    ].sort(),
  );
});

test('two models over JSONL and Parquet rows: the rows whose band flipped, per kind', async () => {
  const r = await diff('model:model-a', 'model:model-b', jsonl, parquet, '--json');
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout) as DatasetDiff;
  assert.deepEqual([d.tasks, d.only_a, d.only_b, d.flips], [4, 0, 0, 2]);
  assert.deepEqual(flips(d), [
    ['rows.jsonl', 'clips', 'math', 'too_easy', 'too_hard'],
    ['rows.parquet', 'clips', 'math', 'too_easy', 'too_hard'],
  ]);
  assert.deepEqual(d.kinds, {
    math: { tasks: 2, band_flips: 2, sample_flips: 0 },
    match: { tasks: 2, band_flips: 0, sample_flips: 0 },
  });
  // A folder holds the datasets too (its task file has no runs); other JSON lines are left out.
  fs.writeFileSync(path.join(dir, 'data', 'bench.jsonl'), '{"prompt": "What is the capital of France?"}\n');
  const folder = JSON.parse(
    (await diff('model:model-a', 'model:model-b', path.join(dir, 'data'), '--json')).stdout,
  ) as DatasetDiff;
  assert.deepEqual(flips(folder), flips(d));
  fs.rmSync(path.join(dir, 'data', 'bench.jsonl'));
});

test('one model at two dates over JSONL rows', async () => {
  const latest = [...readRunLog(cacheDir).values()].find(
    (e) => e.latest.model === 'model-a' && e.latest.task === 'clips' && e.latest.file === 'data/rows.jsonl',
  )?.latest;
  assert.ok(latest);
  // An earlier run of the row `clips` by model-a, on 1 January, that failed it.
  appendRunRecords(cacheDir, [
    { ...latest, at: '2026-01-01T12:00:00.000Z', passed: 0, pass_rate: 0, band: 'too_hard' },
  ]);
  const d = JSON.parse(
    (await diff('model:model-a@2026-01-01', 'model:model-a', jsonl, '--json')).stdout,
  ) as DatasetDiff;
  assert.deepEqual([d.tasks, d.only_a, d.only_b], [1, 0, 1], 'on 1 January model-a had run clips only');
  assert.deepEqual(flips(d), [['rows.jsonl', 'clips', 'math', 'too_hard', 'too_easy']]);
});

test('--rev: the cached samples verified by the rows at a git revision and as they are now', async () => {
  git('add', 'data/rows.jsonl', 'data/rows.parquet');
  git('commit', '-qm', 'rows');
  // The rows now want 71: model-a's samples fail, without a request.
  await exportRows('71');
  const asked = server.samplingRequests.length;
  const r = await diff('--rev', 'HEAD', jsonl, parquet, '--model', 'model-a', '--base-url', server.url, '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.samplingRequests.length, asked, 'no request');
  const d = JSON.parse(r.stdout) as DatasetDiff;
  assert.deepEqual([d.a, d.b, d.unread], ['HEAD', 'working tree', undefined]);
  assert.deepEqual(
    d.sample_flips.map((f) => [path.basename(f.file), f.task, f.sample, f.from, f.to]),
    ['rows.jsonl', 'rows.parquet'].flatMap((file) =>
      Array.from({ length: SAMPLES }, (_, i) => [file, 'clips', i, 'pass', 'fail']),
    ),
    "every cached sample of clips flips, in both files; pens' verifier did not change",
  );
  assert.deepEqual(flips(d), [
    ['rows.jsonl', 'clips', 'math', 'too_easy', 'too_hard'],
    ['rows.parquet', 'clips', 'math', 'too_easy', 'too_hard'],
  ]);
  // A dataset the revision does not have is said to be missing there.
  const extra = path.join(dir, 'data', 'new.jsonl');
  fs.copyFileSync(jsonl, extra);
  const missing = JSON.parse(
    (await diff('--rev', 'HEAD', extra, '--model', 'model-a', '--base-url', server.url, '--json')).stdout,
  ) as DatasetDiff;
  assert.deepEqual(missing.unread, [{ side: 'a', file: extra, reason: 'not at HEAD' }]);
  fs.rmSync(extra);
});

// `vtask run --model A --model B`: every task with each model, against the project's
// OpenAI-compatible server where the two models answer differently; the output grouped per
// model, the JSON with one entry per task and model, the run log on disk, and a second run that
// asks nothing but is still logged.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import type { RunRecord } from '../../src/core/overview/runlog/runLog';

// `model-a` always answers 72 (right), `model-b` always 71 (wrong).
const server = new OpenAIServer({
  models: ['model-a', 'model-b'],
  answer: (ctx) => (ctx.body.model === 'model-a' ? 'So \\boxed{72}.' : 'I get \\boxed{71}.'),
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-run-models-'));
const cacheDir = path.join(dir, '.vtask-cache');
const file = path.join(dir, 'data', 'clips.vtask');

before(async () => {
  await server.listen();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `vtask: 1
models:
  good: { base_url: "${server.url}", model: model-a, price: { prompt: 1000, completion: 2000 } }
  bad: { base_url: "${server.url}", model: model-b }
tasks:
  - id: clips
    prompt: How many clips?
    samples: 4
    verify: { math: { answer: "72" } }
  - id: pens
    prompt: How many pens?
    samples: 2
    verify: { math: { answer: "72" } }
`,
  );
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface TaskJson {
  file: string;
  task: string;
  model: string;
  profile: string;
  pass_rate: number;
  band: string | null;
  samples: { cached: boolean }[];
  error?: string;
  tokens?: { prompt: number; completion: number };
  cost?: number;
}

async function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliProcess(['run', file, '--cache-dir', cacheDir, ...args], {}, 60_000);
}

function records(): RunRecord[] {
  return fs
    .readFileSync(path.join(cacheDir, 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunRecord);
}

const summary = (tasks: TaskJson[]): string[][] =>
  tasks.map((t) => [t.model, t.task, String(t.pass_rate), String(t.band)]);

test('each --model runs every task; the JSON has one entry per task and model; each run is logged', async () => {
  const before = server.samplingRequests.length;
  const r = await run('--base-url', server.url, '--model', 'model-a', '--model', 'model-b', '--json');
  assert.equal(r.code, 0, r.stderr);
  const tasks = (JSON.parse(r.stdout) as { tasks: TaskJson[] }).tasks;
  assert.deepEqual(summary(tasks), [
    ['model-a', 'clips', '1', 'too_easy'],
    ['model-a', 'pens', '1', 'too_easy'],
    ['model-b', 'clips', '0', 'too_hard'],
    ['model-b', 'pens', '0', 'too_hard'],
  ]);
  assert.equal(tasks[0]!.profile, '--base-url (model-a)');
  assert.ok(tasks.every((t) => t.samples.every((s) => !s.cached)));
  const asked = server.samplingRequests.slice(before).map((q) => (q.body as { model: string }).model);
  assert.deepEqual(asked.sort(), ['model-a', 'model-a', 'model-b', 'model-b'], 'one request per task and model');

  const logged = records();
  assert.deepEqual(
    logged.map((x) => [x.file, x.task, x.model, x.samples, x.passed, x.pass_rate, x.band]),
    [
      ['data/clips.vtask', 'clips', 'model-a', 4, 4, 1, 'too_easy'],
      ['data/clips.vtask', 'pens', 'model-a', 2, 2, 1, 'too_easy'],
      ['data/clips.vtask', 'clips', 'model-b', 4, 0, 0, 'too_hard'],
      ['data/clips.vtask', 'pens', 'model-b', 2, 0, 0, 'too_hard'],
    ],
  );
  for (const x of logged) {
    assert.match(x.key, /^[0-9a-f]{40}$/);
    assert.ok(Math.abs(Date.now() - Date.parse(x.at)) < 120_000, x.at);
  }
  // The server counts words: 3 of prompt per sample, 2 (model-a) or 3 (model-b) of answer.
  assert.deepEqual(
    logged.map((x) => [x.tokens?.prompt, x.tokens?.completion, x.cost]),
    [
      [12, 8, undefined],
      [6, 4, undefined],
      [12, 12, undefined],
      [6, 6, undefined],
    ],
    'tokens from the usage of each sample; no cost without a price',
  );
  assert.deepEqual(tasks[0]!.tokens, { prompt: 12, completion: 8 });
  assert.notEqual(logged[0]!.key, logged[1]!.key, 'each task has its own run key');
  assert.equal(logged[0]!.key, logged[2]!.key, 'one task, one run key, whatever the model');
});

test('a second identical run asks nothing and is logged again', async () => {
  const before = server.samplingRequests.length;
  const logged = records().length;
  const r = await run('--base-url', server.url, '--model', 'model-a', '--model', 'model-b', '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.samplingRequests.length, before, 'no request');
  const tasks = (JSON.parse(r.stdout) as { tasks: TaskJson[] }).tasks;
  assert.ok(tasks.every((t) => t.samples.every((s) => s.cached)));
  assert.deepEqual(
    summary(tasks).map((x) => x[2]),
    ['1', '1', '0', '0'],
    'each model keeps its own samples',
  );
  const now = records();
  assert.equal(now.length, logged + 4);
  assert.deepEqual(
    now.slice(logged).map((x) => [x.task, x.model]),
    [
      ['clips', 'model-a'],
      ['pens', 'model-a'],
      ['clips', 'model-b'],
      ['pens', 'model-b'],
    ],
  );
});

test('the human output is one table per model, named; profiles under models: are labelled by name', async () => {
  const r = await run('--model', 'good', '--model', 'bad');
  assert.equal(r.code, 0, r.stderr);
  const groups = r.stdout.split(/\n\n/);
  assert.equal(groups.length, 2, r.stdout);
  assert.match(groups[0]!, /^model good\ntask\s+pass\s+pass@1/);
  assert.match(groups[0]!, /^clips\s+4\/4\s+1\.00/m);
  assert.match(
    groups[0]!,
    /^2 tasks, 6 samples \(6 from the cache, 0 requests\)\n18 prompt \+ 12 completion tokens, \$0\.04$/m,
    'the cached samples keep their usage; the price gives a cost',
  );
  assert.match(groups[1]!, /^18 prompt \+ 18 completion tokens$/m, 'no price, no cost');
  assert.match(groups[1]!, /^model bad\ntask/);
  assert.match(groups[1]!, /^clips\s+0\/4\s+0\.00/m);
  // The named profiles share the samples of the same endpoint and model, and log under their names.
  assert.deepEqual(
    records()
      .slice(-4)
      .map((x) => [x.task, x.model, x.pass_rate, x.cost]),
    [
      ['clips', 'good', 1, 0.028],
      ['pens', 'good', 1, 0.014],
      ['clips', 'bad', 0, undefined],
      ['pens', 'bad', 0, undefined],
    ],
  );
});

test('a model whose runs fail is logged with band error; the other model is still run and logged', async () => {
  const logged = records().length;
  const r = await run('--base-url', server.url, '--model', 'model-c', '--model', 'model-a', '--json');
  assert.equal(r.code, 1);
  const tasks = (JSON.parse(r.stdout) as { tasks: TaskJson[] }).tasks;
  assert.deepEqual(
    tasks.map((t) => [t.model, t.task, t.band]),
    [
      ['model-c', 'clips', 'error'],
      ['model-c', 'pens', 'error'],
      ['model-a', 'clips', 'too_easy'],
      ['model-a', 'pens', 'too_easy'],
    ],
  );
  assert.match(tasks[0]!.error ?? '', /model-c/);
  assert.deepEqual(
    records()
      .slice(logged)
      .map((x) => [x.task, x.model, x.band]),
    [
      ['clips', 'model-c', 'error'],
      ['pens', 'model-c', 'error'],
      ['clips', 'model-a', 'too_easy'],
      ['pens', 'model-a', 'too_easy'],
    ],
  );
});

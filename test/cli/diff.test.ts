// `vtask diff` end to end: the real CLI process, runs of two models recorded by `vtask run`
// against the project's OpenAI-compatible server, compared by model and by date, the exit code
// past --max-flips; and the cached samples verified again by the task file at a git revision.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { appendRunRecords, readRunLog } from '../../src/core/overview/runlog/runLog';
import type { DatasetDiff } from '../../src/core/overview/runlog/diff';
import { runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { gitIn } from '../support/git';

// `model-a` answers 72, `model-b` 71: right and wrong for `clips`; `pens` wants the bare answer, which neither gives.
const server = new OpenAIServer({
  models: ['model-a', 'model-b'],
  answer: (ctx) => (ctx.body.model === 'model-a' ? 'So \\boxed{72}.' : 'I get \\boxed{71}.'),
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-diff-'));
const cacheDir = path.join(dir, '.vtask-cache');
const file = path.join(dir, 'data', 'clips.vtask');
const TASKS = (answer: string): string => `vtask: 1
models:
  good: { base_url: "${server.url}", model: model-a }
  bad: { base_url: "${server.url}", model: model-b }
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

before(async () => {
  await server.listen();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, TASKS('72'));
  for (const model of ['good', 'bad']) {
    const r = await runCliProcess(['run', file, '--model', model, '--cache-dir', cacheDir], {}, 60_000);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
  }
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const diff = (...args: string[]) => runCliProcess(['diff', ...args, '--cache-dir', cacheDir], {}, 60_000);

test('two models from the run log: the tasks whose band flipped, per kind; --max-flips sets the exit code', async () => {
  const r = await diff('model:good', 'model:bad', file, '--json');
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout) as DatasetDiff;
  assert.deepEqual([d.a, d.b, d.tasks, d.only_a, d.only_b, d.flips], ['model:good', 'model:bad', 2, 0, 0, 1]);
  assert.deepEqual(
    d.band_flips.map((f) => [path.basename(f.file), f.task, f.kind, f.from, f.to]),
    [['clips.vtask', 'clips', 'math', 'too_easy', 'too_hard']],
  );
  assert.deepEqual(d.sample_flips, [], 'two models have no samples in common');
  assert.deepEqual(d.kinds, {
    math: { tasks: 1, band_flips: 1, sample_flips: 0 },
    match: { tasks: 1, band_flips: 0, sample_flips: 0 },
  });
  assert.equal((await diff('model:good', 'model:bad', file, '--max-flips', '0')).code, 1, 'one flip exceeds none');
  assert.equal((await diff('model:good', 'model:bad', file, '--max-flips', '1')).code, 0);
  const text = await diff('model:good', 'model:good', file);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^2 tasks compared$/m);
  assert.match(text.stdout, /^0 tasks flipped$/m);
  const human = await diff('model:good', 'bad', file);
  assert.match(human.stdout, /^ {2}.*clips\.vtask: 'clips' too_easy → too_hard \(1\.00 → 0\.00\)$/m);
  assert.match(human.stdout, /^per kind: match 1 \(0 band, 0 sample flips\), math 1 \(1 band, 0 sample flips\)$/m);
});

test('one model at two dates: model:NAME@DATE is its latest run up to that day', async () => {
  const latest = [...readRunLog(cacheDir).values()].find(
    (e) => e.latest.model === 'good' && e.latest.task === 'clips',
  )!.latest;
  // An earlier run of `clips` by good, on 1 January, that failed it.
  appendRunRecords(cacheDir, [
    { ...latest, at: '2026-01-01T12:00:00.000Z', passed: 0, pass_rate: 0, band: 'too_hard' },
  ]);
  const d = JSON.parse((await diff('model:good@2026-01-01', 'model:good', file, '--json')).stdout) as DatasetDiff;
  assert.deepEqual([d.tasks, d.only_a, d.only_b], [1, 0, 1], 'on 1 January good had run clips only');
  assert.deepEqual(
    d.band_flips.map((f) => [f.task, f.from, f.to]),
    [['clips', 'too_hard', 'too_easy']],
  );
  const bad = await diff('model:good@someday', 'model:good', file);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a date/);
});

test('--rev: the cached samples verified by the task file at a revision and as it is now', async () => {
  git('init', '-q');
  git('add', 'data/clips.vtask');
  git('commit', '-qm', 'tasks');
  // The verifier now wants 71: model-a's samples fail and model-b's pass, without a request.
  fs.writeFileSync(file, TASKS('71'));
  const asked = server.samplingRequests.length;
  const r = await diff('--rev', 'HEAD', file, '--model', 'good', '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.samplingRequests.length, asked, 'no request');
  const d = JSON.parse(r.stdout) as DatasetDiff;
  assert.deepEqual([d.a, d.b], ['HEAD', 'working tree']);
  assert.deepEqual(
    d.sample_flips.map((f) => [f.task, f.kind, f.sample, f.from, f.to]),
    [0, 1, 2, 3].map((i) => ['clips', 'math', i, 'pass', 'fail']),
    "every cached sample of clips flips; pens' verifier did not change",
  );
  assert.deepEqual(
    d.band_flips.map((f) => [f.task, f.from, f.to]),
    [['clips', 'too_easy', 'too_hard']],
  );
  assert.equal(d.kinds.match?.sample_flips, 0);
  assert.equal((await diff('--rev', 'HEAD', file, '--model', 'good', '--max-flips', '0')).code, 1, 'a flip fails CI');
  const sides = await diff('git:HEAD', 'worktree', file, '--model', 'good', '--json');
  assert.equal(sides.code, 0, sides.stderr);
  assert.deepEqual(JSON.parse(sides.stdout), d, 'git:HEAD worktree is --rev HEAD');
  const text = await diff('git:HEAD', 'worktree', file, '--model', 'good');
  assert.match(text.stdout, /^A: HEAD · B: working tree$/m);
  assert.match(text.stdout, /^ {2}.*clips\.vtask: 'clips' sample 0: pass → fail$/m);
  const missing = await diff('--rev', 'no-such-rev', file, '--model', 'good');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /git revision no-such-rev/);
});

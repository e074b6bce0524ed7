// Dataset statistics (`vtask stats`, the dashboard): counts of fixture files with known contents,
// cases run and remembered, per-model results from a run log written as `vtask run` writes it,
// stale runs, changed bands, the comparison of two models and the HTML report's escaping.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { collectDatasetStats } from '../../src/core/overview/dataset/collect';
import { compareModels } from '../../src/core/overview/dataset/compare';
import { renderStatsHtml } from '../../src/core/overview/dataset/report';
import { appendRunRecords, type RunRecord } from '../../src/core/overview/runlog/runLog';
import { fileStatsOf, runsInProcess, summariseTaskFile } from '../../src/core/overview/dataset/summary';
import type { TaskModelResult } from '../../src/core/overview/dataset/types';
import { taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { MIN_CHARS_FOR_WORKERS } from '../../src/core/overview/dataset/summaryWorkers';
import { CLI } from '../support/cliProcess';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-dataset-stats-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

// a.vtask: math (2 cases: one passes, one expects the wrong verdict), constraints (no cases),
// code (1 case: not run here, skipped).
const A = `vtask: 1
tasks:
  - id: sum
    prompt: Natalia sold 48 clips in April and half as many in May. How many clips did she sell?
    verify:
      math: { answer: "72" }
    cases:
      - { response: "\\\\boxed{72}", expect: pass }
      - { response: "\\\\boxed{71}", expect: pass }
  - id: sea
    prompt: Describe the sea in under 50 words.
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 50 }
  - id: add
    prompt: Write add(a, b).
    verify:
      code: { language: python, asserts: "assert add(1, 2) == 3" }
    cases:
      - { response: "def add(a, b): return a + b", expect: pass }
`;

// b.vtask: a near copy of a.vtask's first prompt, a weighted composite of in-process kinds
// (1 case, passes) and an invalid task (math without an answer).
const B = `vtask: 1
tasks:
  - id: sum-again
    prompt: Natalia sold 48 clips in April and half as many in May. How many clips did she sell?
    verify:
      match: { answer: "72" }
  - id: shaped
    prompt: Think, then answer.
    verify:
      weighted:
        - { weight: 1, verify: { format: { think: required } } }
        - { weight: 1, verify: { match: { answer: "yes" } } }
    cases:
      - { response: "<think>hm</think>yes", expect: pass }
  - id: broken
    prompt: What is 2 + 2?
    verify:
      math: {}
`;

function workspace(name: string): { dir: string; cacheDir: string; files: string[] } {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  const files = [path.join(dir, 'a.vtask'), path.join(dir, 'b.vtask')];
  fs.writeFileSync(files[0]!, A);
  fs.writeFileSync(files[1]!, B);
  return { dir, cacheDir: path.join(dir, '.vtask-cache'), files };
}

/** The run key `vtask run` records for a task of a file, as it is now. */
function runKey(file: string, task: string): string {
  const parsed = parseTaskFile(fs.readFileSync(file, 'utf8'));
  const entry = parsed.tasks.find((t) => t.id === task);
  assert.ok(entry, task);
  return taskRunKey(parsed, entry);
}

function record(
  file: string,
  task: string,
  model: string,
  passed: number,
  samples: number,
  band: RunRecord['band'],
  o: { key?: string; at?: string; signal?: number } = {},
): RunRecord {
  return {
    file,
    task,
    model,
    key: o.key ?? runKey(path.join(root, 'runs', file), task),
    at: o.at ?? '2026-01-02T00:00:00.000Z',
    samples,
    passed,
    pass_rate: passed / samples,
    band,
    signal_share: o.signal ?? 0,
  };
}

test('counts tasks, kinds, cases and errors per file and in total', async () => {
  const { files } = workspace('counts');
  const s = await collectDatasetStats(files);
  assert.equal(s.files, 2);
  assert.equal(s.tasks, 6);
  const [a, b] = s.per_file;
  assert.deepEqual(
    { ...a, bands: undefined },
    {
      file: files[0],
      tasks: 3,
      invalid_tasks: 0,
      kinds: { math: 1, constraints: 1, code: 1 },
      cases: { total: 3, passed: 1, failed: 1, skipped: 1 },
      tasks_without_cases: 1,
      errors: 0,
      bands: undefined,
    },
  );
  assert.equal(b?.tasks, 3);
  assert.equal(b?.invalid_tasks, 1);
  assert.deepEqual(b?.kinds, { match: 1, weighted: 1 });
  assert.deepEqual(b?.cases, { total: 1, passed: 1, failed: 0, skipped: 0 });
  assert.equal(b?.tasks_without_cases, 2);
  assert.ok((b?.errors ?? 0) >= 1, 'the invalid task is an error of its file');
  assert.deepEqual(s.totals.kinds, { math: 1, constraints: 1, code: 1, match: 1, weighted: 1 });
  assert.deepEqual(s.totals.cases, { total: 4, passed: 2, failed: 1, skipped: 1 });
  assert.equal(s.totals.tasks_without_cases, 3);
  assert.deepEqual(s.models, {});
  // The exact duplicate prompt across the files, with both places (0-based lines).
  assert.equal(s.duplicates.length, 1);
  assert.deepEqual(
    [s.duplicates[0]?.a, s.duplicates[0]?.b],
    [
      { file: files[0], task: 'sum', line: 2 },
      { file: files[1], task: 'sum-again', line: 2 },
    ],
  );
  assert.equal(s.duplicates[0]?.exact, true);
});

test('--no-cases counts cases as skipped; no duplicate search when turned off', async () => {
  const { files } = workspace('nocases');
  const s = await collectDatasetStats(files, { cases: false, duplicates: false });
  assert.deepEqual(s.totals.cases, { total: 4, passed: 0, failed: 0, skipped: 4 });
  assert.deepEqual(s.duplicates, []);
  // The summary remembered without outcomes is read again when cases are wanted.
  const again = await collectDatasetStats(files);
  assert.deepEqual(again.totals.cases, { total: 4, passed: 2, failed: 1, skipped: 1 });
});

test('a file summary is remembered by its text, and an edit is read again', async () => {
  const { files, cacheDir } = workspace('memo');
  await collectDatasetStats(files);
  const dir = fs.readdirSync(path.join(cacheDir, 'stats'));
  assert.equal(dir.length, 1, 'one folder per vtask version');
  const summaries = path.join(cacheDir, 'stats', dir[0]!, 'files');
  assert.equal(fs.readdirSync(summaries).length, 2);
  // A remembered summary is what is reported for an unchanged file: forge one and see it.
  for (const f of fs.readdirSync(summaries)) {
    const p = path.join(summaries, f);
    const [summary, prompts] = fs.readFileSync(p, 'utf8').split('\n');
    const s = JSON.parse(summary!) as { tasks: { id: string; cases: number }[] };
    for (const t of s.tasks) if (t.id === 'sea') t.cases = 7;
    fs.writeFileSync(p, `${JSON.stringify(s)}\n${prompts}\n`);
  }
  assert.equal((await collectDatasetStats(files)).totals.cases.total, 11);
  // Fixing the wrong case changes the text: the file is read and its cases run again.
  fs.writeFileSync(
    files[0]!,
    A.replace('{ response: "\\\\boxed{71}", expect: pass }', '{ response: "\\\\boxed{71}", expect: fail }'),
  );
  const fixed = await collectDatasetStats(files);
  assert.deepEqual(fixed.per_file[0]?.cases, { total: 3, passed: 2, failed: 0, skipped: 1 });
});

test('per model: tasks, samples, histogram, bands, signal, changed bands and stale runs from the run log', async () => {
  const dir = path.join(root, 'runs');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  fs.writeFileSync(path.join(dir, 'a.vtask'), A);
  fs.writeFileSync(path.join(dir, 'b.vtask'), B);
  const cacheDir = path.join(dir, '.vtask-cache');
  // An earlier run of model-a, then the latest: `sum` moved from too_hard to learnable.
  appendRunRecords(cacheDir, [
    record('a.vtask', 'sum', 'model-a', 0, 8, 'too_hard', { at: '2026-01-01T00:00:00.000Z' }),
  ]);
  appendRunRecords(cacheDir, [
    record('a.vtask', 'sum', 'model-a', 4, 8, 'learnable', { signal: 0.9 }),
    record('a.vtask', 'sea', 'model-a', 8, 8, 'too_easy'),
    record('b.vtask', 'sum-again', 'model-a', 8, 8, 'too_easy'),
    record('a.vtask', 'sum', 'model-b', 1, 8, 'learnable', { signal: 0.5 }),
    record('a.vtask', 'sea', 'model-b', 8, 8, 'too_easy'),
    // Recorded before the task changed: stale, left out.
    record('b.vtask', 'sum-again', 'model-b', 0, 8, 'too_hard', { key: 'an older run key' }),
    // A task no file of the dataset has: ignored.
    record('c.vtask', 'gone', 'model-b', 8, 8, 'too_easy', { key: 'x' }),
  ]);
  const files = [path.join(dir, 'a.vtask'), path.join(dir, 'b.vtask')];
  const s = await collectDatasetStats(files);
  assert.deepEqual(Object.keys(s.models), ['model-a', 'model-b']);
  const a = s.models['model-a']!;
  assert.equal(a.tasks, 3);
  assert.equal(a.samples, 24);
  assert.deepEqual(a.bands, { too_easy: 2, learnable: 1, too_hard: 0, error: 0 });
  assert.deepEqual(
    a.histogram.map((h) => h.tasks),
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 2],
  );
  assert.deepEqual([a.histogram[0]?.from, a.histogram[9]?.to], [0, 1]);
  assert.ok(Math.abs(a.signal_share - 0.3) < 1e-9);
  assert.deepEqual(a.changed, [{ file: files[0], task: 'sum', line: 2, from: 'too_hard', to: 'learnable' }]);
  assert.equal(a.stale, 0);
  const b = s.models['model-b']!;
  assert.equal(b.tasks, 2);
  assert.equal(b.stale, 1);
  assert.deepEqual(b.changed, []);
  assert.deepEqual(s.per_file[0]?.bands, {
    'model-a': { too_easy: 1, learnable: 1, too_hard: 0, error: 0 },
    'model-b': { too_easy: 1, learnable: 1, too_hard: 0, error: 0 },
  });
  assert.deepEqual(s.totals.bands['model-a'], { too_easy: 2, learnable: 1, too_hard: 0, error: 0 });
  assert.equal(s.results?.length, 5);
  // Two models: compared over the two tasks both ran.
  const c = s.comparisons?.[0];
  assert.equal(c?.tasks, 2);
  assert.deepEqual(
    c?.separating.map((p) => [p.task, p.a, p.b]),
    [['sum', 0.5, 0.125]],
  );
  assert.deepEqual(
    c?.both_solve.map((r) => r.task),
    ['sea'],
  );
  // --model keeps only the models named (one named with no run still shows, empty).
  const only = await collectDatasetStats(files, { models: ['model-b', 'model-z'] });
  assert.deepEqual(Object.keys(only.models), ['model-b', 'model-z']);
  assert.equal(only.models['model-z']?.tasks, 0);
  assert.equal(only.comparisons?.length, 1);
  // Editing a task's prompt makes its runs stale.
  fs.writeFileSync(files[0]!, A.replace('Describe the sea', 'Describe the ocean'));
  const edited = await collectDatasetStats(files);
  assert.equal(edited.models['model-a']?.tasks, 2);
  assert.equal(edited.models['model-a']?.stale, 1);
});

test('a run of band error is counted under error: not in the histogram, the signal or a comparison', async () => {
  const { cacheDir, files } = workspace('error-runs');
  const key = (file: string, task: string): string => runKey(file, task);
  const rec = (
    task: string,
    model: string,
    passed: number,
    samples: number,
    band: RunRecord['band'],
    signal = 0,
  ): RunRecord => ({
    file: 'a.vtask',
    task,
    model,
    key: key(files[0]!, task),
    at: '2026-01-02T00:00:00.000Z',
    samples,
    passed,
    pass_rate: samples ? passed / samples : 0,
    band,
    signal_share: signal,
  });
  appendRunRecords(cacheDir, [
    rec('sum', 'm', 4, 8, 'learnable', 0.6),
    rec('sea', 'm', 0, 0, 'error'),
    rec('sum', 'n', 8, 8, 'too_easy'),
    rec('sea', 'n', 8, 8, 'too_easy'),
  ]);
  const s = await collectDatasetStats(files, { duplicates: false });
  const m = s.models.m!;
  assert.equal(m.tasks, 2);
  assert.deepEqual(m.bands, { too_easy: 0, learnable: 1, too_hard: 0, error: 1 });
  assert.deepEqual(
    m.histogram.map((h) => h.tasks),
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
    'no quiet 0 in the histogram',
  );
  assert.equal(m.samples, 8);
  assert.ok(Math.abs(m.signal_share - 0.6) < 1e-9, 'the mean signal is over the runs that measured one');
  assert.deepEqual(s.per_file[0]?.bands.m, { too_easy: 0, learnable: 1, too_hard: 0, error: 1 });
  // Compared over `sum` only: `sea` has no pass rate for m.
  assert.equal(s.comparisons?.[0]?.tasks, 1);
  assert.equal(compareModels(s.results ?? [], 'm', 'n').tasks, 1);
  assert.deepEqual(
    s.results?.filter((r) => r.band === 'error').map((r) => [r.task, r.model]),
    [['sea', 'm']],
  );
});

test('the histogram bins a pass rate by the tenth it falls in, never the nearest one', async () => {
  const { cacheDir, files } = workspace('histogram-bins');
  const rec = (task: string, model: string, passed: number): RunRecord => ({
    file: 'a.vtask',
    task,
    model,
    key: runKey(files[0]!, task),
    at: '2026-01-02T00:00:00.000Z',
    samples: 8,
    passed,
    pass_rate: passed / 8,
    band: 'learnable',
    signal_share: 0.5,
  });
  // 3/8 = 0.375 is in [0.3, 0.4) and 7/8 = 0.875 in [0.8, 0.9): rounding would move both up a bin.
  appendRunRecords(cacheDir, [rec('sum', 'm', 3), rec('sea', 'm', 7)]);
  const m = (await collectDatasetStats(files, { duplicates: false })).models.m!;
  assert.deepEqual(
    m.histogram.map((h) => h.tasks),
    [0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
  );
  assert.deepEqual([m.histogram[3]?.from, m.histogram[3]?.to], [0.3, 0.4]);
});

test('files under two cache folders: the runs of each come from its own log', async () => {
  const one = path.join(root, 'two-caches', 'one');
  const two = path.join(root, 'two-caches', 'two');
  for (const dir of [one, two]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  }
  const files = [path.join(one, 'a.vtask'), path.join(two, 'b.vtask')];
  fs.writeFileSync(files[0]!, A);
  fs.writeFileSync(files[1]!, B);
  const keyOf = (file: string, task: string): string => {
    const parsed = parseTaskFile(fs.readFileSync(file, 'utf8'));
    return taskRunKey(
      parsed,
      parsed.tasks.find((t) => t.id === task)!,
    );
  };
  const at = (file: string, task: string, key: string, passed: number): RunRecord => ({
    file,
    task,
    model: 'm',
    key,
    at: '2026-01-01T00:00:00.000Z',
    samples: 4,
    passed,
    pass_rate: passed / 4,
    band: passed === 4 ? 'too_easy' : 'learnable',
    signal_share: 0,
  });
  appendRunRecords(path.join(one, '.vtask-cache'), [at('a.vtask', 'sea', keyOf(files[0]!, 'sea'), 4)]);
  appendRunRecords(path.join(two, '.vtask-cache'), [
    at('b.vtask', 'shaped', keyOf(files[1]!, 'shaped'), 2),
    at('a.vtask', 'sum', keyOf(files[0]!, 'sum'), 2),
  ]);
  const s = await collectDatasetStats(files, { duplicates: false });
  // a.vtask's `sum` is not under the second folder: its run there names another file.
  assert.deepEqual(
    s.results?.map((r) => [r.file, r.task, r.pass_rate]),
    [
      [files[0], 'sea', 1],
      [files[1], 'shaped', 0.5],
    ],
  );
  assert.equal(s.models.m?.stale, 0);
});

test('names beyond ASCII, and names written with other escapes, find their tasks and models', async () => {
  const dir = path.join(root, 'names');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  const file = path.join(dir, 'données.vtask');
  fs.writeFileSync(
    file,
    'vtask: 1\ntasks:\n  - id: tâche\n    prompt: Quelle heure est-il ?\n    verify: { match: { answer: midi } }\n  - id: "q\\"t"\n    prompt: Quote.\n    verify: { match: { answer: a } }\n',
  );
  const parsed = parseTaskFile(fs.readFileSync(file, 'utf8'));
  const key = (task: string): string =>
    taskRunKey(
      parsed,
      parsed.tasks.find((t) => t.id === task)!,
    );
  const cacheDir = path.join(dir, '.vtask-cache');
  const rec = (task: string, model: string, passed: number): RunRecord => ({
    file: 'données.vtask',
    task,
    model,
    key: key(task),
    at: '2026-01-01T00:00:00.000Z',
    samples: 4,
    passed,
    pass_rate: passed / 4,
    band: passed === 4 ? 'too_easy' : 'learnable',
    signal_share: 0,
  });
  appendRunRecords(cacheDir, [rec('tâche', 'modèle', 4), rec('q"t', 'modèle', 2)]);
  // The same names escaped as another tool may write them.
  const line = JSON.stringify({ ...rec('tâche', 'modèle', 2), at: '2026-01-02T00:00:00.000Z' })
    .replace('données', 'donn\\u00e9es')
    .replace('tâche', 't\\u00e2che')
    .replace('modèle', 'mod\\u00e8le');
  fs.appendFileSync(path.join(cacheDir, 'runs.jsonl'), line + '\n');
  const s = await collectDatasetStats([file], { duplicates: false });
  assert.deepEqual(Object.keys(s.models), ['modèle']);
  assert.deepEqual(
    s.results?.map((r) => [r.task, r.pass_rate]),
    [
      ['tâche', 0.5],
      ['q"t', 0.5],
    ],
  );
  assert.deepEqual(
    s.models['modèle']?.changed.map((c) => [c.task, c.from, c.to]),
    [['tâche', 'too_easy', 'learnable']],
  );
});

test('files parsed in worker threads give the same statistics, and what the workers learnt is remembered', async () => {
  const dir = path.join(root, 'threads');
  const files: string[] = [];
  // Enough text for threads: a.vtask and b.vtask again and again, with ids of their own.
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  const copies = Math.ceil(MIN_CHARS_FOR_WORKERS / 4 / (A.length + B.length)) + 1;
  for (let f = 0; f < 4; f++) {
    const body = (text: string, n: number): string =>
      text.replace(/^vtask: 1\ntasks:\n/, '').replace(/- id: (\S+)/g, `- id: $1-${f}-${n}`);
    files.push(path.join(dir, `part${f}.vtask`));
    fs.writeFileSync(
      files[f]!,
      `vtask: 1\ntasks:\n${Array.from({ length: copies }, (_, n) => body(A, n) + body(B, n)).join('')}`,
    );
  }
  const threaded = await collectDatasetStats(files, { cacheDir: path.join(dir, 'threaded-cache'), workerScript: CLI });
  const inProcess = await collectDatasetStats(files, { cacheDir: path.join(dir, 'plain-cache') });
  assert.deepEqual(threaded, inProcess);
  assert.equal(threaded.totals.cases.failed, 4 * copies, 'one per copy of `sum`');
  // The summaries and case outcomes the workers made are there for the next run.
  const memo = path.join(dir, 'threaded-cache', 'stats', fs.readdirSync(path.join(dir, 'threaded-cache', 'stats'))[0]!);
  assert.equal(fs.readdirSync(path.join(memo, 'files')).length, 4);
  assert.ok(Object.keys(JSON.parse(fs.readFileSync(path.join(memo, 'cases.json'), 'utf8')) as object).length > 0);
  assert.deepEqual(await collectDatasetStats(files, { cacheDir: path.join(dir, 'threaded-cache') }), inProcess);
});

test('compareModels: points, the tasks that separate the models most, both solve and both fail', () => {
  const r = (task: string, model: string, pass_rate: number): TaskModelResult => ({
    file: 'f.vtask',
    task,
    model,
    samples: 4,
    pass_rate,
    band: null,
  });
  const results = [
    r('t1', 'A', 1),
    r('t1', 'B', 0),
    r('t2', 'A', 0.5),
    r('t2', 'B', 0.75),
    r('t3', 'A', 1),
    r('t3', 'B', 1),
    r('t4', 'A', 0),
    r('t4', 'B', 0),
    r('t5', 'A', 0.25),
  ];
  const c = compareModels(results, 'A', 'B');
  assert.equal(c.tasks, 4);
  assert.deepEqual(
    c.points?.map((p) => [p.task, p.a, p.b]),
    [
      ['t1', 1, 0],
      ['t2', 0.5, 0.75],
      ['t3', 1, 1],
      ['t4', 0, 0],
    ],
  );
  assert.deepEqual(
    c.separating.map((p) => p.task),
    ['t1', 't2'],
  );
  assert.deepEqual([c.a_higher, c.b_higher], [1, 1]);
  assert.deepEqual(c.both_solve, [{ file: 'f.vtask', task: 't3' }]);
  assert.deepEqual(c.both_fail, [{ file: 'f.vtask', task: 't4' }]);
  const many = Array.from({ length: 30 }, (_, i) => [r(`x${i}`, 'A', i / 30), r(`x${i}`, 'B', 0)]).flat();
  const top = compareModels(many, 'A', 'B').separating;
  assert.equal(top.length, 20);
  assert.equal(top[0]?.task, 'x29');
});

test('cases run only for in-process verifiers and composites of them', () => {
  assert.equal(runsInProcess({ math: { answer: '1' } }), true);
  assert.equal(runsInProcess({ all: [{ match: { answer: 'a' } }, { format: { think: 'required' } }] }), true);
  assert.equal(runsInProcess({ any: { of: [{ json: {} }, { code: { language: 'python' } }] } }), false);
  assert.equal(runsInProcess({ weighted: [{ weight: 1, verify: { judge: { rubric: 'x' } } }] }), false);
  assert.equal(runsInProcess({ script: { path: 'x.js' } }), false);
});

test('the HTML report is one page that loads and runs nothing, with every text escaped', async () => {
  const dir = path.join(root, 'html');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'x<img src=y>.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: "<script>alert(1)</script>"\n    prompt: "<script>alert(2)</script> twice"\n    verify: { match: { answer: a } }\n  - id: two\n    prompt: "<script>alert(2)</script> twice"\n    verify: { match: { answer: a } }\n`,
  );
  const html = renderStatsHtml(await collectDatasetStats([file]));
  assert.match(
    html,
    /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">/,
  );
  assert.doesNotMatch(html, /<script|<img|https?:\/\//i);
  assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
  assert.match(html, /x&#60;img src=y&#62;\.vtask:3/);
  assert.match(html, /prefers-color-scheme: dark/);
});

test('the HTML report draws a comparison only for models that ran a task in common', async () => {
  const dir = path.join(root, 'apart');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'one.vtask');
  fs.writeFileSync(file, 'vtask: 1\ntasks:\n  - id: t\n    prompt: p\n    verify: { match: { answer: a } }\n');
  const stats = await collectDatasetStats([file]);
  const pair = (a: string, b: string, tasks: number) => ({
    a,
    b,
    tasks,
    a_higher: 0,
    b_higher: 0,
    points: [],
    separating: [],
    both_solve: [],
    both_fail: [],
  });
  const html = renderStatsHtml({
    ...stats,
    comparisons: [pair('m1', 'm2', 3), pair('m1', 'm3', 0), pair('m2', 'm3', 0)],
  });
  assert.equal(
    (html.match(/<svg[^>]*aria-label="[^"]* against /g) ?? []).length,
    1,
    'one scatter plot: the pair with tasks in common',
  );
  assert.match(html, /<h2>m1 against m2<\/h2>/);
  assert.doesNotMatch(html, /<h2>m1 against m3<\/h2>/);
  assert.match(html, /Not compared, no task run by both: m1 and m3; m2 and m3/);
});

test('a run log written by the positional format still counts, beside records with tokens and cost', async () => {
  const { cacheDir, files } = workspace('old-log');
  fs.mkdirSync(cacheDir, { recursive: true });
  // A line exactly as versions that read the log by field position wrote it.
  fs.writeFileSync(
    path.join(cacheDir, 'runs.jsonl'),
    `{"file":"a.vtask","task":"sum","model":"m","key":"${runKey(files[0]!, 'sum')}","at":"2026-01-01T00:00:00.000Z","samples":8,"passed":4,"pass_rate":0.5,"band":"learnable","signal_share":0.75}\n`,
  );
  appendRunRecords(cacheDir, [
    {
      file: 'a.vtask',
      task: 'sea',
      model: 'm',
      key: runKey(files[0]!, 'sea'),
      at: '2026-01-02T00:00:00.000Z',
      samples: 8,
      passed: 8,
      pass_rate: 1,
      band: 'too_easy',
      signal_share: 0,
      tokens: { prompt: 80, completion: 400 },
      cost: 0.002,
    },
  ]);
  const m = (await collectDatasetStats(files, { duplicates: false })).models.m!;
  assert.equal(m.tasks, 2, 'the old line and the new one both count');
  assert.deepEqual(m.bands, { too_easy: 1, learnable: 1, too_hard: 0, error: 0 });
  assert.deepEqual(
    [m.tokens, m.cost],
    [{ prompt: 80, completion: 400 }, 0.002],
    'tokens and cost of the run that recorded them',
  );
});

test('a case whose verifier cannot decide is counted as skipped, not as passed or failed', async () => {
  // The language detector does not know Zulu: the verdict is unavailable, so the case says nothing.
  const text =
    'vtask: 1\ntasks:\n  - id: zulu\n    prompt: Greet me in Zulu.\n    verify:\n      constraints:\n        - language:response_language: { language: zu }\n    cases:\n      - { response: "Sawubona", expect: pass }\n';
  const { summary } = await summariseTaskFile(text, path.join(root, 'zulu.vtask'));
  assert.equal(summary.tasks.at(0)?.kind, 'constraints');
  assert.deepEqual(fileStatsOf('zulu.vtask', summary).cases, { total: 1, passed: 0, failed: 0, skipped: 1 });
});

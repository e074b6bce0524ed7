// The comparison behind `vtask diff`: band and sample flips counted per kind, tasks with a run on
// one side only, the flips bound, and how run-log selections name and pick runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  diffKey,
  diffRuns,
  parseSelection,
  selectRuns,
  type DiffRun,
  type DiffTask,
} from '../../src/core/overview/runlog/diff';
import type { RunRecord } from '../../src/core/overview/runlog/runLog';

const tasks: DiffTask[] = [
  { file: 'a.vtask', task: 't1', kind: 'math' },
  { file: 'a.vtask', task: 't2', kind: 'math' },
  { file: 'b.vtask', task: 't3', kind: 'code' },
  { file: 'b.vtask', task: 't4', kind: 'code' },
];
const runs = (entries: [string, string, DiffRun][]): Map<string, DiffRun> =>
  new Map(entries.map(([f, t, r]) => [diffKey(f, t), r]));

test('band flips and sample flips, per kind; a task counts once however much of it flipped', () => {
  const a = runs([
    ['a.vtask', 't1', { band: 'learnable', pass_rate: 0.5, outcomes: ['pass', 'fail'] }],
    ['a.vtask', 't2', { band: 'too_easy', pass_rate: 1, outcomes: ['pass', 'pass'] }],
    ['b.vtask', 't3', { band: 'too_hard', pass_rate: 0, outcomes: ['fail', 'fail'] }],
  ]);
  const b = runs([
    ['a.vtask', 't1', { band: 'too_easy', pass_rate: 1, outcomes: ['pass', 'pass'] }],
    ['a.vtask', 't2', { band: 'too_easy', pass_rate: 1, outcomes: ['pass', 'pass'] }],
    ['b.vtask', 't3', { band: 'too_hard', pass_rate: 0, outcomes: ['fail', 'undecided'] }],
    ['b.vtask', 't4', { band: 'learnable', pass_rate: 0.5 }],
  ]);
  const d = diffRuns(tasks, a, b, { a: 'old', b: 'new' });
  assert.deepEqual([d.a, d.b, d.tasks, d.only_a, d.only_b], ['old', 'new', 3, 0, 1]);
  assert.deepEqual(d.band_flips, [
    { file: 'a.vtask', task: 't1', kind: 'math', from: 'learnable', to: 'too_easy', pass_rate_a: 0.5, pass_rate_b: 1 },
  ]);
  assert.deepEqual(
    d.sample_flips.map((f) => [f.task, f.sample, f.from, f.to]),
    [
      ['t1', 1, 'fail', 'pass'],
      ['t3', 1, 'fail', 'undecided'],
    ],
  );
  assert.deepEqual(d.kinds, {
    math: { tasks: 2, band_flips: 1, sample_flips: 1 },
    code: { tasks: 1, band_flips: 0, sample_flips: 1 },
  });
  assert.equal(d.flips, 2, 't1 flipped its band and a sample: one task; t3 a sample');
  const same = diffRuns(tasks, a, a, { a: 'x', b: 'x' });
  assert.deepEqual([same.flips, same.band_flips.length, same.sample_flips.length, same.tasks], [0, 0, 0, 3]);
});

test('selections: model:NAME, model:NAME@DATE, a bare name; mistakes are said', () => {
  assert.deepEqual(parseSelection('model:qwen'), { model: 'qwen' });
  assert.deepEqual(parseSelection('qwen'), { model: 'qwen' });
  assert.deepEqual(parseSelection('model:org/m@2026-01-02'), { model: 'org/m', until: '2026-01-02T23:59:59.999Z' });
  assert.deepEqual(parseSelection('model:m@2026-01-02T10:00:00Z'), { model: 'm', until: '2026-01-02T10:00:00.000Z' });
  assert.match(parseSelection('model:m@yesterday') as string, /not a date/);
  assert.match(parseSelection('model:') as string, /names no model/);
});

test("a selection picks the model's last run of each known task, up to its date", () => {
  const rec = (task: string, model: string, at: string, band: RunRecord['band']): RunRecord => ({
    file: 'a.vtask',
    task,
    model,
    key: 'k',
    at,
    samples: 4,
    passed: 2,
    pass_rate: 0.5,
    band,
    signal_share: 1,
  });
  const log = [
    rec('t1', 'm', '2026-01-01T00:00:00.000Z', 'too_hard'),
    rec('t1', 'm', '2026-01-03T00:00:00.000Z', 'learnable'),
    rec('t1', 'n', '2026-01-04T00:00:00.000Z', 'too_easy'),
    rec('gone', 'm', '2026-01-01T00:00:00.000Z', 'too_easy'),
  ];
  const keyOf = (file: string, task: string): string | undefined => (task === 'gone' ? undefined : diffKey(file, task));
  assert.deepEqual(
    [...selectRuns(log, { model: 'm' }, keyOf).values()].map((r) => r.band),
    ['learnable'],
  );
  assert.deepEqual(
    [...selectRuns(log, { model: 'm', until: '2026-01-02T23:59:59.999Z' }, keyOf).values()].map((r) => r.band),
    ['too_hard'],
  );
  assert.equal(selectRuns(log, { model: 'm', until: '2025-12-31T23:59:59.999Z' }, keyOf).size, 0);
  assert.deepEqual([...selectRuns(log, { model: 'n' }, keyOf).keys()], [diffKey('a.vtask', 't1')]);
});

// The dashboard's comparison of two models (src/core/overview/dataset/dashboardCompare.ts), put together
// file by file, must say what `vtask stats`'s comparison says over all results at once: the
// counts, the tasks separating the models most, those both always solve and both never solve.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareModels } from '../../src/core/overview/dataset/compare';
import { ComparisonPages } from '../../src/core/overview/dataset/dashboardCompare';
import type { TaskModelResult } from '../../src/core/overview/dataset/types';

/** Three files of 60 tasks: A's pass rate (i % 6) / 5, B's (i % 4) / 3 (B has no run of the last task of each file). */
function results(): TaskModelResult[][] {
  return [0, 1, 2].map((f) =>
    Array.from({ length: 60 }, (_, i) => i).flatMap((i) => {
      const ref = { file: `f${f}.vtask`, task: `t${i}`, line: i };
      const a = { ...ref, model: 'A', samples: 5, pass_rate: (i % 6) / 5, band: null };
      return i === 59 ? [a] : [a, { ...ref, model: 'B', samples: 3, pass_rate: (i % 4) / 3, band: null }];
    }),
  );
}

test('compared file by file, the pages hold what the comparison of all results holds', async () => {
  const files = results();
  const whole = compareModels(files.flat(), 'A', 'B');
  const pages = new ComparisonPages(files, (f) => `data/${f}`);
  const first = await pages.page('A', 'B', undefined, 0);
  assert.deepEqual([first.tasks, first.a_higher, first.b_higher], [whole.tasks, whole.a_higher, whole.b_higher]);
  assert.deepEqual(
    first.items.slice(0, 20).map((p) => [p.task, p.a, p.b]),
    whole.separating.map((p) => [p.task, p.a, p.b]),
  );
  assert.equal(first.items[0]?.file, 'data/f0.vtask', 'files are named for the page');
  // Both solve: i ≡ 5 (mod 6) and ≡ 3 (mod 4), i = 11, 23, 35, 47 (59 has no run of B); both fail: i ≡ 0 (mod 12).
  assert.deepEqual(
    first.both_solve.items.map((r) => `${r.file}:${r.task}`),
    whole.both_solve.map((r) => `data/${r.file}:${r.task}`),
  );
  assert.equal(first.both_solve.total, 12);
  assert.equal(first.both_fail.total, 15);
  const later = await pages.page('A', 'B', undefined, 0, 0, 1);
  assert.deepEqual([later.both_fail.page, later.both_fail.items.length], [0, 15], 'a page past the last is the last');
  const cell = await pages.page('A', 'B', [0, 0], 0);
  assert.equal(cell.total, cell.grid[0]?.[0]);
  assert.ok(cell.items.every((p) => p.a < 0.1 && p.b < 0.1));
});

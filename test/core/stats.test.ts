import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passAtK, passCount, reportedKs, taskStats, wilson } from '../../src/core/stats';

const v = (pass: boolean, score = pass ? 1 : 0) => ({ pass, score });

test('pass@k is the unbiased estimator', () => {
  assert.equal(passAtK(10, 0, 5), 0);
  assert.equal(passAtK(10, 10, 1), 1);
  assert.ok(Math.abs(passAtK(10, 3, 1) - 0.3) < 1e-12);
  // 1 - C(7,2)/C(10,2) = 1 - 21/45
  assert.ok(Math.abs(passAtK(10, 3, 2) - (1 - 21 / 45)) < 1e-12);
  assert.equal(passAtK(10, 8, 3), 1, 'fewer than k failures means every k-subset has a pass');
  assert.ok(Number.isFinite(passAtK(100_000, 5, 50_000)));
  assert.deepEqual(reportedKs(8), [1, 2, 4, 8]);
  assert.deepEqual(reportedKs(10), [1, 2, 4, 8, 10]);
});

test('Wilson interval stays inside [0, 1] and contains the rate', () => {
  const [lo, hi] = wilson(0, 8);
  assert.equal(lo, 0);
  assert.ok(hi > 0.2 && hi < 0.45);
  const [l2, h2] = wilson(5, 10);
  assert.ok(l2 < 0.5 && h2 > 0.5);
});

test('bands and the GRPO signal share', () => {
  assert.equal(taskStats([v(true), v(true)]).band, 'too_easy');
  assert.equal(taskStats([v(false), v(false)]).band, 'too_hard');
  const mixed = taskStats([v(true), v(false), v(false), v(false)], 8);
  assert.equal(mixed.band, 'learnable');
  assert.ok(Math.abs(mixed.signalShare - (1 - 0.25 ** 8 - 0.75 ** 8)) < 1e-12);
  // Partial scores: failing samples with different scores still teach.
  const partial = taskStats([v(false, 0.5), v(false, 0.25), v(false, 0.5)]);
  assert.equal(partial.band, 'learnable');
  assert.ok(partial.signalShare > 0);
  // All equal partial scores: a flat group, no signal.
  const flat = taskStats([v(false, 0.5), v(false, 0.5)]);
  assert.equal(flat.band, 'too_hard');
  assert.equal(flat.signalShare, 0);
});

test('an undecided verdict is counted apart, never as a fail; a run that measured nothing is band error', () => {
  const crash = { pass: false, score: 0, error: 'crash' };
  const some = taskStats([v(true), v(true), v(true), v(false), crash]);
  assert.equal(some.samples, 4);
  assert.equal(some.passed, 3);
  assert.equal(some.undecided, 1);
  assert.equal(some.passRate, 0.75, 'the pass rate is over the samples with a verdict');
  assert.equal(some.band, 'learnable');
  assert.equal(passCount(some), '3/4 pass · 1 undecided');
  assert.equal(passCount(taskStats([v(true), v(false)])), '1/2 pass');
  // Every sample undecided (an environment that never started): not too_hard, an error.
  const none = taskStats([crash, { ...crash, error: 'unavailable' }]);
  assert.equal(none.band, 'error');
  assert.equal(none.undecided, 2);
  assert.equal(none.samples, 0);
  assert.equal(taskStats([]).band, 'error', 'no sample at all');
  // Sampling failed or was cancelled: whatever the samples so far say, the run is an error.
  assert.equal(taskStats([v(false), v(false)], 8, true).band, 'error');
  assert.equal(taskStats([v(true), v(false)], 8, true).band, 'error');
});

test('pass@k is undefined for k above n; the Wilson interval is the 95% one', () => {
  assert.ok(Number.isNaN(passAtK(4, 2, 5)), 'no k-subset of 4 samples has 5 members');
  // 2 of 10 at 95%: the textbook interval (0.0567, 0.5098).
  const [lo, hi] = wilson(2, 10);
  assert.ok(Math.abs(lo - 0.0567) < 1e-4 && Math.abs(hi - 0.5098) < 1e-4, `${lo} ${hi}`);
});

test('scores that differ by float noise are one reward', () => {
  // 1/3 computed two ways: a group of these is flat, so the task gives no signal.
  const third = 1 / 3;
  const other = 1 - 2 / 3;
  assert.notEqual(third, other);
  const s = taskStats([v(false, third), v(false, other), v(false, third), v(false, other)]);
  assert.equal(s.signalShare, 0);
  assert.equal(s.band, 'too_hard');
});

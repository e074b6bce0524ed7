/**
 * The difficulty band of a task: only `learnable` tasks give GRPO groups a gradient. `error`
 * is a run that says nothing of the task: sampling failed or was cancelled, or no sample got a
 * verdict (the environment crashed, the verifier could not run).
 */
export type Band = 'too_easy' | 'learnable' | 'too_hard' | 'error';

/** Every band, in the order reports list them. */
export const BANDS: readonly Band[] = ['too_easy', 'learnable', 'too_hard', 'error'];

export interface TaskStats {
  /** Samples with a verdict: the pass rate, pass@k and band are over these. */
  readonly samples: number;
  readonly passed: number;
  /** Samples whose verifier could not decide (`verdict.error`): counted apart, never as fails. */
  readonly undecided: number;
  readonly passRate: number;
  readonly meanScore: number;
  /** Unbiased pass@k for k = 1, 2, 4, ... below n, and n itself. */
  readonly passAtK: Readonly<Record<string, number>>;
  /** 95% Wilson interval of the pass rate. */
  readonly interval: readonly [number, number];
  readonly band: Band;
  /** Expected share of GRPO groups of size `groupSize` whose rewards are not all equal. */
  readonly signalShare: number;
  readonly groupSize: number;
}

/**
 * The unbiased pass@k estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k), computed as a
 * product so that large n never overflows.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return NaN;
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/** The ks reported for n samples: powers of two below n, and n. */
export function reportedKs(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k < n; k *= 2) ks.push(k);
  if (n > 0) ks.push(n);
  return ks;
}

/** 95% Wilson score interval: sensible at 0/n and n/n, unlike the normal approximation. */
export function wilson(passed: number, n: number, z = 1.959964): [number, number] {
  if (n === 0) return [0, 1];
  const p = passed / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * The share of GRPO groups of size G that carry a gradient: 1 - Σ_v P(v)^G over the distinct
 * rewards v seen. For pass/fail rewards this is 1 - p^G - (1-p)^G; for partial scores (a
 * constraints fraction, a code pass rate) a group is flat only when all its scores are equal.
 */
export function signalShare(scores: readonly number[], groupSize: number): number {
  if (scores.length === 0) return 0;
  const counts = new Map<number, number>();
  for (const s of scores) counts.set(roundScore(s), (counts.get(roundScore(s)) ?? 0) + 1);
  let flat = 0;
  for (const c of counts.values()) flat += Math.pow(c / scores.length, groupSize);
  return Math.max(0, 1 - flat);
}

// Scores that differ only by float noise (1/3 computed two ways) are the same reward.
const roundScore = (s: number): number => Math.round(s * 1e9) / 1e9;

/**
 * Statistics of one task's verdicts. A verdict whose verifier could not decide is left out of
 * the rates and counted as undecided: it is a fact about the machine, not the response. The
 * band reads the decided scores: when every sample scores the same, no group has a gradient,
 * and the task is `too_easy` if they all pass, else `too_hard`. With no decided sample, or a
 * run that failed (`runFailed`: sampling stopped, was cancelled), the band is `error`.
 */
export function taskStats(
  verdicts: readonly { pass: boolean; score: number; error?: string }[],
  groupSize = 8,
  runFailed = false,
): TaskStats {
  const decided = verdicts.filter((v) => !v.error);
  const n = decided.length;
  const passed = decided.filter((v) => v.pass).length;
  const scores = decided.map((v) => v.score);
  const passAt: Record<string, number> = {};
  for (const k of reportedKs(n)) passAt[String(k)] = passAtK(n, passed, k);
  const distinct = new Set(scores.map(roundScore)).size;
  const band: Band =
    runFailed || n === 0
      ? 'error'
      : passed === n
        ? 'too_easy'
        : distinct <= 1 || (passed === 0 && scores.every((s) => s === 0))
          ? 'too_hard'
          : 'learnable';
  return {
    samples: n,
    passed,
    undecided: verdicts.length - n,
    passRate: n ? passed / n : 0,
    meanScore: n ? scores.reduce((a, b) => a + b, 0) / n : 0,
    passAtK: passAt,
    interval: wilson(passed, n),
    band,
    signalShare: signalShare(scores, groupSize),
    groupSize,
  };
}

/** A run's count as people read it: `3/4 pass`, and `· 1 undecided` when some samples had no verdict. */
export function passCount(s: Pick<TaskStats, 'passed' | 'samples' | 'undecided'>): string {
  return `${s.passed}/${s.samples} pass${s.undecided ? ` · ${s.undecided} undecided` : ''}`;
}

// Calibration of `judge` verifiers against the task's own cases: does the judge agree with the
// verdicts the author wrote down, does it give the same response the same score when asked
// again, and does its verdict survive what should not matter (the rubric's order, neutral
// padding around the response)? A judge that fails these grades noise, which a policy learns.
import { judgeCase, taskView } from '../run/cases';
import type { TaskSpec } from '../taskfile/resolve';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';
import type { Finding } from './audit';
import { CALIBRATION } from './probe';
import { plural } from '../util/plural';
import { isRecord } from '../base/record';

export interface CalibrationOptions {
  readonly judge: VerifyContext['judge'];
  /** How many times each case is judged (default 3). */
  readonly repeats?: number;
  /** The least share of cases the judge must agree with (default 0.8). */
  readonly minAgreement?: number;
  /** The largest spread of scores for one response judged again (default 0.34). */
  readonly maxSpread?: number;
  readonly signal?: AbortSignal;
}

export interface Calibration {
  readonly task: string;
  readonly cases: number;
  /** Share of (case, repeat) verdicts that match what the case expects. */
  readonly agreement: number;
  /** The largest difference between scores given to one response. */
  readonly spread: number;
  /** Cases whose verdict changed with the rubric in reverse order. */
  readonly orderFlips: number;
  /** Cases whose verdict changed with neutral text added after the response. */
  readonly lengthFlips: number;
  /** Verdicts the judge could not give (no model, a malformed reply). */
  readonly undecided: number;
  readonly findings: readonly Finding[];
}

const PADDING = '\n\n(End of response.)\n' + ' '.repeat(400);

/** Calibrates a task whose verifier is a `judge`; undefined for other verifiers. */
export async function calibrateJudge(
  task: TaskSpec,
  file: string,
  o: CalibrationOptions,
): Promise<Calibration | undefined> {
  const params = isRecord(task.verify) && isRecord(task.verify.judge) ? task.verify.judge : undefined;
  if (!params) return undefined;
  const repeats = o.repeats ?? 3;
  const view = taskView(task, file);
  const judge = (v: unknown, response: string): Promise<Verdict> =>
    verify(v, response, { task: view, judge: o.judge, signal: o.signal });
  const given = params.rubric;
  const rubric: string[] = Array.isArray(given) ? given.map(String) : [typeof given === 'string' ? given : ''];
  const reversed = { judge: { ...params, rubric: [...rubric].reverse() } };
  let agree = 0;
  let decided = 0;
  let undecided = 0;
  let spread = 0;
  let orderFlips = 0;
  let lengthFlips = 0;
  for (const c of task.cases) {
    const verdicts = await Promise.all(Array.from({ length: repeats }, () => judge(task.verify, c.response)));
    const ok = verdicts.filter((v) => !v.error);
    undecided += verdicts.length - ok.length;
    decided += ok.length;
    agree += ok.filter((v) => judgeCase(c, v).ok).length;
    if (ok.length > 1)
      spread = Math.max(spread, Math.max(...ok.map((v) => v.score)) - Math.min(...ok.map((v) => v.score)));
    const base = ok[0];
    if (!base) continue;
    const [order, padded] = await Promise.all([
      rubric.length > 1 ? judge(reversed, c.response) : undefined,
      judge(task.verify, c.response + PADDING),
    ]);
    if (order && !order.error && order.pass !== base.pass) orderFlips++;
    if (!padded.error && padded.pass !== base.pass) lengthFlips++;
  }
  const agreement = decided ? agree / decided : 0;
  const findings: Finding[] = [];
  const flag = (probe: string, severity: Finding['severity'], reason: string): void =>
    void findings.push({
      probe,
      family: CALIBRATION,
      severity,
      response: '',
      verdict: 'fail',
      expected: 'pass',
      reason,
      details: {},
    });
  // A task may set its own thresholds under `meta.calibration` (free-form data the format keeps).
  const own = isRecord(task.meta.calibration) ? task.meta.calibration : {};
  const share = (v: unknown): number | undefined => (typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined);
  const minAgreement = share(own.min_agreement) ?? o.minAgreement ?? 0.8;
  const maxSpread = share(own.max_spread) ?? o.maxSpread ?? 0.34;
  if (!task.cases.length)
    flag(
      'calibration-no-cases',
      'low',
      'the task has no cases to calibrate its judge against: add responses it must pass and fail',
    );
  else if (decided === 0) {
    // Nothing to judge with: not a finding about the judge.
  } else {
    if (agreement < minAgreement)
      flag(
        'calibration-agreement',
        'high',
        `the judge agreed with the task's cases ${pct(agreement)} of the time (${agree}/${decided}), below ${pct(minAgreement)}`,
      );
    if (spread > maxSpread)
      flag(
        'calibration-consistency',
        'medium',
        `the same response judged ${repeats} times got scores ${spread.toFixed(2)} apart, more than ${maxSpread}`,
      );
    if (orderFlips)
      flag(
        'calibration-order',
        'medium',
        `${plural(orderFlips, 'case')} changed verdict with the rubric's criteria in reverse order`,
      );
    if (lengthFlips)
      flag(
        'calibration-length',
        'medium',
        `${plural(lengthFlips, 'case')} changed verdict with neutral text added after the response`,
      );
  }
  return { task: task.id, cases: task.cases.length, agreement, spread, orderFlips, lengthFlips, undecided, findings };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

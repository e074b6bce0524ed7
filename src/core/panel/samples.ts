import type { SampleResult, TaskRunResult } from '../run/sampleTasks';
import { verifySample } from '../run/sampleTasks';
import { taskView } from '../run/cases';
import { taskStats, type TaskStats } from '../stats';
import type { TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import type { SampleView, StatsView } from '../base/panelProtocol';
import { trajectoryView } from './trajectory';

/**
 * The panel shows about this much of one sample (the verdict always saw all of it): a runaway
 * answer of megabytes must not freeze the page or flood the message channel.
 */
export const DISPLAY_CHARS = 20_000;

/** Keys of verdict details that hold the text the verifier read as the answer, best first. */
const ANSWER_KEYS = ['extracted', 'matched', 'answer'] as const;

/**
 * Where the verifier's answer sits in the text, for highlighting: the last occurrence of what
 * it extracted, in the final answer (after any `</think>`). Undefined when it cannot be found.
 */
export function answerSpan(text: string, verdict: Verdict): [number, number] | undefined {
  const close = text.lastIndexOf('</think>');
  const from = close === -1 ? 0 : close + '</think>'.length;
  for (const key of ANSWER_KEYS) {
    const v = verdict.details[key];
    if (typeof v !== 'string' || v.trim() === '' || v.length > 10_000 || v.endsWith('…')) continue;
    const at = text.lastIndexOf(v.trim());
    if (at !== -1 && at >= from) return [at, at + v.trim().length];
  }
  return undefined;
}

/**
 * A long answer as shown: its start and its end (where the final answer usually is), with a
 * marker between; the answer span moves with the end.
 */
function clip(
  full: string,
  span: [number, number] | undefined,
): { text: string; clipped: boolean; span?: [number, number] } {
  if (full.length <= DISPLAY_CHARS) return { text: full, clipped: false, span };
  const half = DISPLAY_CHARS / 2;
  const cut = full.length - half;
  const marker = `\n\n[… ${(cut - half).toLocaleString('en-US')} characters not shown …]\n\n`;
  const text = full.slice(0, half) + marker + full.slice(cut);
  if (!span) return { text, clipped: true };
  if (span[1] <= half) return { text, clipped: true, span };
  if (span[0] >= cut)
    return { text, clipped: true, span: [span[0] - cut + half + marker.length, span[1] - cut + half + marker.length] };
  return { text, clipped: true };
}

/** One sample as the panel shows it; `before` is its pass/fail under the previous verifier. */
export function sampleView(s: SampleResult, before?: boolean): SampleView {
  const { text, clipped, span } = clip(s.text, answerSpan(s.text, s.verdict));
  const v = s.verdict;
  return {
    index: s.index,
    text,
    clipped,
    ...(s.reasoning
      ? { reasoning: s.reasoning.length > DISPLAY_CHARS ? s.reasoning.slice(0, DISPLAY_CHARS) : s.reasoning }
      : {}),
    pass: v.pass,
    score: v.score,
    reason: v.reason.length > 2000 ? `${v.reason.slice(0, 2000)}…` : v.reason,
    ...(v.error ? { error: v.error } : {}),
    ...(span && span[1] <= text.length ? { answer: span } : {}),
    ...(before === undefined || before === v.pass ? {} : { flip: v.pass ? ('gained' as const) : ('lost' as const) }),
    cached: s.cached,
    truncated: s.truncated,
    ...(s.trajectory ? { trajectory: trajectoryView(s.trajectory, v) } : {}),
  };
}

export function statsView(s: TaskStats): StatsView {
  return {
    samples: s.samples,
    passed: s.passed,
    undecided: s.undecided,
    passRate: s.passRate,
    meanScore: s.meanScore,
    passAtK: Object.entries(s.passAtK).map(([k, v]): [number, number] => [Number(k), v]),
    interval: [s.interval[0], s.interval[1]],
    band: s.band,
    signalShare: s.signalShare,
    groupSize: s.groupSize,
  };
}

export interface ReverifyOptions {
  readonly file: string;
  readonly trusted: boolean;
  readonly signal?: AbortSignal;
  readonly groupSize?: number;
  readonly judge?: VerifyContext['judge'];
  /** Verdicts computed at once; code verifiers each start a sandbox. */
  readonly concurrency?: number;
}

/** The outcome of re-verifying a run's samples with a task's current verifier. */
export interface Reverified {
  readonly run: TaskRunResult;
  /** Each sample's pass/fail before, by sample index, to mark what flipped. */
  readonly before: ReadonlyMap<number, boolean>;
  readonly gained: number;
  readonly lost: number;
}

/**
 * Verifies the samples of an earlier run again with the task as it is now: no model is asked.
 * This is what lets an author change a verifier and see at once which verdicts flip.
 */
export async function reverify(task: TaskSpec, run: TaskRunResult, o: ReverifyOptions): Promise<Reverified> {
  const view = taskView(task, o.file);
  const samples = await mapLimit(run.samples, o.concurrency ?? 8, async (s): Promise<SampleResult> => {
    const verdict = await verifySample(task.verify, s, {
      task: view,
      signal: o.signal,
      trusted: o.trusted,
      judge: o.judge,
    });
    return { ...s, verdict };
  });
  const before = new Map(run.samples.map((s) => [s.index, s.verdict.pass]));
  let gained = 0;
  let lost = 0;
  for (const s of samples) {
    const was = before.get(s.index);
    if (was === false && s.verdict.pass) gained++;
    else if (was === true && !s.verdict.pass) lost++;
  }
  const stats = taskStats(
    samples.map((s) => s.verdict),
    o.groupSize ?? run.stats.groupSize,
    run.error !== undefined,
  );
  return { run: { ...run, task, samples, stats, requests: 0 }, before, gained, lost };
}

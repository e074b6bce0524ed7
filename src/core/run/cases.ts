import { cpus } from 'node:os';
import path from 'node:path';
import type { CaseSpec, TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import type { TaskView, Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';

/** The outcome of one regression case. */
export interface CaseResult {
  readonly task: string;
  readonly case: number;
  readonly name?: string;
  readonly expected: 'pass' | 'fail' | { readonly score: number };
  /** `pass`, `fail`, or `{score}` when a score was expected. */
  readonly actual: 'pass' | 'fail' | { readonly score: number };
  /** True when the verdict is what the case expects. */
  readonly ok: boolean;
  /** True when the case could not run here (a judge without a model); neither ok nor failed. */
  readonly skipped: boolean;
  readonly verdict: Verdict;
  /** Absolute offset of the case in its file. */
  readonly offset: number;
}

/** Scores are compared with this tolerance: `expect: {score: 0.5}` accepts 0.4999999. */
export const SCORE_TOLERANCE = 1e-6;

export function taskView(task: TaskSpec, file: string): TaskView {
  return { id: task.id, prompt: task.prompt, messages: task.messages, meta: task.meta, dir: path.dirname(path.resolve(file)) };
}

/** Judges a verdict against what a case expects. */
export function judgeCase(c: CaseSpec, v: Verdict): Pick<CaseResult, 'actual' | 'ok' | 'skipped'> {
  if (v.error === 'unavailable') return { actual: 'fail', ok: false, skipped: true };
  if (typeof c.expect === 'object') {
    const ok = !v.error && Math.abs(v.score - c.expect.score) <= SCORE_TOLERANCE;
    return { actual: { score: v.score }, ok, skipped: false };
  }
  const actual = v.pass ? 'pass' : 'fail';
  // A verifier that could not decide never satisfies a case, not even `expect: fail`.
  return { actual, ok: !v.error && actual === c.expect, skipped: false };
}

export interface RunCasesOptions {
  readonly file: string;
  /** Where `judge` verifiers get their model; without it their cases are skipped. */
  readonly judge?: VerifyContext['judge'];
  readonly signal?: AbortSignal;
  readonly trusted?: boolean;
  readonly concurrency?: number;
}

/** Runs every case of the given tasks; results keep the file's order. */
export async function runCases(tasks: readonly TaskSpec[], options: RunCasesOptions): Promise<CaseResult[]> {
  const jobs = tasks.flatMap((t) => t.cases.map((c) => ({ t, c })));
  const limit = options.concurrency ?? Math.max(2, cpus().length * 2);
  return mapLimit(jobs, limit, async ({ t, c }) => {
    const v = await verify(t.verify, c.response, { task: taskView(t, options.file), signal: options.signal, trusted: options.trusted, judge: options.judge });
    return { task: t.id, case: c.index, name: c.name, expected: c.expect, ...judgeCase(c, v), verdict: v, offset: c.offset };
  });
}

import { cpus } from 'node:os';
import path from 'node:path';
import { ENV_UNTRUSTED_REASON, EnvironmentError, startEnvironment } from '../agent/environment';
import { replayCalls } from '../agent/replay';
import { agentVerdict } from './agentSamples';
import type { Trajectory } from '../agent/types';
import { errorMessage } from '../base/errorMessage';
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
  /** Agent tasks: the case's calls as replayed in the environment. */
  readonly trajectory?: Trajectory;
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
    const base = { task: t.id, case: c.index, name: c.name, expected: c.expect, offset: c.offset };
    if (c.calls || t.environment) {
      const r = await runAgentCase(t, c, options);
      // An environment refused in an untrusted workspace is not the verifier's failure: skipped, with the reason.
      const judged = r.verdict.error === 'refused' ? { actual: 'fail' as const, ok: false, skipped: true } : judgeCase(c, r.verdict);
      return { ...base, ...judged, verdict: r.verdict, ...(r.trajectory ? { trajectory: r.trajectory } : {}) };
    }
    const v = await verify(t.verify, c.response, { task: taskView(t, options.file), signal: options.signal, trusted: options.trusted, judge: options.judge });
    return { ...base, ...judgeCase(c, v), verdict: v };
  });
}

function failed(reason: string, error: NonNullable<Verdict['error']>, details: Record<string, unknown> = {}): Verdict {
  return { pass: false, score: 0, reason, details, error };
}

/**
 * A case of an agent task: its `calls` replayed in a fresh environment, then the verifier run on
 * its `response` with the trajectory in context. Never runs in an untrusted workspace.
 */
async function runAgentCase(t: TaskSpec, c: CaseSpec, options: RunCasesOptions): Promise<{ verdict: Verdict; trajectory?: Trajectory }> {
  if (!t.environment) return { verdict: failed('the case has `calls`, but the task has no `environment` to replay them in', 'crash') };
  if (options.trusted === false) return { verdict: failed(ENV_UNTRUSTED_REASON, 'refused') };
  const task = taskView(t, options.file);
  const signal = options.signal ?? new AbortController().signal;
  let env;
  try {
    env = await startEnvironment(t.environment, { dir: task.dir, trusted: true, signal });
  } catch (e) {
    if (e instanceof EnvironmentError) return { verdict: failed(e.message, e.failure === 'cancelled' ? 'timeout' : e.failure === 'refused' ? 'refused' : e.failure) };
    return { verdict: failed(`the environment could not be started: ${errorMessage(e)}`, 'crash') };
  }
  const environment = { run: t.environment.run, isolation: env.sandboxIsolation, startupMs: env.startupMs };
  let trajectory: Trajectory;
  try {
    trajectory = await replayCalls(env, c.calls ?? [], c.response, { signal, ...(t.maxTurns !== undefined ? { maxTurns: t.maxTurns } : {}) });
  } finally {
    await env.close();
  }
  if (trajectory.stop === 'error') return { verdict: failed(`the environment failed at ${trajectory.error ?? 'an unknown turn'}`, 'crash', { environment }), trajectory };
  const v = await agentVerdict(t.verify, trajectory.final, trajectory, { task, signal, trusted: true, judge: options.judge });
  return { verdict: { ...v, details: { ...v.details, environment } }, trajectory };
}

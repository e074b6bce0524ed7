import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ENV_UNTRUSTED_REASON, EnvironmentError, startEnvironment } from '../agent/environment';
import { replayCalls, type ScriptedTurn } from '../agent/replay';
import { agentVerdict } from './agentSamples';
import type { Trajectory } from '../agent/types';
import type { ToolSpec } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import { allowManyListeners } from '../util/listeners';
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

/**
 * How a case came out for a test report: `skipped` only when it was refused by the user's
 * choice (an untrusted workspace); `undecided` when its verifier could not give a verdict here
 * (unavailable: no judge model, a missing script, an environment that did not start; or it
 * crashed or timed out). An undecided case is neither a pass nor a skip: it fails a test run.
 */
export type CaseOutcome = 'passed' | 'failed' | 'skipped' | 'undecided';

export function caseOutcome(r: Pick<CaseResult, 'ok' | 'verdict'>): CaseOutcome {
  if (r.ok) return 'passed';
  if (r.verdict.error === 'refused') return 'skipped';
  return r.verdict.error ? 'undecided' : 'failed';
}

/** Scores are compared with this tolerance: `expect: {score: 0.5}` accepts 0.4999999. */
export const SCORE_TOLERANCE = 1e-6;

export function taskView(task: TaskSpec, file: string): TaskView {
  return {
    id: task.id,
    prompt: task.prompt,
    messages: task.messages,
    meta: task.meta,
    dir: path.dirname(path.resolve(file)),
  };
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
  // availableParallelism, not cpus(): the latter reads every core's details, a millisecond a call.
  const limit = options.concurrency ?? Math.max(2, availableParallelism() * 2);
  return mapLimit(jobs, limit, async ({ t, c }) => {
    const base = { task: t.id, case: c.index, name: c.name, expected: c.expect, offset: c.offset };
    if (c.calls || t.environment) {
      const r = await runScripted(t, c, options);
      // An environment refused in an untrusted workspace is not the verifier's failure: skipped, with the reason.
      const judged =
        r.verdict.error === 'refused' ? { actual: 'fail' as const, ok: false, skipped: true } : judgeCase(c, r.verdict);
      return { ...base, ...judged, verdict: r.verdict, ...(r.trajectory ? { trajectory: r.trajectory } : {}) };
    }
    const v = await verify(t.verify, c.response, {
      task: taskView(t, options.file),
      signal: options.signal,
      trusted: options.trusted,
      judge: options.judge,
    });
    return { ...base, ...judgeCase(c, v), verdict: v };
  });
}

function failed(reason: string, error: NonNullable<Verdict['error']>, details: Record<string, unknown> = {}): Verdict {
  return { pass: false, score: 0, reason, details, error };
}

/** A scripted trajectory of an agent task: the calls replayed in its environment, then the final answer. */
export interface Script {
  readonly calls?: readonly ScriptedTurn[];
  readonly response: string;
}

/** What replaying a script gave: the verdict, and (once the environment started) the trajectory and the tools. */
export interface ScriptedRun {
  readonly verdict: Verdict;
  readonly trajectory?: Trajectory;
  readonly tools?: readonly ToolSpec[];
}

/** An agent task's environment after a script: the trajectory, the tools `reset` declared, and how it ran. */
export interface Replayed {
  readonly trajectory: Trajectory;
  readonly tools: readonly ToolSpec[];
  readonly environment: Readonly<Record<string, unknown>>;
}

/**
 * Replays a script in a fresh environment of the task, without verifying it; a verdict that
 * says why when the environment could not run (refused in an untrusted workspace, weak
 * isolation without the opt-in, not found, crashed at start).
 */
export async function replayScript(
  t: TaskSpec,
  c: Script,
  options: RunCasesOptions,
): Promise<Replayed | { verdict: Verdict }> {
  if (!t.environment)
    return { verdict: failed('the case has `calls`, but the task has no `environment` to replay them in', 'crash') };
  if (options.trusted === false) return { verdict: failed(ENV_UNTRUSTED_REASON, 'refused') };
  const signal = options.signal ?? new AbortController().signal;
  // The scripts of a run (its cases, an audit's probes) share its signal, each environment listening to it while it lives.
  allowManyListeners(signal);
  let env;
  try {
    env = await startEnvironment(t.environment, { dir: taskView(t, options.file).dir, trusted: true, signal });
  } catch (e) {
    if (e instanceof EnvironmentError)
      return {
        verdict: failed(
          e.message,
          e.failure === 'cancelled' ? 'timeout' : e.failure === 'refused' ? 'refused' : e.failure,
        ),
      };
    return { verdict: failed(`the environment could not be started: ${errorMessage(e)}`, 'crash') };
  }
  const environment = { run: t.environment.run, isolation: env.sandboxIsolation, startupMs: env.startupMs };
  try {
    const trajectory = await replayCalls(env, c.calls ?? [], c.response, {
      signal,
      ...(t.maxTurns !== undefined ? { maxTurns: t.maxTurns } : {}),
    });
    return { trajectory, tools: env.tools, environment };
  } finally {
    await env.close();
  }
}

/**
 * A case of an agent task, or any scripted trajectory (the audit's probes of agent tasks): its
 * `calls` replayed in a fresh environment, then the verifier run on its `response` with the
 * trajectory in context. Never runs in an untrusted workspace.
 */
export async function runScripted(t: TaskSpec, c: Script, options: RunCasesOptions): Promise<ScriptedRun> {
  const r = await replayScript(t, c, options);
  if ('verdict' in r) return r;
  const { trajectory, tools, environment } = r;
  if (trajectory.stop === 'error')
    return {
      verdict: failed(`the environment failed at ${trajectory.error ?? 'an unknown turn'}`, 'crash', { environment }),
      trajectory,
      tools,
    };
  const v = await agentVerdict(t.verify, trajectory.final, trajectory, {
    task: taskView(t, options.file),
    signal: options.signal ?? new AbortController().signal,
    trusted: true,
    judge: options.judge,
  });
  return { verdict: { ...v, details: { ...v.details, environment } }, trajectory, tools };
}

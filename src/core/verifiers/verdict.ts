import type { Trajectory } from '../agent/types';
import type { Provider } from '../sampling/types';

/** What every verifier returns. */
export interface Verdict {
  readonly pass: boolean;
  /** 0..1; pass/fail verifiers give 0 or 1. */
  readonly score: number;
  /** One line a person can act on: "extracted 71 from \\boxed{71}, expected 72". */
  readonly reason: string;
  /** What was extracted, normalised, compared or measured. */
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * Set when the verifier could not decide (timeout, crash, refused to run): such a verdict
   * fails, and front ends show it as an error rather than as a wrong answer.
   */
  readonly error?: 'timeout' | 'crash' | 'refused' | 'unavailable';
}

/** The task as a verifier sees it. */
export interface TaskView {
  readonly id: string;
  /** The prompt text (the last user message when the task uses `messages`). */
  readonly prompt: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  readonly meta: Readonly<Record<string, unknown>>;
  /** Folder of the task file: relative paths (scripts, environments) resolve against it. */
  readonly dir: string;
}

/** Services and limits a check may use; the runner builds one per run. */
export interface VerifyContext {
  readonly task: TaskView;
  /** Cancels long checks (code, judge, math in a worker). */
  readonly signal: AbortSignal;
  /** False in an untrusted workspace: `code` and `script` must refuse to run. */
  readonly trusted: boolean;
  /** Verifies the full response against a nested verifier (for `all`, `any`, `weighted`). */
  child(verifier: unknown, response: string): Promise<Verdict>;
  /**
   * The model a `judge` verifier asks: by profile name, or the task's model when undefined.
   * Undefined when no model is configured (then judge verdicts are `unavailable`).
   */
  readonly judge?: (model: string | undefined) => Provider | undefined;
  /**
   * Agent tasks: the sample's trajectory (its tool calls, turns and final state), which the
   * `trajectory` and `state` kinds check. Every other kind checks the final answer.
   */
  readonly trajectory?: Trajectory;
}

/** Checks one response against validated parameters. */
export type Checker<P = Record<string, unknown>> = (
  response: string,
  params: P,
  ctx: VerifyContext,
) => Verdict | Promise<Verdict>;

export function verdict(
  pass: boolean,
  reason: string,
  details: Record<string, unknown> = {},
  score = pass ? 1 : 0,
): Verdict {
  return { pass, score, reason, details };
}

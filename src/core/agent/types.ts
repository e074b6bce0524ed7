import type { ChatMessage, ToolCall, ToolSpec } from '../base/chat';

/** What an environment answers to one tool call (spec §6): a result, or an error the model reads. */
export type ToolOutcome = { readonly result: unknown } | { readonly error: string };

/** One started environment: fresh per sample, closed when the sample is done. */
export interface EnvironmentSession {
  /** The tools `reset` declared. */
  readonly tools: readonly ToolSpec[];
  call(tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolOutcome>;
  /** The environment's final state (`{"op": "state"}`). */
  state(signal: AbortSignal): Promise<unknown>;
  /** Ends the environment's process or module instance; safe to call twice. */
  close(): Promise<void>;
  /** How the environment was isolated, for verdict details (as `code` verifiers say it). */
  readonly isolation: string;
}

/** A task's `environment:` as written, with `run` resolved against the task file's folder. */
export interface EnvironmentSpec {
  readonly run: string;
  readonly args?: Readonly<Record<string, unknown>>;
}

/** One step of a trajectory as the panel and the `trajectory` verifier see it. */
export interface TrajectoryStep {
  /** The assistant turn (1-based) the step belongs to. */
  readonly turn: number;
  readonly call: ToolCall;
  /** Parsed arguments, when they were valid JSON matching the tool's schema. */
  readonly args?: Readonly<Record<string, unknown>>;
  readonly outcome: ToolOutcome;
}

/** A whole agent sample: the messages after the prompt, the final answer and the final state. */
export interface Trajectory {
  /** Assistant and tool messages, in order, after the task's own prompt messages. */
  readonly messages: readonly ChatMessage[];
  readonly steps: readonly TrajectoryStep[];
  /** The last assistant message's text: what every non-agent verifier checks; empty when the turn limit ended the trajectory. */
  readonly final: string;
  /** Assistant turns taken. */
  readonly turns: number;
  /** The environment's state after the last step (undefined when it could not be read). */
  readonly state?: unknown;
  /** `final`: the model answered; `max_turns`: the turn limit ended it; `error`: the environment failed. */
  readonly stop: 'final' | 'max_turns' | 'error';
  readonly error?: string;
}

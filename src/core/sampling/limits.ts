// Bounds on what a model server can make a run spend: bytes of one answer, bytes of one streamed
// event, and time a task may go without a new sample. A profile sets them (`max_response_bytes`,
// `retry_budget_ms`); the environment overrides them for a whole run (VTASK_MAX_RESPONSE_BYTES,
// VTASK_RETRY_BUDGET_MS, VTASK_TIMEOUT_MS), which is how tests make them small.
import { SamplingError, type ModelProfile } from './types';

/** 8 MiB: far above any real answer (a 32k-token completion is ~150 KB), far below harm. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 << 20;
/** One SSE event carries a token or a few; 1 MiB means a server that never ends its event. */
export const DEFAULT_MAX_EVENT_BYTES = 1 << 20;
/** Tool calls one assistant turn may make: a model looping on calls must not flood the environment. */
export const MAX_TOOL_CALLS_PER_TURN = 64;
/** The most characters of one tool call's `arguments` (and its name): real arguments are small. */
export const MAX_TOOL_ARGUMENT_CHARS = 256 << 10;
/** Five minutes without a new sample ends a task's retries (attempts are also bounded by timeout_ms). */
export const DEFAULT_RETRY_BUDGET_MS = 300_000;

export interface ResponseLimits {
  readonly maxResponseBytes: number;
  readonly maxEventBytes: number;
  readonly timeoutMs: number;
  readonly retryBudgetMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function fromEnv(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new SamplingError(`$${name} must be a positive whole number, not ${JSON.stringify(raw)}`, 'bad-request');
  return n;
}

/** The limits of a profile, with the environment's overrides. */
export function limitsOf(p: ModelProfile, env: Env = process.env): ResponseLimits {
  const maxResponseBytes = fromEnv(env, 'VTASK_MAX_RESPONSE_BYTES') ?? p.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    maxResponseBytes,
    maxEventBytes: Math.min(maxResponseBytes, DEFAULT_MAX_EVENT_BYTES),
    timeoutMs: fromEnv(env, 'VTASK_TIMEOUT_MS') ?? p.timeoutMs,
    retryBudgetMs: fromEnv(env, 'VTASK_RETRY_BUDGET_MS') ?? p.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS,
  };
}

/** Raised by the transport and the SSE parser when a cap is passed; not retried (the server would do it again). */
export class TooLargeError extends Error {
  readonly code = 'ETOOLARGE';
  constructor(
    readonly what: string,
    readonly limit: number,
  ) {
    super(`${what} passed ${formatBytes(limit)}`);
    this.name = 'TooLargeError';
  }
}

export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n >> 20} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n >> 10} KiB`;
  return `${n} bytes`;
}

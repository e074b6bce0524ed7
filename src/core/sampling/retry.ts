// Retrying failed requests: exponential backoff with full jitter, `Retry-After` honoured, and
// every wait abortable. Only errors a retry can fix are retried (SamplingError.retryable): a
// rejected key, an unknown model or a bad request fail at once, however many attempts remain.
import { sleep } from '../util/wait';
import { SamplingError } from './types';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** The backoff ceiling of the first retry; it doubles each retry. */
  readonly baseDelayMs: number;
  /** The backoff ceiling never grows past this. */
  readonly maxDelayMs: number;
  /**
   * A `Retry-After` longer than this is not waited out: the error is reported at once, since a
   * run that silently sleeps for an hour looks hung.
   */
  readonly maxRetryAfterMs: number;
}

/** The least time left in a deadline for another attempt to be worth starting. */
const MIN_ATTEMPT_MS = 250;

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export interface RetryOptions {
  readonly policy?: Partial<RetryPolicy>;
  /** Called before each wait: for progress lines ("429, retrying in 2.1 s"). */
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: SamplingError }) => void;
  /** Injected by tests to observe the waits without waiting. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  /** No retry starts whose wait would end after this time (ms since the epoch). */
  readonly deadline?: () => number;
  /** Says what the deadline is, for the message when it stops the retries. */
  readonly deadlineName?: string;
}

/**
 * The wait before retry number `retry` (1 for the first retry). Full jitter, uniform in
 * [0, ceiling], spreads a burst of clients that failed together so they do not return together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * ceiling);
}

/**
 * `Retry-After` in milliseconds: delta-seconds (`120`) or an HTTP date. Undefined when absent or
 * unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Runs `fn` until it succeeds, it throws an error that is not retryable, the attempts run out
 * or `signal` aborts. `fn` receives the attempt number (1-based).
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  signal: AbortSignal,
  options: RetryOptions = {},
): Promise<T> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.policy };
  const wait = options.sleep ?? sleep;
  let previous: SamplingError | undefined;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw SamplingError.cancelled();
    try {
      return await fn(attempt);
    } catch (e) {
      // An abort surfaces as whatever the interrupted operation threw; report it as what it is.
      if (signal.aborted) throw SamplingError.cancelled();
      let error = SamplingError.from(e);
      // An attempt the deadline cut short says only that time ran out; the error that made the
      // earlier attempts fail (a 429, a 500) is the one worth reporting.
      const pastDeadline = options.deadline !== undefined && Date.now() >= options.deadline();
      if (pastDeadline && error.kind === 'timeout' && previous) error = previous;
      previous = error;
      if (!error.retryable || attempt >= policy.maxAttempts) throw error;
      let delayMs = backoffDelay(attempt, policy, options.random);
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > policy.maxRetryAfterMs) {
          throw new SamplingError(
            `${error.message}; the server asks to wait ${formatSeconds(error.retryAfterMs)}, longer than ${formatSeconds(policy.maxRetryAfterMs)}: try again later`,
            error.kind,
            error.status,
            error.retryAfterMs,
          );
        }
        // The server's wait is the floor; a little jitter on top keeps clients that were told the
        // same instant from returning in the same millisecond.
        delayMs =
          error.retryAfterMs + Math.round((options.random ?? Math.random)() * Math.min(1000, policy.baseDelayMs));
      }
      // A retry needs time to answer too: one that would start in the last moments of the budget
      // can only time out.
      if (options.deadline && Date.now() + delayMs + MIN_ATTEMPT_MS >= options.deadline()) {
        throw new SamplingError(
          `${error.message}; ${options.deadlineName ?? 'the time for retries'} ran out after ${attempt} attempt${attempt === 1 ? '' : 's'}`,
          error.kind,
          error.status,
          error.retryAfterMs,
        );
      }
      options.onRetry?.({ attempt, delayMs, error });
      await wait(delayMs, signal).catch((e: unknown) => {
        throw SamplingError.from(e);
      });
    }
  }
}

export function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

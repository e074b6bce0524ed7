// Waiting with a way out: one `sleep` and one `withDeadline` for every place that waits on a
// timer or a caller's abort. They reject with the neutral errors below, which each caller maps to
// its own vocabulary (a sampling error, an environment failure, a sandbox outcome).

/** The caller aborted the wait. */
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** The deadline passed before the awaited work settled. */
export class DeadlineError extends Error {
  constructor(
    /** What was awaited, as the message names it ("the call of search"). */
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} took longer than ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * Settles as `work` does, or rejects with a DeadlineError after `ms` or a CancelledError as soon
 * as `signal` aborts, whichever comes first. The timer and the abort listener are removed the
 * moment it settles, so nothing keeps the process alive afterwards. A late failure of `work` is
 * swallowed, since nobody waits for it any more.
 *
 * Given a function, `work` is started with a signal that aborts with the caller's or when the
 * deadline passes, so that work which listens stops as it is given up (and work which does not
 * listen is given up all the same). The signals are linked by hand rather than with
 * AbortSignal.any, which on Node 20 keeps every combined signal alive as long as the caller's.
 */
export function withDeadline<T>(
  work: Promise<T> | ((signal: AbortSignal) => Promise<T>),
  ms: number,
  signal: AbortSignal | undefined,
  what: string,
): Promise<T> {
  if (typeof work !== 'function') {
    // Work already started is only waited for: its rejection after the deadline is nobody's.
    const started = work;
    started.catch(() => undefined);
    return withDeadline(() => started, ms, signal, what);
  }
  if (signal?.aborted) return Promise.reject(new CancelledError());
  // One timer and one listener on the caller's signal, each ending the wait and the work at
  // once: every request of a run comes through here.
  const ctl = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const clear = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const giveUp = (e: unknown): void => {
      clear();
      ctl.abort();
      reject(e);
    };
    const onAbort = (): void => giveUp(new CancelledError());
    const timer = setTimeout(() => giveUp(new DeadlineError(what, ms)), Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
    let started: Promise<T>;
    try {
      started = work(ctl.signal);
    } catch (e) {
      giveUp(e);
      return;
    }
    started.then((value) => {
      clear();
      resolve(value);
    }, giveUp);
  });
}

/** Resolves after `ms`, or rejects with a CancelledError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new CancelledError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

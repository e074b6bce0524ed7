// A counting semaphore per model profile: at most `concurrency` requests in flight to one
// endpoint, whoever sends them. Waiters are served first come, first served, and a waiter whose
// signal aborts leaves the queue at once without taking a slot.
import { SamplingError } from './types';

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
  done: boolean;
}

export class Limiter {
  private active = 0;
  // A plain array with a moving head: shift() on a long queue is O(n) per call.
  private queue: Waiter[] = [];
  private head = 0;

  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a positive integer, not ${concurrency}`);
  }

  /** Requests holding a slot now. */
  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    let n = 0;
    for (let i = this.head; i < this.queue.length; i++) if (!this.queue[i]!.done) n++;
    return n;
  }

  /** Waits for a slot; the returned function gives it back (calling it twice is harmless). */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(SamplingError.cancelled());
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        resolve,
        reject,
        signal,
        done: false,
        onAbort: () => {
          if (w.done) return;
          w.done = true;
          reject(SamplingError.cancelled());
        },
      };
      signal.addEventListener('abort', w.onAbort, { once: true });
      this.queue.push(w);
    });
  }

  /** Runs `fn` holding a slot. */
  async run<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.next();
    };
  }

  /** Hands free slots to the oldest waiters still waiting. */
  private next(): void {
    while (this.active < this.concurrency && this.head < this.queue.length) {
      const w = this.queue[this.head++]!;
      if (w.done) continue;
      w.done = true;
      w.signal.removeEventListener('abort', w.onAbort);
      this.active++;
      w.resolve(this.releaser());
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * One limiter per profile, shared by every provider made for it: the CLI may build several
 * providers for one profile (tasks, judges), and the limit is the endpoint's, not theirs.
 */
const shared = new Map<string, Limiter>();

export function limiterFor(key: string, concurrency: number): Limiter {
  const id = `${key}\u0000${concurrency}`;
  let l = shared.get(id);
  if (!l) {
    l = new Limiter(concurrency);
    shared.set(id, l);
  }
  return l;
}

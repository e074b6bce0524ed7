import os from 'node:os';

/**
 * A process-wide bound on sandboxed programs running at once (default: the number of cores,
 * `VTASK_SANDBOX_CONCURRENCY` overrides), so that many checks in flight do not oversubscribe
 * the machine. Time limits count from a program's start, not from its wait for a slot.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly size: number) {
    this.free = size;
  }
  async use<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.free > 0) this.free--;
    else {
      await new Promise<void>((resolve) => {
        const go = (): void => {
          signal?.removeEventListener('abort', cancel);
          resolve();
        };
        // A cancelled wait gives its turn back at once; the run then sees the abort and returns.
        const cancel = (): void => {
          const i = this.waiting.indexOf(go);
          if (i !== -1) this.waiting.splice(i, 1);
          this.free--;
          resolve();
        };
        this.waiting.push(go);
        signal?.addEventListener('abort', cancel, { once: true });
      });
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

export function defaultConcurrency(): number {
  const env = Number(process.env.VTASK_SANDBOX_CONCURRENCY);
  if (Number.isInteger(env) && env > 0) return env;
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

export const SLOTS = new Slots(defaultConcurrency());

/**
 * A small pool of worker threads for comparisons that the main thread could not finish within
 * its budget. Synchronous JavaScript cannot be interrupted, so a hard time bound means running
 * the work elsewhere and terminating that thread: a worker that times out is terminated and
 * replaced. The pool is created on first use and its workers are unref'd while idle, so the
 * CLI exits normally; tests call disposeMathPool().
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CompareOptions, Method } from './compare';

export interface PoolAnswer {
  readonly equal: boolean | 'undecided';
  readonly method: Method;
  readonly note?: string;
}

export type PoolResult = PoolAnswer | { readonly error: 'timeout' | 'crash' | 'unavailable'; readonly note: string };

interface Job {
  readonly id: number;
  readonly gold: string;
  readonly pred: string;
  readonly options: CompareOptions;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly resolve: (r: PoolResult) => void;
}

interface Slot {
  worker: Worker | null;
  /** Set once the worker has loaded (mathjs takes a while): job timers start only then. */
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** Evaluation steps a worker spends on one pair (ten times the main thread's). */
const WORKER_STEPS = 2_000_000;

/** A worker that has not loaded within this time is treated as crashed. */
const STARTUP_LIMIT_MS = 30_000;

let explicitPath: string | undefined;

/**
 * Where the bundled worker (out/mathWorker.js) lives. Needed only when it is not next to the
 * running bundle (out/cli.js, out/extension.js) or at <cwd>/out/mathWorker.js.
 */
export function setMathWorkerPath(p: string | undefined): void {
  explicitPath = p;
}

export function resolveMathWorkerPath(): string | null {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  const candidates = [
    explicitPath,
    process.env.VTASK_MATH_WORKER,
    path.join(here, 'mathWorker.js'),
    path.join(here, '..', 'mathWorker.js'),
    path.join(here, '..', '..', 'mathWorker.js'),
    path.join(here, '..', '..', '..', 'mathWorker.js'),
    path.resolve(process.cwd(), 'out', 'mathWorker.js'),
  ];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  return null;
}

class MathPool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(
    private readonly file: string,
    size: number,
  ) {
    this.slots = Array.from({ length: size }, () => ({ worker: null, ready: false, job: null, timer: null }));
  }

  run(
    gold: string,
    pred: string,
    options: CompareOptions,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PoolResult> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, gold, pred, options, timeoutMs, signal, resolve };
      if (signal?.aborted) return resolve({ error: 'timeout', note: 'cancelled' });
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) continue;
      if (job.signal?.aborted) {
        job.resolve({ error: 'timeout', note: 'cancelled' });
        continue;
      }
      this.start(slot, job);
    }
  }

  private spawn(slot: Slot): Worker {
    const w = new Worker(this.file);
    slot.ready = false;
    w.on('message', (m: { id: number; ready?: boolean } & PoolAnswer) => {
      if (slot.worker !== w) return;
      if (m.ready) {
        slot.ready = true;
        if (slot.job) this.dispatch(slot, slot.job);
        return;
      }
      if (!slot.job || slot.job.id !== m.id) return;
      this.finish(slot, { equal: m.equal, method: m.method, note: m.note });
    });
    w.on('error', (e) => {
      if (slot.worker !== w) return;
      slot.worker = null;
      if (slot.job) this.finish(slot, { error: 'crash', note: e.message });
    });
    w.on('exit', () => {
      if (slot.worker !== w) return;
      slot.worker = null;
      if (slot.job) this.finish(slot, { error: 'crash', note: 'the math worker exited' });
    });
    return w;
  }

  private start(slot: Slot, job: Job): void {
    slot.worker ??= this.spawn(slot);
    slot.job = job;
    slot.worker.ref();
    const onAbort = (): void => {
      if (slot.job === job) this.kill(slot, { error: 'timeout', note: 'cancelled' });
    };
    job.signal?.addEventListener('abort', onAbort, { once: true });
    if (slot.ready) this.dispatch(slot, job);
    else
      slot.timer = setTimeout(
        () => this.kill(slot, { error: 'crash', note: 'the math worker did not start' }),
        STARTUP_LIMIT_MS,
      );
  }

  private dispatch(slot: Slot, job: Job): void {
    if (slot.timer) clearTimeout(slot.timer);
    if (!slot.worker) return;
    slot.timer = setTimeout(
      () => this.kill(slot, { error: 'timeout', note: `took longer than ${job.timeoutMs} ms` }),
      job.timeoutMs,
    );
    // The worker counts steps itself, so it answers "undecided" the same way on any machine;
    // the timer above only stops work that steps do not bound (a runaway simplification).
    slot.worker.postMessage({ id: job.id, gold: job.gold, pred: job.pred, options: job.options, steps: WORKER_STEPS });
  }

  private kill(slot: Slot, r: PoolResult): void {
    const w = slot.worker;
    slot.worker = null;
    if (w) void w.terminate();
    this.finish(slot, r);
  }

  private finish(slot: Slot, r: PoolResult): void {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker?.unref();
    job?.resolve(r);
    this.pump();
  }

  async dispose(): Promise<void> {
    for (const j of this.queue.splice(0)) j.resolve({ error: 'crash', note: 'pool disposed' });
    await Promise.all(
      this.slots.map(async (s) => {
        const w = s.worker;
        s.worker = null;
        if (s.job) this.finish(s, { error: 'crash', note: 'pool disposed' });
        if (w) await w.terminate();
      }),
    );
  }
}

let pool: MathPool | null = null;

/** Runs one comparison in the pool; resolves `unavailable` when the worker file is missing. */
export function runInPool(
  gold: string,
  pred: string,
  options: CompareOptions,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<PoolResult> {
  if (!pool) {
    const file = resolveMathWorkerPath();
    if (!file) return Promise.resolve({ error: 'unavailable', note: 'math worker not found (out/mathWorker.js)' });
    const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    pool = new MathPool(file, Math.max(1, Math.min(4, cores - 1)));
  }
  return pool.run(gold, pred, options, timeoutMs, signal);
}

/** Terminates the pool's workers (tests, extension deactivation); the next check recreates it. */
export async function disposeMathPool(): Promise<void> {
  const p = pool;
  pool = null;
  if (p) await p.dispose();
}

/**
 * Worker entry: runs one comparison with simplification enabled. Bundled on its own
 * (out/mathWorker.js) and started by pool.ts; the pool terminates it on timeout, which is
 * the only way to stop synchronous work such as a runaway simplification.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../base/errorMessage';
import { comparePair } from './answer';
import type { CompareOptions } from './compare';
import { stepBudget } from './evaluate';
import { simplifyEqual } from './simplify';

export interface WorkerJob {
  readonly id: number;
  readonly gold: string;
  readonly pred: string;
  readonly options: CompareOptions;
  /** Evaluation steps for the comparison; simplification is bounded by the pool's time limit. */
  readonly steps: number;
}

// Loading (mathjs above all) is done by now: tell the pool, which starts job timers from here.
parentPort?.postMessage({ ready: true });

parentPort?.on('message', (job: WorkerJob) => {
  try {
    const r = comparePair(job.gold, job.pred, {
      ...job.options,
      steps: stepBudget(job.steps),
      simplify: simplifyEqual,
    });
    parentPort?.postMessage({ id: job.id, equal: r.equal, method: r.method, note: r.note });
  } catch (e) {
    const timeout = e instanceof Error && /step budget/.test(e.message);
    parentPort?.postMessage({
      id: job.id,
      equal: 'undecided',
      method: 'simplify',
      note: timeout ? 'timeout' : errorMessage(e),
    });
  }
});

// Duplicate prompts and benchmark overlap over a whole dataset, for the duplicate diagnostics:
// at 100,000 prompts the search takes about a second of one thread, so a process that serves
// others (the extension host) runs it in a worker thread (out/overviewWorker.js) and only hands
// over the prompts and takes back what was found.
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../base/errorMessage';
import { readBenchmark } from './benchmark';
import { findContamination } from './contamination';
import { findDuplicates } from './duplicates';
import type { ContaminationHit, DuplicatePair, TaskRef } from '../dataset/types';

export interface FindingsJob {
  readonly prompts: readonly { readonly ref: TaskRef; readonly text: string }[];
  readonly threshold: number;
  /** Benchmark files, each with the name its hits give it. */
  readonly benchmarks: readonly { readonly file: string; readonly name: string }[];
  /** Words shared in a row that make an overlap (default 13). */
  readonly ngram?: number;
}

export interface Findings {
  readonly duplicates: readonly DuplicatePair[];
  readonly contamination: readonly ContaminationHit[];
  /** Benchmarks that could not be read, and why. */
  readonly unread: readonly { readonly name: string; readonly error: string }[];
}

/** The duplicates among the prompts and their overlaps with the benchmarks, in this thread. */
export async function findFindings(job: FindingsJob): Promise<Findings> {
  const duplicates = findDuplicates(job.prompts, { threshold: job.threshold });
  const contamination: ContaminationHit[] = [];
  const unread: { name: string; error: string }[] = [];
  for (const b of job.benchmarks) {
    try {
      contamination.push(
        ...findContamination(job.prompts, (await readBenchmark(b.file)).rows, {
          benchmark: b.name,
          ...(job.ngram !== undefined ? { n: job.ngram } : {}),
        }),
      );
    } catch (e) {
      unread.push({ name: b.name, error: errorMessage(e) });
    }
  }
  return { duplicates, contamination, unread };
}

/**
 * `findFindings` in a worker thread started from `worker` (the bundled out/overviewWorker.js),
 * stopped when `signal` aborts; in this thread without one.
 */
export function findFindingsInThread(
  job: FindingsJob,
  o: { readonly worker?: string; readonly signal?: AbortSignal } = {},
): Promise<Findings> {
  if (!o.worker) return findFindings(job);
  const script = o.worker;
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { workerData: { kind: FINDINGS_JOB, job } });
    const stop = (): void => void w.terminate();
    o.signal?.addEventListener('abort', stop, { once: true });
    w.once('message', (f: Findings) => resolve(f));
    w.once('error', reject);
    w.once('exit', (code) => {
      o.signal?.removeEventListener('abort', stop);
      reject(
        o.signal?.aborted
          ? o.signal.reason
          : new Error(`the duplicate search stopped (exit code ${code}) before it was done`),
      );
    });
  });
}

/** What marks a worker started for `findFindings` (overviewWorker.ts). */
export const FINDINGS_JOB = 'findings';

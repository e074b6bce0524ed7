// Parsing is most of a first `vtask stats` over a large dataset (a YAML parse per file, 20 s of
// CPU for 100,000 tasks), and files are independent of each other: with several cores they are
// summarised in worker threads. A worker reads the case outcomes remembered in the cache
// folder, writes each file's summary there as the main thread would, and sends back the
// summary and the case outcomes it learnt, which the main thread remembers.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { StatsMemo } from './statsMemo';
import { readChunkedAgain } from '../../taskfile/fileStream';
import { plainSummary, summariseTaskFile, type CaseCounts, type PlainSummary } from './summary';

/** Marks a worker started to summarise task files; the entry script checks for it. */
export const SUMMARY_WORKER = 'vtask-summarise-files';

/** Below this much text to parse, starting threads costs more than it saves. */
export const MIN_CHARS_FOR_WORKERS = 1 << 20;
/** Files sent to a worker ahead of its answers, so that it never waits for the main thread. */
const IN_FLIGHT = 2;

/**
 * One file to summarise: its text (hashing to `hash`; none: read it from disk a block at a
 * time), where it is, and its cache folder.
 */
export interface SummaryJob {
  readonly text?: string;
  readonly file: string;
  readonly hash: string;
  readonly cacheDir: string;
  readonly cases: boolean;
}

/**
 * A summary made in a worker, and the case outcomes learnt making it (cases key, counts). Its
 * prompts stay in the summary the worker remembered in the cache folder: sending them would copy
 * every prompt of the dataset into the main thread.
 */
export interface WorkerSummary {
  readonly summary: PlainSummary;
  readonly learnt: readonly (readonly [string, CaseCounts])[];
}

type Reply = { readonly id: number } & ({ readonly done: WorkerSummary } | { readonly error: string });

/** How many workers to start for `chars` of text to parse: none on one core or for a little text. */
export function workersFor(chars: number): number {
  const cores = availableParallelism();
  return cores < 2 || chars < MIN_CHARS_FOR_WORKERS ? 0 : Math.min(4, cores);
}

/**
 * Summarises `jobs` in `count` worker threads started from `script` (a bundle that calls
 * `runSummaryWorker` when started with `workerData.kind === SUMMARY_WORKER`); `onDone` hears
 * each one as it is done, with its index. Rejects with the first failure.
 */
export async function summariseInWorkers(
  script: string,
  count: number,
  jobs: readonly SummaryJob[],
  onDone: (index: number, s: WorkerSummary) => void,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let left = jobs.length;
  const workers: Worker[] = [];
  let stop: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: unknown): void => reject(e instanceof Error ? e : new Error(String(e)));
      stop = () => fail(signal?.reason);
      signal?.addEventListener('abort', stop, { once: true });
      const send = (w: Worker): void => {
        if (next < jobs.length) w.postMessage({ id: next, job: jobs[next++] });
      };
      if (!left) resolve();
      for (let i = 0; i < Math.min(count, jobs.length); i++) {
        // A small young generation: a file's parse trees are short-lived, and a large one only lets garbage pile up.
        const w = new Worker(script, {
          workerData: { kind: SUMMARY_WORKER },
          resourceLimits: { maxYoungGenerationSizeMb: 8 },
        });
        workers.push(w);
        w.on('message', (r: Reply) => {
          if ('error' in r) return fail(new Error(r.error));
          // Thrown here, in an event handler, it would end the process instead of failing the call.
          try {
            onDone(r.id, r.done);
          } catch (e) {
            return fail(e);
          }
          if (--left === 0) resolve();
          else send(w);
        });
        w.on('error', fail);
        w.on('exit', (code) => {
          if (left > 0) fail(new Error(`a summary worker exited with code ${code}`));
        });
        for (let k = 0; k < IN_FLIGHT; k++) send(w);
      }
    });
  } finally {
    if (stop) signal?.removeEventListener('abort', stop);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The body of a summary worker: answer each file it is sent, until it is terminated. */
export function runSummaryWorker(port: {
  on(event: 'message', f: (m: { id: number; job: SummaryJob }) => void): void;
  postMessage(m: Reply): void;
}): void {
  const memos = new Map<string, StatsMemo>();
  // One file at a time, in the order sent: a summary's cases may be the next one's.
  let queue = Promise.resolve();
  port.on('message', ({ id, job }) => {
    queue = queue.then(async () => {
      try {
        let memo = memos.get(job.cacheDir);
        if (!memo) memos.set(job.cacheDir, (memo = new StatsMemo(job.cacheDir)));
        const learnt: [string, CaseCounts][] = [];
        const known = memo;
        const s = await summariseTaskFile(job.text ?? readChunkedAgain(job.file, job.hash), job.file, {
          cases: job.cases,
          memo: {
            get: (k) => known.get(k),
            set: (k, c) => {
              known.set(k, c);
              learnt.push([k, c]);
            },
          },
        });
        try {
          memo.putFileSummary(job.hash, s.summary, s.prompts);
        } finally {
          s.prompts.close();
        }
        try {
          port.postMessage({ id, done: { summary: plainSummary(s.summary), learnt } });
        } finally {
          s.summary.tasks.close();
        }
      } catch (e) {
        port.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
      }
    });
  });
}

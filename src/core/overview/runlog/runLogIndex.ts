// The run log (`readRunLogEntries`) by file and task: the vtask view asks for one task's runs of every
// model, the dashboard for one file's. Reading a log of 100,000 tasks × 2 models takes about a
// second of one thread, so a process that serves others (the extension host) reads it in a
// worker thread (out/overviewWorker.js), which sends the records back in batches, each when the
// host asks for it: messages waiting together are all handled in one turn, so the host takes one
// batch per turn of its event loop.
import { Worker } from 'node:worker_threads';
import type { TimeSlices } from '../../util/slices';
import { readRunLogEntries, type RunLogEntry, type RunRecord } from './runLog';

/** A task's latest runs, by model label. */
export type RunsByModel = ReadonlyMap<string, RunLogEntry>;
/** Runs by file (as the log names it: relative to the folder holding the cache folder), then task id. */
export type RunLogIndex = ReadonlyMap<string, ReadonlyMap<string, RunsByModel>>;

/** One entry as a worker sends it: file, task, model, the latest record and the one before. */
type Row = [string, string, string, RunRecord, RunRecord | undefined];

/** Rows per message from the worker: a few milliseconds of the receiver's time. */
const BATCH = 2000;
/** What marks a worker started to read a run log (overviewWorker.ts). */
export const RUN_LOG_JOB = 'run-log';

class IndexBuilder {
  readonly byFile = new Map<string, Map<string, Map<string, RunLogEntry>>>();

  add(file: string, task: string, model: string, entry: RunLogEntry): void {
    let tasks = this.byFile.get(file);
    if (!tasks) this.byFile.set(file, (tasks = new Map()));
    let models = tasks.get(task);
    if (!models) tasks.set(task, (models = new Map()));
    models.set(model, entry);
  }
}

/** The entries of a read run log (`readRunLog`'s values, or `readRunLogEntries`), by file and task, in time slices. */
export async function indexRunLog(entries: Iterable<RunLogEntry>, slices?: TimeSlices): Promise<RunLogIndex> {
  const b = new IndexBuilder();
  for (const entry of entries) {
    const { file, task, model } = entry.latest;
    b.add(file, task, model, entry);
    if (slices?.due) await slices.next();
  }
  return b.byFile;
}

/**
 * A cache folder's run log by file and task, read in a worker thread started from `worker` (the
 * bundled out/overviewWorker.js); in this thread, in slices, without one.
 */
export function readRunLogIndex(
  cacheDir: string,
  o: { readonly worker?: string; readonly slices?: TimeSlices } = {},
): Promise<RunLogIndex> {
  if (!o.worker) return indexRunLog(readRunLogEntries(cacheDir), o.slices);
  const script = o.worker;
  return new Promise((resolve, reject) => {
    const b = new IndexBuilder();
    const w = new Worker(script, { workerData: { kind: RUN_LOG_JOB, cacheDir } });
    w.on('message', (rows: Row[] | null) => {
      if (rows === null) {
        resolve(b.byFile);
        return;
      }
      for (const [file, task, model, latest, previous] of rows)
        b.add(file, task, model, previous ? { latest, previous } : { latest });
      setImmediate(() => w.postMessage(NEXT));
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`the run log reader stopped (exit code ${code}) before it was done`)));
  });
}

/** What marks a worker started to compact a run log (overviewWorker.ts). */
export const COMPACT_JOB = 'compact-run-log';

/** Compacts a cache folder's run log (`compactRunLog`) in a worker thread started from `worker`; resolves when it is done. */
export function compactRunLogInWorker(worker: string, cacheDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker(worker, { workerData: { kind: COMPACT_JOB, cacheDir } });
    w.once('error', reject);
    w.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the run log compaction stopped with exit code ${code}`)),
    );
  });
}

/** What the reader sends the worker for the next batch. */
const NEXT = 'next';

/**
 * The body of the worker: reads the log, then posts its entries a batch at a time, the next one
 * when `port` says so, and null after the last; then closes the port.
 */
export function postRunLog(
  cacheDir: string,
  port: { postMessage(rows: Row[] | null): void; on(event: 'message', f: (m: unknown) => void): void; close(): void },
): void {
  const rows: Row[] = [];
  for (const e of readRunLogEntries(cacheDir))
    rows.push([e.latest.file, e.latest.task, e.latest.model, e.latest, e.previous]);
  let at = 0;
  const send = (): void => {
    if (at >= rows.length) {
      port.postMessage(null);
      port.close();
      return;
    }
    port.postMessage(rows.slice(at, (at += BATCH)));
  };
  port.on('message', (m) => m === NEXT && send());
  send();
}

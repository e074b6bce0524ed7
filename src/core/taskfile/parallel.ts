import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseTaskChunksPlain, TaskFileParser, type ChunkResult, type TaskFile } from './parse';
import { parseTaskPlain, type ChunkBatchParser, type PlainTask } from './stream';
import { at } from '../util/must';

/** Marks a worker started to parse task chunks; the entry script checks for it. */
export const PARSE_WORKER = 'vtask-parse-chunks';
/** Marks a worker that parses and resolves batches of task chunks for a stream, until closed. */
export const RESOLVE_WORKER = 'vtask-resolve-chunks';

/**
 * Below this many tasks, starting threads costs more than it saves: a thread loads the bundle
 * (about 0.25 s of CPU), and plain tasks parse in tens of microseconds each (plainYaml.ts).
 */
const MIN_TASKS_FOR_THREADS = 20_000;

/**
 * Parses a large task file with its task chunks spread over worker threads, because the YAML
 * parser dominates checking a big file and a machine has several cores. `script` is a file
 * that calls `runParseWorker()` when started with `workerData.kind === PARSE_WORKER`.
 */
export async function parseTaskFileInThreads(
  text: string,
  script: string,
  threads = Math.min(4, cpus().length),
): Promise<TaskFile> {
  const parser = new TaskFileParser();
  return parser.parseWith(text, async (texts) => {
    if (texts.length < MIN_TASKS_FOR_THREADS || threads < 2) return parseTaskChunksPlain(texts);
    const groups: string[][] = Array.from({ length: threads }, () => []);
    const per = Math.ceil(texts.length / threads);
    texts.forEach((t, i) => groups[Math.floor(i / per)]?.push(t));
    const parts = await Promise.all(groups.filter((g) => g.length).map((g) => inWorker(script, g)));
    return parts.flat();
  });
}

function inWorker(script: string, texts: string[]): Promise<ChunkResult[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { workerData: { kind: PARSE_WORKER, texts } });
    w.once('message', (r: ChunkResult[]) => {
      resolve(r);
      void w.terminate();
    });
    w.once('error', reject);
    w.once('exit', (code) => {
      if (code !== 0) reject(new Error(`parse worker exited with code ${code}`));
    });
  });
}

/** The body of a parse worker: parse the chunks it was given and post the results back. */
export function runParseWorker(data: { texts: string[] }, post: (r: ChunkResult[]) => void): void {
  post(parseTaskChunksPlain(data.texts));
}

interface ResolveJob {
  readonly id: number;
  readonly texts: readonly string[];
  readonly defaults: Record<string, unknown>;
}

/** A pool of threads for `streamTaskFile`: started on first use; `close` must be called. */
export interface ResolvePool {
  readonly parseBatch: ChunkBatchParser;
  close(): Promise<void>;
}

export function openResolvePool(script: string, threads = Math.min(4, cpus().length)): ResolvePool {
  const workers: Worker[] = [];
  const waiting = new Map<number, { resolve: (r: PlainTask[]) => void; reject: (e: Error) => void }>();
  let next = 0;
  const fail = (e: Error): void => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  const start = (): Worker => {
    // A small young generation: a batch's trees are short-lived, and a large one only lets garbage pile up.
    const w = new Worker(script, {
      workerData: { kind: RESOLVE_WORKER },
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    w.on('message', (m: { id: number; results: PlainTask[] }) => {
      waiting.get(m.id)?.resolve(m.results);
      waiting.delete(m.id);
    });
    w.on('error', fail);
    w.on('exit', (code) => {
      if (code !== 0) fail(new Error(`parse worker exited with code ${code}`));
    });
    return w;
  };
  return {
    parseBatch: (texts, defaults) =>
      new Promise((resolve, reject) => {
        const id = next++;
        if (workers.length < Math.max(1, threads)) workers.push(start());
        waiting.set(id, { resolve, reject });
        at(workers, id % workers.length).postMessage({ id, texts, defaults } satisfies ResolveJob);
      }),
    async close() {
      fail(new Error('the parse pool was closed'));
      await Promise.all(workers.splice(0).map((w) => w.terminate()));
    },
  };
}

/** The body of a resolve worker: answer each batch it is sent, until it is terminated. */
export function runResolveWorker(port: {
  on(event: 'message', f: (job: ResolveJob) => void): void;
  postMessage(m: unknown): void;
}): void {
  port.on('message', (job) =>
    port.postMessage({ id: job.id, results: job.texts.map((t) => parseTaskPlain(t, job.defaults)) }),
  );
}

import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseTaskChunkPlain, TaskFileParser, type ChunkResult, type TaskFile } from './parse';

/** Marks a worker started to parse task chunks; the entry script checks for it. */
export const PARSE_WORKER = 'vtask-parse-chunks';

/** Below this many tasks, starting threads costs more than it saves. */
const MIN_TASKS_FOR_THREADS = 1500;

/**
 * Parses a large task file with its task chunks spread over worker threads, because the YAML
 * parser dominates checking a big file and a machine has several cores. `script` is a file
 * that calls `runParseWorker()` when started with `workerData.kind === PARSE_WORKER`.
 */
export async function parseTaskFileInThreads(text: string, script: string, threads = Math.min(4, cpus().length)): Promise<TaskFile> {
  const parser = new TaskFileParser();
  return parser.parseWith(text, async (texts) => {
    if (texts.length < MIN_TASKS_FOR_THREADS || threads < 2) return texts.map(parseTaskChunkPlain);
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
  post(data.texts.map(parseTaskChunkPlain));
}

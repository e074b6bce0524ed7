// `vtask stats` and the dataset dashboard: one function reads the task files, the run log and
// the benchmarks into `DatasetStats`. Model results come from the run log only: no request, no
// sample re-verified. A run recorded under another run key than the task's current one (its
// prompt or verifier changed since) is stale: counted per model and left out, since `vtask run`
// re-verifies its cached samples for free.
import fs from 'node:fs';
import path from 'node:path';
import { resolveCacheDir } from '../sampling/cacheDir';
import { readBenchmark } from './benchmark';
import { findContamination } from './contamination';
import { DEFAULT_DUPLICATE_THRESHOLD, findDuplicates } from './duplicates';
import { readLatestRuns } from './latestRuns';
import { modelResults, type DatasetTask } from './modelResults';
import { logNames } from './runLog';
import { StatsMemo } from './statsMemo';
import { addFileStats, fileStatsOf, summariseTaskFile, textHash, type FileSummary } from './summary';
import type { ContaminationHit, DatasetStats, FileStats, TaskRef } from './types';

export interface CollectOptions {
  /** Model labels to keep; all the run log knows by default. */
  readonly models?: readonly string[];
  /** The cache folder (`--cache-dir`); by default each file's, as `vtask run` finds it. */
  readonly cacheDir?: string;
  /** Benchmark files (JSONL, text, Parquet) to look for overlap with. */
  readonly benchmarks?: readonly string[];
  /** Estimated Jaccard similarity from which two prompts are near-duplicates (default 0.8). */
  readonly duplicateThreshold?: number;
  /** False: no duplicate search. */
  readonly duplicates?: boolean;
  /** False: cases are counted, not run (all `skipped`). */
  readonly cases?: boolean;
  /** A file's text (the editor's, unsaved); the disk's by default. */
  readonly read?: (file: string) => string;
  readonly signal?: AbortSignal;
  /** Called after each file is read, for a progress line. */
  readonly onFile?: (done: number, total: number) => void;
  /** What was skipped or cut reading a benchmark, with where. */
  readonly onNote?: (note: string) => void;
  /** False: comparisons without their points (the scatter plot), for output that draws none. */
  readonly points?: boolean;
}

/** Everything `vtask stats` reports on `files` (paths as they should be shown). */
export async function collectDatasetStats(files: readonly string[], o: CollectOptions = {}): Promise<DatasetStats> {
  const read = o.read ?? ((f: string) => fs.readFileSync(f, 'utf8'));
  const memos = new Map<string, StatsMemo>();
  const summaries: FileSummary[] = [];
  const cacheDirOf: string[] = [];
  for (const [i, file] of files.entries()) {
    o.signal?.throwIfAborted();
    const cacheDir = resolveCacheDir(file, { cacheDir: o.cacheDir });
    cacheDirOf.push(cacheDir);
    let memo = memos.get(cacheDir);
    if (!memo) memos.set(cacheDir, (memo = new StatsMemo(cacheDir)));
    const text = read(file);
    const hash = textHash(text);
    let summary = memo.fileSummary(hash);
    // A summary made with --no-cases lacks outcomes: read the file again when they are wanted.
    if (!summary || (o.cases !== false && !summary.casesRun)) {
      summary = await summariseTaskFile(text, file, { cases: o.cases, memo, signal: o.signal });
      memo.putFileSummary(hash, summary);
    } else if (o.cases === false) summary = { ...summary, casesRun: false };
    summaries.push(summary);
    o.onFile?.(i + 1, files.length);
  }
  for (const m of memos.values()) m.save();

  const dataset: DatasetTask[] = [];
  // Tasks by where the run log names them: per cache folder, file relative to its parent and task id.
  const byLogName = new Map<string, Map<string, number>>();
  for (const [i, summary] of summaries.entries()) {
    const file = files[i] as string;
    const cacheDir = cacheDirOf[i] as string;
    const rel = path.relative(path.dirname(cacheDir), path.resolve(file)).split(path.sep).join('/');
    let named = byLogName.get(cacheDir);
    if (!named) byLogName.set(cacheDir, (named = new Map()));
    for (const row of summary.tasks) {
      named.set(logNames(rel, row.id), dataset.length);
      dataset.push({ ref: { file, task: row.id, line: row.line }, file: i, runKey: row.runKey, valid: row.kind !== null });
    }
  }
  const wanted = o.models?.length ? new Set(o.models) : undefined;
  const runs = [...byLogName].flatMap(([cacheDir, named]) => readLatestRuns(cacheDir, named, wanted && ((m) => wanted.has(m))));
  const { models, fileBands, results, comparisons } = modelResults(dataset, files.length, runs, { models: o.models, points: o.points });
  const perFile: FileStats[] = summaries.map((s, i) => fileStatsOf(files[i] as string, s, Object.fromEntries(fileBands[i] ?? [])));

  const prompts = (): { ref: TaskRef; text: string }[] =>
    summaries.flatMap((s, i) => s.tasks.filter((t) => t.kind !== null && t.prompt !== '').map((t) => ({ ref: { file: files[i] as string, task: t.id, line: t.line }, text: t.prompt })));
  o.signal?.throwIfAborted();
  const duplicates = o.duplicates === false ? [] : findDuplicates(prompts(), { threshold: o.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD });
  const contamination: ContaminationHit[] = [];
  for (const bench of o.benchmarks ?? []) {
    o.signal?.throwIfAborted();
    const { rows, notes } = await readBenchmark(bench);
    for (const note of notes) o.onNote?.(note);
    contamination.push(...findContamination(prompts(), rows, { benchmark: bench }));
  }
  const totals = addFileStats(perFile);
  return { files: files.length, tasks: totals.tasks, totals, per_file: perFile, models, results, ...(comparisons.length ? { comparisons } : {}), duplicates, contamination };
}

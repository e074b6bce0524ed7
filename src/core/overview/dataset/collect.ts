// `vtask stats` and the dataset dashboard: one function reads the task files, the run log and
// the benchmarks into `DatasetStats`. Model results come from the run log only: no request, no
// sample re-verified (modelResults.ts). What is costly and can be told unchanged is remembered
// in the cache folder (statsMemo.ts): file summaries, case outcomes, duplicates and overlaps.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_DUPLICATE_THRESHOLD } from '../prompts/duplicates';
import { summariseFiles, type FileText } from './fileSummaries';
import { latestRunName, readLatestRuns } from '../runlog/latestRuns';
import { runLogFile } from '../runlog/runLog';
import { modelResults } from './modelResults';
import { TaskTable } from './taskTable';
import { PromptChecks } from '../prompts/promptChecks';
import { addFileStats, fileStatsOf } from './summary';
import type { ContaminationHit, DatasetStats, FileStats } from './types';
import { at } from '../../util/must';

export type { FileText } from './fileSummaries';

export interface CollectOptions {
  /** Model labels to keep; all the run log knows by default. */
  readonly models?: readonly string[];
  /** The cache folder (`--cache-dir`); by default each file's, as `vtask run` finds it. */
  readonly cacheDir?: string;
  /** Benchmark files (JSONL, text, Parquet) to look for overlap with. */
  readonly benchmarks?: readonly string[];
  /** Words a prompt must share in a row with a benchmark's to overlap it (default 13). */
  readonly ngram?: number;
  /** Estimated Jaccard similarity from which two prompts are near-duplicates (default 0.8). */
  readonly duplicateThreshold?: number;
  /** False: no duplicate search. */
  readonly duplicates?: boolean;
  /** False: cases are counted, not run (all `skipped`). */
  readonly cases?: boolean;
  /**
   * A file's text; the disk's by default. A text that is not the file's content on disk as it
   * is (`onDisk: false`: an editor's, or read with a problem to report) is read again next time.
   */
  readonly read?: (file: string) => FileText;
  /** Files whose text may not be the disk's (open in an editor): read whatever their stat. */
  readonly unsaved?: (file: string) => boolean;
  readonly signal?: AbortSignal;
  /** Called after each file is read, for a progress line. */
  readonly onFile?: (done: number, total: number) => void;
  /** What was skipped or cut reading a benchmark, with where. */
  readonly onNote?: (note: string) => void;
  /** False: comparisons without their points (the scatter plot), for output that draws none. */
  readonly points?: boolean;
  /** A bundle that can run as a summary worker: then many files to parse are parsed in threads (summaryWorkers.ts). */
  readonly workerScript?: string;
}

/** Everything `vtask stats` reports on `files` (paths as they should be shown). */
export async function collectDatasetStats(files: readonly string[], o: CollectOptions = {}): Promise<DatasetStats> {
  const read = await summariseFiles(files, o);
  const tasks = new TaskTable(files, read.summaries);
  // Tasks by where the run log names them: per cache folder, file relative to its parent and task
  // id. Only for a folder with a run log: a name per task is a string and an entry per task.
  const byLogName = new Map<string, Map<string, number> | undefined>();
  for (const [i, summary] of read.summaries.entries()) {
    const cacheDir = at(read.cacheDirs, i);
    const rel = path
      .relative(path.dirname(cacheDir), path.resolve(at(files, i)))
      .split(path.sep)
      .join('/');
    let named = byLogName.get(cacheDir);
    if (!byLogName.has(cacheDir))
      byLogName.set(cacheDir, (named = fs.existsSync(runLogFile(cacheDir)) ? new Map<string, number>() : undefined));
    let k = at(tasks.firstTask, i);
    if (named) for (const row of summary.tasks) named.set(latestRunName(rel, row.id), k++);
  }
  const wanted = o.models?.length ? new Set(o.models) : undefined;
  const runs = [...byLogName].flatMap(([cacheDir, named]) =>
    named ? readLatestRuns(cacheDir, named, wanted && ((m) => wanted.has(m))) : [],
  );
  const { models, fileBands, results, comparisons } = modelResults(tasks, files.length, runs, {
    models: o.models,
    points: o.points,
  });
  const perFile: FileStats[] = read.summaries.map((s, i) =>
    fileStatsOf(at(files, i), s, Object.fromEntries(fileBands[i] ?? [])),
  );

  // Remembered in the first file's cache folder.
  const checks = new PromptChecks(
    { files, hashes: read.hashes, tasks, firstTask: tasks.firstTask, prompts: (f) => read.prompts(f) },
    read.memos.get(read.cacheDirs[0] ?? ''),
  );
  o.signal?.throwIfAborted();
  const duplicates =
    o.duplicates === false ? [] : await checks.duplicates(o.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD);
  const contamination: ContaminationHit[] = [];
  for (const bench of o.benchmarks ?? []) {
    o.signal?.throwIfAborted();
    contamination.push(...(await checks.contamination(bench, o.onNote, o.ngram)));
  }
  const totals = addFileStats(perFile);
  return {
    files: files.length,
    tasks: totals.tasks,
    totals,
    per_file: perFile,
    models,
    results,
    ...(comparisons.length ? { comparisons } : {}),
    duplicates,
    contamination,
  };
}

// Reads a dataset into the workbench's index: task files (through the same summaries as
// `vtask stats`, so cases run once and are remembered), JSONL and Parquet rows in every format
// `vtask import` reads (streamed, a row at a time), and each task's latest run per model from the
// run log. Folders are searched for all three. Nothing here is the extension's: it runs in a
// worker thread, and in tests and benchmarks as it is.
import path from 'node:path';
import { errorMessage } from '../base/errorMessage';
import { promptOf, recordedResult } from '../datasets/datasetView';
import { detectFormat, IMPORT_FORMATS, type RowImporter } from '../datasets/formats';
import { NOT_A_DATASET } from '../datasets/detectFormat';
import { parseRowTasks } from '../datasets/rowTasks';
import { resultKeys } from '../run/resultKeys';
import { readRowBatches, rowFileText, rowFileType, type RowFileType } from '../datasets/rowFiles';
import { latestRunName, readLatestRuns } from '../overview/runlog/latestRuns';
import { summariseFiles } from '../overview/dataset/fileSummaries';
import type { RunRecord } from '../overview/runlog/runLog';
import { kindOfVerifier } from '../overview/dataset/summary';
import { resolveCacheDir } from '../sampling/cacheDir';
import { BANDS } from '../stats';
import { findTaskFiles, isTaskFileName } from '../taskfile/discover';
import fs from 'node:fs';
import { parseTaskFile } from '../taskfile/parse';
import { WorkbenchIndex, type WorkbenchRun } from './index';
import { readFindings } from './findingsStore';
import { readSidecar, taskFileLabels } from './labels';
import { EMPTY_QUERY } from './query';

/** The model name under which a row's recorded pass rate (written by `vtask export`) is shown. */
export const RECORDED_MODEL = 'recorded';

export interface CollectWorkbenchOptions {
  /** Paths are shown relative to this folder (the workspace's). */
  readonly root: string;
  /** The cache folder; by default each file's, as `vtask run` finds it. */
  readonly cacheDir?: string;
  /** False: cases are counted, not run. */
  readonly cases?: boolean;
  readonly signal?: AbortSignal;
  /** Called as files are read. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface CollectedWorkbench {
  readonly index: WorkbenchIndex;
  /** The files read, as shown. */
  readonly files: readonly string[];
  /** What could not be read, with why. */
  readonly notes: readonly string[];
}

/** Whether a file name is one the workbench reads. */
export function isDatasetFileName(name: string): boolean {
  return isTaskFileName(name) || rowFileType(name) !== undefined;
}

/** Reads the task files, JSONL and Parquet files of `paths` (files or folders) into an index. */
export async function collectWorkbench(
  paths: readonly string[],
  o: CollectWorkbenchOptions,
): Promise<CollectedWorkbench> {
  const notes: string[] = [];
  const files = findTaskFiles(paths, (s) => notes.push(`${s.path}: ${s.message}`), { wanted: isDatasetFileName });
  const index = new WorkbenchIndex();
  const shown = (f: string): string => path.relative(o.root, path.resolve(f)).split(path.sep).join('/');
  const taskFiles = files.filter((f) => rowFileType(f) === undefined);
  let done = 0;
  await addTaskFiles(index, taskFiles, shown, o, () => o.onProgress?.(++done, files.length));
  for (const f of files) {
    const type = rowFileType(f);
    if (!type) continue;
    o.signal?.throwIfAborted();
    try {
      await addRowFile(index, f, type, shown(f), o);
    } catch (e) {
      notes.push(`${shown(f)}: ${errorMessage(e)}`);
    }
    o.onProgress?.(++done, files.length);
  }
  index.setView(EMPTY_QUERY);
  return { index, files: files.map(shown), notes };
}

/** A run as the table shows it: its tokens summed, when the endpoint reported them. */
function runOf(f: RunRecord): WorkbenchRun {
  const tokens = f.tokens ? f.tokens.prompt + f.tokens.completion : undefined;
  return {
    rate: f.pass_rate,
    band: f.band,
    samples: f.samples,
    signal: f.signal_share,
    ...(tokens !== undefined && f.tokens ? { tokens, promptTokens: f.tokens.prompt } : {}),
    ...(typeof f.cost === 'number' ? { cost: f.cost } : {}),
  };
}

/**
 * The review labels of a task file (`meta.review`). A file that never says `review` has none,
 * and is not parsed again (its summary was remembered without them).
 */
function fileLabels(file: string): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return new Map();
  }
  return text.includes('review') ? taskFileLabels(parseTaskFile(text)) : new Map();
}

/** Task files: their summaries (cases run and remembered as `vtask stats` does), prompts and runs. */
async function addTaskFiles(
  index: WorkbenchIndex,
  files: readonly string[],
  shown: (f: string) => string,
  o: CollectWorkbenchOptions,
  onFile: () => void,
): Promise<void> {
  if (!files.length) return;
  const read = await summariseFiles(files, { cacheDir: o.cacheDir, cases: o.cases, signal: o.signal, onFile });
  // Rows by where the run log names them, per cache folder; with the run key a run must have.
  const byLogName = new Map<string, Map<string, number>>();
  const runKeys: string[] = [];
  for (const [i, summary] of read.summaries.entries()) {
    const file = files[i] as string;
    const cacheDir = read.cacheDirs[i] as string;
    const rel = path.relative(path.dirname(cacheDir), path.resolve(file)).split(path.sep).join('/');
    let named = byLogName.get(cacheDir);
    if (!named) byLogName.set(cacheDir, (named = new Map()));
    const prompts = [...(await read.prompts(i))];
    const labels = fileLabels(file);
    for (const [k, t] of [...summary.tasks].entries()) {
      const n = index.add({
        id: t.id,
        file: shown(file),
        line: t.line,
        kind: t.kind,
        prompt: prompts[k] ?? '',
        cases: t.cases,
        casesPassed: t.outcome ? t.outcome.passed : -1,
        casesFailed: t.outcome ? t.outcome.failed : -1,
        findings: -1,
        ...(labels.has(t.id) ? { label: labels.get(t.id) } : {}),
      });
      runKeys[n] = t.runKey;
      // A task with errors does not run: its old runs do not describe it.
      if (t.kind !== null) named.set(latestRunName(rel, t.id), n);
    }
  }
  for (const [cacheDir, named] of byLogName) {
    for (const run of readLatestRuns(cacheDir, named)) {
      // A run of an older version of the task (its prompt or verifier changed since) is stale.
      if (run.latest.key === runKeys[run.task]) index.setRun(run.task, run.model, runOf(run.latest));
    }
    // So are findings of an older version: the task is shown as not audited.
    for (const [name, f] of readFindings(cacheDir)) {
      const n = named.get(name);
      if (n !== undefined && f.key === runKeys[n]) index.setFindings(n, f.findings);
    }
  }
}

/**
 * The rows of a JSONL or Parquet file. Ids repeated in a file are renamed as `vtask import`
 * renames them (`id-2`), which is how the editor records their runs. Runs of JSONL rows made in
 * the editor are in the run log under the file; a row's own recorded pass rate (an export's) is
 * shown as the model `recorded`.
 */
async function addRowFile(
  index: WorkbenchIndex,
  file: string,
  type: RowFileType,
  shown: string,
  o: CollectWorkbenchOptions,
): Promise<void> {
  let importer: RowImporter | undefined;
  const labels = readSidecar(file);
  const seen = new Set<string>();
  // Runs in the editor's run log are of JSONL rows only (a Parquet row runs from its table).
  const named = type === 'jsonl' ? new Map<string, number>() : undefined;
  // Every row by its name in the cache, for the findings of an audit of the rows.
  const byName = new Map<string, number>();
  const cacheDir = resolveCacheDir(file, { cacheDir: o.cacheDir });
  const rel = path.relative(path.dirname(cacheDir), path.resolve(file)).split(path.sep).join('/');
  const bad = (id: string, line: number, error: string): number =>
    index.add({
      id,
      file: shown,
      line,
      kind: null,
      prompt: '',
      cases: 0,
      casesPassed: -1,
      casesFailed: -1,
      findings: -1,
      error,
    });
  for await (const batch of readRowBatches(file, type)) {
    o.signal?.throwIfAborted();
    for (const r of batch) {
      const line = type === 'jsonl' ? Number(r.where.slice('line '.length)) - 1 : r.n;
      if (!r.row) {
        bad(`row ${r.n}`, line, r.error ?? 'not a row');
        continue;
      }
      if (!importer) {
        const format = detectFormat(r.row);
        importer = format ? IMPORT_FORMATS.get(format) : undefined;
        if (!importer) throw new Error(NOT_A_DATASET);
      }
      const got = importer(r.row, r.n);
      if ('error' in got) {
        bad(String(r.row.task_id ?? r.row.id ?? `row ${r.n}`), line, got.error);
        continue;
      }
      let id = got.task.id;
      if (seen.has(id)) {
        let s = 2;
        while (seen.has(`${got.task.id}-${s}`)) s++;
        id = `${got.task.id}-${s}`;
      }
      seen.add(id);
      const label = labels.get(id);
      const n = index.add({
        id,
        file: shown,
        line,
        kind: kindOfVerifier(got.task.verify),
        prompt: promptOf(got.task),
        cases: 0,
        casesPassed: -1,
        casesFailed: -1,
        findings: -1,
        ...(label ? { label } : {}),
      });
      named?.set(latestRunName(rel, id), n);
      byName.set(latestRunName(rel, id), n);
      const recorded = recordedResult(r.row);
      if (recorded?.band && (BANDS as readonly string[]).includes(recorded.band))
        index.setRun(n, RECORDED_MODEL, {
          rate: recorded.passRate,
          band: recorded.band as WorkbenchRun['band'],
          samples: recorded.samples ?? -1,
          signal: NaN,
        });
    }
  }
  if (named) for (const run of readLatestRuns(cacheDir, named)) index.setRun(run.task, run.model, runOf(run.latest));
  await addRowFindings(index, file, cacheDir, byName);
}

/**
 * The remembered findings of a dataset's audited rows, each while its row's task is the one
 * audited (its run key). The keys need the rows read as tasks, the way the audit read them: that
 * second read is made only for a file some of whose rows were audited.
 */
async function addRowFindings(
  index: WorkbenchIndex,
  file: string,
  cacheDir: string,
  byName: ReadonlyMap<string, number>,
): Promise<void> {
  const remembered = readFindings(cacheDir);
  const audited = [...byName].flatMap(([name, n]) => {
    const f = remembered.get(name);
    return f ? [{ n, f }] : [];
  });
  if (!audited.length) return;
  const keys = resultKeys(parseRowTasks(await rowFileText(file), { maxRows: Infinity }));
  for (const { n, f } of audited) if (keys.get(index.row(n).id)?.run === f.key) index.setFindings(n, f.findings);
}

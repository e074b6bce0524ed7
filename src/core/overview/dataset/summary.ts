// What one task file holds, for `vtask stats` and the dashboard: its tasks (id, line, verifier
// kind, cases, run key), their prompts and its counts. Reading a file whole costs a YAML parse,
// which dominates `vtask stats` over a large dataset, so a file's summary is kept in the cache
// folder keyed by a hash of its text and the vtask version: an unchanged file is read back, not
// parsed.
import { createHash } from 'node:crypto';
import { runCases } from '../../run/cases';
import { resultKeysOf, streamedResultKeys, type ResultKeys } from '../../run/resultKeys';
import { parseRowTasks } from '../../datasets/rowTasks';
import { rowFileType } from '../../datasets/rowFiles';
import type { TaskEntry, TaskFile } from '../../taskfile/parse';
import { streamChunks, streamTaskFile, type ChunkedText } from '../../taskfile/stream';
import type { Issue } from '../../base/issues';
import { runnableTasks, type TaskSpec } from '../../taskfile/resolve';
import type { FileStats } from './types';
import { emptyBands } from './modelCounts';
import { verifierKind } from '../../util/verifierKind';
import { at, must } from '../../util/must';
import { PromptSpool } from './promptSpool';
import { TaskRows, type CaseCounts, type TaskRow } from './taskRows';

export type { CaseCounts, TaskRow } from './taskRows';

export interface FileSummary {
  /** Every task written in the file with an id, valid or not. */
  readonly tasks: TaskRows;
  /** Validation errors anywhere in the file. */
  readonly errors: number;
  /** True when the cases of its in-process verifiers were run (see `casesRun`). */
  readonly casesRun: boolean;
}

/** A summary as plain data: as JSON has it, and as it crosses threads. */
export type PlainSummary = Omit<FileSummary, 'tasks'> & { readonly tasks: readonly TaskRow[] };

/** The plain data of a summary. */
export function plainSummary(s: FileSummary): PlainSummary {
  return { ...s, tasks: [...s.tasks] };
}

/**
 * Verifier kinds whose cases are cheap and certain to run here: pure functions of the response,
 * with no model, process or sandbox. Composites count when all their children do.
 */
const IN_PROCESS = new Set(['math', 'match', 'choice', 'constraints', 'json', 'format']);

/** True when every verifier in `v` checks in-process (see IN_PROCESS). */
export function runsInProcess(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  if (keys.length !== 1) return false;
  const kind = at(keys, 0);
  const params = (v as Record<string, unknown>)[kind];
  if (IN_PROCESS.has(kind)) return true;
  if (kind !== 'all' && kind !== 'any' && kind !== 'weighted') return false;
  const list = Array.isArray(params) ? params : (params as { of?: unknown } | null)?.of;
  if (!Array.isArray(list) || list.length === 0) return false;
  return list.every((item) =>
    runsInProcess(kind === 'weighted' ? (item as { verify?: unknown } | null)?.verify : item),
  );
}

/** The top-level kind of a resolved verifier. */
export function kindOfVerifier(v: unknown): string | null {
  return verifierKind(v) ?? null;
}

/** Case outcomes remembered by cases key (the task's verifier and cases) for one vtask version. */
export interface CaseMemo {
  get(casesKey: string): CaseCounts | undefined;
  set(casesKey: string, counts: CaseCounts): void;
}

export interface SummariseOptions {
  /** Run the cases of in-process verifiers (default true). */
  readonly cases?: boolean;
  readonly memo?: CaseMemo;
  readonly signal?: AbortSignal;
}

/** A file's summary, and the prompt of each of its tasks. */
export interface SummarisedFile {
  readonly summary: FileSummary;
  /** Per task of `summary.tasks`, its last user message (what duplicates and contamination compare); `''` for a task with errors. */
  readonly prompts: PromptSpool;
}

/** One task as a summary reads it: where it is, its keys, and its spec when it has no errors. */
interface SummaryItem {
  readonly entry: TaskEntry;
  readonly spec: TaskSpec | undefined;
  readonly line: number;
  readonly keys: ResultKeys;
  /** Its errors, the file-level ones about it (a repeated id) included. */
  readonly errors: number;
}

/** Tasks whose cases are run together: enough to keep every core busy, few enough to hold. */
const CASE_BATCH = 500;

/**
 * Reads one task file's text into its summary; `file` is where its relative paths resolve. A
 * task file is read one task at a time (taskfile/stream.ts): only its rows and prompts are
 * kept, not every task's tree and spec (which made a 100,000-task file cost 600 MB), and its
 * cases run a batch at a time. A dataset file (JSONL, or Parquet given as the JSON lines of its
 * rows: `rowFileText`) is read as rows, every row a task.
 */
export async function summariseTaskFile(
  text: string | ChunkedText,
  file: string,
  o: SummariseOptions = {},
): Promise<SummarisedFile> {
  const wantCases = o.cases !== false;
  const rows = new TaskRows();
  const prompts = new PromptSpool();
  let errors = 0;
  // Tasks whose cases are to run, with their row and cases key.
  let toRun: { row: number; spec: TaskSpec; casesKey: string }[] = [];
  const runBatch = async (): Promise<void> => {
    const batch = toRun;
    toRun = [];
    const results = await runCases(
      batch.map((b) => b.spec),
      { file, signal: o.signal, trusted: false },
    );
    const byTask = new Map<string, { passed: number; failed: number; skipped: number }>();
    for (const r of results) {
      const c = byTask.get(r.task) ?? { passed: 0, failed: 0, skipped: 0 };
      if (r.skipped) c.skipped++;
      else if (r.ok) c.passed++;
      else c.failed++;
      byTask.set(r.task, c);
    }
    for (const { row: i, casesKey } of batch) {
      const row = must(rows.at(i), 'a batch runs rows of the file');
      const c = byTask.get(row.id);
      if (!c || row.outcome) continue;
      const outcome = { total: row.cases, ...c };
      rows.setOutcome(i, outcome);
      o.memo?.set(casesKey, outcome);
    }
  };
  const items =
    typeof text === 'string' && rowFileType(file)
      ? parsedItems(parseRowTasks(text, { maxRows: Infinity }))
      : streamedItems(text);
  // The scratch folders of the prompts and rows are the caller's to remove, or here on a failure.
  try {
    for await (const item of items) {
      if (typeof item === 'number') {
        errors += item;
        continue;
      }
      const { entry, spec } = item;
      errors += item.errors;
      if (entry.id === undefined) continue;
      const row = {
        id: entry.id,
        line: item.line,
        kind: spec ? kindOfVerifier(spec.verify) : null,
        cases: entry.caseCount,
        runKey: item.keys.run,
      };
      prompts.add(spec?.prompt ?? '');
      const runs = wantCases && spec && spec.cases.length > 0 && runsInProcess(spec.verify);
      const known = runs ? o.memo?.get(item.keys.cases) : undefined;
      rows.push(known ? { ...row, outcome: known } : row);
      if (!runs || known) continue;
      toRun.push({ row: rows.length - 1, spec, casesKey: item.keys.cases });
      if (toRun.length >= CASE_BATCH) await runBatch();
    }
    if (toRun.length) await runBatch();
  } catch (e) {
    prompts.close();
    rows.close();
    throw e;
  }
  rows.trim();
  return { summary: { tasks: rows, errors, casesRun: wantCases }, prompts };
}

const isError = (i: Issue): boolean => i.severity === 'error';

/** The tasks of a task file read one at a time; numbers are errors outside the tasks. */
async function* streamedItems(text: string | ChunkedText): AsyncGenerator<SummaryItem | number> {
  const stream = typeof text === 'string' ? streamTaskFile(text) : streamChunks(text);
  yield stream.fileIssues.filter(isError).length;
  for await (const t of stream.tasks)
    yield {
      entry: t.entry,
      spec: t.spec,
      line: stream.lines.position(t.entry.offset + t.entry.anchor[0]).line,
      keys: streamedResultKeys(stream, text, t.entry),
      errors: t.issues.filter(isError).length,
    };
}

/** The tasks of a file parsed whole (a dataset's rows); its errors come first, as one number. */
async function* parsedItems(parsed: TaskFile): AsyncGenerator<SummaryItem | number> {
  yield parsed.issues.filter(isError).length;
  const specs = new Map<number, TaskSpec>(runnableTasks(parsed).tasks.map((t) => [t.index, t]));
  for (const entry of parsed.tasks)
    yield {
      entry,
      spec: specs.get(entry.index),
      line: parsed.lines.position(entry.offset + entry.anchor[0]).line,
      keys: resultKeysOf(parsed, entry),
      errors: 0,
    };
}

/** A hash of a file's text: what its remembered summary is keyed by. */
export function textHash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The counts of one file from its summary; `bands` comes from the run log. */
export function fileStatsOf(file: string, s: FileSummary, bands: FileStats['bands'] = {}): FileStats {
  const kinds: Record<string, number> = {};
  const cases = { total: 0, passed: 0, failed: 0, skipped: 0 };
  let withoutCases = 0;
  let invalid = 0;
  for (const t of s.tasks) {
    if (t.kind !== null) kinds[t.kind] = (kinds[t.kind] ?? 0) + 1;
    else invalid++;
    if (t.cases === 0) withoutCases++;
    cases.total += t.cases;
    const o = s.casesRun ? t.outcome : undefined;
    if (o) {
      cases.passed += o.passed;
      cases.failed += o.failed;
      cases.skipped += o.skipped;
    } else cases.skipped += t.cases;
  }
  return {
    file,
    tasks: s.tasks.length,
    invalid_tasks: invalid,
    kinds,
    cases,
    tasks_without_cases: withoutCases,
    errors: s.errors,
    bands,
  };
}

/** Adds up file counts into dataset totals (band counts per model included). */
export function addFileStats(all: readonly FileStats[]): Omit<FileStats, 'file'> {
  const kinds: Record<string, number> = {};
  const cases = { total: 0, passed: 0, failed: 0, skipped: 0 };
  const bands: Record<string, Record<string, number>> = {};
  let tasks = 0;
  let invalid = 0;
  let withoutCases = 0;
  let errors = 0;
  for (const f of all) {
    tasks += f.tasks;
    invalid += f.invalid_tasks ?? 0;
    withoutCases += f.tasks_without_cases;
    errors += f.errors;
    for (const [k, n] of Object.entries(f.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
    for (const k of ['total', 'passed', 'failed', 'skipped'] as const) cases[k] += f.cases[k];
    for (const [model, counts] of Object.entries(f.bands)) {
      const into = (bands[model] ??= emptyBands());
      for (const [b, n] of Object.entries(counts)) into[b] = (into[b] ?? 0) + n;
    }
  }
  return {
    tasks,
    invalid_tasks: invalid,
    kinds,
    cases,
    tasks_without_cases: withoutCases,
    errors,
    bands: bands as FileStats['bands'],
  };
}

// The dashboard's statistics, kept up to date as files change and runs finish: what
// `collectDatasetStats` reports (`vtask stats`), made from one part per file instead of in one
// pass. A part is made again only when its file's text or its runs in the log changed (a run of
// one file leaves the other 999 parts as they were), and the work is cut in time slices, so the
// extension host handles its events while a large dataset is read.
// Duplicates and contamination are given (the duplicate diagnostics find them), and model pairs
// are compared on demand (dashboardCompare.ts), not here.
import type { Band } from '../../stats';
import type { TimeSlices } from '../../util/slices';
import { runLogPath, type RunRecord } from '../runlog/runLog';
import type { RunLogIndex, RunsByModel } from '../runlog/runLogIndex';
import { StatsMemo } from './statsMemo';
import { addFileStats, fileStatsOf, summariseTaskFile, textHash, type FileSummary } from './summary';
import { addCounts, countRun, emptyBands, emptyCounts, modelStatsOf, type ModelCounts } from './modelCounts';
import type {
  ContaminationHit,
  DatasetStats,
  DuplicatePair,
  FileStats,
  ModelStats,
  TaskModelResult,
  TaskRef,
} from './types';

/** A task file of the dataset and the cache folder its runs are logged in. */
export interface LiveFile {
  readonly file: string;
  readonly cacheDir: string;
}

export interface LiveSources {
  /** A file's text now (an editor's, unsaved, or the disk's; a Parquet file's rows as JSON lines, read in turns). */
  read(file: string): string | Promise<string>;
  /** Whether the text `read` gave is an editor's unsaved one (not the disk's). */
  unsaved?(file: string): boolean;
  /** A cache folder's run log as it is now, by file and task (`indexRunLog`). */
  runLog(cacheDir: string): Promise<RunLogIndex>;
  readonly duplicates: readonly DuplicatePair[];
  readonly contamination: readonly ContaminationHit[];
}

export interface LiveOptions {
  readonly slices: TimeSlices;
  /** Called after each file whose text was read, for a progress line. */
  readonly onFile?: (done: number, total: number) => void;
}

/**
 * What was learnt is written to the cache folder after a reading that summarised this many files
 * (and by `flush`): the memo of case outcomes is one file, of 100,000 tasks' worth, too long to
 * write after each edit.
 */
const SAVE_AFTER_FILES = 50;

/** One model's runs of one file's tasks. */
interface ModelPart {
  readonly counts: ModelCounts;
  readonly changed: ModelStats['changed'][number][];
}

const emptyModelPart = (): ModelPart => ({ counts: emptyCounts(), changed: [] });

/** What one file adds to the statistics. */
interface FilePart {
  readonly stats: FileStats;
  readonly results: readonly TaskModelResult[];
  readonly models: ReadonlyMap<string, ModelPart>;
}

interface FileState {
  hash: string;
  summary: FileSummary;
  cacheDir: string;
  /** The part, and the file's runs it was joined with (other runs make it again). */
  part?: FilePart;
  runs?: ReadonlyMap<string, RunsByModel>;
}

export class LiveDatasetStats {
  private readonly states = new Map<string, FileState>();
  /** Files to read again (their text may have changed); all of them when `everything`. */
  private readonly reread = new Set<string>();
  private everything = true;
  private readonly memos = new Map<string, StatsMemo>();
  private lastResults: readonly (readonly TaskModelResult[])[] = [];

  /** Marks files (all without an argument) as possibly changed: their text is read again. */
  changed(files?: readonly string[]): void {
    if (files) for (const f of files) this.reread.add(f);
    else this.everything = true;
  }

  /** The statistics of `files`, in their order, remaking only the parts that changed. */
  async compute(files: readonly LiveFile[], sources: LiveSources, o: LiveOptions): Promise<DatasetStats> {
    const everything = this.everything;
    const reread = new Set(this.reread);
    this.everything = false;
    this.reread.clear();
    const logs = new Map<string, RunLogIndex>();
    const parts: FilePart[] = [];
    let summarised = 0;
    try {
      for (const [i, { file, cacheDir }] of files.entries()) {
        let state = this.states.get(file);
        if (!state || everything || reread.has(file) || state.cacheDir !== cacheDir) {
          const text = await sources.read(file);
          state = await this.summarise(file, cacheDir, text, !sources.unsaved?.(file), state);
          summarised++;
          o.onFile?.(i + 1, files.length);
        }
        let log = logs.get(cacheDir);
        if (!log) logs.set(cacheDir, (log = await sources.runLog(cacheDir)));
        const runs = log.get(runLogPath(cacheDir, file));
        if (!state.part || !sameRuns(state.runs, runs)) {
          state.part = filePart(file, state.summary, runs);
          state.runs = runs;
        }
        parts.push(state.part);
        if (o.slices.due) await o.slices.next();
      }
    } catch (e) {
      // Cut short (aborted): what was not read is read next time.
      this.everything ||= everything;
      for (const f of reread) this.reread.add(f);
      throw e;
    } finally {
      if (summarised >= SAVE_AFTER_FILES) this.flush();
      else for (const m of this.memos.values()) m.tidy();
    }
    const listed = new Set(files.map((f) => f.file));
    for (const f of this.states.keys()) if (!listed.has(f)) this.states.delete(f);
    this.lastResults = parts.map((p) => p.results);
    return assemble(parts, sources);
  }

  /**
   * The per-task results of the last statistics, file by file: an unchanged file's list is the
   * same array as before, so what was computed from it (a comparison) can be kept.
   */
  get resultsByFile(): readonly (readonly TaskModelResult[])[] {
    return this.lastResults;
  }

  /** Writes what was learnt (file summaries are written as they are made; case outcomes here). */
  flush(): void {
    for (const m of this.memos.values()) m.save();
  }

  /** A file's summary: kept when its text is the same, else remembered in its cache folder, else made. */
  private async summarise(
    file: string,
    cacheDir: string,
    text: string,
    onDisk: boolean,
    old: FileState | undefined,
  ): Promise<FileState> {
    const hash = textHash(text);
    if (old && old.hash === hash && old.cacheDir === cacheDir) return old;
    let memo = this.memos.get(cacheDir);
    if (!memo) this.memos.set(cacheDir, (memo = new StatsMemo(cacheDir)));
    memo.current(file, hash, onDisk);
    let summary = memo.fileSummary(hash)?.summary;
    if (!summary?.casesRun) {
      const made = await summariseTaskFile(text, file, { memo });
      try {
        memo.putFileSummary(hash, made.summary, made.prompts);
      } finally {
        made.prompts.close();
      }
      summary = made.summary;
    }
    const state: FileState = { hash, summary, cacheDir };
    this.states.set(file, state);
    return state;
  }
}

/** Whether two readings of the log hold the same runs of a file (records compared field by field). */
function sameRuns(
  a: ReadonlyMap<string, RunsByModel> | undefined,
  b: ReadonlyMap<string, RunsByModel> | undefined,
): boolean {
  if (a === b) return true;
  if (!a || !b || a.size !== b.size) return false;
  for (const [task, models] of a) {
    const other = b.get(task);
    if (!other || other.size !== models.size) return false;
    for (const [model, e] of models) {
      const f = other.get(model);
      if (!f || !sameRecord(e.latest, f.latest) || !sameRecord(e.previous, f.previous)) return false;
    }
  }
  return true;
}

function sameRecord(a: RunRecord | undefined, b: RunRecord | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.key === b.key &&
    a.at === b.at &&
    a.samples === b.samples &&
    a.passed === b.passed &&
    a.pass_rate === b.pass_rate &&
    a.band === b.band &&
    a.signal_share === b.signal_share
  );
}

/** A file's counts, results and per-model tallies, joined with its runs as `vtask stats` joins them. */
function filePart(file: string, s: FileSummary, runs: ReadonlyMap<string, RunsByModel> | undefined): FilePart {
  const models = new Map<string, ModelPart>();
  const bands = new Map<string, Record<Band, number>>();
  const results: TaskModelResult[] = [];
  // The log names a task by file and id: a repeated id is the last task with it, as in collect.ts.
  const rows = [...s.tasks];
  const last = new Map(rows.map((t, i) => [t.id, i]));
  rows.forEach((row, i) => {
    const byModel = runs?.get(row.id);
    if (!byModel || row.kind === null || last.get(row.id) !== i) return;
    for (const model of [...byModel.keys()].sort()) {
      const { latest, previous } = byModel.get(model) as { latest: RunRecord; previous?: RunRecord };
      let m = models.get(model);
      if (!m) models.set(model, (m = emptyModelPart()));
      if (latest.key !== row.runKey) {
        m.counts.stale++;
        continue;
      }
      const ref: TaskRef = { file, task: row.id, line: row.line };
      countRun(m.counts, latest);
      // The built-in model's runs of tasks it cannot do are in no band (modelCounts.ts).
      if (latest.band !== null && latest.note === undefined) {
        let b = bands.get(model);
        if (!b) bands.set(model, (b = emptyBands()));
        b[latest.band]++;
      }
      if (previous && previous.band !== latest.band) m.changed.push({ ...ref, from: previous.band, to: latest.band });
      results.push({ ...ref, model, samples: latest.samples, pass_rate: latest.pass_rate, band: latest.band });
    }
  });
  return { stats: fileStatsOf(file, s, Object.fromEntries(bands)), results, models };
}

/** The statistics from the files' parts, in the dataset's order. */
function assemble(parts: readonly FilePart[], sources: LiveSources): DatasetStats {
  const perModel = new Map<string, ModelPart>();
  const results: TaskModelResult[] = [];
  for (const p of parts) {
    for (const r of p.results) results.push(r);
    for (const [model, m] of p.models) {
      let into = perModel.get(model);
      if (!into) perModel.set(model, (into = emptyModelPart()));
      addCounts(into.counts, m.counts);
      for (const c of m.changed) into.changed.push(c);
    }
  }
  const models: Record<string, ModelStats> = {};
  for (const name of [...perModel.keys()].sort()) {
    const m = perModel.get(name) as ModelPart;
    models[name] = modelStatsOf(m.counts, m.changed);
  }
  const perFile = parts.map((p) => p.stats);
  const totals = addFileStats(perFile);
  return {
    files: parts.length,
    tasks: totals.tasks,
    totals,
    per_file: perFile,
    models,
    results,
    duplicates: sources.duplicates,
    contamination: sources.contamination,
  };
}

// `vtask stats` and the dataset dashboard: one function reads the task files, the run log and
// the benchmarks into `DatasetStats`. Model results come from the run log only: no request, no
// sample re-verified. A run recorded under another run key than the task's current one (its
// prompt or verifier changed since) is stale: counted per model and left out, since `vtask run`
// re-verifies its cached samples for free.
import fs from 'node:fs';
import path from 'node:path';
import type { Band } from '../stats';
import { resolveCacheDir } from '../sampling/cacheDir';
import { readBenchmark } from './benchmark';
import { compareModels } from './compare';
import { findContamination } from './contamination';
import { DEFAULT_DUPLICATE_THRESHOLD, findDuplicates } from './duplicates';
import { readRunLog, type RunRecord } from './runLog';
import { StatsMemo } from './statsMemo';
import { addFileStats, fileStatsOf, summariseTaskFile, textHash, type FileSummary, type TaskRow } from './summary';
import type { BandCounts, ContaminationHit, DatasetStats, FileStats, HistogramBin, ModelComparison, ModelStats, TaskModelResult, TaskRef } from './types';

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
}

const BANDS: readonly Band[] = ['too_easy', 'learnable', 'too_hard'];
const HISTOGRAM_BINS = 10;

interface Located {
  readonly file: string;
  readonly row: TaskRow;
  readonly stats: number;
}

/** Everything `vtask stats` reports on `files` (paths as they should be shown). */
export async function collectDatasetStats(files: readonly string[], o: CollectOptions = {}): Promise<DatasetStats> {
  const read = o.read ?? ((f: string) => fs.readFileSync(f, 'utf8'));
  const memos = new Map<string, StatsMemo>();
  const summaries: FileSummary[] = [];
  // Tasks by where the run log names them: cache folder, file relative to its parent, task id.
  const byLogName = new Map<string, Located>();
  const cacheDirs = new Set<string>();
  for (const [i, file] of files.entries()) {
    o.signal?.throwIfAborted();
    const cacheDir = resolveCacheDir(file, { cacheDir: o.cacheDir });
    cacheDirs.add(cacheDir);
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
    const rel = path.relative(path.dirname(cacheDir), path.resolve(file)).split(path.sep).join('/');
    for (const row of summary.tasks) byLogName.set(`${cacheDir}\0${rel}\0${row.id}`, { file, row, stats: i });
    o.onFile?.(i + 1, files.length);
  }
  for (const m of memos.values()) m.save();

  const wanted = o.models?.length ? new Set(o.models) : undefined;
  const perModel = new Map<string, ModelTally>();
  const tally = (model: string): ModelTally => {
    let t = perModel.get(model);
    if (!t) perModel.set(model, (t = new ModelTally()));
    return t;
  };
  for (const m of wanted ?? []) tally(m);
  const fileBands = summaries.map(() => new Map<string, Record<Band, number>>());
  const results: TaskModelResult[] = [];
  for (const cacheDir of cacheDirs) {
    for (const [, { latest, previous }] of readRunLog(cacheDir)) {
      if (wanted && !wanted.has(latest.model)) continue;
      const at = byLogName.get(`${cacheDir}\0${latest.file}\0${latest.task}`);
      if (!at || at.row.kind === null) continue;
      const t = tally(latest.model);
      if (latest.key !== at.row.runKey) {
        t.stale++;
        continue;
      }
      const ref: TaskRef = { file: at.file, task: at.row.id, line: at.row.line };
      t.add(ref, latest, previous);
      if (latest.band !== null) {
        const bands = fileBands[at.stats] as Map<string, Record<Band, number>>;
        let b = bands.get(latest.model);
        if (!b) bands.set(latest.model, (b = { too_easy: 0, learnable: 0, too_hard: 0 }));
        b[latest.band]++;
      }
      results.push({ ...ref, model: latest.model, samples: latest.samples, pass_rate: latest.pass_rate, band: latest.band });
    }
  }
  // The dataset's order, whatever order the log was written in.
  const order = new Map<string, number>();
  let n = 0;
  for (const [fi, s] of summaries.entries()) for (const row of s.tasks) order.set(`${files[fi]}\0${row.id}`, n++);
  const rank = (r: TaskRef): number => order.get(`${r.file}\0${r.task}`) ?? 0;
  results.sort((x, y) => rank(x) - rank(y) || (x.model < y.model ? -1 : x.model > y.model ? 1 : 0));

  const perFile: FileStats[] = summaries.map((s, i) => fileStatsOf(files[i] as string, s, Object.fromEntries(fileBands[i] ?? [])));
  const models: Record<string, ModelStats> = {};
  for (const name of [...perModel.keys()].sort()) models[name] = (perModel.get(name) as ModelTally).stats(rank);
  const names = Object.keys(models);
  const comparisons: ModelComparison[] = [];
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) comparisons.push(compareModels(results, names[i] as string, names[j] as string));

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

/** One model's runs, added up as they are read. */
class ModelTally {
  tasks = 0;
  samples = 0;
  stale = 0;
  signal = 0;
  readonly bins = new Array<number>(HISTOGRAM_BINS).fill(0);
  readonly bands: Record<Band, number> = { too_easy: 0, learnable: 0, too_hard: 0 };
  readonly changed: (TaskRef & { from: Band | null; to: Band | null })[] = [];

  add(ref: TaskRef, latest: RunRecord, previous: RunRecord | undefined): void {
    this.tasks++;
    this.samples += latest.samples;
    this.signal += latest.signal_share;
    const bin = binOf(latest.pass_rate);
    this.bins[bin] = (this.bins[bin] ?? 0) + 1;
    if (latest.band !== null) this.bands[latest.band]++;
    if (previous && previous.band !== latest.band) this.changed.push({ ...ref, from: previous.band, to: latest.band });
  }

  stats(rank: (r: TaskRef) => number): ModelStats {
    const histogram: HistogramBin[] = this.bins.map((tasks, i) => ({ from: i / HISTOGRAM_BINS, to: (i + 1) / HISTOGRAM_BINS, tasks }));
    const bands = Object.fromEntries(BANDS.map((b) => [b, this.bands[b]])) as BandCounts;
    return {
      tasks: this.tasks,
      samples: this.samples,
      histogram,
      bands,
      signal_share: this.tasks ? this.signal / this.tasks : 0,
      changed: this.changed.sort((x, y) => rank(x) - rank(y)),
      stale: this.stale,
    };
  }
}

/** The bin of a pass rate: [i/10, (i+1)/10), the last bin holding 1 too. */
function binOf(rate: number): number {
  return Math.min(HISTOGRAM_BINS - 1, Math.max(0, Math.floor(rate * HISTOGRAM_BINS + 1e-9)));
}

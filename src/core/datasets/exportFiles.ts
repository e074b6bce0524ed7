// An export of task files (and of JSONL and Parquet datasets' rows, each row the task it stands
// for) to a dataset format, as `vtask export` writes it and the workbench's
// export of a selection: cached runs read (no request) for each row's pass rate, the rows
// written by exportDataset, then what a folder format adds (an hf dataset's card and old shards
// removed, a verifiers or Inspect package's files). The CLI parses its flags and prints the
// report; the editor asks for the format and file and shows it.
import fs from 'node:fs';
import path from 'node:path';
import type { ExportReport, ShardBound, TaskRef } from './exportDataset';
import { exportDataset } from './exportDataset';
import type { SplitShare } from './curate';
import type { DatasetFormat, ParquetColumn, RunSummary } from './format';
import { EXPORT_FORMATS } from './formats';
import { HF_FORMAT, verifierKind } from './hf';
import { datasetCard } from './hfCard';
import { PACKAGE_FORMATS, packageExport } from './exportPackage';
import { rowFileType, type RowFileType } from './rowFiles';
import { readFileTasksText } from './fileTasks';
import { findDuplicates } from '../overview/prompts/duplicates';
import { cachedRuns } from '../run/cachedRuns';
import type { ChunkBatchParser } from '../taskfile/stream';
import type { TaskSpec } from '../taskfile/resolve';
import type { TimeSlices } from '../util/slices';
import { at } from '../util/must';
import { version } from '../version';

export interface ExportFilesOptions {
  /** Task files are named (in rows and reports) relative to this folder. */
  readonly cwd: string;
  /** Task files and JSONL or Parquet datasets, relative to `cwd` (or absolute outside it). */
  readonly files: readonly string[];
  /** A name of EXPORT_FORMATS. */
  readonly format: string;
  /** Absolute: the rows' file, or the folder of `hf`, `verifiers` and `inspect`. */
  readonly out: string;
  /** The file type of `out` (a file format's; by its extension when absent; the folder formats know their own). */
  readonly type?: RowFileType;
  readonly split?: readonly SplitShare[];
  readonly seed?: number;
  readonly mix?: ReadonlyMap<string, number>;
  /** Drop tasks whose prompt repeats an earlier one's (default true). */
  readonly dedupe?: boolean;
  readonly lossy?: boolean;
  readonly viaVtask?: boolean;
  readonly promptStyle?: 'conversational' | 'plain';
  readonly graderModel?: string;
  /** Read cached runs (default true); the model whose runs count, as `vtask run` resolves it. */
  readonly runs?: boolean;
  readonly baseUrl?: string;
  readonly model?: string;
  readonly cacheDir?: string;
  /** Keeps a task given its cached run (band and pass-rate filters). */
  readonly keep?: (run: RunSummary | undefined) => boolean;
  readonly shardSize?: ShardBound;
  /** Only these tasks (by file as given and id); all when absent. */
  readonly select?: (file: string, id: string | undefined) => boolean;
  readonly signal?: AbortSignal;
  /** Cuts the export into slices of the thread's time (the editor's host thread must not be held). */
  readonly slices?: TimeSlices;
  /** Told of each task the export got to (selected ones only, with `select`). */
  readonly onTask?: () => void;
  readonly parseBatch?: ChunkBatchParser;
}

export interface ExportFilesResult {
  readonly report: ExportReport;
  /** The format as written (a package's rows reference the environments copied into it). */
  readonly format: DatasetFormat;
  /** A verifiers or Inspect package's files, absolute. */
  readonly packageFiles: readonly string[];
  /** An hf dataset's card. */
  readonly card?: string;
}

/** A shard's bound when none is given: the size the Hub suggests for Parquet files. */
const DEFAULT_SHARD: ShardBound = { bytes: 500 * 1024 ** 2 };

/**
 * The row file type OUT is written as, by its extension: one the format's trainer reads, under
 * an extension its loader takes (verl's JSON lines only as `.json`).
 */
export function outputType(format: DatasetFormat, out: string, shown: string): RowFileType {
  const jsonLines = format.jsonLinesExtension;
  if (jsonLines && out.toLowerCase().endsWith(jsonLines)) return 'jsonl';
  const type = rowFileType(out);
  if (!type)
    throw new Error(
      `cannot tell the file type of '${shown}': end it in ${jsonLines ? `.parquet or ${jsonLines}` : '.jsonl or .parquet'}`,
    );
  if (!format.outputs.includes(type))
    throw new Error(`${format.name} datasets are ${format.outputs.join(' or ')}, not ${type}`);
  if (type === 'jsonl' && jsonLines) {
    const stem = shown.slice(0, shown.length - path.extname(shown).length);
    throw new Error(
      `${format.name} cannot load '${shown}': it picks its reader by the extension and reads JSON lines only from ${jsonLines} files; write ${stem}.parquet, or ${stem}${jsonLines} for JSON lines`,
    );
  }
  return type;
}

/** Writes the export; nothing is left behind when it fails or is aborted. */
export async function exportFiles(o: ExportFilesOptions): Promise<ExportFilesResult> {
  const base = EXPORT_FORMATS.get(o.format);
  if (!base) throw new Error(`unknown format '${o.format}': one of ${[...EXPORT_FORMATS.keys()].join(', ')}`);
  const hfDir = base.name === HF_FORMAT ? o.out : undefined;
  const pkgDir = PACKAGE_FORMATS.has(base.name) ? o.out : undefined;
  // A verifiers package or an Inspect task folder: its rows, environments and code in DIR.
  const pkg = pkgDir ? packageExport(base, pkgDir) : undefined;
  const format = pkg?.format ?? base;
  // An hf dataset is a folder: its shards go in DIR/data, which environments are relative to.
  const out = pkg?.out ?? (hfDir ? path.join(hfDir, 'data', 'rows.parquet') : o.out);
  const type = hfDir ? 'parquet' : pkg ? at(format.outputs, 0) : (o.type ?? outputType(format, out, o.out));
  // A dataset's rows are read (a Parquet file decoded) once, before the export: the steps below
  // read a file's text where they need it, without waiting.
  const rowTexts = new Map<string, string>();
  for (const f of o.files) {
    o.signal?.throwIfAborted();
    if (rowFileType(f)) rowTexts.set(f, await readFileTasksText(path.resolve(o.cwd, f)));
  }
  const read = (f: string): string => {
    o.signal?.throwIfAborted();
    return rowTexts.get(f) ?? fs.readFileSync(path.resolve(o.cwd, f), 'utf8');
  };
  // Cached runs (no request) give each row its pass rate, band and model, and feed the filters.
  const runs =
    o.runs === false
      ? new Map<string, RunSummary>()
      : await cachedRuns(o.files, { baseUrl: o.baseUrl, model: o.model, cacheDir: o.cacheDir, read });
  const card = hfDir ? cardCollector() : undefined;
  const settings = { version, promptStyle: o.promptStyle ?? 'conversational', viaVtask: o.viaVtask ?? false };
  if (hfDir) fs.mkdirSync(path.dirname(out), { recursive: true });
  // hf and the package formats are never both: one sums rows up for its card, one for its files.
  const observe = card?.observe ?? pkg?.observe;
  const select = o.select;
  const report = await exportDataset({
    files: o.files,
    format,
    out,
    type,
    settings,
    split: o.split,
    seed: o.seed ?? 0,
    dedupe: o.dedupe ?? true,
    lossy: o.lossy ?? false,
    mix: o.mix,
    judgeModel: o.graderModel ?? 'gpt-4.1',
    read,
    parseBatch: o.parseBatch,
    signal: o.signal,
    ...(o.slices ? { slices: o.slices } : {}),
    runOf: (file, task) => runs.get(`${file}\0${task.id}`),
    ...(o.keep ? { keep: o.keep } : {}),
    ...(select || o.onTask
      ? {
          select: (file: string, id: string | undefined) => {
            const picked = !select || select(file, id);
            if (picked) o.onTask?.();
            return picked;
          },
        }
      : {}),
    ...(hfDir ? { shards: { dir: path.dirname(out), ...(o.shardSize ?? DEFAULT_SHARD) } } : {}),
    ...(observe ? { observe } : {}),
  });
  const packageFiles = pkg && pkgDir && !report.failed ? pkg.finish(report).map((f) => path.join(pkgDir, f)) : [];
  const cardFile =
    hfDir && card && !report.failed ? writeHfFolder(hfDir, report, card, format.columns(settings)) : undefined;
  return { report, format, packageFiles, ...(cardFile ? { card: cardFile } : {}) };
}
type CardCollector = ReturnType<typeof cardCollector>;

/** What the dataset card sums up, gathered from each row as it is written. */
function cardCollector() {
  const kinds = new Map<string, number>();
  const licenses = new Set<string>();
  const models = new Map<string, { tasks: number; passRates: number; bands: Map<string, number> }>();
  const prompts: { ref: TaskRef; text: string }[] = [];
  const observe = (task: TaskSpec, run: RunSummary | undefined, ref: TaskRef): void => {
    const kind = verifierKind(task.verify);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (typeof task.meta.license === 'string' && task.meta.license) licenses.add(task.meta.license);
    prompts.push({ ref, text: task.prompt });
    if (!run) return;
    const m = models.get(run.model) ?? { tasks: 0, passRates: 0, bands: new Map<string, number>() };
    models.set(run.model, m);
    m.tasks++;
    // A run of band `error` measured nothing: its pass rate of 0 stays out of the mean.
    if (run.band !== 'error') m.passRates += run.pass_rate;
    if (run.band !== null) m.bands.set(run.band, (m.bands.get(run.band) ?? 0) + 1);
  };
  return { kinds, licenses, models, prompts, observe };
}

/** Shard names of an earlier export, which this one's would not all replace. */
const SHARD = /^[\w.-]+-\d{5}-of-\d{5}\.parquet$/;

/** Removes the shards an earlier export left and writes the card; returns the card's path. */
function writeHfFolder(dir: string, report: ExportReport, c: CardCollector, columns: readonly ParquetColumn[]): string {
  const data = path.join(dir, 'data');
  const written = new Set(report.outputs.map((o) => path.basename(o.file)));
  for (const f of fs.readdirSync(data)) if (SHARD.test(f) && !written.has(f)) fs.rmSync(path.join(data, f));
  const splits: { name: string; rows: number }[] = [];
  for (const o of report.outputs) {
    const name = o.split || 'train';
    const s = splits.find((x) => x.name === name) ?? splits[splits.push({ name, rows: 0 }) - 1]!;
    s.rows += o.rows;
  }
  const file = path.join(dir, 'README.md');
  const facts = {
    name: path.basename(dir),
    columns,
    splits,
    kinds: c.kinds,
    licenses: c.licenses,
    models: c.models,
    exactDropped: report.duplicates.length,
    nearPairs: findDuplicates(c.prompts),
    version,
  };
  fs.writeFileSync(file, datasetCard(facts));
  return file;
}

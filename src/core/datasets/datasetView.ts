// A Parquet dataset as a table: row windows read on demand (never the whole file), each row
// summarised the way `vtask import` reads it (task id, prompt, verifier, the pass rate an export
// recorded). The editor's table view asks for the rows in view; 100,000 rows cost what 50 do.
import fs from 'node:fs';
import { MAX_WINDOW_ROWS } from '../base/datasetProtocol';
import { errorMessage } from '../base/errorMessage';
import { recordOr } from '../base/record';
import { at } from '../util/must';
import { kindOf } from '../verifiers/verify';
import type { ImportedTask } from './format';
import { detectFormat, IMPORT_FORMATS, type RowImporter } from './formats';
import { importDataset, taskYaml } from './importDataset';
import { parseTaskFile } from '../taskfile/parse';
import { PARQUET_PARSERS, plainRow } from './rowFiles';
import { plural } from '../util/plural';
import type { AsyncBuffer, FileMetaData as Metadata } from 'hyparquet' with { 'resolution-mode': 'import' };

/** The most rows one window may ask for: a screen holds far fewer. */
export const MAX_WINDOW = MAX_WINDOW_ROWS;
/** Characters of text a cell carries; the page clips further with an ellipsis. */
export const CELL_CHARS = 300;
/** Bytes of Parquet footer (metadata) read at most: real files have kilobytes. */
const MAX_FOOTER_BYTES = 64 << 20;
/** Bytes of column chunks one window may decode: a row group larger than this is refused. */
const MAX_CHUNK_BYTES = 512 << 20;
/**
 * Rows decoded at once are a row group: reading part of one costs about what reading all of it
 * does (its pages are decoded whole), so a scroll reads each group once. Larger groups are
 * read in parts of this many rows, to bound what is kept.
 */
const MAX_BLOCK_ROWS = 20_000;
/** Blocks kept decoded (the last ones read). */
const BLOCKS_KEPT = 3;
/** Columns an unknown file shows, at most. */
const MAX_RAW_COLUMNS = 8;

/** What the table shows above its rows. */
export interface DatasetInfo {
  readonly rows: number;
  /** The import format the columns were read as, or undefined when vtask does not know them. */
  readonly format?: string;
  /** Headers of the text columns after the row number. */
  readonly columns: readonly string[];
  /** The file's own top-level columns. */
  readonly fileColumns: readonly string[];
  /** Said above the table when the file is not a dataset vtask knows. */
  readonly banner?: string;
}

/** A pass rate, from the file (an export records the last run) or from a run in the editor. */
export interface RowResult {
  readonly passRate: number;
  readonly band?: string;
  readonly samples?: number;
  readonly source: 'file' | 'run';
}

/** One row as the table shows it: cells are plain text, clipped to CELL_CHARS. */
export interface RowView {
  /** 0-based, as `vtask import` names rows (`row 12`). */
  readonly n: number;
  readonly cells: readonly string[];
  /** Set when the row cannot become a task: why. */
  readonly error?: string;
  readonly result?: RowResult;
}

/** Text cut to `max` characters, on one line. */
export function clip(text: string, max = CELL_CHARS): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A cell's text for any value a Parquet reader gives. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return clip(v);
  if (v instanceof Uint8Array) return `(${v.length} bytes)`;
  let json: string;
  try {
    json = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x)) ?? String(v);
  } catch {
    json = String(v);
  }
  return clip(json);
}

/** `math · {"answer":"72"}`: the kind and its parameters, short. */
export function verifierSummary(verify: unknown): string {
  const found = kindOf(verify);
  if ('error' in found) return clip(found.error);
  const params = JSON.stringify(found.params);
  return clip(params === '{}' ? found.kind.kind : `${found.kind.kind} · ${params}`, 160);
}

/** The prompt a model sees last: the last user message, else the last message. */
export function promptOf(task: ImportedTask): string {
  const user = [...task.messages].reverse().find((m) => m.role === 'user') ?? task.messages.at(-1);
  return user?.content ?? '';
}

/** The pass rate an export wrote into the row (top level, or verl's `extra_info`). */
export function recordedResult(row: Record<string, unknown>): RowResult | undefined {
  const info = recordOr(row.extra_info);
  const rate = row.pass_rate ?? info.pass_rate;
  if (typeof rate !== 'number' || !Number.isFinite(rate)) return undefined;
  const band = row.band ?? info.band;
  return { passRate: rate, ...(typeof band === 'string' ? { band } : {}), source: 'file' };
}

/** Checks the Parquet frame itself, so a file that is not Parquet gets a message saying so. */
function checkFrame(file: string): number {
  const size = fs.statSync(file).size;
  if (size < 12) throw new Error(`not a Parquet file: ${size} bytes, too short for the header and footer`);
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const tail = Buffer.alloc(8);
    fs.readSync(fd, head, 0, 4, 0);
    fs.readSync(fd, tail, 0, 8, size - 8);
    if (head.toString('latin1') !== 'PAR1' || tail.toString('latin1', 4) !== 'PAR1')
      throw new Error('not a Parquet file: it does not start and end with PAR1');
    const footer = tail.readUInt32LE(0);
    if (footer + 12 > size)
      throw new Error(`corrupt Parquet file: its footer claims ${footer} bytes of a ${size}-byte file`);
    if (footer > MAX_FOOTER_BYTES)
      throw new Error(
        `the Parquet footer is ${footer >> 20} MiB: more than the ${MAX_FOOTER_BYTES >> 20} MiB vtask reads`,
      );
  } finally {
    fs.closeSync(fd);
  }
  return size;
}

/**
 * A Parquet file opened for the table view. `open` reads the footer and the first row (to tell
 * the format); `window` reads the rows asked for, a block at a time, keeping a few blocks.
 */
export class DatasetTable {
  private readonly importer: RowImporter | undefined;
  /** The first row of each block, ascending, and the row count after the last. */
  private readonly bounds: number[];

  private constructor(
    readonly file: string,
    private readonly buffer: AsyncBuffer,
    private readonly meta: Metadata,
    readonly info: DatasetInfo,
    /** Decoded blocks by index, the most recently used last. */
    private readonly blocks = new Map<number, Promise<Record<string, unknown>[]>>(),
  ) {
    this.importer = info.format ? IMPORT_FORMATS.get(info.format) : undefined;
    this.bounds = blockBounds(meta);
  }

  /** Opens `file`; a file that is not Parquet, or is corrupt, is an error that says so. */
  static async open(file: string): Promise<DatasetTable> {
    checkFrame(file);
    const { asyncBufferFromFile, parquetMetadataAsync } = await import('hyparquet');
    const buffer = await asyncBufferFromFile(file);
    let meta: Metadata;
    try {
      meta = await parquetMetadataAsync(buffer);
    } catch (e) {
      throw new Error(`corrupt Parquet file: ${errorMessage(e)}`);
    }
    const rows = Number(meta.num_rows);
    const inGroups = meta.row_groups.reduce((a, g) => a + Number(g.num_rows), 0);
    if (inGroups !== rows)
      throw new Error(`corrupt Parquet file: it claims ${plural(rows, 'row')}, its row groups hold ${inGroups}`);
    const fileColumns = topColumns(meta);
    const probe = new DatasetTable(file, buffer, meta, { rows, columns: [], fileColumns });
    const first = rows > 0 ? (await probe.read(0, 1))[0] : undefined;
    const format = first ? detectFormat(first) : undefined;
    const info: DatasetInfo = format
      ? { rows, format, columns: ['Task id', 'Prompt', 'Verifier'], fileColumns }
      : {
          rows,
          columns: fileColumns.slice(0, MAX_RAW_COLUMNS),
          fileColumns,
          banner:
            rows === 0
              ? 'This file has no rows.'
              : `Not a dataset vtask knows: its columns (${clip(fileColumns.join(', '), 200)}) are none of open-instruct, verl, TRL, OpenAI RFT, IFEval or question/answer rows. The rows are shown as they are; they cannot be run or converted.`,
        };
    // The first block, read to tell the format, is the first screen's too.
    return new DatasetTable(file, buffer, meta, info, probe.blocks);
  }

  /** Rows `start` up to `end` (exclusive), at most MAX_WINDOW, as the table shows them. */
  async window(start: number, end: number): Promise<RowView[]> {
    const from = Math.max(0, Math.min(this.info.rows, Math.floor(start)));
    const to = Math.min(this.info.rows, Math.floor(end), from + MAX_WINDOW);
    if (to <= from) return [];
    const rows = await this.read(from, to);
    return rows.map((row, i) => this.view(row, from + i));
  }

  /** Row `n` as a task, or why it cannot be one. */
  async task(n: number): Promise<{ task: ImportedTask } | { error: string }> {
    if (!Number.isInteger(n) || n < 0 || n >= this.info.rows)
      return { error: `row ${n} is not in the file (${this.info.rows} rows)` };
    if (!this.importer) return { error: 'the file is not a dataset vtask knows' };
    const [row] = await this.read(n, n + 1);
    return row ? this.importer(row, n) : { error: `row ${n} could not be read` };
  }

  /** Row `n` as a task file of one task (what `vtask import` would write for it). */
  async taskFile(n: number): Promise<{ text: string; id: string } | { error: string }> {
    const r = await this.task(n);
    if ('error' in r) return r;
    return {
      text: `# Row ${n} of ${this.file.split('\\').join('/')}, read-only\nvtask: 1\ntasks:\n${taskYaml(r.task)}`,
      id: r.task.id,
    };
  }

  private view(row: Record<string, unknown>, n: number): RowView {
    if (!this.importer) return { n, cells: this.info.columns.map((c) => cellText(row[c])) };
    const r = this.importer(row, n);
    const result = recordedResult(row);
    if ('error' in r)
      return {
        n,
        cells: [cellText(row.task_id ?? row.id ?? ''), '', ''],
        error: clip(r.error),
        ...(result ? { result } : {}),
      };
    return {
      n,
      cells: [clip(r.task.id, 200), clip(promptOf(r.task)), verifierSummary(r.task.verify)],
      ...(result ? { result } : {}),
    };
  }

  /** Rows from..to, read through the block cache. */
  private async read(from: number, to: number): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let b = this.blockOf(from); b < this.bounds.length - 1 && at(this.bounds, b) < to; b++) {
      const start = at(this.bounds, b);
      const rows = await this.block(b);
      out.push(...rows.slice(Math.max(from, start) - start, Math.min(to, at(this.bounds, b + 1)) - start));
    }
    return out;
  }

  private block(b: number): Promise<Record<string, unknown>[]> {
    const kept = this.blocks.get(b);
    if (kept) {
      // Most recently used last, so the oldest block is the one dropped.
      this.blocks.delete(b);
      this.blocks.set(b, kept);
      return kept;
    }
    const start = at(this.bounds, b);
    const end = at(this.bounds, b + 1);
    this.checkChunkBytes(start, end);
    const p = import('hyparquet').then(async ({ parquetReadObjects }) => {
      try {
        const rows = await parquetReadObjects({
          file: this.buffer,
          metadata: this.meta,
          rowStart: start,
          rowEnd: end,
          parsers: PARQUET_PARSERS,
        });
        return rows.map(plainRow);
      } catch (e) {
        throw new Error(`corrupt Parquet file: rows ${start}–${end - 1} cannot be read: ${errorMessage(e)}`);
      }
    });
    // A failed read is not kept: the next scroll tries again.
    p.catch(() => this.blocks.delete(b));
    this.blocks.set(b, p);
    for (const oldest of this.blocks.keys()) {
      if (this.blocks.size <= BLOCKS_KEPT) break;
      this.blocks.delete(oldest);
    }
    return p;
  }

  /** The block that holds row n (binary search over the bounds). */
  private blockOf(n: number): number {
    let lo = 0;
    let hi = this.bounds.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (at(this.bounds, mid) <= n) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Refuses to decode row groups whose column chunks are larger than MAX_CHUNK_BYTES. */
  private checkChunkBytes(start: number, end: number): void {
    let at = 0;
    for (const [i, g] of this.meta.row_groups.entries()) {
      const n = Number(g.num_rows);
      if (at < end && at + n > start) {
        const bytes = g.columns.reduce((a, c) => a + Number(c.meta_data?.total_compressed_size ?? 0), 0);
        if (bytes > MAX_CHUNK_BYTES)
          throw new Error(
            `row group ${i} holds ${bytes >> 20} MiB: more than the ${MAX_CHUNK_BYTES >> 20} MiB the table view reads at once`,
          );
      }
      at += n;
    }
  }
}

/** Block starts: each row group's, large groups cut into parts; then the row count. */
function blockBounds(meta: Metadata): number[] {
  const bounds: number[] = [];
  let at = 0;
  for (const g of meta.row_groups) {
    const n = Number(g.num_rows);
    for (let k = 0; k < n; k += MAX_BLOCK_ROWS) bounds.push(at + k);
    at += n;
  }
  bounds.push(at);
  return bounds;
}

/** The names of the file's top-level columns, from the flat schema of the footer. */
function topColumns(meta: Metadata): string[] {
  const names: string[] = [];
  const schema = meta.schema;
  let i = 1;
  const skip = (): void => {
    const el = schema[i++];
    for (let k = 0; k < (el?.num_children ?? 0); k++) skip();
  };
  for (let k = 0; k < (schema[0]?.num_children ?? 0) && i < schema.length; k++) {
    names.push(schema[i]?.name ?? '?');
    skip();
  }
  return names;
}

/** What converting a dataset wrote: the task file, the rows left out (with why), validation errors. */
export interface Conversion {
  readonly out: string;
  readonly format: string;
  readonly tasks: number;
  readonly bad: readonly { where: string; reason: string }[];
  /** Validation errors of the new file, as `vtask check` counts them. */
  readonly errors: number;
}

/** `train.parquet` → `train.vtask` beside it, or `train-2.vtask`… when that exists. */
export function conversionTarget(input: string): string {
  const base = input.replace(/\.parquet$/i, '');
  for (let k = 1; ; k++) {
    const out = `${base}${k === 1 ? '' : `-${k}`}.vtask`;
    if (!fs.existsSync(out)) return out;
  }
}

/** Writes the rows of `input` as a task file beside it, as `vtask import` does, and checks it; `source` is how its first line names the input. */
export async function convertDataset(input: string, source?: string): Promise<Conversion> {
  const out = conversionTarget(input);
  const report = await importDataset({ input, type: 'parquet', out, ...(source ? { source } : {}) });
  const errors = parseTaskFile(fs.readFileSync(out, 'utf8')).issues.filter((i) => i.severity === 'error').length;
  return { out, format: report.format, tasks: report.tasks, bad: report.bad, errors };
}

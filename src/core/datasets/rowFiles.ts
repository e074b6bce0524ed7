// Rows to and from files, streamed: a 100,000-task export never holds more than one Parquet
// row group (or one JSONL line) beyond what its caller keeps, and a read yields rows as it goes.
import { isRecord } from '../base/record';
import { errorMessage } from '../base/errorMessage';
import fs from 'node:fs';
import type { ParquetColumn } from './format';
import { parquetRowReader } from './parquetRows';

export type RowFileType = 'jsonl' | 'parquet';

/** The file type named by a path's extension, or undefined. */
export function rowFileType(file: string): RowFileType | undefined {
  if (/\.jsonl$/i.test(file) || /\.ndjson$/i.test(file)) return 'jsonl';
  if (/\.parquet$/i.test(file)) return 'parquet';
  return undefined;
}

/** Rows per Parquet row group: bounds the memory of a write and of a read. */
const ROW_GROUP = 10_000;

/** Where rows go, one at a time; `close` finishes the file and says how many were written. */
export interface RowSink {
  write(row: Record<string, unknown>): Promise<void>;
  close(): Promise<number>;
}

/**
 * Opens `file` for rows. Parquet rows are buffered one row group at a time and written as
 * columns with the format's explicit schema, so several sinks (one per split) can be filled
 * from one pass over the task files.
 */
export async function openRowSink(
  file: string,
  type: RowFileType,
  columns: readonly ParquetColumn[],
): Promise<RowSink> {
  let n = 0;
  if (type === 'jsonl') {
    const fd = fs.openSync(file, 'w');
    let buf = '';
    return {
      write(row) {
        n++;
        buf += JSON.stringify(row) + '\n';
        if (buf.length > 1 << 20) {
          fs.writeSync(fd, buf);
          buf = '';
        }
        return Promise.resolve();
      },
      close() {
        try {
          fs.writeSync(fd, buf);
        } finally {
          fs.closeSync(fd);
        }
        return Promise.resolve(n);
      },
    };
  }
  const { ParquetWriter, fileWriter } = await import('hyparquet-writer');
  const schema = [{ name: 'root', num_children: columns.length }, ...columns.flatMap((c) => c.schema)];
  const pq = new ParquetWriter({ writer: fileWriter(file), schema: schema as never, createdBy: 'vtask' });
  let batch: Record<string, unknown>[] = [];
  const flush = async (): Promise<void> => {
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    const columnData = columns.map((c) => ({ name: c.name, data: rows.map((r) => r[c.name] ?? null) }));
    await pq.write({ columnData: columnData as never, rowGroupSize: rows.length });
  };
  return {
    async write(row) {
      n++;
      batch.push(row);
      if (batch.length >= ROW_GROUP) await flush();
    },
    async close() {
      await flush();
      await pq.finish();
      return n;
    },
  };
}

/** A row read from a file, with its 1-based line (JSONL) or 0-based row number (Parquet). */
export interface ReadRow {
  readonly row: Record<string, unknown> | undefined;
  /** Why the line could not be read as a row (bad JSON, not an object). */
  readonly error?: string;
  /** `line N` or `row N`, for messages. */
  readonly where: string;
  readonly n: number;
}

/** Reads rows one at a time; a bad JSONL line is yielded as an error, never skipped silently. */
export async function* readRows(file: string, type: RowFileType): AsyncGenerator<ReadRow> {
  for await (const batch of readRowBatches(file, type)) yield* batch;
}

/** Lines of JSONL per batch of `readRowBatches`. */
const JSONL_BATCH = 1000;

/**
 * `readRows` a batch at a time (a Parquet row group, or a thousand JSONL lines), for readers
 * that go through millions of rows: one wait per batch rather than per row.
 */
export async function* readRowBatches(file: string, type: RowFileType): AsyncGenerator<ReadRow[]> {
  if (type === 'jsonl') {
    let batch: ReadRow[] = [];
    for await (const r of jsonlRows(file)) {
      batch.push(r);
      if (batch.length >= JSONL_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
    return;
  }
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
  const buffer = await asyncBufferFromFile(file);
  const meta = await parquetMetadataAsync(buffer);
  const total = Number(meta.num_rows);
  const batchOf = (rows: readonly Record<string, unknown>[], first: number): ReadRow[] =>
    rows.map((row, k) => ({ row, where: `row ${first + k}`, n: first + k }));
  // Rows built from their columns where the schema allows (parquetRows.ts), the reader's way else.
  const byColumns = await parquetRowReader(buffer, meta, PARQUET_PARSERS);
  if (byColumns) {
    let first = 0;
    for (let g = 0; g < meta.row_groups.length; g++) {
      const rows = await byColumns(g);
      yield batchOf(rows, first);
      first += rows.length;
    }
    return;
  }
  for (let start = 0; start < total; start += ROW_GROUP) {
    const rows = await parquetReadObjects({
      file: buffer,
      metadata: meta,
      rowStart: start,
      rowEnd: Math.min(total, start + ROW_GROUP),
      parsers: PARQUET_PARSERS,
    });
    yield batchOf(rows.map(plainRow), start);
  }
}

/** The rows of a JSONL file, one a line (blank lines skipped). */
async function* jsonlRows(file: string): AsyncGenerator<ReadRow> {
  let n = 0;
  let line = 0;
  for await (const text of lines(file)) {
    line++;
    if (!text.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (e) {
      yield { row: undefined, error: `not JSON: ${errorMessage(e)}`, where: `line ${line}`, n: n++ };
      continue;
    }
    if (!isRecord(row)) yield { row: undefined, error: 'not a JSON object', where: `line ${line}`, n: n++ };
    else yield { row, where: `line ${line}`, n: n++ };
  }
}

/**
 * A dataset file as JSON lines, what rowTasks.ts reads as tasks: a JSONL file's text as it is,
 * a Parquet file's rows one per line.
 */
export async function rowFileText(file: string): Promise<string> {
  if (rowFileType(file) !== 'parquet') return fs.promises.readFile(file, 'utf8');
  const lines: string[] = [];
  for await (const r of readRows(file, 'parquet')) lines.push(JSON.stringify(r.row));
  return lines.length ? lines.join('\n') + '\n' : '';
}

const KEEP_BOM = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * How Parquet strings are decoded: as written. The reader's default decoder drops a BOM at
 * the start of a value, and a value that begins with U+FEFF is data like any other.
 */
export const PARQUET_PARSERS = {
  stringFromBytes: (bytes: Uint8Array | undefined): string | undefined => bytes && KEEP_BOM.decode(bytes),
};

/** A row as JSON: 64-bit integers (BigInt in Parquet readers) become numbers. */
export const plainRow = (r: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(r).map(([k, x]) => [k, plain(x)]));

/** Parquet readers give BigInt for 64-bit integers; rows are JSON, so they become numbers. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object' && !(v instanceof Uint8Array))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Lines of a UTF-8 file, read in chunks (a line may be any length). */
async function* lines(file: string): AsyncGenerator<string> {
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let rest = '';
  for await (const chunk of stream) {
    rest += String(chunk);
    let from = 0;
    let nl = rest.indexOf('\n');
    while (nl !== -1) {
      yield rest.slice(from, nl).replace(/\r$/, '');
      from = nl + 1;
      nl = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
  }
  if (rest) yield rest;
}

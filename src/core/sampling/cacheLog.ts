// The cache's storage: append-only segment files of JSON lines, one record a line.
//
// Crash safety comes from three rules. (1) Each process appends only to segments it created
// (the name holds host, pid and random bits), so concurrent writers never share a file and need
// no lock. (2) Each batch is whole lines written by one write call on an O_APPEND descriptor:
// a crash (kill -9, power loss) can only cut the last line short. (3) Readers skip any line
// that does not parse as a whole record, and a writer whose write failed part-way starts its
// next write with a newline, so a torn line never swallows the record after it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Sample } from './types';
import type { SampleParams } from './cacheKey';
import { HOST_ID } from '../util/lock';
import { fsyncDir, writeAll } from '../util/durable';

/** One line of a segment. */
export interface LogRecord {
  /** The sample key (cacheKey.ts). */
  readonly k: string;
  /** When it was written, ms since the epoch: the latest record of a key wins. */
  readonly t: number;
  readonly s: Sample;
  /** How the sample was taken, when the writer said. */
  readonly p?: SampleParams;
}

const SEGMENT_RE = /^seg-([0-9a-z]{9})-([0-9a-f]{8})-(\d+)-([0-9a-f]{8})\.jsonl$/;

export interface SegmentName {
  readonly name: string;
  readonly host: string;
  readonly pid: number;
}

/**
 * A new segment name. It starts with the creation time (base 36, fixed width), so sorting
 * names sorts segments by age; that order breaks ties between records written in the same ms.
 */
export function newSegmentName(): string {
  return `seg-${Date.now().toString(36).padStart(9, '0')}-${HOST_ID}-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`;
}

export function parseSegmentName(name: string): SegmentName | undefined {
  const m = SEGMENT_RE.exec(name);
  return m ? { name, host: m[2]!, pid: Number(m[3]) } : undefined;
}

/**
 * Segment names in `dir`, oldest first; none when the folder does not exist yet. Only files
 * count: a folder that happens to have a segment's name is not one, and reading it would
 * fail the whole cache.
 */
export function listSegments(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return entries
    .filter((e) => e.isFile() && SEGMENT_RE.test(e.name))
    .map((e) => e.name)
    .sort();
}

const KEY_RE = /^[0-9a-f]{64}$/;

/** A line as a record, or undefined for anything torn, foreign or malformed. */
export function parseRecord(line: string): LogRecord | undefined {
  // Cheap rejections first: a torn line usually fails here without a JSON parse.
  if (line.length < 80 || line.charCodeAt(0) !== 123 /* { */ || line.charCodeAt(line.length - 1) !== 125 /* } */)
    return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.k !== 'string' || !KEY_RE.test(r.k) || typeof r.t !== 'number') return undefined;
  const s = r.s as Record<string, unknown> | null | undefined;
  if (
    !s ||
    typeof s !== 'object' ||
    typeof s.text !== 'string' ||
    typeof s.finishReason !== 'string' ||
    typeof s.model !== 'string' ||
    typeof s.takenAt !== 'string'
  )
    return undefined;
  if (r.p !== undefined && (typeof r.p !== 'object' || r.p === null)) return undefined;
  return r as unknown as LogRecord;
}

export function formatRecord(record: LogRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export interface ReadResult {
  /** Offset after the last complete line: where the next incremental read starts. */
  readonly end: number;
  readonly records: number;
  /** Complete lines that were not records (torn by an earlier crash, or damaged). */
  readonly skipped: number;
  /** Bytes after the last newline that are not a whole record: a crash mid-write, or a write in progress. */
  readonly tornBytes: number;
}

const CHUNK = 4 << 20;

/**
 * Reads the records of a segment from byte `from` on, in order. Reads in chunks into one reused
 * buffer and decodes only up to the last newline of each, so segments of any size work and a
 * multi-byte character is never split (0x0A never occurs inside a UTF-8 sequence). Throws
 * ENOENT if the file is gone.
 */
export function readSegment(
  file: string,
  from: number,
  onRecord: (record: LogRecord, line: string) => void,
): ReadResult {
  const fd = fs.openSync(file, 'r');
  let records = 0;
  let skipped = 0;
  let base = from;
  let buf = Buffer.allocUnsafe(CHUNK);
  // Bytes at the start of `buf` after the last newline seen: the beginning of the next line.
  let have = 0;
  const take = (text: string) => {
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      const rec = parseRecord(line);
      if (rec) {
        records++;
        onRecord(rec, line);
      } else skipped++;
    }
  };
  try {
    const size = fs.fstatSync(fd).size;
    let pos = from;
    while (pos < size) {
      if (have === buf.length) {
        // One line longer than the buffer: grow it.
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const got = fs.readSync(fd, buf, have, Math.min(buf.length - have, size - pos), pos);
      if (got === 0) break;
      pos += got;
      const end = have + got;
      const last = buf.lastIndexOf(0x0a, end - 1);
      if (last < 0) {
        have = end;
        continue;
      }
      take(buf.toString('utf8', 0, last));
      base += last + 1;
      buf.copy(buf, 0, last + 1, end);
      have = end - last - 1;
    }
  } finally {
    fs.closeSync(fd);
  }
  let tornBytes = 0;
  if (have) {
    // A whole record missing only its newline is kept; `end` stays before it, so a later read
    // sees it again (harmless: the same record) or sees it completed.
    const before = records;
    take(buf.toString('utf8', 0, have));
    if (records === before) {
      skipped--;
      tornBytes = have;
    }
  }
  return { end: base, records, skipped, tornBytes };
}

export interface SegmentWriterOptions {
  /** Start a new segment once the current one is this big. */
  readonly maxSegmentBytes: number;
  /** fsync after every batch (survives power loss; kill -9 is survived without it). */
  readonly fsyncEveryBatch: boolean;
}

const NEWLINE = Buffer.from('\n');

/** Appends batches of whole lines to segments this process owns. Synchronous, so it also works in an `exit` handler. */
export class SegmentWriter {
  private fd: number | undefined;
  private size = 0;
  private needsNewline = false;
  private next = newSegmentName();
  /** Every segment this writer created; still open or not. */
  readonly created: string[] = [];
  bytesWritten = 0;

  constructor(
    readonly dir: string,
    private readonly options: SegmentWriterOptions,
  ) {}

  /** The segment the next batch goes to (chosen before the file exists). */
  get current(): string {
    return this.next;
  }

  /** Whether the segment is still being appended to by this writer. */
  isOpen(name: string): boolean {
    return this.fd !== undefined && name === this.next;
  }

  /** Writes `data` (whole lines) in one append. On failure the batch may be partly written; write it again. */
  write(data: Buffer): void {
    if (this.fd === undefined) {
      // `ax`: O_APPEND|O_CREAT|O_EXCL. The name is new, so the file is ours alone.
      this.fd = fs.openSync(path.join(this.dir, this.next), 'ax');
      this.created.push(this.next);
      this.size = 0;
    }
    // The file may end inside a line after a failed write: end that line first, so it cannot
    // swallow the first record of this batch.
    if (this.needsNewline) {
      writeAll(this.fd, NEWLINE);
      this.size += 1;
    }
    this.needsNewline = true;
    writeAll(this.fd, data);
    this.needsNewline = false;
    if (this.options.fsyncEveryBatch) fs.fsyncSync(this.fd);
    this.size += data.length;
    this.bytesWritten += data.length;
    if (this.size >= this.options.maxSegmentBytes) this.closeSegment();
  }

  /** fsyncs and closes the current segment; the next write starts a new one. */
  closeSegment(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.next = newSegmentName();
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(this.dir);
  }
}

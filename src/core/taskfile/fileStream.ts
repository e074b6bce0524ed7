// A task file read from disk a block at a time, for `vtask test` and `vtask stats` over files
// of a million tasks: the whole text is never one string. A first pass finds the layout (where
// each task starts, 4 bytes a task) and the limits, marks a segment start every 4 KB of text (its
// offset, byte and line: a position is found by reading its segment again, not from 4 bytes kept
// per line), and keeps the header and the keys after the tasks; a second pass reads the tasks'
// text on, as the stream reaches them. A file this cannot read so (not UTF-8, not a regular file,
// over a limit, a layout the chunks cannot carry) is left to the whole-text path, which says what
// is wrong.
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { LayoutScanner } from './chunks';
import { LIMITS, LimitScanner } from './limits';
import type { ChunkedText } from './stream';
import { SegmentedLineIndex, type LineSegments } from './text';
import { YOUNG_PIECE } from '../util/youngPiece';

/**
 * The file read a block at a time, whose bytes must still hash to `hash` (it was read so before,
 * elsewhere): an error when it is not, or cannot be.
 */
export function readChunkedAgain(file: string, hash: string): ChunkedFile {
  const again = readChunkedFile(file);
  if (again?.hash !== hash) throw new Error(`${file} changed while it was read: try again`);
  return again;
}

/** Bytes read at a time, through one descriptor each (below): a megabyte, so that few are opened. */
const READ = 1 << 20;

/** Bytes decoded at a time: a string each that dies young (util/youngPiece.ts). */
const BLOCK = YOUNG_PIECE;

/** A file read a block at a time, and the SHA-1 of its bytes (the `textHash` of its text). */
export interface ChunkedFile extends ChunkedText {
  readonly hash: string;
  /** The text's length in UTF-16 code units. */
  readonly length: number;
}

/** The file split into chunks as its text would be, or undefined when it is to be read whole. */
export function readChunkedFile(file: string): ChunkedFile | undefined {
  const size = regularFileSize(file);
  if (size === undefined || size > LIMITS.fileBytes) return undefined;
  const segments = new Segments();
  let newlines = 0;
  let byte = 0;
  const limits = new LimitScanner();
  const scanner = new LayoutScanner();
  let header = '';
  let tail = '';
  let length = 0;
  let line = 0;
  const hash = createHash('sha1');
  try {
    for (const block of textBlocks(file, size, hash)) {
      const { text, offset } = block;
      limits.text(text, offset);
      // The byte at which line start `markedAt` of this block is.
      let markedAt = 0;
      let markedByte = byte;
      for (let s = 0; s < text.length; line++) {
        const nl = text.indexOf('\n', s);
        const e = nl < 0 ? text.length : nl + 1;
        if (nl >= 0) newlines++;
        if (offset + s >= segments.next) {
          markedByte += Buffer.byteLength(text.slice(markedAt, s));
          markedAt = s;
          segments.mark(offset + s, markedByte, line);
        }
        limits.line(line, offset + s, offset + (nl < 0 ? text.length : nl));
        if (scanner.reading) {
          if (!scanner.inTasks) header += text.slice(s, e);
          scanner.line(text, s, e, offset + s);
        }
        if (scanner.inTail) tail += text.slice(s, e);
        else if (!scanner.reading) return undefined; // a layout the chunks cannot carry
        s = e;
      }
      length = offset + text.length;
      byte += Buffer.byteLength(text);
    }
  } catch {
    // Not UTF-8, or unreadable: the whole-text path reports it where it is.
    return undefined;
  }
  const layout = scanner.layout(length);
  if (!layout || limits.issue(length)) return undefined;
  const digest = hash.digest('hex');
  // The second pass hashes what it reads too: a file changed between the passes is an error, not a mix of two texts.
  const again = createHash('sha1');
  const same = (): void => {
    if (again.digest('hex') !== digest) throw new Error(`${file} changed while it was read: try again`);
  };
  let reader: Generator<Block> | undefined;
  // The blocks of the second pass that the next task may still need.
  const held: Block[] = [];
  segments.end(file, length, size);
  return {
    lines: new SegmentedLineIndex(segments, newlines + 1, length),
    hash: digest,
    length,
    layout,
    header,
    tail: layout.tailStart === undefined ? undefined : tail,
    taskText(i) {
      const start = layout.taskStarts[i] ?? length;
      const end = layout.taskStarts[i + 1] ?? length;
      while (held[0] && held[0].offset + held[0].text.length <= start) held.shift();
      reader ??= textBlocks(file, size, again);
      for (let last = held.at(-1); !last || last.offset + last.text.length < end; last = held.at(-1)) {
        const next = reader.next();
        if (next.done) throw new Error(`${file} changed while it was read: try again`);
        held.push(next.value);
      }
      if (i === layout.taskCount - 1) {
        // The rest of the file (the keys after the tasks), so that the whole of it is hashed.
        while (!reader.next().done);
        same();
      }
      let out = '';
      for (const b of held) {
        const from = Math.max(start, b.offset) - b.offset;
        const to = Math.min(end, b.offset + b.text.length) - b.offset;
        if (to > from) out += b.text.slice(from, to);
      }
      return out;
    },
    textAt(start, end) {
      return segments.textAt(start, end);
    },
    whole() {
      let text = '';
      const whole = createHash('sha1');
      for (const b of textBlocks(file, size, whole)) text += b.text;
      if (whole.digest('hex') !== digest) throw new Error(`${file} changed while it was read: try again`);
      return text;
    },
  };
}

/** Text between segment starts (a SEGMENT of text or more apart): what a text offset's place in the file is found from. */
const SEGMENT = 1 << 12;

/** Segments whose text `textAt` keeps. */
const SEGMENTS_KEPT = 8;

/** The segment starts of a file, and their texts read again from it. */
class Segments implements LineSegments {
  private readonly starts: number[] = [];
  private readonly bytes: number[] = [];
  private readonly lines: number[] = [];
  private file = '';
  private length = 0;
  private size = 0;
  private readonly read = new Map<number, string>();
  /** The text offset from which the next line start begins a segment. */
  next = 0;

  get count(): number {
    return this.starts.length;
  }

  mark(start: number, byte: number, line: number): void {
    this.starts.push(start);
    this.bytes.push(byte);
    this.lines.push(line);
    this.next = start + SEGMENT;
  }

  /** The file the segments are read again from, its text's length and its size. */
  end(file: string, length: number, size: number): void {
    if (this.starts.length === 0) this.mark(0, 0, 0);
    this.file = file;
    this.length = length;
    this.size = size;
  }

  start(k: number): number {
    return this.starts[k] ?? this.length;
  }

  line(k: number): number {
    return this.lines[k] ?? 0;
  }

  text(k: number): string {
    return this.between(k, k + 1);
  }

  /**
   * Segment `k`'s text for `textAt`. Read backs come in file order from a few places (the first
   * uses of ids repeated in turn): the last few segments read are kept.
   */
  private kept(k: number): string {
    let text = this.read.get(k);
    if (text === undefined) {
      text = this.between(k, k + 1);
      if (this.read.size === SEGMENTS_KEPT) this.read.delete(this.read.keys().next().value ?? k);
      this.read.set(k, text);
    }
    return text;
  }

  /** The text from `start` to `end`, read again from the segments that hold it. */
  textAt(start: number, end: number): string {
    const first = this.segmentAt(start);
    const last = Math.max(first, this.segmentAt(end - 1));
    const from = this.start(first);
    const text = first === last ? this.kept(first) : this.between(first, last + 1);
    return text.slice(start - from, end - from);
  }

  /** The segment holding text offset `offset`. */
  private segmentAt(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.start(mid) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Segments `from` up to (not including) `to`, checked against the text the first pass read. */
  private between(from: number, to: number): string {
    const text = decodedAt(this.file, this.bytes[from] ?? this.size, this.bytes[to] ?? this.size);
    if (text.length !== this.start(to) - this.start(from))
      throw new Error(`${this.file} changed while it was read: try again`);
    return text;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes `from` to `to` of a file, decoded as UTF-8 (an error when they are not). */
function decodedAt(file: string, from: number, to: number): string {
  const bytes = Buffer.allocUnsafe(to - from);
  for (let n = 0; n < bytes.length;) {
    const got = readAt(file, bytes.subarray(n), bytes.length - n, from + n);
    if (got === 0) throw new Error(`${file} changed while it was read: try again`);
    n += got;
  }
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new Error(`${file} changed while it was read: try again`);
  }
}

/** A piece of the text made of whole lines (but the last), and where it starts. */
interface Block {
  readonly text: string;
  readonly offset: number;
}

/**
 * The file's first `size` bytes decoded as UTF-8 (throwing on a malformed byte, and hashed into
 * `hash`), in blocks that end at a line break, a BLOCK of bytes decoded at a time. Each READ of
 * bytes is read through a descriptor of its own, so a reader left unfinished holds none.
 */
function* textBlocks(file: string, size: number, hash: Hash): Generator<Block> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const bytes = Buffer.allocUnsafe(Math.min(READ, Math.max(1, size)));
  let carry = '';
  let offset = 0;
  for (let at = 0; at < size;) {
    const n = readAt(file, bytes, Math.min(bytes.length, size - at), at);
    if (n === 0) throw new Error(`${file} changed while it was read: try again`);
    at += n;
    hash.update(bytes.subarray(0, n));
    for (let from = 0; from < n; from += BLOCK) {
      const piece = decoder.decode(bytes.subarray(from, Math.min(n, from + BLOCK)), { stream: true });
      const nl = piece.lastIndexOf('\n');
      if (nl < 0) {
        carry += piece;
        // A line this long is refused anyway (limits.ts): the first pass gives up and the
        // whole-text path says so. In the second pass (after a first without such a line) the
        // file has changed.
        if (carry.length > LIMITS.lineChars) throw new Error(`${file} changed while it was read: try again`);
        continue;
      }
      const text = carry + piece.slice(0, nl + 1);
      carry = piece.slice(nl + 1);
      yield { text, offset };
      offset += text.length;
    }
  }
  const rest = carry + decoder.decode();
  if (rest) yield { text: rest, offset };
}

function readAt(file: string, into: Buffer, length: number, position: number): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    return fs.readSync(fd, into, 0, length, position);
  } finally {
    fs.closeSync(fd);
  }
}

/** The size of a regular file; undefined for anything else, or when it cannot be had. */
function regularFileSize(file: string): number | undefined {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

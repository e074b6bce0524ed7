/** A zero-based line and UTF-16 column, the convention of VS Code and of `file:line:col` (plus one). */
export interface Position {
  readonly line: number;
  readonly character: number;
}

/** Maps offsets to positions and back for one version of a text, in O(log lines). */
export class LineIndex {
  private readonly starts: Uint32Array;
  readonly lineCount: number;
  /** The text's length in UTF-16 code units. */
  private readonly length: number;

  constructor(text: string);
  /** The index of a text read a piece at a time (`LineStarts`): its line starts and its length. */
  constructor(starts: Uint32Array, lineCount: number, length: number);
  constructor(text: string | Uint32Array, lineCount = 0, length = 0) {
    if (typeof text !== 'string') {
      this.starts = text;
      this.lineCount = lineCount;
      this.length = length;
      return;
    }
    const starts = new LineStarts();
    starts.add(text, 0);
    this.starts = starts.starts;
    this.lineCount = starts.count;
    this.length = text.length;
  }

  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.lineCount - 1))] ?? 0;
  }

  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.length));
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - (this.starts[lo] ?? 0) };
  }

  offset(pos: Position): number {
    if (pos.line >= this.lineCount) return this.length;
    const start = this.lineStart(pos.line);
    const next = pos.line + 1 < this.lineCount ? (this.starts[pos.line + 1] ?? this.length) : this.length;
    return Math.min(start + pos.character, next);
  }
}

/** Line starts gathered from a text given a piece at a time, in order. */
export class LineStarts {
  // A typed array grown by doubling: far cheaper than a plain array for 100k+ lines.
  starts = new Uint32Array(1024);
  count = 1;

  /** The next piece of the text, which starts at `offset`. */
  add(piece: string, offset: number): void {
    for (let i = piece.indexOf('\n'); i !== -1; i = piece.indexOf('\n', i + 1)) {
      if (this.count === this.starts.length) {
        const bigger = new Uint32Array(this.count * 2);
        bigger.set(this.starts);
        this.starts = bigger;
      }
      this.starts[this.count++] = offset + i + 1;
    }
  }
}

/**
 * A text kept as segments that each start at a line start, read again when asked for: what a
 * file read a block at a time (fileStream.ts) keeps of its lines, a few numbers per segment
 * instead of 4 bytes a line.
 */
export interface LineSegments {
  readonly count: number;
  /** Segment `k`'s first offset; segment 0 starts at 0. */
  start(k: number): number;
  /** The line segment `k` starts. */
  line(k: number): number;
  /** Segment `k`'s text, from its start to the next segment's. */
  text(k: number): string;
}

/** Segments whose line starts are kept: positions asked for in file order read each segment once. */
const SEGMENTS_KEPT = 8;

/**
 * The positions of a text held as segments: exact as LineIndex's, memory flat in the text's size.
 * A segment's line starts are found when a position in it is asked for, and the last few kept.
 */
export class SegmentedLineIndex extends LineIndex {
  private readonly kept = new Map<number, Uint32Array>();

  constructor(
    private readonly segments: LineSegments,
    lineCount: number,
    private readonly textLength: number,
  ) {
    super(new Uint32Array(1), lineCount, textLength);
  }

  override lineStart(line: number): number {
    const l = Math.max(0, Math.min(line, this.lineCount - 1));
    const k = this.last((j) => this.segments.line(j) <= l);
    return this.startsOf(k)[l - this.segments.line(k)] ?? this.segments.start(k);
  }

  override position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.textLength));
    const k = this.last((j) => this.segments.start(j) <= o);
    const starts = this.startsOf(k);
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: this.segments.line(k) + lo, character: o - (starts[lo] ?? 0) };
  }

  override offset(pos: Position): number {
    if (pos.line >= this.lineCount) return this.textLength;
    const next = pos.line + 1 < this.lineCount ? this.lineStart(pos.line + 1) : this.textLength;
    return Math.min(this.lineStart(pos.line) + pos.character, next);
  }

  /** The last segment for which `before` holds (it holds for segment 0 and then fails from some segment on). */
  private last(before: (k: number) => boolean): number {
    let lo = 0;
    let hi = this.segments.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (before(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Segment `k`'s line starts, as offsets in the whole text. */
  private startsOf(k: number): Uint32Array {
    let starts = this.kept.get(k);
    if (!starts) {
      const lines = new LineStarts();
      const start = this.segments.start(k);
      lines.starts[0] = start;
      const text = this.segments.text(k);
      // A line break that ends the segment starts the next segment's first line, not one of this one's.
      lines.add(text.endsWith('\n') ? text.slice(0, -1) : text, start);
      starts = lines.starts.subarray(0, lines.count);
      if (this.kept.size === SEGMENTS_KEPT) this.kept.delete(this.kept.keys().next().value ?? k);
      this.kept.set(k, starts);
    }
    return starts;
  }
}

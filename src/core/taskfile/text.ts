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

/** A zero-based line and UTF-16 column, the convention of VS Code and of `file:line:col` (plus one). */
export interface Position {
  readonly line: number;
  readonly character: number;
}

/** Maps offsets to positions and back for one version of a text, in O(log lines). */
export class LineIndex {
  private readonly starts: Uint32Array;
  readonly lineCount: number;

  constructor(readonly text: string) {
    // A typed array grown by doubling: far cheaper than a plain array for 100k+ lines.
    let starts = new Uint32Array(1024);
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      if (n === starts.length) {
        const bigger = new Uint32Array(n * 2);
        bigger.set(starts);
        starts = bigger;
      }
      starts[n++] = i + 1;
    }
    this.starts = starts;
    this.lineCount = n;
  }

  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.lineCount - 1))] ?? 0;
  }

  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
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
    if (pos.line >= this.lineCount) return this.text.length;
    const start = this.lineStart(pos.line);
    const next = pos.line + 1 < this.lineCount ? (this.starts[pos.line + 1] ?? this.text.length) : this.text.length;
    return Math.min(start + pos.character, next);
  }
}

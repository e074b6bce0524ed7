// A set of row numbers kept as sorted runs, and its compact text. The workbench's selection
// crosses the extension host twice (worker → host → page, and page → host → worker); a million
// selected rows as a list of numbers cost the host tens of milliseconds to clone, serialize and
// validate each way. As runs, "every row" is two numbers, and as text the host carries it
// without reading it (a string is copied, not walked).
import * as z from 'zod/mini';

/** The most characters a selection's text may have: room for 2,000,000 rows none of them adjacent. */
export const MAX_ROW_SET_CHARS = 16_000_000;

const RADIX = 36;

/**
 * A selection of rows in a message: a RowSet's text, read by the worker; the host passes it on
 * unread, so a million rows cost it no more than one string.
 */
export const rowSelection = z.string().check(z.maxLength(MAX_ROW_SET_CHARS));

/** Row numbers as sorted, disjoint, non-adjacent runs `[start, end)`. */
export class RowSet {
  /** start0, end0, start1, end1, …: each run's first row and the row after its last. */
  private runs: number[] = [];
  private count = 0;

  /** The set of `rows`, in any order, repeats allowed. */
  static of(rows: Iterable<number>): RowSet {
    return RowSet.ofSorted(Float64Array.from(rows).sort());
  }

  /** The set of `rows` sorted ascending (repeats allowed). */
  static ofSorted(rows: ArrayLike<number>): RowSet {
    const s = new RowSet();
    for (let i = 0; i < rows.length; i++) s.append(rows[i] ?? 0);
    return s;
  }

  /** The set of rows start..end (exclusive). */
  static range(start: number, end: number): RowSet {
    const s = new RowSet();
    if (end > start) s.pushRun(start, end);
    return s;
  }

  /**
   * Reads the text `encode` writes: each run's gap after the last one's end, then its length,
   * in base 36, separated by commas. Throws, naming the character, on anything else.
   */
  static decode(text: string): RowSet {
    const s = new RowSet();
    if (text === '') return s;
    if (text.length > MAX_ROW_SET_CHARS) throw new Error(`a row selection has at most ${MAX_ROW_SET_CHARS} characters`);
    if (text.endsWith(',')) throw new Error(`row selection: a number is missing at character ${text.length + 1}`);
    let end = 0;
    let at = 0;
    const numberAt = (): number => {
      const from = at;
      let n = 0;
      for (; at < text.length && text.charCodeAt(at) !== 44; at++) {
        const d = digit(text.charCodeAt(at));
        if (d < 0) throw new Error(`row selection: '${text[at]}' at character ${at + 1} is no base-36 digit`);
        n = n * RADIX + d;
      }
      if (at === from) throw new Error(`row selection: a number is missing at character ${from + 1}`);
      if (!Number.isSafeInteger(n)) throw new Error(`row selection: the number at character ${from + 1} is too large`);
      at++;
      return n;
    };
    while (at < text.length) {
      const gapAt = at;
      const gap = numberAt();
      if (at > text.length) throw new Error(`row selection: the run at character ${gapAt + 1} has no length`);
      const length = numberAt();
      if (length === 0 || (gap === 0 && s.runs.length > 0))
        throw new Error(`row selection: the run at character ${gapAt + 1} is empty or touches the one before`);
      s.pushRun(end + gap, end + gap + length);
      end += gap + length;
    }
    return s;
  }

  /** The compact text of the set ('' when empty). */
  encode(): string {
    const parts: string[] = [];
    let end = 0;
    for (let i = 0; i < this.runs.length; i += 2) {
      const start = this.runs[i] ?? 0;
      const next = this.runs[i + 1] ?? 0;
      parts.push((start - end).toString(RADIX), (next - start).toString(RADIX));
      end = next;
    }
    return parts.join(',');
  }

  /** How many rows. */
  get size(): number {
    return this.count;
  }

  /** How many runs (the text's length grows with it, not with the rows). */
  get runCount(): number {
    return this.runs.length / 2;
  }

  has(n: number): boolean {
    const i = this.runAt(n);
    return i >= 0 && n < (this.runs[i + 1] ?? 0);
  }

  /** Adds one row. */
  add(n: number): void {
    this.addAll(RowSet.range(n, n + 1));
  }

  /** Takes one row out. */
  delete(n: number): void {
    const i = this.runAt(n);
    if (i < 0) return;
    const start = this.runs[i] ?? 0;
    const end = this.runs[i + 1] ?? 0;
    if (n >= end) return;
    const parts = [...(start < n ? [start, n] : []), ...(n + 1 < end ? [n + 1, end] : [])];
    this.runs.splice(i, 2, ...parts);
    this.count--;
  }

  /** Adds every row of `other` (one merge of the two lists of runs). */
  addAll(other: RowSet): void {
    if (!other.count) return;
    const a = this.runs;
    const b = other.runs;
    this.runs = [];
    this.count = 0;
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const fromA = j >= b.length || (i < a.length && (a[i] ?? 0) <= (b[j] ?? 0));
      const src = fromA ? a : b;
      const k = fromA ? i : j;
      this.pushRun(src[k] ?? 0, src[k + 1] ?? 0);
      if (fromA) i += 2;
      else j += 2;
    }
  }

  clear(): void {
    this.runs = [];
    this.count = 0;
  }

  /** Each row, ascending. */
  *[Symbol.iterator](): IterableIterator<number> {
    for (let i = 0; i < this.runs.length; i += 2)
      for (let n = this.runs[i] ?? 0; n < (this.runs[i + 1] ?? 0); n++) yield n;
  }

  /** The index of the run that starts at or before `n` (-1: none). */
  private runAt(n: number): number {
    let lo = 0;
    let hi = this.runs.length / 2 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.runs[mid * 2] ?? 0) <= n) {
        found = mid * 2;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Adds row `n`, no smaller than any row held (a repeat is ignored). */
  private append(n: number): void {
    this.pushRun(n, n + 1);
  }

  /** Adds the run `[start, end)`, starting no earlier than the last run starts: merged when they touch. */
  private pushRun(start: number, end: number): void {
    const last = this.runs.length - 1;
    const lastEnd = this.runs[last];
    if (lastEnd !== undefined && start <= lastEnd) {
      if (end > lastEnd) {
        this.runs[last] = end;
        this.count += end - lastEnd;
      }
      return;
    }
    this.runs.push(start, end);
    this.count += end - start;
  }
}

/** The value of a base-36 digit's character code, -1 when it is none. */
function digit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 87;
  return -1;
}

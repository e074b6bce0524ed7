// Benchmark contamination: a task whose prompt shares a run of n words (13 by default, the
// length GPT-3's contamination study used) with a benchmark's prompt, both read as normalised
// words (normalise.ts). A benchmark row shorter than n words counts when the whole row appears,
// if it has at least MIN_WORDS words (the floor that study put under its n; shorter rows, "What
// is 2+2?", are common phrases rather than evidence).
//
// The benchmark's words are interned as integer ids, and every n-gram of them is indexed by a
// 32-bit rolling hash in an open-addressing table of typed arrays; a task's n-grams are looked
// up, every hash hit is checked on the ids themselves (a collision never reports), and a hit is
// extended both ways to the longest common run. One hit is reported per task: its longest
// overlap (ties: the earliest row), quoted as the task's prompt writes it.
import { mix32, promptWords } from './normalise';
import type { ContaminationHit, TaskRef } from '../dataset/types';
import { i32, num, u32, word } from './packed';

export const DEFAULT_NGRAM = 13;
const MIN_WORDS = 8;
/** Rows followed from one shared run; see the lookup. */
const MAX_ROWS_PER_GRAM = 256;
/** Multiplier of the rolling polynomial hash (odd, so it is invertible modulo 2^32). */
const B = 0x01000193;

/** Growable Int32Array. */
class IntList {
  data = new Int32Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** B^(len-1) modulo 2^32: what the word leaving a rolling window weighed. */
function power(len: number): number {
  let p = 1;
  for (let i = 1; i < len; i++) p = Math.imul(p, B);
  return p;
}

/** The table key of a window's rolling hash: mixed with the window's length. */
const keyOf = (rolling: number, len: number): number => mix32(rolling ^ Math.imul(len, 0x9e3779b1)) || 1;

/**
 * The benchmark's n-grams: each distinct one once in an open-addressing table keyed by hash,
 * with the list of the rows it occurs in (in row order, once per row).
 */
class GramIndex {
  keys: Uint32Array;
  /** Position in the word pool of the gram's first occurrence. */
  at: Int32Array;
  len: Int32Array;
  /** First and last occurrence of each gram in `occRow`/`occPos`/`occNext`. */
  head: Int32Array;
  tail: Int32Array;
  readonly occRow = new IntList();
  readonly occPos = new IntList();
  readonly occNext = new IntList();
  size = 0;
  constructor(
    private readonly words: IntList,
    expected: number,
  ) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.keys = new Uint32Array(cap);
    this.at = new Int32Array(cap);
    this.len = new Int32Array(cap);
    this.head = new Int32Array(cap);
    this.tail = new Int32Array(cap);
  }
  /** Whether the words at `p` (pool) equal those at `q` (pool, or `other`), for `len` words. */
  same(p: number, q: number, len: number, other: Int32Array = this.words.data): boolean {
    const w = this.words.data;
    for (let i = 0; i < len; i++) if (w[p + i] !== other[q + i]) return false;
    return true;
  }
  /** The slot of the gram of `len` words at `q` of `words` (the pool by default) with hash `key`, or -1. */
  find(key: number, q: number, len: number, words: Int32Array = this.words.data): number {
    const mask = this.keys.length - 1;
    for (let s = key & mask; this.keys[s] !== 0; s = (s + 1) & mask) {
      if (this.keys[s] === key && this.len[s] === len && this.same(i32(this.at, s), q, len, words)) return s;
    }
    return -1;
  }
  add(key: number, at: number, len: number, row: number): void {
    let s = this.find(key, at, len);
    if (s >= 0) {
      if (this.occRow.data[i32(this.tail, s)] === row) return;
    } else {
      if ((this.size + 1) * 2 > this.keys.length) this.grow();
      const mask = this.keys.length - 1;
      for (s = key & mask; this.keys[s] !== 0; s = (s + 1) & mask);
      this.keys[s] = key;
      this.at[s] = at;
      this.len[s] = len;
      this.head[s] = -1;
      this.size++;
    }
    const o = this.occRow.length;
    this.occRow.push(row);
    this.occPos.push(at);
    this.occNext.push(-1);
    if (this.head[s] === -1) this.head[s] = o;
    else this.occNext.data[i32(this.tail, s)] = o;
    this.tail[s] = o;
  }
  private grow(): void {
    const { keys, at, len, head, tail } = this;
    const cap = keys.length * 2;
    this.keys = new Uint32Array(cap);
    this.at = new Int32Array(cap);
    this.len = new Int32Array(cap);
    this.head = new Int32Array(cap);
    this.tail = new Int32Array(cap);
    const mask = cap - 1;
    for (let i = 0; i < keys.length; i++) {
      const k = u32(keys, i);
      if (!k) continue;
      let s = k & mask;
      while (this.keys[s]) s = (s + 1) & mask;
      this.keys[s] = k;
      this.at[s] = i32(at, i);
      this.len[s] = i32(len, i);
      this.head[s] = i32(head, i);
      this.tail[s] = i32(tail, i);
    }
  }
}

/**
 * Tasks whose prompt shares `n` consecutive normalised words (13 by default) with one of the
 * benchmark's rows, each with the row and the longest shared span as written in the prompt.
 * In the order of `prompts`.
 */
export function findContamination(
  prompts: Iterable<{ ref: TaskRef; text: string }>,
  rows: readonly { row: number; text: string }[],
  o: { n?: number; benchmark?: string } = {},
): ContaminationHit[] {
  const find = contaminationFinder(rows, o);
  const hits: ContaminationHit[] = [];
  for (const { ref, text } of prompts) {
    const hit = find(ref, text);
    if (hit) hits.push(hit);
  }
  return hits;
}

/**
 * `findContamination` one prompt at a time: the benchmark's index is made once, and each prompt
 * is checked as it is read (the prompts of one file after another's), none kept.
 */
export function contaminationFinder(
  rows: readonly { row: number; text: string }[],
  o: { n?: number; benchmark?: string } = {},
): (ref: TaskRef, text: string) => ContaminationHit | undefined {
  const n = o.n ?? DEFAULT_NGRAM;
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`the n-gram length must be a whole number of at least 1, got ${n}`);
  const minWords = Math.min(n, MIN_WORDS);
  const vocab = new Map<string, number>();
  const words = new IntList();
  const rowStart: number[] = [];
  const rowOf: number[] = [];
  for (const r of rows) {
    const start = words.length;
    for (const w of promptWords(r.text, false).words) {
      let id = vocab.get(w);
      if (id === undefined) vocab.set(w, (id = vocab.size));
      words.push(id);
    }
    if (words.length - start < minWords) {
      words.length = start;
      continue;
    }
    rowStart.push(start);
    rowOf.push(r.row);
  }
  rowStart.push(words.length);
  const idHash = new Uint32Array(vocab.size);
  for (let i = 0; i < idHash.length; i++) idHash[i] = mix32(i + 0x6a09e667);
  const index = new GramIndex(words, words.length);
  const lengths = new Set<number>();
  for (let r = 0; r + 1 < rowStart.length; r++) {
    const from = num(rowStart, r);
    const to = num(rowStart, r + 1);
    const len = Math.min(n, to - from);
    lengths.add(len);
    const pow = power(len);
    let h = 0;
    for (let i = from; i < to; i++) {
      const v = u32(idHash, i32(words.data, i));
      if (i - from >= len) h = (h - Math.imul(u32(idHash, i32(words.data, i - len)), pow)) | 0;
      h = (Math.imul(h, B) + v) | 0;
      if (i - from + 1 >= len) index.add(keyOf(h, len), i - len + 1, len, r);
    }
  }
  if (rowOf.length === 0) return () => undefined;
  const byLength = [...lengths].sort((x, y) => y - x).map((len) => ({ len, pow: power(len) }));
  const w = words.data;
  return (ref, text) => {
    const pw = promptWords(text);
    const m = pw.words.length;
    if (m < minWords) return undefined;
    const ids = new Int32Array(m);
    const hs = new Uint32Array(m);
    for (let i = 0; i < m; i++) {
      const id = vocab.get(word(pw.words, i));
      ids[i] = id ?? -1;
      hs[i] = id === undefined ? 0 : u32(idHash, id);
    }
    let best = { span: 0, row: -1, from: 0, to: 0 };
    for (const { len, pow } of byLength) {
      if (len > m) continue;
      let h = 0;
      let skipTo = 0;
      for (let i = 0; i < m; i++) {
        if (i >= len) h = (h - Math.imul(u32(hs, i - len), pow)) | 0;
        h = (Math.imul(h, B) + u32(hs, i)) | 0;
        const p = i - len + 1;
        if (p < skipTo || p < 0) continue;
        const slot = index.find(keyOf(h, len), p, len, ids);
        if (slot < 0) continue;
        // Every row holding this run (the first MAX_ROWS_PER_GRAM of them: a run shared by more
        // rows is boilerplate, and the row's other runs identify it), each extended both ways.
        let seen = 0;
        for (
          let o = i32(index.head, slot);
          o !== -1 && seen < MAX_ROWS_PER_GRAM;
          o = i32(index.occNext.data, o), seen++
        ) {
          const r = i32(index.occRow.data, o);
          const q0 = i32(index.occPos.data, o);
          const lo = num(rowStart, r);
          const hi = num(rowStart, r + 1);
          let a = p;
          let q = q0;
          while (a > 0 && q > lo && ids[a - 1] === w[q - 1]) {
            a--;
            q--;
          }
          let e = p + len;
          let qe = q0 + len;
          while (e < m && qe < hi && ids[e] === w[qe]) {
            e++;
            qe++;
          }
          const span = e - a;
          const row = num(rowOf, r);
          if (span > best.span || (span === best.span && row < best.row)) best = { span, row, from: a, to: e };
          // The windows inside this run would find the same run again.
          skipTo = Math.max(skipTo, e - len + 1);
        }
      }
    }
    if (best.row < 0) return undefined;
    return {
      ...ref,
      benchmark_row: best.row,
      overlap: text.slice(pw.starts[best.from], pw.ends[best.to - 1]),
      ...(o.benchmark === undefined ? {} : { benchmark: o.benchmark }),
    };
  };
}

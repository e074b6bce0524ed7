// Tasks whose prompts are the same or nearly so. Exact duplicates share their normalised text
// (normalise.ts). Near duplicates are found with MinHash over the prompts' features (below) and
// LSH banding, and every candidate pair is then measured exactly, so the similarity reported is
// the true Jaccard similarity of the two prompts' feature sets, never an estimate.
//
// Choices, and why:
// - A prompt's features are its words and its 2-word shingles (pairs of adjacent words), as one
//   set. The shingles keep word order (a bag of words would call "is 5 greater than 3" and "is 3
//   greater than 5" the same prompt); the words keep a short prompt reworded in a few places
//   close to itself: a changed word costs three features (itself and its two shingles) out of
//   about twice the prompt's length, where with shingles alone it costs two out of its length,
//   so a 15-word problem with two verbs swapped stays near 0.8 instead of near 0.65. Swapping
//   two sentences changes only the shingles across the seams. A one-word prompt has one
//   feature, so very short prompts only ever match exactly.
// - Numbers are read as numbers: "three" and "3" are the same feature (number words zero to
//   twenty), and so are "1,000" and "1000".
// - Numbers decide: two prompts are near duplicates only if they hold the same numbers (as a
//   multiset, number words included). Tasks made from one template differ mostly in their
//   numbers ("What is 17+25?", "What is 18+25?"), share most of their features, and yet ask for
//   different answers. The one number left out is 1: "one" is as often a pronoun ("the lowest
//   one", "no one") as a number, so "1"/"one" neither makes nor breaks a pair. The numbers' hash
//   is part of every LSH bucket key, so such tasks never even become candidates, which also
//   keeps the buckets of a templated dataset small.
// - H = 64 hashes (each the feature hash xored with a seed and multiplied, see minhash): the
//   signatures of 100,000 prompts take 25 MB, and the bands are chosen from the threshold so that
//   a pair at the threshold becomes a candidate with probability at least 0.99 (at 0.8: 12 bands of 5 rows,
//   0.991; at 0.9 similarity 0.9999). The estimate itself is never reported.
// - Each task is reported once: an exact copy paired with the first task of its text, a near
//   duplicate paired with the earlier task most similar to it. So 1,000 copies of one prompt
//   give 999 pairs (each to the first occurrence), not 499,500; a chain of rewordings gives one
//   pair per task. A bucket of more than BUCKET_WINDOW prompts (thousands of tasks that differ
//   in one word and share their numbers) compares each prompt with the BUCKET_WINDOW before it.
import { hashString, isNumberWord, mix32, promptWords } from './normalise';
import type { DuplicatePair, TaskRef } from '../dataset/types';
import { NUMBER_WORDS_TO_19 } from '../../util/numberWords';
import { at } from '../../util/must';
import { f64, i32, num, u32, word } from './packed';

export const DEFAULT_DUPLICATE_THRESHOLD = 0.8;
const H = 64;
/** Number words read as their digits (features and numbers alike). */
const NUMBER_WORDS = new Map([...NUMBER_WORDS_TO_19, 'twenty'].map((w, i) => [w, String(i)]));
/** The letters a number word starts with (most words are not looked up). */
const NUMBER_WORD_START = 'zotfsen';
/** A number written with thousands separators. */
const THOUSANDS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
/** Seeds that keep a word's feature apart from a shingle's. */
const WORD_SEED = 0x3c6ef372;
const SHINGLE_SEED = 0x2545f491;
/** The most earlier members of one LSH bucket a prompt is compared with. */
const BUCKET_WINDOW = 64;
/** Probability at the threshold that the banding must reach. */
const RECALL_AT_THRESHOLD = 0.99;

const SEEDS = Uint32Array.from({ length: H }, (_, i) => mix32(0x9e3779b9 + Math.imul(i + 1, 0x7f4a7c15)));

/** The bands for a threshold: the most rows per band whose banding still reaches the recall. */
export function bandsFor(threshold: number): { bands: number; rows: number } {
  let best = { bands: H, rows: 1 };
  for (let rows = 1; rows <= H; rows++) {
    const bands = Math.floor(H / rows);
    if (1 - (1 - threshold ** rows) ** bands >= RECALL_AT_THRESHOLD) best = { bands, rows };
  }
  return best;
}

/** Reads number words as their digits and drops thousands separators (`1,000` is `1000`), in place. */
function asFeatureWords(words: string[]): string[] {
  for (let i = 0; i < words.length; i++) {
    const w = word(words, i);
    const c = w.charCodeAt(0);
    if (c >= 48 && c <= 57) {
      if (w.includes(',') && THOUSANDS.test(w)) words[i] = w.replace(/,/g, '');
    } else if (w.length >= 3 && w.length <= 9 && NUMBER_WORD_START.includes(w.charAt(0))) {
      words[i] = NUMBER_WORDS.get(w) ?? w;
    }
  }
  return words;
}

/** Sorted, distinct feature hashes of a prompt's words: each word, and each pair of adjacent words. */
let wordHashes = new Uint32Array(1024);
function featureHashes(words: readonly string[], out: Uint32Array): number {
  const n = words.length;
  if (wordHashes.length < n) wordHashes = new Uint32Array(n * 2);
  const wh = wordHashes;
  for (let i = 0; i < n; i++) wh[i] = hashString(word(words, i));
  let count = 0;
  for (let i = 0; i < n; i++) out[count++] = mix32(WORD_SEED ^ u32(wh, i));
  for (let i = 0; i + 1 < n; i++)
    out[count++] = mix32(Math.imul(mix32(Math.imul(SHINGLE_SEED, 31) ^ u32(wh, i)), 31) ^ u32(wh, i + 1));
  const view = out.subarray(0, count);
  view.sort();
  let u = 0;
  for (let i = 0; i < count; i++) if (i === 0 || view[i] !== view[i - 1]) out[u++] = u32(view, i);
  return u;
}

/** A multiset hash of the prompt's numbers but 1 (order-free, so swapped sentences keep it). */
function numbersHash(words: readonly string[]): number {
  let h = 0;
  for (const w of words) if (w !== '1' && isNumberWord(w)) h = (h + hashString(w, 0x1b873593)) >>> 0;
  return h;
}

/** Exact Jaccard similarity of two prompts' features (words and 2-word shingles), on the words themselves. */
export function shingleJaccard(a: string, b: string): number {
  const sa = featureSet(asFeatureWords(promptWords(a, false).words));
  const sb = featureSet(asFeatureWords(promptWords(b, false).words));
  let inter = 0;
  for (const s of sa) if (sb.has(s)) inter++;
  const union = sa.size + sb.size - inter;
  return union === 0 ? 0 : inter / union;
}

function featureSet(words: readonly string[]): Set<string> {
  // Words never hold a space, so a shingle's key never equals a word's.
  const set = new Set<string>(words);
  for (let i = 0; i + 1 < words.length; i++) set.add(`${word(words, i)} ${word(words, i + 1)}`);
  return set;
}

/** A growable pool of 32-bit values: the shingle sets of all prompts, end to end. */
class Pool {
  data = new Uint32Array(1 << 16);
  length = 0;
  reserve(n: number): Uint32Array {
    if (this.length + n > this.data.length) {
      let size = this.data.length * 2;
      while (size < this.length + n) size *= 2;
      const next = new Uint32Array(size);
      next.set(this.data.subarray(0, this.length));
      this.data = next;
    }
    return this.data.subarray(this.length, this.length + n);
  }
}

/**
 * Pairs of tasks whose prompts are duplicates: exact (`exact: true`, similarity 1) or near
 * (the Jaccard similarity of their words and 2-word shingles at or above `threshold`, 0.8 by
 * default, and the same numbers). Sorted by similarity (highest first), then by where the tasks
 * are. Prompts without a word are not compared.
 */
export function findDuplicates(
  prompts: Iterable<{ ref: TaskRef; text: string }>,
  o: { threshold?: number } = {},
): DuplicatePair[] {
  const threshold = o.threshold ?? DEFAULT_DUPLICATE_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1))
    throw new Error(`duplicate threshold must be above 0 and at most 1, got ${threshold}`);
  const pairs: DuplicatePair[] = [];
  // Distinct prompts (the first task of each normalised text), in input order.
  const refs: TaskRef[] = [];
  const texts: string[] = [];
  const firstOf = new Map<string, number>();
  const pool = new Pool();
  const offsets: number[] = [0];
  const numbers: number[] = [];
  let signatures = new Uint32Array(H * 1024);
  let scratch = new Uint32Array(1024);
  for (const { ref, text } of prompts) {
    const words = promptWords(text, false).words;
    if (!words.length) continue;
    // Exact duplicates are equal as written ("3" and "three" make a near duplicate, not an exact one).
    const norm = words.join(' ');
    const first = firstOf.get(norm);
    if (first !== undefined) {
      pairs.push({ a: at(refs, first), b: ref, similarity: 1, exact: true });
      continue;
    }
    const d = refs.length;
    firstOf.set(norm, d);
    refs.push(ref);
    texts.push(text);
    asFeatureWords(words);
    numbers.push(numbersHash(words));
    if (scratch.length < 2 * words.length) scratch = new Uint32Array(words.length * 4);
    const count = featureHashes(words, scratch);
    pool.reserve(count).set(scratch.subarray(0, count));
    pool.length += count;
    offsets.push(pool.length);
    if ((d + 1) * H > signatures.length) {
      const next = new Uint32Array(signatures.length * 2);
      next.set(signatures);
      signatures = next;
    }
    minhash(scratch, count, signatures, d * H);
  }
  firstOf.clear();
  pairs.push(...nearPairs(refs, texts, pool.data, offsets, numbers, signatures, threshold));
  return pairs.sort(comparePairs);
}

/**
 * The prompt's 64 minimum hashes. The features are already well-mixed 32-bit hashes, so each of
 * the 64 hash functions is one xor with its seed and one odd multiply (a permutation of 32-bit
 * values): on random sets of 20 to 150 features its rows agree at the rate of the Jaccard
 * similarity and its bands make candidates at the rate the banding promises, as a full mix
 * per value did, at half the cost.
 */
function minhash(features: Uint32Array, count: number, out: Uint32Array, at: number): void {
  for (let h = 0; h < H; h++) {
    const seed = u32(SEEDS, h);
    let min = 0xffffffff;
    for (let i = 0; i < count; i++) {
      const x = Math.imul(u32(features, i) ^ seed, 0x846ca68b) >>> 0;
      if (x < min) min = x;
    }
    out[at + h] = min;
  }
}

function nearPairs(
  refs: readonly TaskRef[],
  texts: readonly string[],
  shingles: Uint32Array,
  offsets: readonly number[],
  numbers: readonly number[],
  signatures: Uint32Array,
  threshold: number,
): DuplicatePair[] {
  const n = refs.length;
  if (n < 2) return [];
  const { bands, rows } = bandsFor(threshold);
  const bestSim = new Float64Array(n);
  const bestOf = new Int32Array(n).fill(-1);
  const size = (i: number): number => num(offsets, i + 1) - num(offsets, i);
  const consider = (a: number, b: number): void => {
    if (numbers[a] !== numbers[b]) return;
    const na = size(a);
    const nb = size(b);
    // Jaccard is at most the smaller set over the larger one.
    if (Math.min(na, nb) < threshold * Math.max(na, nb)) return;
    let i = num(offsets, a);
    let j = num(offsets, b);
    const ei = i + na;
    const ej = j + nb;
    let inter = 0;
    while (i < ei && j < ej) {
      const x = u32(shingles, i);
      const y = u32(shingles, j);
      if (x === y) {
        inter++;
        i++;
        j++;
      } else if (x < y) i++;
      else j++;
    }
    const sim = inter / (na + nb - inter);
    if (sim >= threshold && (sim > f64(bestSim, b) || (sim === bestSim[b] && a < i32(bestOf, b)))) {
      bestSim[b] = sim;
      bestOf[b] = a;
    }
  };
  // Bucket keys packed with the prompt's index, so one numeric sort groups each bucket in input order.
  const packed = n < 1 << 21;
  const keys = new Float64Array(n);
  const order = new Uint32Array(n);
  const bandKey = new Uint32Array(n);
  for (let band = 0; band < bands; band++) {
    for (let d = 0; d < n; d++) {
      let h = mix32(Math.imul(band + 1, 0x27d4eb2f) ^ num(numbers, d));
      const at = d * H + band * rows;
      for (let r = 0; r < rows; r++) h = mix32(Math.imul(h, 31) ^ u32(signatures, at + r));
      bandKey[d] = h;
      if (packed) keys[d] = h * (1 << 21) + d;
    }
    if (packed) {
      keys.sort();
      for (let i = 0; i < n; i++) order[i] = f64(keys, i) % (1 << 21);
    } else {
      for (let i = 0; i < n; i++) order[i] = i;
      order.sort((x, y) => u32(bandKey, x) - u32(bandKey, y) || x - y);
    }
    for (let lo = 0; lo < n;) {
      const key = u32(bandKey, u32(order, lo));
      let hi = lo + 1;
      while (hi < n && u32(bandKey, u32(order, hi)) === key) hi++;
      for (let p = lo + 1; p < hi; p++) {
        const b = u32(order, p);
        for (let q = p - 1; q >= lo && q >= p - BUCKET_WINDOW; q--) consider(u32(order, q), b);
      }
      lo = hi;
    }
  }
  const out: DuplicatePair[] = [];
  for (let b = 0; b < n; b++) {
    const a = i32(bestOf, b);
    if (a < 0) continue;
    // The hashed sets agree with the words but for a 32-bit collision; the figure reported is
    // measured on the words themselves.
    const similarity = shingleJaccard(at(texts, a), at(texts, b));
    if (similarity >= threshold) out.push({ a: at(refs, a), b: at(refs, b), similarity, exact: false });
  }
  return out;
}

/** Orders tasks by file, then line, then id. */
export function compareRefs(x: TaskRef, y: TaskRef): number {
  if (x.file !== y.file) return x.file < y.file ? -1 : 1;
  const lx = x.line ?? -1;
  const ly = y.line ?? -1;
  if (lx !== ly) return lx - ly;
  return x.task < y.task ? -1 : x.task > y.task ? 1 : 0;
}

function comparePairs(x: DuplicatePair, y: DuplicatePair): number {
  return y.similarity - x.similarity || compareRefs(x.a, y.a) || compareRefs(x.b, y.b);
}

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
// - H = 64 hashes (each the feature hash xored with a seed and multiplied, see minhash). A
//   signature is not kept: the prompt's band keys are made from it at once. The bands are chosen
//   from the threshold so that a pair at the threshold becomes a candidate with probability at
//   least 0.99 (at 0.8: 12 bands of 5 rows, 0.991; at 0.9 similarity 0.9999). The estimate
//   itself is never reported.
// - Each task is reported once: an exact copy paired with the first task of its text, a near
//   duplicate paired with the earlier task most similar to it. So 1,000 copies of one prompt
//   give 999 pairs (each to the first occurrence), not 499,500; a chain of rewordings gives one
//   pair per task. A bucket of more than BUCKET_WINDOW prompts (thousands of tasks that differ
//   in one word and share their numbers) compares each prompt with the BUCKET_WINDOW before it.
import { hashString, isNumberWord, mix32, promptWords } from './normalise';
import type { DuplicatePair, TaskRef } from '../dataset/types';
import { NUMBER_WORDS_TO_19 } from '../../util/numberWords';
import { at, must } from '../../util/must';
import type { Indexed } from '../dataset/taskTable';
import { f64, i32, num, u32, word } from './packed';
import { ScratchDir } from '../../util/scratchDir';
import { SpillFile } from './spillFile';
import { forEachBucket } from './buckets';

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

/**
 * Pairs of tasks whose prompts are duplicates: exact (`exact: true`, similarity 1) or near
 * (the Jaccard similarity of their words and 2-word shingles at or above `threshold`, 0.8 by
 * default, and the same numbers). Sorted by similarity (highest first), then by where the tasks
 * are. Prompts without a word are not compared.
 *
 * Memory stays nearly flat in the number of prompts: the prompts, their features and their LSH
 * band keys go to files in a scratch folder (removed when done, or on exit), buckets are formed by
 * sorting keys a chunk at a time (buckets.ts), and only the members of a bucket of two or more
 * are read back. What memory keeps per prompt: its task (the caller's), the offsets of its text
 * and features (16 bytes) and its best match so far (12 bytes).
 */
export function findDuplicates(
  prompts: Iterable<{ ref: TaskRef; text: string }>,
  o: { threshold?: number } = {},
): DuplicatePair[] {
  const refs: TaskRef[] = [];
  const search = new DuplicateSearch(o.threshold, (i) => at(refs, i));
  try {
    for (const { ref, text } of prompts) search.add(refs.push(ref) - 1, text);
    return search.pairs();
  } finally {
    search.close();
  }
}

/**
 * `findDuplicates` fed one prompt at a time (the prompts of one file after another's), for a
 * caller that reads them in turn. A prompt is added with a number that `refOf` makes its task
 * from, for the pairs found only: a task per prompt is not held here. `close` removes its
 * scratch folder, whatever happened.
 */
export class DuplicateSearch {
  private readonly threshold: number;
  private readonly dir: ScratchDir;
  private readonly files: SpillFile[] = [];
  /** The prompts with a word, in input order (their numbers), and the hash of each one's words as written. */
  private readonly keys: number[] = [];
  private readonly refs: Indexed<TaskRef>;
  private readonly texts: SpillFile;
  private readonly exactKeys: SpillFile;
  private readonly key = new Uint32Array(1);

  constructor(
    threshold = DEFAULT_DUPLICATE_THRESHOLD,
    private readonly refOf: (key: number) => TaskRef,
  ) {
    if (!(threshold > 0 && threshold <= 1))
      throw new Error(`duplicate threshold must be above 0 and at most 1, got ${threshold}`);
    this.threshold = threshold;
    const keys = this.keys;
    this.refs = {
      get length() {
        return keys.length;
      },
      at: (i) => refOf(at(keys, i)),
    };
    this.dir = new ScratchDir('duplicates');
    this.texts = this.spill('texts');
    this.exactKeys = this.spill('exact-keys', 4);
  }

  add(key: number, text: string): void {
    const words = promptWords(text, false).words;
    if (!words.length) return;
    this.keys.push(key);
    this.texts.append(Buffer.from(text, 'utf8'));
    // Exact duplicates are equal as written ("3" and "three" make a near duplicate, not an exact one).
    this.key[0] = hashString(words.join(' '));
    this.exactKeys.append(new Uint8Array(this.key.buffer));
  }

  /** The pairs among the prompts added, sorted as `findDuplicates` sorts them. */
  pairs(): DuplicatePair[] {
    const textOf = (i: number): string => this.texts.read(i).toString('utf8');
    const { pairs, copies } = exactPairs(this.dir, this.refs, this.exactKeys, textOf);
    pairs.push(
      ...nearPairs(this.dir, this.refs, copies, textOf, (name, width) => this.spill(name, width), this.threshold),
    );
    return pairs.sort(comparePairs);
  }

  close(): void {
    for (const f of this.files) f.close();
    this.files.length = 0;
    this.dir.remove();
  }

  private spill(name: string, width = 0): SpillFile {
    const f = new SpillFile(this.dir, name, width);
    this.files.push(f);
    return f;
  }
}

/**
 * Exact duplicates: each copy paired with the first prompt of its text. `copies` marks them:
 * they are left out of the near-duplicate search.
 */
function exactPairs(
  dir: ScratchDir,
  refs: Indexed<TaskRef>,
  keys: SpillFile,
  textOf: (i: number) => string,
): { pairs: DuplicatePair[]; copies: Uint8Array } {
  const pairs: DuplicatePair[] = [];
  const copies = new Uint8Array(refs.length);
  forEachBucket(
    dir,
    refs.length,
    (i) => keys.read(i).readUInt32LE(0),
    (items) => {
      // Texts sharing a hash: the first of each distinct text, and its index (a collision is rare).
      const firsts: { text: string; index: number }[] = [];
      for (const i of items) {
        const text = promptWords(textOf(i), false).words.join(' ');
        const first = firsts.find((f) => f.text === text);
        if (!first) firsts.push({ text, index: i });
        else {
          copies[i] = 1;
          pairs.push({ a: refAt(refs, first.index), b: refAt(refs, i), similarity: 1, exact: true });
        }
      }
    },
  );
  return { pairs, copies };
}

/** A distinct prompt as the near-duplicate search reads it back: input index, numbers hash, feature count, features. */
type Features = Uint32Array;

function nearPairs(
  dir: ScratchDir,
  refs: Indexed<TaskRef>,
  copies: Uint8Array,
  textOf: (i: number) => string,
  spill: (name: string, width?: number) => SpillFile,
  threshold: number,
): DuplicatePair[] {
  const { bands, rows } = bandsFor(threshold);
  const features = spill('features');
  const bandKeys = spill('band-keys', bands * 4);
  const keys = new Uint32Array(bands);
  const keyBytes = new Uint8Array(keys.buffer);
  const signature = new Uint32Array(H);
  let scratch = new Uint32Array(1024);
  for (let i = 0; i < refs.length; i++) {
    if (copies[i]) continue;
    const words = asFeatureWords(promptWords(textOf(i), false).words);
    if (scratch.length < 2 * words.length + 3) scratch = new Uint32Array(words.length * 4 + 3);
    const count = featureHashes(words, scratch.subarray(3));
    const numbers = numbersHash(words);
    scratch[0] = i;
    scratch[1] = numbers;
    scratch[2] = count;
    features.append(new Uint8Array(scratch.buffer, 0, (count + 3) * 4));
    minhash(scratch.subarray(3), count, signature, 0);
    for (let band = 0; band < bands; band++) {
      let h = mix32(Math.imul(band + 1, 0x27d4eb2f) ^ numbers);
      for (let r = 0; r < rows; r++) h = mix32(Math.imul(h, 31) ^ u32(signature, band * rows + r));
      keys[band] = h;
    }
    bandKeys.append(keyBytes);
  }
  const n = features.length;
  if (n < 2) return [];
  const read = (d: number): Features => {
    const bytes = features.read(d);
    const out = new Uint32Array(bytes.length / 4);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  };
  const bestSim = new Float64Array(n);
  const bestOf = new Int32Array(n).fill(-1);
  const consider = (a: number, fa: Features, b: number, fb: Features): void => {
    if (fa[1] !== fb[1]) return;
    const na = u32(fa, 2);
    const nb = u32(fb, 2);
    // Jaccard is at most the smaller set over the larger one.
    if (Math.min(na, nb) < threshold * Math.max(na, nb)) return;
    let i = 3;
    let j = 3;
    const ei = i + na;
    const ej = j + nb;
    let inter = 0;
    while (i < ei && j < ej) {
      const x = u32(fa, i);
      const y = u32(fb, j);
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
  // The last members of the bucket read, a ring of BUCKET_WINDOW + 1.
  const window: (Features | undefined)[] = new Array<Features | undefined>(BUCKET_WINDOW + 1);
  for (let band = 0; band < bands; band++) {
    forEachBucket(
      dir,
      n,
      (d) => bandKeys.read(d).readUInt32LE(band * 4),
      (items) => {
        for (let p = 0; p < items.length; p++) {
          const b = num(items, p);
          const fb = read(b);
          window[p % window.length] = fb;
          for (let q = p - 1; q >= 0 && q >= p - BUCKET_WINDOW; q--) {
            const fa = window[q % window.length];
            if (fa) consider(num(items, q), fa, b, fb);
          }
        }
      },
    );
  }
  const out: DuplicatePair[] = [];
  for (let b = 0; b < n; b++) {
    const a = i32(bestOf, b);
    if (a < 0) continue;
    const ia = u32(read(a), 0);
    const ib = u32(read(b), 0);
    // The hashed sets agree with the words but for a 32-bit collision; the figure reported is
    // measured on the words themselves.
    const similarity = shingleJaccard(textOf(ia), textOf(ib));
    if (similarity >= threshold) out.push({ a: refAt(refs, ia), b: refAt(refs, ib), similarity, exact: false });
  }
  return out;
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

function refAt(refs: Indexed<TaskRef>, i: number): TaskRef {
  return must(refs.at(i), 'every prompt added has its task');
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

// Groups items by a 32-bit key in bounded memory: the items that share a key (a bucket), each
// bucket's items in index order, the buckets in key order. Keys are packed with the item's index
// into one number, so one native sort orders a chunk; up to a chunk of items is sorted in memory
// (8 MB), more are sorted a chunk at a time into runs in the scratch folder and merged.
import fs from 'node:fs';
import type { ScratchDir } from '../../util/scratchDir';
import { f64 } from './packed';

/** Items per sorted chunk: the index within a chunk takes the low 20 bits of a packed value. */
export const CHUNK = 1 << 20;
/** Values read from a run at a time while merging. */
const READ = 1 << 16;

/**
 * Calls `visit` with each bucket of two or more items (the array is reused: copy what is kept)
 * of the items 0..n-1, whose 32-bit keys `keyAt` gives (read once each, in index order).
 * `chunk` (a power of two up to CHUNK) is smaller only in tests, to merge runs at a small size.
 */
export function forEachBucket(
  dir: ScratchDir,
  n: number,
  keyAt: (i: number) => number,
  visit: (items: readonly number[]) => void,
  chunk = CHUNK,
): void {
  if (!(chunk >= 1 && chunk <= CHUNK)) throw new RangeError(`a chunk of ${chunk} items is outside 1..${CHUNK}`);
  const items: number[] = [];
  let current = -1;
  const emit = (key: number, i: number): void => {
    if (key !== current) {
      if (items.length > 1) visit(items);
      items.length = 0;
      current = key;
    }
    items.push(i);
  };
  const runs: { fd: number; length: number; base: number }[] = [];
  const packed = new Float64Array(Math.min(n, chunk));
  try {
    for (let base = 0; base < n; base += chunk) {
      const size = Math.min(chunk, n - base);
      const sorted = packed.subarray(0, size);
      for (let i = 0; i < size; i++) sorted[i] = keyAt(base + i) * chunk + i;
      sorted.sort();
      if (n <= chunk) {
        for (let i = 0; i < size; i++) {
          const v = f64(sorted, i);
          emit(Math.floor(v / chunk), v % chunk);
        }
      } else {
        const fd = dir.file(`run-${runs.length}`);
        const bytes = new Uint8Array(sorted.buffer, sorted.byteOffset, sorted.byteLength);
        for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at, at);
        runs.push({ fd, length: size, base });
      }
    }
    if (runs.length) merge(runs, chunk, emit);
    if (items.length > 1) visit(items);
  } finally {
    for (const r of runs) fs.closeSync(r.fd);
  }
}

/** Merges sorted runs by key; equal keys come in run order, which is index order. */
function merge(
  runs: readonly { fd: number; length: number; base: number }[],
  chunk: number,
  emit: (key: number, i: number) => void,
): void {
  const heads = runs.map((r) => ({ ...r, buf: new Float64Array(READ), at: 0, got: 0, read: 0 }));
  const fill = (h: (typeof heads)[number]): boolean => {
    if (h.at < h.got) return true;
    const want = Math.min(READ, h.length - h.read);
    if (want <= 0) return false;
    const bytes = new Uint8Array(h.buf.buffer, 0, want * 8);
    let n = 0;
    while (n < bytes.length) {
      const got = fs.readSync(h.fd, bytes, n, bytes.length - n, h.read * 8 + n);
      if (got === 0) throw new Error('a sorted run ended early');
      n += got;
    }
    h.read += want;
    h.at = 0;
    h.got = want;
    return true;
  };
  for (;;) {
    let best: (typeof heads)[number] | undefined;
    let bestKey = Infinity;
    for (const h of heads) {
      if (!fill(h)) continue;
      const key = Math.floor(f64(h.buf, h.at) / chunk);
      if (key < bestKey) {
        best = h;
        bestKey = key;
      }
    }
    if (!best) return;
    emit(bestKey, best.base + (f64(best.buf, best.at) % chunk));
    best.at++;
  }
}

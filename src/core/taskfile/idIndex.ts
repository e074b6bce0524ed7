// Where each task id was first used, for the repeated-id check of a file read one task at a time
// (stream.ts). A Map of a million ids held 60 MB or more of strings and entries in the heap;
// this keeps each id's UTF-16 code units, its hash and its offset in typed arrays, about 22
// bytes a task besides the id itself, and answers exactly: a hash match is confirmed on the
// code units.
import type { FirstById } from './parse';

export class IdIndex implements FirstById {
  /** Per id: its first offset, its hash, and where its code units end in `units`. */
  private offsets: Uint32Array = new Uint32Array(1024);
  private hashes: Uint32Array = new Uint32Array(1024);
  private ends: Uint32Array = new Uint32Array(1024);
  private units = new Uint16Array(1 << 14);
  private count = 0;
  /** Open addressing: id number + 1 per slot, 0 for an empty one; at most half full. */
  private slots = new Uint32Array(2048);

  get(id: string): number | undefined {
    const n = this.find(id, hashOf(id));
    return n < 0 ? undefined : this.offsets[n];
  }

  /** Records the first use of `id`; a later `set` of the same id keeps the first. */
  set(id: string, offset: number): void {
    const h = hashOf(id);
    if (this.find(id, h) >= 0) return;
    const n = this.count++;
    if (n === this.offsets.length) {
      this.offsets = grown(this.offsets, n * 2);
      this.hashes = grown(this.hashes, n * 2);
      this.ends = grown(this.ends, n * 2);
    }
    const start = n === 0 ? 0 : (this.ends[n - 1] ?? 0);
    if (start + id.length > this.units.length) {
      const bigger = new Uint16Array(Math.max(this.units.length * 2, start + id.length));
      bigger.set(this.units);
      this.units = bigger;
    }
    for (let i = 0; i < id.length; i++) this.units[start + i] = id.charCodeAt(i);
    this.offsets[n] = offset;
    this.hashes[n] = h;
    this.ends[n] = start + id.length;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(n);
  }

  /** The number of the id equal to `id`, or -1. */
  private find(id: string, h: number): number {
    const mask = this.slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s] ?? 0;
      if (v === 0) return -1;
      const n = v - 1;
      if (this.hashes[n] === h && this.equals(n, id)) return n;
    }
  }

  private equals(n: number, id: string): boolean {
    const start = n === 0 ? 0 : (this.ends[n - 1] ?? 0);
    if ((this.ends[n] ?? 0) - start !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.units[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private place(n: number): void {
    const mask = this.slots.length - 1;
    let s = (this.hashes[n] ?? 0) & mask;
    while (this.slots[s]) s = (s + 1) & mask;
    this.slots[s] = n + 1;
  }

  private rehash(size: number): void {
    this.slots = new Uint32Array(size);
    for (let n = 0; n < this.count; n++) this.place(n);
  }
}

/** FNV-1a over the code units, then mixed so that consecutive ids spread over the slots. */
function hashOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

function grown(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}

// Where each task id was first used, for the repeated-id check of a file read one task at a time
// (stream.ts). A Map of a million ids held 60 MB or more of strings and entries in the heap, and
// keeping each id's code units beside its hash and offset still cost about 35 bytes a task. This
// keeps 8 bytes a slot in one typed array at most 70% full (11.5 bytes a task when the file's
// task count is known, up to 23 when the table had to grow): the first use's offset and a 32-bit
// hash of the id, which also chooses the slot (so a bigger table is filled without reading
// anything back). The answer stays exact: an entry of the same hash is compared with the id read
// back from the file (`idAt`, the id of the task at that offset). Among a million distinct ids
// about a hundred pairs share a hash, so a read back is nearly always a real repeat, once per
// repeated id; the last ids found equal are kept for a file that repeats a few ids many times.
// Nothing is written: the file itself is the record of the ids.
import type { FirstById } from './parse';

/** Ids read back and found equal that are kept, for a file that repeats a few ids many times. */
const CONFIRMED_KEPT = 256;

/** The most of the slots in use: linear probing stays short (a few slots a lookup) below it. */
const MAX_LOAD = 0.7;

export class IdIndex implements FirstById {
  /** Per slot: the first use's offset plus one (0: an empty slot), then the id's hash. */
  private slots: Uint32Array;
  private count = 0;
  /** The ids last read back, by offset. */
  private readonly confirmed = new Map<number, string>();
  /** The hashes of the id last asked about: a `get` and then a `set` of it hash it once. */
  private lastId: string | undefined;
  private lastHash = 0;

  /**
   * `idAt(offset)`: the id of the task at an offset given to `set` before. `expected`: how many
   * ids will be set, when known (a file's task count): the table is made that size at once, so it
   * is never copied into a bigger one (twice its size at that moment, at a million ids).
   */
  constructor(
    private readonly idAt: (offset: number) => string | undefined,
    expected = 0,
  ) {
    this.slots = new Uint32Array(2 * Math.max(1024, Math.ceil(expected / MAX_LOAD) + 1));
  }

  get(id: string): number | undefined {
    const s = this.find(id);
    return s < 0 ? undefined : (this.slots[s * 2] ?? 0) - 1;
  }

  /** Records the first use of `id`; a later `set` of the same id keeps the first. */
  set(id: string, offset: number): void {
    if (this.find(id) >= 0) return;
    if (this.count + 1 > this.size * MAX_LOAD) this.rehash(this.size * 2);
    this.place(this.hash(id), offset + 1);
    this.count++;
  }

  /** Slots in the table. */
  private get size(): number {
    return this.slots.length / 2;
  }

  /** The slot of the id equal to `id`, or -1. */
  private find(id: string): number {
    const h = this.hash(id);
    for (let s = h % this.size; ; s = s + 1 === this.size ? 0 : s + 1) {
      const offset = this.slots[s * 2] ?? 0;
      if (offset === 0) return -1;
      if (this.slots[s * 2 + 1] === h && this.isId(offset - 1, id)) return s;
    }
  }

  /** Whether the id first used at `offset` is `id`: read back, unless it was lately. */
  private isId(offset: number, id: string): boolean {
    let earlier = this.confirmed.get(offset);
    if (earlier === undefined) {
      earlier = this.idAt(offset);
      if (earlier !== id) return false;
      if (this.confirmed.size === CONFIRMED_KEPT) this.confirmed.clear();
      this.confirmed.set(offset, earlier);
    }
    return earlier === id;
  }

  private place(h: number, offsetPlusOne: number): void {
    let s = h % this.size;
    while (this.slots[s * 2]) s = s + 1 === this.size ? 0 : s + 1;
    this.slots[s * 2] = offsetPlusOne;
    this.slots[s * 2 + 1] = h;
  }

  /** A bigger table: each entry's slot comes from the hash it keeps, so no id is read back. */
  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Uint32Array(size * 2);
    for (let s = 0; s < old.length; s += 2) if (old[s]) this.place(old[s + 1] ?? 0, old[s] ?? 0);
  }

  /** A 32-bit hash of the id's code units: FNV-1a, then murmur3's finaliser so that ids alike (`t1`, `t2`) spread. */
  private hash(id: string): number {
    if (id !== this.lastId) {
      let h = 0x811c9dc5;
      for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
      this.lastHash = mixed(h);
      this.lastId = id;
    }
    return this.lastHash;
  }
}

function mixed(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// The case outcomes a stats memo remembers (statsMemo.ts), by cases key, in typed arrays: 36 bytes
// an entry outside the JavaScript heap. A Map of a hundred thousand keys and count objects held
// little live, but the collector sized its heap at several times that, which made most of what a
// million-task file's summary grew by. Keys are SHA-1s in hex, kept as their 20 bytes; any other
// key is kept as it is. Entries keep the order they were first set in, as a Map's do. The table
// holds at most `most` entries, and tells those used (looked up or set) since it was filled from
// disk from the others, which are the first to go when it is written back.
import type { CaseCounts } from './taskRows';

const HEX_KEY = /^[0-9a-f]{40}$/;
const KEY_BYTES = 20;

export class CaseOutcomes {
  private count = 0;
  /** Per entry: its key's bytes (hex keys), and its total, passed, failed and skipped. */
  private keys = new Uint8Array(256 * KEY_BYTES);
  private counts = new Uint32Array(256 * 4);
  /** Per entry: 1 once it was looked up or set (not restored). */
  private used = new Uint8Array(256);
  /** Entries whose key is not hex: their key by entry number, and their number by key. */
  private readonly oddKeys = new Map<number, string>();
  private readonly oddNumbers = new Map<string, number>();
  /** Open addressing over the hex keys: entry number + 1 per slot, 0 for an empty one; at most half full. */
  private slots = new Uint32Array(512);
  private readonly probe = Buffer.alloc(KEY_BYTES);

  /** `most`: a key past that many is not remembered (its cases run again next time). */
  constructor(private readonly most = Infinity) {}

  get size(): number {
    return this.count;
  }

  get(key: string): CaseCounts | undefined {
    const n = this.find(key);
    if (n < 0) return undefined;
    this.used[n] = 1;
    return this.countsOf(n);
  }

  /** Sets `key`'s outcome; a key set before keeps its place in the order. */
  set(key: string, c: CaseCounts): void {
    this.put(key, c, 1);
  }

  /** Sets `key`'s outcome as read from disk: not a use. */
  restore(key: string, c: CaseCounts): void {
    this.put(key, c, 0);
  }

  /** The entries in the order their keys were first set. */
  *entries(): Generator<[string, CaseCounts]> {
    for (let n = 0; n < this.count; n++) yield this.entry(n);
  }

  /**
   * The entries to write back, in their order: every one used, and of the others the newest,
   * while fewer than `total` are given. A worker thread's look-ups are not seen here: an outcome
   * only they used may go, and is then worked out again once.
   */
  *kept(total: number): Generator<[string, CaseCounts]> {
    let room = total;
    for (let n = 0; n < this.count; n++) if (this.used[n]) room--;
    // The oldest unused entry that still fits.
    let from = this.count;
    while (from > 0 && room > 0) if (!this.used[--from]) room--;
    for (let n = 0; n < this.count; n++) if (this.used[n] || n >= from) yield this.entry(n);
  }

  private put(key: string, c: CaseCounts, used: number): void {
    let n = this.find(key);
    if (n < 0) {
      if (this.count >= this.most) return;
      n = this.add(key);
    }
    this.counts.set([c.total, c.passed, c.failed, c.skipped], n * 4);
    this.used[n] ||= used;
  }

  private entry(n: number): [string, CaseCounts] {
    return [
      this.oddKeys.get(n) ?? Buffer.from(this.keys.buffer, n * KEY_BYTES, KEY_BYTES).toString('hex'),
      this.countsOf(n),
    ];
  }

  private countsOf(n: number): CaseCounts {
    const c = this.counts;
    return { total: c[n * 4] ?? 0, passed: c[n * 4 + 1] ?? 0, failed: c[n * 4 + 2] ?? 0, skipped: c[n * 4 + 3] ?? 0 };
  }

  /** The entry number of `key`, or -1. */
  private find(key: string): number {
    if (!HEX_KEY.test(key)) return this.oddNumbers.get(key) ?? -1;
    this.probe.write(key, 'hex');
    const mask = this.slots.length - 1;
    for (let s = slotHash(this.probe, 0) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s] ?? 0;
      if (v === 0) return -1;
      if (this.probe.equals(this.keys.subarray((v - 1) * KEY_BYTES, v * KEY_BYTES))) return v - 1;
    }
  }

  private add(key: string): number {
    const n = this.count++;
    if (n * 4 === this.counts.length) {
      const counts = new Uint32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
      const keys = new Uint8Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const used = new Uint8Array(this.used.length * 2);
      used.set(this.used);
      this.used = used;
    }
    if (!HEX_KEY.test(key)) {
      this.oddKeys.set(n, key);
      this.oddNumbers.set(key, n);
      return n;
    }
    this.probe.write(key, 'hex');
    this.keys.set(this.probe, n * KEY_BYTES);
    if ((n + 1) * 2 > this.slots.length) {
      this.slots = new Uint32Array(this.slots.length * 2);
      for (let m = 0; m <= n; m++) if (!this.oddKeys.has(m)) this.place(m);
    } else this.place(n);
    return n;
  }

  private place(n: number): void {
    const mask = this.slots.length - 1;
    let s = slotHash(this.keys, n * KEY_BYTES) & mask;
    while (this.slots[s]) s = (s + 1) & mask;
    this.slots[s] = n + 1;
  }
}

/** A hash of the key at `at` over all its bytes: a key need not be a real SHA-1, so its first bytes may all be alike. */
function slotHash(bytes: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + KEY_BYTES; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

// Items of bytes appended to a file of a scratch folder and read back by their index, for the
// duplicate search over more prompts than memory should hold. Writes go out a megabyte at a
// time; reads come from a block read ahead, so reading in order costs one system call per
// megabyte and a read out of order one call of a few kilobytes. Memory keeps nothing per item:
// the end offsets of items of any size go to a second file of the folder, 8 bytes each, read back
// as the items are (a million items' offsets held in memory were 8 MB, and twice that while their
// array grew).
import fs from 'node:fs';
import path from 'node:path';
import type { ScratchDir } from '../../util/scratchDir';

const BLOCK = 1 << 20;
/** Bytes read at least for an item read out of order. */
const LOOK_UP = 1 << 12;

export class SpillFile {
  private readonly fd: number;
  /** Named in a failure to write it (the disk full): where the temporary folder is. */
  private readonly path: string;
  private readonly out = Buffer.allocUnsafe(BLOCK);
  private pending = 0;
  private written = 0;
  /** End offset of each item, unless the items are all `width` bytes. */
  private readonly ends: SpillFile | undefined;
  private readonly end = Buffer.alloc(8);
  private count = 0;
  private block = Buffer.allocUnsafe(BLOCK);
  private blockStart = 0;
  private blockEnd = 0;

  /** `width`: every item has this many bytes (no offsets kept); 0 for items of any size. */
  constructor(
    dir: ScratchDir,
    name: string,
    private readonly width = 0,
  ) {
    this.fd = dir.file(name);
    this.path = path.join(dir.path, name);
    this.ends = width ? undefined : new SpillFile(dir, `${name}.ends`, 8);
  }

  get length(): number {
    return this.count;
  }

  append(bytes: Uint8Array): void {
    if (this.width && bytes.length !== this.width)
      throw new Error(`an item of ${this.width} bytes was ${bytes.length} bytes long`);
    if (this.pending + bytes.length > BLOCK) this.flush();
    if (bytes.length > BLOCK) this.writeOut(bytes);
    else {
      this.out.set(bytes, this.pending);
      this.pending += bytes.length;
    }
    if (this.ends) {
      this.end.writeDoubleLE(this.written + this.pending);
      this.ends.append(this.end);
    }
    this.count++;
  }

  /** Item `i`'s bytes; valid until the next read or append. */
  read(i: number): Buffer {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`item ${i} is outside the ${this.count} items`);
    const start = this.width ? i * this.width : i === 0 ? 0 : this.endOf(i - 1);
    const end = this.width ? start + this.width : this.endOf(i);
    // An item not yet written is read where it waits (a summary reads its last rows as it makes them).
    if (start >= this.written) return this.out.subarray(start - this.written, end - this.written);
    if (start < this.blockStart || end > this.blockEnd) {
      if (end - start > this.block.length) this.block = Buffer.allocUnsafe(end - start);
      // Reading on from the block reads a block ahead; a read elsewhere (an item looked up)
      // reads what it needs, rounded up: a megabyte per look-up made 100,000 of them 5 s of CPU.
      const onward = start >= this.blockStart && start <= this.blockEnd;
      const want = onward ? this.block.length : Math.min(this.block.length, Math.max(end - start, LOOK_UP));
      let n = 0;
      while (n < end - start) {
        const got = fs.readSync(this.fd, this.block, n, want - n, start + n);
        if (got === 0) break;
        n += got;
      }
      if (n < end - start) throw new Error(`the scratch file ended early: ${n} of ${end - start} bytes`);
      this.blockStart = start;
      this.blockEnd = start + n;
    }
    return this.block.subarray(start - this.blockStart, end - this.blockStart);
  }

  /** Replaces item `i`'s bytes, for items of one fixed width (an item is never split between memory and the file). */
  overwrite(i: number, bytes: Uint8Array): void {
    if (!this.width || bytes.length !== this.width) throw new Error(`only items of a fixed width can be overwritten`);
    if (!(i >= 0 && i < this.count)) throw new RangeError(`item ${i} is outside the ${this.count} items`);
    const at = i * this.width;
    if (at >= this.written) this.out.set(bytes, at - this.written);
    else this.write(bytes, at);
    // The block read ahead may hold the old bytes.
    if (at < this.blockEnd && at + bytes.length > this.blockStart) this.blockEnd = this.blockStart;
  }

  close(): void {
    fs.closeSync(this.fd);
    this.ends?.close();
  }

  private endOf(i: number): number {
    return this.ends?.read(i).readDoubleLE(0) ?? 0;
  }

  private flush(): void {
    if (!this.pending) return;
    this.writeOut(this.out.subarray(0, this.pending));
    this.pending = 0;
  }

  private writeOut(bytes: Uint8Array): void {
    this.write(bytes, this.written);
    this.written += bytes.length;
  }

  /** Writes `bytes` at `at`; a failure names this file, as the error of a call given a path would. */
  private write(bytes: Uint8Array, at: number): void {
    try {
      for (let n = 0; n < bytes.length;) n += fs.writeSync(this.fd, bytes, n, bytes.length - n, at + n);
    } catch (e) {
      if (e instanceof Error && 'code' in e && !('path' in e)) Object.assign(e, { path: this.path });
      throw e;
    }
  }
}

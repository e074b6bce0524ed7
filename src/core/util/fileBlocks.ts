// A file read a block at a time into one buffer, for readers that scan far more bytes than they
// keep (a remembered summary is over a hundred megabytes at a million tasks).
import fs from 'node:fs';

/** A block of the file and the offset in the file of its first byte. */
export interface FileBlock {
  readonly bytes: Buffer;
  readonly at: number;
}

/**
 * The bytes of `file` from byte `start` to its end, `size` at a time. Every block is the same
 * buffer: its bytes are valid only until the next block is asked for. The file is closed when the
 * iteration ends, early or not.
 */
export function* fileBlocks(file: string, start: number, size: number): Generator<FileBlock> {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(size);
    for (let at = start, n; (n = fs.readSync(fd, buffer, 0, size, at)) > 0; at += n)
      yield { bytes: buffer.subarray(0, n), at };
  } finally {
    fs.closeSync(fd);
  }
}

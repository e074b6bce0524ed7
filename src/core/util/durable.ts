// Durable writes, shared by the sample cache's segments and the run log: every byte of a record
// written despite short writes, and a new file's name synced with its directory.
import fs from 'node:fs';

/** Writes all of `buf`: a write to a regular file may be short (a full disk, a signal). */
export function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
}

/** Makes a new or renamed directory entry durable; best effort (not possible on Windows). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open or fsync a directory; the data itself is already synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

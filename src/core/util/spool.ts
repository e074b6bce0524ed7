// Text gathered now and written out later, in bounded memory: a report whose totals come first
// (`vtask test --json`, a JUnit file) or whose lines must wait for others (a file's failures after
// its errors) is held here while it is made. Up to 32K characters stay in memory; past that the
// text goes to a temporary file, read back 32 KB at a time when it is written out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { JsonOut } from './writeJson';
import { YOUNG_PIECE } from './youngPiece';

/**
 * Characters held in memory before they go to the temporary file; also the size of each read
 * back. The held text is written as one string, so it is kept to a piece that dies young.
 */
const PIECE = YOUNG_PIECE;

export class Spool {
  private held = '';
  private dir: string | undefined;
  private fd: number | undefined;
  /** Bytes in the temporary file. */
  private size = 0;

  /** True when nothing was added since the last `drainTo`. */
  get empty(): boolean {
    return this.held === '' && this.size === 0;
  }

  add(s: string): void {
    this.held += s;
    if (this.held.length >= PIECE) this.spill();
  }

  /** Writes everything added, in order, to `out` (waiting whenever it buffers), and empties the spool. */
  async drainTo(out: JsonOut): Promise<void> {
    const write = async (s: string): Promise<void> => {
      if (s && out.write(s) === false && out.once) await new Promise<void>((resolve) => out.once?.('drain', resolve));
    };
    if (this.fd !== undefined) {
      // A piece may end inside a character: the decoder keeps its first bytes for the next.
      const decoder = new StringDecoder('utf8');
      const buf = Buffer.alloc(PIECE);
      for (let at = 0; at < this.size;) {
        const n = fs.readSync(this.fd, buf, 0, Math.min(PIECE, this.size - at), at);
        if (n === 0) break;
        at += n;
        await write(decoder.write(buf.subarray(0, n)));
      }
      await write(decoder.end());
      this.size = 0;
    }
    const rest = this.held;
    this.held = '';
    await write(rest);
  }

  /** Removes the temporary file; the spool is not used after. */
  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.fd = undefined;
    this.dir = undefined;
    this.held = '';
    this.size = 0;
  }

  private spill(): void {
    if (this.fd === undefined) {
      this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-spool-'));
      this.fd = fs.openSync(path.join(this.dir, 'text'), 'w+', 0o600);
    }
    const bytes = Buffer.from(this.held, 'utf8');
    this.held = '';
    let at = 0;
    while (at < bytes.length) at += fs.writeSync(this.fd, bytes, at, bytes.length - at, this.size + at);
    this.size += bytes.length;
  }
}

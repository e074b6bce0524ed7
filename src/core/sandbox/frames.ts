/**
 * The byte formats vtask speaks with the Python programs inside pre-started sandboxes: a list of
 * fields (each after its 4-byte length), which the sandbox reads with nothing but `int.from_bytes`
 * (no `json` to import per sandbox), and typed frames (a kind byte, a 4-byte length, a payload)
 * for the zygote's conversation in both directions.
 */
import path from 'node:path';
import type { RlimitValues } from './backends';

/** Fields as one buffer: each field's byte length (4 bytes, big-endian), then its bytes. */
export function encodeFields(fields: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of fields) {
    const b = typeof f === 'string' ? Buffer.from(f, 'utf8') : f;
    const head = Buffer.alloc(4);
    head.writeUInt32BE(b.length);
    parts.push(head, b);
  }
  return Buffer.concat(parts);
}

/**
 * A program as the sandbox's Python side reads it (`_vtask_job` in pythonBoot.ts): the argument
 * count and arguments after the interpreter, the file count and each file's name and content,
 * then the rlimits as `key=value` words (empty when there are none). Throws for a file name that
 * leaves the program's folder.
 */
export function programFields(
  argv: readonly string[],
  files: Readonly<Record<string, string | Buffer>>,
  limits: RlimitValues | undefined,
): (string | Buffer)[] {
  const out: (string | Buffer)[] = [String(argv.length), ...argv, String(Object.keys(files).length)];
  for (const [name, content] of Object.entries(files)) {
    const target = path.posix.resolve('/box', name);
    if (!target.startsWith('/box/')) throw new Error(`file name ${JSON.stringify(name)} leaves the folder`);
    out.push(name, content);
  }
  out.push(
    limits
      ? Object.entries(limits)
          .map(([k, v]) => `${k}=${v as number}`)
          .join(' ')
      : '',
  );
  return out;
}

/** One frame: its kind (one ASCII letter), the payload's length (4 bytes, big-endian), the payload. */
export function frame(kind: string, payload: string | Buffer = Buffer.alloc(0)): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.alloc(5);
  head.write(kind, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Cuts a byte stream into frames as its chunks arrive. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (kind: string, payload: Buffer) => void) {}
  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 5) {
      const n = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + n) return;
      const kind = this.pending.toString('latin1', 0, 1);
      const payload = this.pending.subarray(5, 5 + n);
      this.pending = this.pending.subarray(5 + n);
      this.onFrame(kind, payload);
    }
  }
}

/** Where a command writes; tests pass buffers, the binary passes the process streams. */
export interface CliIO {
  /** `write` returns false, and `once('drain')` says when to go on, as a stream does when it buffers. */
  readonly stdout: { write(s: string): unknown; isTTY?: boolean; once?(event: 'drain', listener: () => void): unknown };
  readonly stderr: { write(s: string): unknown };
  readonly cwd: string;
}

/** Exit codes of every command, as the spec fixes them. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in how the command was called: printed with the usage hint, exit 2. */
export class UsageError extends Error {}

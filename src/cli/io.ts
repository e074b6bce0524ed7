/** Where a command writes; tests pass buffers, the binary passes the process streams. */
export interface CliIO {
  readonly stdout: { write(s: string): unknown; isTTY?: boolean };
  readonly stderr: { write(s: string): unknown };
  readonly cwd: string;
}

/** Exit codes of every command, as the spec fixes them. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in how the command was called: printed with the usage hint, exit 2. */
export class UsageError extends Error {}

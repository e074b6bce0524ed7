/** How a code or script verdict was isolated, so a reader can judge how far to trust it. */
export interface Isolation {
  /** `bwrap`, `unshare`, `sandbox-exec`, `process` (no OS sandbox available). */
  readonly method: string;
  /** `full`: bubblewrap's sandbox; `weak`: anything less, run only when the user opted in. */
  readonly level: 'full' | 'weak';
  /** What this level lacks compared with the full sandbox (empty for `full`). */
  readonly lost: readonly string[];
  /** Short facts: "no network", "own temporary folder", "512 MiB", "5000 ms". */
  readonly limits: readonly string[];
}

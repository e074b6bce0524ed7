/** How a code or script verdict was isolated, so a reader can judge how far to trust it. */
export interface Isolation {
  /** `bwrap`, `unshare`, `process` (no OS sandbox available), ... */
  readonly method: string;
  /** Short facts: "no network", "own temporary folder", "512 MiB", "5000 ms". */
  readonly limits: readonly string[];
}

// Where the cache lives: `.vtask-cache/` at the workspace root, so every task file of a
// workspace shares one cache (moving a file keeps its samples) and the folder is easy to find.
import fs from 'node:fs';
import path from 'node:path';

export const CACHE_DIR_NAME = '.vtask-cache';

/** Files whose presence marks a workspace root; `.vtask-cache` keeps using a cache created earlier. */
const ROOT_MARKERS = ['.git', 'package.json', CACHE_DIR_NAME];

/**
 * The workspace root of a task file (or folder): the nearest ancestor holding `.git` (a
 * folder, or a file in worktrees), `package.json` or an existing `.vtask-cache`; else the task
 * file's own folder. The CLI and the extension both place the cache there.
 */
export function findWorkspaceRoot(taskPath: string): string {
  const abs = path.resolve(taskPath);
  let start: string;
  try {
    start = fs.statSync(abs).isDirectory() ? abs : path.dirname(abs);
  } catch {
    start = path.dirname(abs);
  }
  for (let dir = start; ;) {
    if (ROOT_MARKERS.some((m) => fs.existsSync(path.join(dir, m)))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

export interface CacheDirOptions {
  /** An explicit folder (`--cache-dir`, a setting): wins over everything. */
  readonly cacheDir?: string;
  /** Where `VTASK_CACHE_DIR` is read; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Relative overrides resolve against this; `process.cwd()` by default. */
  readonly cwd?: string;
}

/** The cache folder for a task file: the option, else `VTASK_CACHE_DIR`, else `<workspace root>/.vtask-cache`. */
export function resolveCacheDir(taskPath: string, options: CacheDirOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const override = options.cacheDir || (options.env ?? process.env).VTASK_CACHE_DIR;
  if (override) return path.resolve(cwd, override);
  return path.join(findWorkspaceRoot(path.resolve(cwd, taskPath)), CACHE_DIR_NAME);
}

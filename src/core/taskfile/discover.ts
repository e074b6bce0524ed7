import fs from 'node:fs';
import path from 'node:path';

const TASK_FILE = /\.vtask(\.ya?ml)?$/;
const SKIP_DIRS = new Set(['node_modules']);

export function isTaskFileName(name: string): boolean {
  return TASK_FILE.test(name);
}

/** Thrown for a path that does not exist: a usage error, not a failed check. */
export class MissingPathError extends Error {}

/**
 * Expands files and folders into task files, in a stable order. Folders are searched
 * recursively for `*.vtask`, `*.vtask.yaml` and `*.vtask.yml`, skipping hidden folders and
 * `node_modules`; a file named explicitly is taken whatever its extension.
 */
export function findTaskFiles(paths: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (p: string): void => {
    const key = path.resolve(p);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  };
  const walk = (dir: string): void => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) walk(p);
      } else if (isTaskFileName(e.name)) add(p);
    }
  };
  for (const p of paths) {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      throw new MissingPathError(`no such file or folder: ${p}`);
    }
    if (st.isDirectory()) walk(p);
    else add(p);
  }
  return out;
}

import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../base/errorMessage';
import { errnoOf } from '../base/record';

const TASK_FILE = /\.vtask(\.ya?ml)?$/;
const SKIP_DIRS = new Set(['node_modules']);

export function isTaskFileName(name: string): boolean {
  return TASK_FILE.test(name);
}

/** Thrown for a path that does not exist: a usage error, not a failed check. */
export class MissingPathError extends Error {}

/** A path discovery could not use: an unreadable folder is an error, a FIFO or device a warning. */
export interface SkippedPath {
  readonly path: string;
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** What went wrong with a file-system call, in words, and what to do about it. */
export function fsReason(e: unknown): string {
  const code = errnoOf(e).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: check its permissions';
    case 'ENOENT':
      return 'it does not exist';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    default:
      return code ? `${code}: ${errorMessage(e).replace(/^\w+: /, '')}` : errorMessage(e);
  }
}

/** Why a path that is neither a file nor a folder is not read: reading a FIFO would wait forever. */
function notRegular(st: fs.Stats): string {
  const kind = st.isFIFO()
    ? 'a named pipe (FIFO)'
    : st.isSocket()
      ? 'a socket'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : 'not a regular file';
  return `skipped: it is ${kind}, not a file`;
}

/** Dataset files whose rows read as tasks (rowTasks.ts): JSON lines and Parquet. */
const ROW_FILE = /\.(jsonl|ndjson|parquet)$/i;

/**
 * Expands files and folders into task files, in a stable order. Folders are searched
 * recursively for `*.vtask`, `*.vtask.yaml` and `*.vtask.yml` (with `rows`, for the dataset
 * files `*.jsonl`, `*.ndjson` and `*.parquet` too; `wanted` picks other names), skipping hidden
 * folders and `node_modules`; a file named explicitly is taken whatever its extension. Paths
 * that cannot be used (unreadable folders, FIFOs, devices) are passed to `onSkip` instead of throwing.
 */
export function findTaskFiles(
  paths: readonly string[],
  onSkip: (s: SkippedPath) => void = () => {},
  o: { readonly rows?: boolean; readonly wanted?: (name: string) => boolean } = {},
): string[] {
  const wanted = o.wanted ?? ((name: string) => isTaskFileName(name) || (o.rows === true && ROW_FILE.test(name)));
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
    let entries: fs.Dirent[];
    try {
      entries = fs
        .readdirSync(dir, { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (e) {
      onSkip({ path: dir, severity: 'error', message: `cannot read the folder: ${fsReason(e)}` });
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) walk(p);
      } else if (wanted(e.name)) take(p, false);
    }
  };
  // A symbolic link is followed: stat tells what it points at.
  const take = (p: string, named: boolean): void => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (e) {
      if (named && errnoOf(e).code === 'ENOENT') throw new MissingPathError(`no such file or folder: ${p}`);
      onSkip({ path: p, severity: 'error', message: `cannot read it: ${fsReason(e)}` });
      return;
    }
    if (st.isDirectory()) {
      if (named) walk(p);
    } else if (st.isFile()) add(p);
    else onSkip({ path: p, severity: 'warning', message: notRegular(st) });
  };
  for (const p of paths) take(p, true);
  return out;
}

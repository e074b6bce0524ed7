import fs from 'node:fs';
import path from 'node:path';
import { closest } from '../core/base/suggest';
import { cut } from '../core/util/cut';
import { UsageError } from './io';

/** A usage error for an option the command does not take, with the nearest one it does. */
export function unknownOption(arg: string, known: readonly string[]): UsageError {
  const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  const near = closest(flag, known);
  return new UsageError(`unknown option '${cut(flag)}'${near ? ` (did you mean '${near}'?)` : ''}`);
}

/** An integer flag within [min, max], as the matching field of a task file is bounded. */
export function boundedInt(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\s*[+-]?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} takes an integer from ${min} to ${max}, not '${cut(value)}'`);
  }
  return n;
}

/** The arguments one at a time, `--flag value` and `--flag=value` alike; `value()` takes the flag's value. */
export function* eachArg(argv: readonly string[]): Generator<{ arg: string; flag: string; value(): string }> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (!v) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    yield { arg, flag, value };
  }
}

/** A share from 0 to 1 (a pass rate, an agreement), as `0.8`, `.5`, `1` or `1.0`. */
export function shareFlag(value: string, flag: string, what: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || n > 1)
    throw new UsageError(`${flag} takes ${what} from 0 to 1; got '${cut(value)}'`);
  return n;
}

/** Where a command's model and sample cache come from, as `vtask run` resolves them. */
export interface ModelFlags {
  baseUrl?: string;
  model?: string;
  cacheDir?: string;
}

/**
 * Reads `--base-url`, `--model` and (when the command has a cache) `--cache-dir` into `into`;
 * false for any other flag, which the command reads itself.
 */
export function modelFlag(flag: string, value: () => string, into: ModelFlags, withCache = true): boolean {
  if (flag === '--base-url') into.baseUrl = value();
  else if (flag === '--model') into.model = value();
  else if (flag === '--cache-dir' && withCache) into.cacheDir = value();
  else return false;
  return true;
}

/** Options whose value is a path (with `--mix`, the part before `=WEIGHT`). */
const PATH_FLAGS = new Set(['--cache-dir', '--contamination', '--out', '-o', '--html', '--junit', '--mix']);
/** File systems of the kernel: their files never end (`/dev/zero`) or are not data (`/proc`). */
const SPECIAL_ROOTS = /^\/(?:proc|sys|dev)(?:\/|$)/;

/**
 * Refuses, before any work, a path option that names a special file: a FIFO, a device, a
 * socket, or anything under /proc, /sys or /dev. Reading one may never end (`--contamination
 * /dev/zero`), and a cache or report there is a mistake. Other arguments naming a path under
 * /proc, /sys or /dev are refused too; a FIFO among the task paths is skipped with a warning
 * by the task-file search instead, as a folder may hold one.
 */
export function refuseSpecialPaths(argv: readonly string[]): void {
  for (const { arg, flag, value } of eachArg(argv)) {
    if (PATH_FLAGS.has(flag)) {
      const v = value();
      const p = flag === '--mix' && v.includes('=') ? v.slice(0, v.lastIndexOf('=')) : v;
      const why = specialPath(p);
      if (why) throw new UsageError(`${flag} ${cut(p)}: ${why}`);
    } else if (!arg.startsWith('-') && SPECIAL_ROOTS.test(realPath(arg))) {
      const why = specialPath(arg);
      if (why) throw new UsageError(`${cut(arg)}: ${why}`);
    }
  }
}

/** Why `p` is a special file, or undefined (also when it is missing: it may be created). */
function specialPath(p: string): string | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(p);
  } catch {
    // Missing (it may be created) or unreadable: the command says so in its own words.
  }
  const real = realPath(p);
  const root = SPECIAL_ROOTS.exec(real);
  if (root) return `it is in ${root[0].replace(/\/$/, '')}, a file system of the kernel, not a file or folder of yours`;
  if (st && !st.isFile() && !st.isDirectory())
    return `it is ${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device'}, not a regular file or folder: reading it may never end`;
  return undefined;
}

/** The path with its links resolved as far as it exists (a missing tail is kept as given). */
function realPath(p: string): string {
  const abs = path.resolve(p);
  for (let head = abs, tail = ''; ;) {
    try {
      return path.join(fs.realpathSync(head), tail);
    } catch {
      const up = path.dirname(head);
      if (up === head) return abs;
      tail = path.join(path.basename(head), tail);
      head = up;
    }
  }
}

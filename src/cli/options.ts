// How commands read their arguments: each command declares its options once, as a zod object
// whose every field is made by one of the builders below (flag, help, how its value reads), and
// parseOptions turns argv into that object, typed, before the command runs. A value that does
// not read, a flag without its value and an unknown flag are usage errors in one wording for
// every command.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../core/base/errorMessage';
import { closest } from '../core/base/suggest';
import { cut } from '../core/util/cut';
import { UsageError } from './io';

/** What an option is on the command line. */
export interface OptionMeta {
  /** The flag, such as `--samples`; `aliases` are its short forms (`-o`). */
  readonly flag: string;
  readonly aliases?: readonly string[];
  readonly help: string;
  /** `switch`: given or not; `value`: one value (the last given counts); `repeat`: every value, in order. */
  readonly takes: 'switch' | 'value' | 'repeat';
}

/** The options of every command's table, by their schema. */
export const optionMeta = z.registry<OptionMeta>();

/** Reads one option's value; throws (a UsageError, or any Error) saying what is wrong with it. */
export type Reader<T> = (value: string, flag: string) => T;

/** The value as given. */
export const text: Reader<string> = (v) => v;

/** An integer within [min, max]. */
export const int =
  (min: number, max: number): Reader<number> =>
  (v, flag) =>
    boundedInt(v, flag, min, max);

/** A share from 0 to 1; `what` names it in the error (`a pass rate`). */
export const share =
  (what: string): Reader<number> =>
  (v, flag) =>
    shareFlag(v, flag, what);

/** One of `choices`, or the error `message` (which may name them). */
export const choice =
  <const C extends string>(choices: readonly C[], message: (value: string) => string): Reader<C> =>
  (v) => {
    const c = choices.find((x) => x === v);
    if (c === undefined) throw new UsageError(message(v));
    return c;
  };

/** `read(v)`, or its error, as the message of an issue (the usage error, one line as thrown). */
function readOrIssue<T>(v: string, flag: string, read: Reader<T>, issues: z.core.$ZodRawIssue[]): T {
  try {
    return read(v, flag);
  } catch (e) {
    issues.push({ code: 'custom', message: errorMessage(e), input: v });
    return z.NEVER;
  }
}

/** The value read by `read`. */
function reading<T>(flag: string, read: Reader<T>) {
  return z.string().transform((v, ctx): T => readOrIssue(v, flag, read, ctx.issues));
}

/** A switch: false unless given. */
export function switchOption(flag: string, help: string) {
  return z.boolean().default(false).register(optionMeta, { flag, help, takes: 'switch' });
}

/** An option with a value, undefined when not given. */
export function valueOption<T>(flag: string, help: string, read: Reader<T>, aliases?: readonly string[]) {
  return reading(flag, read)
    .optional()
    .register(optionMeta, { flag, help, takes: 'value', ...(aliases ? { aliases } : {}) });
}

/** An option with a value, `fallback` when not given. */
export function defaultedOption<T>(flag: string, help: string, read: Reader<T>, fallback: NoInfer<T>) {
  return z
    .string()
    .optional()
    .transform((v, ctx): T => (v === undefined ? fallback : readOrIssue(v, flag, read, ctx.issues)))
    .register(optionMeta, { flag, help, takes: 'value' });
}

/** An option that may be given again: every value, in order (none when not given). */
export function repeatedOption<T>(flag: string, help: string, read: Reader<T>) {
  return z.array(reading(flag, read)).default([]).register(optionMeta, { flag, help, takes: 'repeat' });
}

/** The flags of a table, each with its field. */
function flagsOf(table: z.ZodObject): Map<string, { key: string; meta: OptionMeta }> {
  const flags = new Map<string, { key: string; meta: OptionMeta }>();
  for (const [key, schema] of Object.entries(table.shape)) {
    const meta = optionMeta.get(schema);
    if (!meta) throw new Error(`option '${key}' is not made by an option builder`);
    for (const f of [meta.flag, ...(meta.aliases ?? [])]) flags.set(f, { key, meta });
  }
  return flags;
}

/** Every flag of a table, its short forms included: what a command's help must mention. */
export function tableFlags(table: z.ZodObject): string[] {
  return [...flagsOf(table).keys()];
}

/** A command's arguments as read against its table: its options, typed, and the rest in order. */
export interface Parsed<T extends z.ZodObject> {
  readonly options: z.output<T>;
  readonly positional: string[];
}

/**
 * argv read against a command's option table: the options as the table types them, and the
 * other arguments (paths, runs) in order. Throws a UsageError for an unknown flag, a flag
 * without its value, or a value that does not read.
 */
export function parseOptions<T extends z.ZodObject>(table: T, argv: readonly string[]): Parsed<T> {
  const flags = flagsOf(table);
  const raw: Record<string, unknown> = {};
  const positional: string[] = [];
  for (const { arg, flag, value } of eachArg(argv)) {
    const option = flags.get(flag);
    if (!option) {
      if (arg.startsWith('-')) throw unknownOption(arg, [...flags.keys()]);
      positional.push(arg);
      continue;
    }
    const { key, meta } = option;
    if (meta.takes === 'switch') raw[key] = true;
    else if (meta.takes === 'value') raw[key] = value();
    else {
      const earlier = raw[key];
      raw[key] = [...(Array.isArray(earlier) ? earlier : []), value()];
    }
  }
  const parsed = table.safeParse(raw);
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'the options do not read');
  return { options: parsed.data, positional };
}

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
    const arg = argv[i];
    if (arg === undefined) break;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      // `--task --json`: the next flag is not the value of this one.
      if (!v || (eq <= 0 && v.startsWith('--'))) throw new UsageError(`${flag} needs a value`);
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

/** `--base-url` and `--model`, as the commands that call a model take them. */
export const modelOptions = {
  baseUrl: valueOption('--base-url', 'the model endpoint (OpenAI-compatible)', text),
  model: valueOption('--model', "the model name, or a profile under the file's models:", text),
};

/** `--cache-dir`, as the commands that read or write the sample cache take it. */
export const cacheDirOption = valueOption(
  '--cache-dir',
  'the cache folder (default: .vtask-cache at the workspace root)',
  text,
);

/** Where a command's model and sample cache come from, as `vtask run` resolves them. */
export interface ModelFlags {
  baseUrl?: string;
  model?: string;
  cacheDir?: string;
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

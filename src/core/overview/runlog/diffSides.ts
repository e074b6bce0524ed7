// The sides `vtask diff` and the editor's Compare Runs view compare, and the comparison made from
// them: a selection of the run log (`model:NAME`, `model:NAME@DATE`), or the cached samples
// verified again by the task files as they are at a git revision (`git:REV`) or as they are now
// (`worktree`). No side sends a request: the samples come from the cache. JSONL and Parquet
// datasets in a known training format are compared as their rows, each a task (its verifier in
// the row), given as the JSON lines of their rows.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../base/errorMessage';
import { rowFileText, rowFileType } from '../../datasets/rowFiles';
import { cachedTaskRuns, type CachedRunOptions } from '../../run/cachedRuns';
import type { TaskRunResult } from '../../run/sampleTasks';
import { resolveCacheDir } from '../../sampling/cacheDir';
import { cut } from '../../util/cut';
import { summariseTaskFile } from '../dataset/summary';
import {
  diffKey,
  diffRuns,
  parseSelection,
  selectRuns,
  type DatasetDiff,
  type DiffRun,
  type DiffTask,
  type Outcome,
  type RunSelection,
  type UnreadFile,
} from './diff';
import { readRunRecords, runLogPath, type RunRecord } from './runLog';

/** The side named `worktree`: the task files as they are now. */
export const WORKTREE = 'worktree';

/** One side of a comparison, with the label it is shown under. */
export type DiffSide =
  | ({ readonly kind: 'log'; readonly label: string } & RunSelection)
  | { readonly kind: 'git'; readonly label: string; readonly rev: string }
  | { readonly kind: 'worktree'; readonly label: string };

/** Why a side cannot be read (a bad name, a revision without the file): the caller's to report. */
export class DiffSideError extends Error {}

/**
 * `git:REV`, `worktree`, or a run-log selection (`parseSelection`); a message saying what is
 * wrong otherwise.
 */
export function parseSide(s: string): DiffSide | string {
  if (s === WORKTREE) return { kind: 'worktree', label: 'working tree' };
  if (s.startsWith('git:')) {
    const rev = s.slice('git:'.length);
    // A revision starting with `-` would be read by git as an option.
    if (!rev || rev.startsWith('-')) return `'${s}' names no git revision: write git:REV (git:HEAD~1, git:main)`;
    return { kind: 'git', label: rev, rev };
  }
  const sel = parseSelection(s);
  return typeof sel === 'string' ? sel : { kind: 'log', label: s, ...sel };
}

/** Whether a side verifies the cached samples itself (and so has per-sample verdicts). */
export function verifiesSamples(side: DiffSide): boolean {
  return side.kind !== 'log';
}

export interface CompareOptions {
  /**
   * A task file's text as it is now (an editor's unsaved text, say); a JSONL or Parquet dataset's
   * as the JSON lines of its rows (`rowFileText`).
   */
  readonly read: (file: string) => string;
  /** How a file is named in the result (relative to the working folder, say). */
  readonly name: (file: string) => string;
  readonly cacheDir?: string;
  /** Each file's cache folder, where the caller places it (the editor's settings); wins over `cacheDir`. */
  readonly cacheDirOf?: (file: string) => string;
  /** Sides that verify samples: the samples of this profile (by default each task's own model). */
  readonly model?: string;
  /** With `model`, the server it is sampled from (a dataset's rows name no profile). */
  readonly baseUrl?: string;
  /** Sides that verify samples: each task's profile where the caller decides it (the editor's settings). */
  readonly profileFor?: CachedRunOptions['profileFor'];
  /** The run log of a cache folder (the editor keeps them read); `readRunRecords` by default. */
  readonly runLog?: (cacheDir: string) => Iterable<RunRecord>;
}

/**
 * The tasks of `files` (as they are now), side A against side B. A file a side has no version
 * of (not in a git repository, not at the revision) is listed in `unread` and its tasks have no
 * run on that side; a revision its repository does not know is a `DiffSideError`.
 */
export async function compareSides(
  files: readonly string[],
  a: DiffSide,
  b: DiffSide,
  o: CompareOptions,
): Promise<DatasetDiff> {
  const tasks: DiffTask[] = [];
  for (const file of files) {
    const { summary, prompts } = await summariseTaskFile(o.read(file), file, { cases: false });
    prompts.close();
    for (const row of summary.tasks) tasks.push({ file: o.name(file), task: row.id, kind: row.kind ?? 'invalid' });
  }
  const unread: UnreadFile[] = [];
  const runsOf = async (side: DiffSide, which: 'a' | 'b'): Promise<Map<string, DiffRun>> => {
    if (side.kind === 'log') return logRuns(side, files, tasks, o);
    if (side.kind === 'worktree') return verifiedRuns(files, o.read, o);
    const texts = new Map<string, string>();
    const revs = new Map<string, true>();
    for (const file of files) {
      const r = await textAtRevision(side.rev, file, revs);
      if ('text' in r) texts.set(file, r.text);
      else unread.push({ side: which, file: o.name(file), reason: r.unread });
    }
    return verifiedRuns([...texts.keys()], (f) => texts.get(f) ?? '', o);
  };
  const diff = diffRuns(tasks, await runsOf(a, 'a'), await runsOf(b, 'b'), { a: a.label, b: b.label });
  return unread.length ? { ...diff, unread } : diff;
}

/** A selection of the run log of each file's cache folder. */
function logRuns(
  sel: RunSelection,
  files: readonly string[],
  tasks: readonly DiffTask[],
  o: CompareOptions,
): Map<string, DiffRun> {
  const known = new Set(tasks.map((t) => diffKey(t.file, t.task)));
  const out = new Map<string, DiffRun>();
  // Files by cache folder: each folder's log names its files relative to the folder's parent.
  const byCache = new Map<string, Map<string, string>>();
  for (const file of files) {
    const dir = o.cacheDirOf?.(file) ?? resolveCacheDir(file, { cacheDir: o.cacheDir });
    let names = byCache.get(dir);
    if (!names) byCache.set(dir, (names = new Map()));
    names.set(runLogPath(dir, file), o.name(file));
  }
  for (const [dir, names] of byCache) {
    const keyOf = (file: string, task: string): string | undefined => {
      const f = names.get(file);
      const key = f === undefined ? undefined : diffKey(f, task);
      return key !== undefined && known.has(key) ? key : undefined;
    };
    for (const [k, r] of selectRuns((o.runLog ?? readRunRecords)(dir), sel, keyOf)) out.set(k, r);
  }
  return out;
}

/** The cached samples of `files`, verified by the task files as `readFile` gives them. */
async function verifiedRuns(
  files: readonly string[],
  readFile: (file: string) => string,
  o: CompareOptions,
): Promise<Map<string, DiffRun>> {
  const out = new Map<string, DiffRun>();
  for (const [key, r] of await cachedTaskRuns(files, {
    read: readFile,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    ...(o.cacheDirOf ? { cacheDirOf: o.cacheDirOf } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.profileFor ? { profileFor: o.profileFor } : {}),
  })) {
    const sep = key.indexOf('\0');
    out.set(diffKey(o.name(key.slice(0, sep)), key.slice(sep + 1)), runOf(r));
  }
  return out;
}

function runOf(r: TaskRunResult): DiffRun {
  return {
    band: r.stats.band,
    pass_rate: r.stats.passRate,
    outcomes: r.samples.map((s): Outcome => (s.verdict.error ? 'undecided' : s.verdict.pass ? 'pass' : 'fail')),
  };
}

/**
 * A file's text at a git revision as `read` gives it now: a task file's or JSONL file's text, a
 * Parquet file's rows as JSON lines (read from its bytes at the revision, as `rowFileText` reads
 * the file now). The verifier of a dataset row is in the row, so this is the row's verifier then.
 */
export async function textAtRevision(
  rev: string,
  file: string,
  known = new Map<string, true>(),
): Promise<{ text: string } | { unread: string }> {
  const r = gitShow(rev, file, known);
  if (!('bytes' in r)) return r;
  if (rowFileType(file) !== 'parquet') return { text: r.bytes.toString('utf8') };
  // The Parquet reader reads files: the revision's bytes go to a private folder for it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-diff-'));
  try {
    const copy = path.join(dir, path.basename(file));
    fs.writeFileSync(copy, r.bytes);
    return { text: await rowFileText(copy) };
  } catch (e) {
    return { unread: `not readable at ${cut(rev)}: ${cut(errorMessage(e))}` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A file's bytes at a git revision (`git show REV:path`, in the file's repository), or why it has
 * none there. A revision the repository does not know throws: every file would lack it. `known`
 * remembers the repositories whose revision was checked.
 */
export function gitShow(
  rev: string,
  file: string,
  known = new Map<string, true>(),
): { bytes: Buffer } | { unread: string } {
  const abs = path.resolve(file);
  const git = (args: string[], cwd: string): Buffer =>
    execFileSync('git', args, { cwd, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  let top: string;
  try {
    top = git(['rev-parse', '--show-toplevel'], path.dirname(abs)).toString('utf8').trim();
  } catch {
    return { unread: 'not in a git repository' };
  }
  if (!known.has(top)) {
    try {
      git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], top);
    } catch {
      throw new DiffSideError(`git revision ${cut(rev)}: not a revision of the repository at ${top}`);
    }
    known.set(top, true);
  }
  const rel = path.relative(top, abs).split(path.sep).join('/');
  try {
    return { bytes: git(['show', `${rev}:${rel}`], top) };
  } catch (e) {
    const said = String((e as { stderr?: Buffer | string }).stderr ?? (e as Error).message).trim();
    // git's words for a path the revision lacks; anything else is said as git said it.
    return /exists on disk, but not in|does not exist in/.test(said)
      ? { unread: `not at ${cut(rev)}` }
      : { unread: `not readable at ${cut(rev)}: ${cut(said)}` };
  }
}

// The sides `vtask diff` and the editor's Compare Runs view compare, and the comparison made from
// them: a selection of the run log (`model:NAME`, `model:NAME@DATE`), or the cached samples
// verified again by the task files as they are at a git revision (`git:REV`) or as they are now
// (`worktree`). No side sends a request: the samples come from the cache.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { cachedTaskRuns } from '../../run/cachedRuns';
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
  /** A task file's text as it is now (an editor's unsaved text, say). */
  readonly read: (file: string) => string;
  /** How a file is named in the result (relative to the working folder, say). */
  readonly name: (file: string) => string;
  readonly cacheDir?: string;
  /** Each file's cache folder, where the caller places it (the editor's settings); wins over `cacheDir`. */
  readonly cacheDirOf?: (file: string) => string;
  /** Sides that verify samples: the samples of this profile (by default each task's own model). */
  readonly model?: string;
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
    const { summary } = await summariseTaskFile(o.read(file), file, { cases: false });
    for (const row of summary.tasks) tasks.push({ file: o.name(file), task: row.id, kind: row.kind ?? 'invalid' });
  }
  const unread: UnreadFile[] = [];
  const runsOf = async (side: DiffSide, which: 'a' | 'b'): Promise<Map<string, DiffRun>> => {
    if (side.kind === 'log') return logRuns(side, files, tasks, o);
    if (side.kind === 'worktree') return verifiedRuns(files, o.read, o);
    const texts = new Map<string, string>();
    const revs = new Map<string, true>();
    for (const file of files) {
      const r = gitShow(side.rev, file, revs);
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
 * A file's text at a git revision (`git show REV:path`, in the file's repository), or why it has
 * none there. A revision the repository does not know throws: every file would lack it. `known`
 * remembers the repositories whose revision was checked.
 */
export function gitShow(
  rev: string,
  file: string,
  known = new Map<string, true>(),
): { text: string } | { unread: string } {
  const abs = path.resolve(file);
  const git = (args: string[], cwd: string): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  let top: string;
  try {
    top = git(['rev-parse', '--show-toplevel'], path.dirname(abs)).trim();
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
    return { text: git(['show', `${rev}:${rel}`], top) };
  } catch (e) {
    const said = String((e as { stderr?: Buffer | string }).stderr ?? (e as Error).message).trim();
    // git's words for a path the revision lacks; anything else is said as git said it.
    return /exists on disk, but not in|does not exist in/.test(said)
      ? { unread: `not at ${cut(rev)}` }
      : { unread: `not readable at ${cut(rev)}: ${cut(said)}` };
  }
}

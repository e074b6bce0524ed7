// `vtask diff`: two runs of a dataset compared (diff.ts). `vtask diff A B PATH...` compares two
// selections of the run log (two models, or one model at two dates); `vtask diff --rev REV
// PATH...` verifies the cached samples again with the task files as they are at git revision
// REV and as they are now, and compares the verdicts sample by sample. No request either way.
import { errorMessage } from '../core/base/errorMessage';
import { recordOr } from '../core/base/record';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
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
} from '../core/overview/runlog/diff';
import { readRunRecords, runLogPath } from '../core/overview/runlog/runLog';
import { summariseTaskFile } from '../core/overview/dataset/summary';
import { resolveCacheDir } from '../core/sampling/cacheDir';
import type { TaskRunResult } from '../core/run/sampleTasks';
import { cut } from '../core/util/cut';
import { noun } from '../core/util/plural';
import { cachedTaskRuns } from './cachedRuns';
import { listTaskFiles, readTaskText } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import { cacheDirOption, int, switchOption, text, valueOption, type Parsed } from './options';
import { terminalSafe } from './terminal';

export const diffHelp = `Usage: vtask diff A B [PATH...] [--json] [--max-flips N]
       vtask diff --rev REV PATH... [--model M] [--json] [--max-flips N]

Compares two runs of a dataset task by task, without a request: tasks whose band flipped,
samples whose verdict flipped, and counts per verifier kind.
  A, B                  runs from the run log: model:NAME (the model's latest run of each
                        task) or model:NAME@DATE (its latest run up to DATE, YYYY-MM-DD in UTC
                        or an ISO 8601 time); PATHs default to the working folder
  --rev REV             instead, the cached samples verified by the task files as they are at
                        git revision REV (A) and as they are now (B)
  --model M             --rev: the samples of this profile (under models:); by default each
                        task's own model:
  --json                print the comparison as one JSON object
  --max-flips N         exit 1 when more than N tasks flipped (their band or a sample's
                        verdict), for CI
  --cache-dir DIR       the cache folder (default: .vtask-cache at the workspace root)
Exits 0, 1 when the flips exceed --max-flips, 2 on usage errors.`;

/** Flips listed in the text output; the JSON has them all. */
const LISTED = 20;

interface DiffArgs {
  sides?: [RunSelection & { label: string }, RunSelection & { label: string }];
  rev?: string;
  model?: string;
  paths: string[];
  json: boolean;
  maxFlips?: number;
  cacheDir?: string;
}

/** The options of `vtask diff`. */
export const diffOptions = z.object({
  json: switchOption('--json', 'print the comparison as one JSON object'),
  maxFlips: valueOption('--max-flips', 'exit 1 when more than N tasks flipped', int(0, Number.MAX_SAFE_INTEGER)),
  rev: valueOption('--rev', 'compare the task files at REV (git) with the working tree', text),
  model: valueOption('--model', '--rev: the samples of this profile', text),
  cacheDir: cacheDirOption,
});

function argsOf({ options, positional }: Parsed<typeof diffOptions>): DiffArgs {
  const a: DiffArgs = { ...options, paths: [] };
  if (a.rev !== undefined) {
    if (!positional.length) throw new UsageError('--rev REV compares task files: give them (files or folders)');
    a.paths = positional;
    return a;
  }
  if (a.model !== undefined)
    throw new UsageError('--model picks the samples of --rev; a run of the log is named model:NAME');
  if (positional.length < 2)
    throw new UsageError('give two runs to compare (model:NAME or model:NAME@DATE), or --rev REV and the task files');
  const side = (s: string): RunSelection & { label: string } => {
    const sel = parseSelection(s);
    if (typeof sel === 'string') throw new UsageError(sel);
    return { ...sel, label: s };
  };
  const [first, second] = positional;
  if (first === undefined || second === undefined) throw new UsageError('give two runs to compare');
  a.sides = [side(first), side(second)];
  a.paths = positional.length > 2 ? positional.slice(2) : ['.'];
  return a;
}

export async function diffCommand(parsed: Parsed<typeof diffOptions>, io: CliIO): Promise<number> {
  const args = argsOf(parsed);
  const listed = listTaskFiles(
    args.paths.map((p) => path.resolve(io.cwd, p)),
    io.stderr,
  );
  const read = (file: string): string => {
    const r = readTaskText(file);
    if ('error' in r) throw new UsageError(r.error);
    return r.text;
  };
  const tasks: DiffTask[] = [];
  for (const file of listed.files) {
    const { summary } = await summariseTaskFile(read(file), file, { cases: false });
    for (const row of summary.tasks)
      tasks.push({ file: shown(io.cwd, file), task: row.id, kind: row.kind ?? 'invalid' });
  }
  const diff =
    args.rev !== undefined
      ? await revisionDiff(args.rev, listed.files, tasks, args, io.cwd, read)
      : logDiff(args, listed.files, tasks, io.cwd);
  if (args.json) io.stdout.write(JSON.stringify(diff) + '\n');
  else io.stdout.write(diffText(diff));
  return args.maxFlips !== undefined && diff.flips > args.maxFlips ? EXIT.failed : EXIT.ok;
}

/** Paths as the user would type them: relative below the working folder, absolute elsewhere. */
function shown(cwd: string, p: string): string {
  return path.relative(cwd, p).startsWith('..') ? p : path.relative(cwd, p) || p;
}

/** Two selections of the run log of each file's cache folder. */
function logDiff(args: DiffArgs, files: readonly string[], tasks: readonly DiffTask[], cwd: string): DatasetDiff {
  if (!args.sides) throw new Error('a diff of the run log compares two runs');
  const [a, b] = args.sides;
  const known = new Set(tasks.map((t) => diffKey(t.file, t.task)));
  const runsA = new Map<string, DiffRun>();
  const runsB = new Map<string, DiffRun>();
  // Files by cache folder: each folder's log names its files relative to the folder's parent.
  const byCache = new Map<string, Map<string, string>>();
  for (const file of files) {
    const dir = resolveCacheDir(file, { cacheDir: args.cacheDir });
    let names = byCache.get(dir);
    if (!names) byCache.set(dir, (names = new Map()));
    names.set(runLogPath(dir, file), shown(cwd, file));
  }
  for (const [dir, names] of byCache) {
    const records = readRunRecords(dir);
    const keyOf = (file: string, task: string): string | undefined => {
      const f = names.get(file);
      const key = f === undefined ? undefined : diffKey(f, task);
      return key !== undefined && known.has(key) ? key : undefined;
    };
    for (const [k, r] of selectRuns(records, a, keyOf)) runsA.set(k, r);
    for (const [k, r] of selectRuns(records, b, keyOf)) runsB.set(k, r);
  }
  return diffRuns(tasks, runsA, runsB, { a: a.label, b: b.label });
}

/** The cached samples verified by the task files at `rev` and as they are now. */
async function revisionDiff(
  rev: string,
  files: readonly string[],
  tasks: readonly DiffTask[],
  args: DiffArgs,
  cwd: string,
  read: (file: string) => string,
): Promise<DatasetDiff> {
  const atRev = (file: string): string => gitShow(rev, file);
  const sideOf = async (readFile: (file: string) => string): Promise<Map<string, DiffRun>> => {
    const out = new Map<string, DiffRun>();
    for (const [key, r] of await cachedTaskRuns(files, {
      read: readFile,
      ...(args.cacheDir ? { cacheDir: args.cacheDir } : {}),
      ...(args.model ? { model: args.model } : {}),
    })) {
      const [file = '', task = ''] = key.split('\0');
      out.set(diffKey(shown(cwd, file), task), runOf(r));
    }
    return out;
  };
  return diffRuns(tasks, await sideOf(atRev), await sideOf(read), { a: rev, b: 'working tree' });
}

function runOf(r: TaskRunResult): DiffRun {
  return {
    band: r.stats.band,
    pass_rate: r.stats.passRate,
    outcomes: r.samples.map((s): Outcome => (s.verdict.error ? 'undecided' : s.verdict.pass ? 'pass' : 'fail')),
  };
}

/** A file's text at a git revision; a file the revision does not have is a usage error. */
function gitShow(rev: string, file: string): string {
  const dir = path.dirname(file);
  try {
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8' }).trim();
    const rel = path.relative(top, file).split(path.sep).join('/');
    return execFileSync('git', ['show', `${rev}:${rel}`], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const stderr = recordOr(e).stderr;
    throw new UsageError(
      `--rev ${cut(rev)}: ${file} cannot be read there (${cut(String(stderr ?? errorMessage(e)).trim())})`,
    );
  }
}

function diffText(d: DatasetDiff): string {
  const lines = [
    terminalSafe(`A: ${d.a} · B: ${d.b}`),
    `${d.tasks} ${noun(d.tasks, 'task')} compared${d.only_a || d.only_b ? ` (${d.only_a} with a run of A only, ${d.only_b} of B only)` : ''}`,
  ];
  const pct = (x: number): string => x.toFixed(2);
  lines.push(`band flips: ${d.band_flips.length}`);
  for (const f of d.band_flips.slice(0, LISTED))
    lines.push(
      terminalSafe(`  ${f.file}: '${f.task}' ${f.from} → ${f.to} (${pct(f.pass_rate_a)} → ${pct(f.pass_rate_b)})`),
    );
  if (d.band_flips.length > LISTED)
    lines.push(`  ... and ${d.band_flips.length - LISTED} more (--json lists them all)`);
  if (d.sample_flips.length || d.a === 'working tree' || d.b === 'working tree') {
    lines.push(`sample flips: ${d.sample_flips.length}`);
    for (const f of d.sample_flips.slice(0, LISTED))
      lines.push(terminalSafe(`  ${f.file}: '${f.task}' sample ${f.sample}: ${f.from} → ${f.to}`));
    if (d.sample_flips.length > LISTED)
      lines.push(`  ... and ${d.sample_flips.length - LISTED} more (--json lists them all)`);
  }
  const kinds = Object.entries(d.kinds).sort(([x], [y]) => x.localeCompare(y));
  if (kinds.length)
    lines.push(
      `per kind: ${kinds.map(([k, c]) => terminalSafe(`${k} ${c.tasks} (${c.band_flips} band, ${c.sample_flips} sample flips)`)).join(', ')}`,
    );
  lines.push(`${d.flips} ${noun(d.flips, 'task')} flipped`);
  return lines.join('\n') + '\n';
}

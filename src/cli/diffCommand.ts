// `vtask diff`: two runs of a dataset compared (diff.ts, diffSides.ts). `vtask diff A B PATH...`
// compares two sides: selections of the run log (two models, or one model at two dates), or the
// cached samples verified again by the task files at a git revision (`git:REV`) or as they are
// now (`worktree`), verdict by verdict; `--rev REV` is `git:REV worktree`. No request either way.
// JSONL and Parquet datasets are compared row by row, each row a task.
import path from 'node:path';
import type { DatasetDiff } from '../core/overview/runlog/diff';
import {
  compareSides,
  DiffSideError,
  parseSide,
  verifiesSamples,
  WORKTREE,
  type DiffSide,
} from '../core/overview/runlog/diffSides';
import { noun } from '../core/util/plural';
import { rowFileType } from '../core/datasets/rowFiles';
import { datasetRows, listTaskFiles, readTaskText } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import { cacheDirOption, int, modelOptions, switchOption, text, valueOption, type Parsed } from './options';
import { terminalSafe } from './terminal';

export const diffHelp = `Usage: vtask diff A B [PATH...] [--json] [--max-flips N]
       vtask diff --rev REV PATH... [--model M [--base-url URL]] [--json] [--max-flips N]

Compares two runs of a dataset task by task, without a request: tasks whose band flipped,
samples whose verdict flipped, and counts per verifier kind.
  A, B                  runs from the run log: model:NAME (the model's latest run of each
                        task) or model:NAME@DATE (its latest run up to DATE, YYYY-MM-DD in UTC
                        or an ISO 8601 time); or the cached samples verified again by the task
                        files at a git revision, git:REV, or as they are now, worktree; PATHs
                        (task files, folders, JSONL and Parquet datasets in a known training
                        format, each row a task) default to the working folder
  --rev REV             the same as A = git:REV and B = worktree
  --model M             sides that verify samples (git:, worktree): the samples of this
                        profile (under models:), or of model M of --base-url or
                        OPENAI_BASE_URL (a dataset's rows name no profile); by default each
                        task's own model:
  --base-url URL        with --model, the server whose samples of M are verified
  --json                print the comparison as one JSON object
  --max-flips N         exit 1 when more than N tasks flipped (their band or a sample's
                        verdict), for CI
  --cache-dir DIR       the cache folder (default: .vtask-cache at the workspace root)
Exits 0, 1 when the flips exceed --max-flips, 2 on usage errors.`;

/** Flips listed in the text output; the JSON has them all. */
const LISTED = 20;

interface DiffArgs {
  sides: [DiffSide, DiffSide];
  model?: string;
  baseUrl?: string;
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
  model: valueOption('--model', 'git:REV or worktree: the samples of this profile', text),
  baseUrl: modelOptions.baseUrl,
  cacheDir: cacheDirOption,
});

function argsOf({ options, positional }: Parsed<typeof diffOptions>): DiffArgs {
  const a = { ...options, paths: [] as string[] };
  const side = (s: string): DiffSide => {
    const parsed = parseSide(s);
    if (typeof parsed === 'string') throw new UsageError(parsed);
    return parsed;
  };
  if (a.rev !== undefined) {
    if (!positional.length)
      throw new UsageError('--rev REV compares task files or datasets: give them (files or folders)');
    return { ...a, sides: [side(`git:${a.rev}`), side(WORKTREE)], paths: positional };
  }
  if (positional.length < 2)
    throw new UsageError(
      'give two runs to compare (model:NAME, model:NAME@DATE, git:REV or worktree), or --rev REV and the task files',
    );
  const [first, second] = positional;
  if (first === undefined || second === undefined) throw new UsageError('give two runs to compare');
  const sides: [DiffSide, DiffSide] = [side(first), side(second)];
  if (a.baseUrl !== undefined && a.model === undefined)
    throw new UsageError('--base-url needs --model NAME: the model whose cached samples are verified');
  if (a.model !== undefined && !sides.some(verifiesSamples))
    throw new UsageError('--model picks the samples of git:REV or worktree; a run of the log is named model:NAME');
  return { ...a, sides, paths: positional.length > 2 ? positional.slice(2) : ['.'] };
}

export async function diffCommand(parsed: Parsed<typeof diffOptions>, io: CliIO): Promise<number> {
  const args = argsOf(parsed);
  const listed = listTaskFiles(
    args.paths.map((p) => path.resolve(io.cwd, p)),
    io.stderr,
    { rows: true },
  );
  // JSONL and Parquet datasets as the JSON lines of their rows; other JSON lines are left out.
  const rows = await datasetRows(listed.files, io);
  const files = listed.files.filter((f) => !rowFileType(f) || rows.has(f));
  let diff: DatasetDiff;
  try {
    diff = await compareSides(files, ...args.sides, {
      read: (file) => {
        const text = rows.get(file);
        if (text !== undefined) return text;
        const r = readTaskText(file);
        if ('error' in r) throw new UsageError(r.error);
        return r.text;
      },
      // Paths as the user would type them: relative below the working folder, absolute elsewhere.
      name: (p) => (path.relative(io.cwd, p).startsWith('..') ? p : path.relative(io.cwd, p) || p),
      ...(args.cacheDir ? { cacheDir: args.cacheDir } : {}),
      ...(args.model ? { model: args.model } : {}),
      ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
    });
  } catch (e) {
    if (e instanceof DiffSideError) throw new UsageError(e.message);
    throw e;
  }
  if (args.json) io.stdout.write(JSON.stringify(diff) + '\n');
  else io.stdout.write(diffText(diff, args.sides));
  return args.maxFlips !== undefined && diff.flips > args.maxFlips ? EXIT.failed : EXIT.ok;
}

function diffText(d: DatasetDiff, sides: readonly DiffSide[]): string {
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
  // Sides that verified the samples say how many flipped, none included.
  if (d.sample_flips.length || sides.every(verifiesSamples)) {
    lines.push(`sample flips: ${d.sample_flips.length}`);
    for (const f of d.sample_flips.slice(0, LISTED))
      lines.push(terminalSafe(`  ${f.file}: '${f.task}' sample ${f.sample}: ${f.from} → ${f.to}`));
    if (d.sample_flips.length > LISTED)
      lines.push(`  ... and ${d.sample_flips.length - LISTED} more (--json lists them all)`);
  }
  for (const side of ['a', 'b'] as const) {
    const unread = d.unread?.filter((u) => u.side === side) ?? [];
    if (!unread.length) continue;
    lines.push(
      terminalSafe(
        `${side.toUpperCase()} (${d[side]}) has no version of ${unread.length} ${noun(unread.length, 'file')}:`,
      ),
    );
    for (const u of unread.slice(0, LISTED)) lines.push(terminalSafe(`  ${u.file}: ${u.reason}`));
    if (unread.length > LISTED) lines.push(`  ... and ${unread.length - LISTED} more (--json lists them all)`);
  }
  const kinds = Object.entries(d.kinds).sort(([x], [y]) => x.localeCompare(y));
  if (kinds.length)
    lines.push(
      `per kind: ${kinds.map(([k, c]) => terminalSafe(`${k} ${c.tasks} (${c.band_flips} band, ${c.sample_flips} sample flips)`)).join(', ')}`,
    );
  lines.push(`${d.flips} ${noun(d.flips, 'task')} flipped`);
  return lines.join('\n') + '\n';
}

import fs from 'node:fs';
import path from 'node:path';
import { collectDatasetStats, type FileText } from '../core/overview/dataset/collect';
import { DEFAULT_NGRAM } from '../core/overview/prompts/contamination';
import { renderStatsHtml } from '../core/overview/dataset/report';
import { usageText } from '../core/overview/runlog/usage';
import type { DatasetStats, ModelStats, TaskRef } from '../core/overview/dataset/types';
import { cut } from '../core/util/cut';
import { BANDS } from '../core/stats';
import { noun } from '../core/util/plural';
import { writeJson } from '../core/util/writeJson';
import { checkWritable, datasetRows, listTaskFiles, readTaskText } from './files';
import { rowFileType } from '../core/datasets/rowFiles';
import { readChunkedFile } from '../core/taskfile/fileStream';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import {
  cacheDirOption,
  defaultedOption,
  int,
  repeatedOption,
  share,
  switchOption,
  text,
  valueOption,
  type Parsed,
} from './options';
import { terminalSafe } from './terminal';

export const statsHelp = `Usage: vtask stats PATH... [--json] [--html REPORT.html] [--model M]... [--contamination BENCH]...

What is in a dataset: tasks per file and verifier kind, cases and how they come out, validation
errors (task files, and the rows of JSONL and Parquet datasets in a known format, each a task), per-model results from the runs \`vtask run\` recorded in the cache (no request),
near-duplicate prompts and prompts that overlap a benchmark.
  --json                      print the statistics as one JSON object
  --html FILE                 also write them as a self-contained HTML report
  --model M                   only this model (its profile name, or the model name of
                              --base-url/--model runs); repeat for several; default every model
                              in the run log
  --contamination BENCH       a benchmark (JSONL, text or Parquet) whose prompts the tasks'
                              prompts must not share a 13-word span with; repeat for several
  --ngram N                   words in a row that make an overlap with a benchmark (default 13,
                              the n of GPT-3's contamination study; 4 to 100)
  --duplicate-threshold X     similarity from which two prompts are near-duplicates (default 0.8)
  --no-duplicates             do not look for duplicates
  --no-cases                  count cases without running them (all skipped); by default the
                              cases of math, match, choice, constraints, json and format
                              verifiers (and all/any/weighted of them) run, remembered per task
  --no-tasks                  --json: leave out the per task and model results
  --cache-dir DIR             the cache folder (default: .vtask-cache at the workspace root)
  --fail-on LIST              exit 1 when any of these is found: duplicates, contamination
Exits 0, 1 with --fail-on when something it names was found, 2 on usage errors.`;

const FAIL_ON = ['duplicates', 'contamination'] as const;

/** Files shown in the text summary; the rest are counted (the JSON and HTML have them all). */
const FILES_SHOWN = 20;
/** Duplicates, overlaps and changed tasks listed in the text summary. */
const LISTED = 20;

interface StatsArgs {
  paths: string[];
  json: boolean;
  html?: string;
  models: string[];
  benchmarks: string[];
  ngram: number;
  threshold: number;
  duplicates: boolean;
  cases: boolean;
  tasks: boolean;
  cacheDir?: string;
  failOn: Set<(typeof FAIL_ON)[number]>;
}

/** The options of `vtask stats`. */
export const statsOptions = z.object({
  json: switchOption('--json', 'print one JSON object'),
  html: valueOption('--html', 'also write the report as one HTML file', text),
  models: repeatedOption('--model', 'only the runs of this model (again for more)', text),
  benchmarks: repeatedOption('--contamination', 'a benchmark to look for in the prompts (again for more)', text),
  ngram: defaultedOption('--ngram', 'the words a shared run needs', int(4, 100), DEFAULT_NGRAM),
  threshold: defaultedOption('--duplicate-threshold', 'the similarity of near duplicates', share('a similarity'), 0.8),
  noDuplicates: switchOption('--no-duplicates', 'skip the duplicate search'),
  noCases: switchOption('--no-cases', 'skip running the cases'),
  noTasks: switchOption('--no-tasks', 'leave out the per-task table'),
  cacheDir: cacheDirOption,
  failOn: repeatedOption('--fail-on', 'exit 1 when duplicates or contamination are found', (v) =>
    v.split(',').map((w) => {
      const s = w.trim();
      const found = FAIL_ON.find((f) => f === s);
      if (found === undefined)
        throw new UsageError(`--fail-on takes ${FAIL_ON.join(', ')} (comma-separated); got '${cut(s)}'`);
      return found;
    }),
  ),
});

function argsOf({ options: o, positional }: Parsed<typeof statsOptions>): StatsArgs {
  const a: StatsArgs = {
    paths: positional,
    json: o.json,
    ...(o.html !== undefined ? { html: o.html } : {}),
    models: o.models,
    benchmarks: o.benchmarks,
    ngram: o.ngram,
    threshold: o.threshold,
    duplicates: !o.noDuplicates,
    cases: !o.noCases,
    tasks: !o.noTasks,
    ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}),
    failOn: new Set(o.failOn.flat()),
  };
  if (!a.paths.length) throw new UsageError('give at least one file or folder');
  if (a.failOn.has('duplicates') && !a.duplicates)
    throw new UsageError('--fail-on duplicates needs the duplicate search: drop --no-duplicates');
  if (a.failOn.has('contamination') && !a.benchmarks.length)
    throw new UsageError('--fail-on contamination needs a benchmark: add --contamination BENCH');
  return a;
}

export async function statsCommand(
  parsed: Parsed<typeof statsOptions>,
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const args = argsOf(parsed);
  const html = args.html === undefined ? undefined : path.resolve(io.cwd, args.html);
  if (html) checkWritable(html, '--html');
  for (const b of args.benchmarks) {
    const abs = path.resolve(io.cwd, b);
    if (!fs.existsSync(abs)) throw new UsageError(`--contamination ${b}: no such file`);
  }
  const listed = listTaskFiles(
    args.paths.map((p) => path.resolve(io.cwd, p)),
    io.stderr,
    { rows: true },
  );
  const rows = await datasetRows(listed.files, io);
  // Paths as the user would type them: relative below the working folder, absolute elsewhere.
  const shown = (p: string): string => (path.relative(io.cwd, p).startsWith('..') ? p : path.relative(io.cwd, p) || p);
  const files = listed.files.filter((f) => !rowFileType(f) || rows.has(f)).map(shown);
  const read = (f: string): FileText => {
    const text = rows.get(path.resolve(io.cwd, f));
    if (text !== undefined) return { text, onDisk: true };
    // A block at a time when it can be; else whole, which reports what is wrong with the file.
    const chunked = readChunkedFile(path.resolve(io.cwd, f));
    if (chunked) return { text: chunked, onDisk: true };
    const r = readTaskText(path.resolve(io.cwd, f));
    if ('error' in r) {
      // Reported here; the file counts with no tasks.
      io.stderr.write(terminalSafe(r.error) + '\n');
      return { text: '', onDisk: false };
    }
    for (const p of r.problems) io.stderr.write(terminalSafe(p) + '\n');
    // A file with a problem is read (and its problem reported) every time.
    return { text: r.text, onDisk: r.problems.length === 0 };
  };
  const stats = await collectDatasetStats(files, {
    models: args.models,
    cacheDir: args.cacheDir && path.resolve(io.cwd, args.cacheDir),
    benchmarks: args.benchmarks.map((b) => path.resolve(io.cwd, b)),
    ngram: args.ngram,
    duplicateThreshold: args.threshold,
    duplicates: args.duplicates,
    cases: args.cases,
    read,
    // Only the report draws the scatter plot.
    points: html !== undefined,
    // This bundle, which main.ts starts as a summary worker when asked.
    workerScript: __filename,
    signal,
    onNote: (note) => io.stderr.write(terminalSafe(note) + '\n'),
  });
  // Benchmarks named as given, not as resolved.
  const benchName = new Map(args.benchmarks.map((b) => [path.resolve(io.cwd, b), b]));
  const report: DatasetStats = {
    ...stats,
    contamination: stats.contamination.map((c) => ({
      ...c,
      benchmark: benchName.get(c.benchmark ?? '') ?? c.benchmark,
    })),
  };
  if (html) fs.writeFileSync(html, renderStatsHtml(report));
  if (args.json) {
    // The scatter's points repeat `results`; a reader of the JSON has those.
    const { results, comparisons, ...rest } = report;
    const out = {
      ...rest,
      ...(args.tasks ? { results } : {}),
      ...(comparisons ? { comparisons: comparisons.map(({ points: _points, ...c }) => c) } : {}),
    };
    await writeJson(io.stdout, out);
    io.stdout.write('\n');
  } else {
    io.stdout.write(terminalSafe(summaryText(report, args.benchmarks.length)));
    if (html) io.stdout.write(`report: ${shown(html)}\n`);
  }
  const found =
    (args.failOn.has('duplicates') && report.duplicates.length > 0) ||
    (args.failOn.has('contamination') && report.contamination.length > 0);
  return found || listed.errors > 0 ? EXIT.failed : EXIT.ok;
}

const num = (n: number): string => n.toLocaleString('en-US');
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const at = (r: TaskRef): string => `${r.file}${r.line !== undefined ? `:${r.line + 1}` : ''}`;
const bar = (n: number, max: number, width = 30): string => '█'.repeat(max ? Math.round((n / max) * width) : 0);

/** The human-readable summary of `vtask stats`. */
export function summaryText(s: DatasetStats, benchmarks: number): string {
  const out: string[] = [];
  const t = s.totals;
  out.push(
    `${num(s.files)} ${noun(s.files, 'file')}, ${num(s.tasks)} ${noun(s.tasks, 'task')} (${num(t.invalid_tasks ?? 0)} invalid), ${num(t.errors)} ${noun(t.errors, 'validation error')}`,
  );
  const kinds = Object.entries(t.kinds).sort((a, b) => b[1] - a[1]);
  if (kinds.length) out.push(`kinds: ${kinds.map(([k, n]) => `${k} ${num(n)}`).join(', ')}`);
  out.push(
    `cases: ${num(t.cases.total)} (${num(t.cases.passed)} passed, ${num(t.cases.failed)} failed, ${num(t.cases.skipped)} skipped); ${num(t.tasks_without_cases)} ${noun(t.tasks_without_cases, 'task')} without cases`,
  );
  if (s.per_file.length > 1) {
    out.push('');
    const top = [...s.per_file].sort((a, b) => b.tasks - a.tasks || a.file.localeCompare(b.file)).slice(0, FILES_SHOWN);
    const w = Math.min(60, Math.max(4, ...top.map((f) => f.file.length)));
    out.push(
      `${'file'.padEnd(w)}  ${['tasks', 'invalid', 'errors', 'cases', 'failed', 'no cases'].map((h) => h.padStart(9)).join('')}`,
    );
    for (const f of top)
      out.push(
        `${cut(f.file, w).padEnd(w)}  ${[f.tasks, f.invalid_tasks ?? 0, f.errors, f.cases.total, f.cases.failed, f.tasks_without_cases].map((n) => num(n).padStart(9)).join('')}`,
      );
    if (s.per_file.length > top.length)
      out.push(`... ${num(s.per_file.length - top.length)} more files (--json or --html lists them all)`);
  }
  const models = Object.entries(s.models);
  if (!models.length) out.push('', 'models: no runs in the cache (vtask run records them)');
  for (const [name, m] of models) out.push('', ...modelText(name, m));
  for (const c of s.comparisons ?? []) {
    out.push(
      '',
      `${c.a} vs ${c.b}: ${num(c.tasks)} ${noun(c.tasks, 'task')} run by both; ${c.a} higher on ${num(c.a_higher)}, ${c.b} higher on ${num(c.b_higher)}; both always solve ${num(c.both_solve.length)}, both never solve ${num(c.both_fail.length)}`,
    );
    for (const p of c.separating.slice(0, 10))
      out.push(`  ${at(p)}: '${cut(p.task)}' ${c.a} ${p.a.toFixed(2)}, ${c.b} ${p.b.toFixed(2)}`);
  }
  out.push('', `duplicates: ${num(s.duplicates.length)} ${noun(s.duplicates.length, 'pair')}`);
  for (const d of s.duplicates.slice(0, LISTED))
    out.push(
      `  ${at(d.a)}: '${cut(d.a.task)}' ~ ${at(d.b)}: '${cut(d.b.task)}' (${d.exact ? 'same prompt' : `similarity ${d.similarity.toFixed(2)}`})`,
    );
  if (s.duplicates.length > LISTED) out.push(`  ... ${num(s.duplicates.length - LISTED)} more (--json lists them all)`);
  if (!benchmarks) out.push('contamination: no benchmark given (--contamination BENCH)');
  else {
    out.push(
      `contamination: ${num(s.contamination.length)} ${noun(s.contamination.length, 'overlap')} with ${benchmarks === 1 ? 'the benchmark' : `${benchmarks} benchmarks`}`,
    );
    for (const c of s.contamination.slice(0, LISTED))
      out.push(
        `  ${at(c)}: '${cut(c.task)}' ~ ${c.benchmark ?? 'benchmark'}:${c.benchmark_row + 1}: "${cut(c.overlap)}"`,
      );
    if (s.contamination.length > LISTED)
      out.push(`  ... ${num(s.contamination.length - LISTED)} more (--json lists them all)`);
  }
  return out.join('\n') + '\n';
}

function modelText(name: string, m: ModelStats): string[] {
  const lines = [
    `model ${name}: ${num(m.tasks)} ${noun(m.tasks, 'task')}, ${num(m.samples)} ${noun(m.samples, 'sample')}, GRPO signal ${pct(m.signal_share)}${m.stale ? `; ${num(m.stale)} ${noun(m.stale, 'stale run')} left out (the task changed since: vtask run re-verifies them)` : ''}${m.tokens ? `; ${usageText(m.tokens, m.cost)}` : ''}`,
  ];
  const most = Math.max(...BANDS.map((b) => m.bands[b]));
  for (const b of BANDS) lines.push(`  ${b.padEnd(10)} ${num(m.bands[b]).padStart(8)} ${bar(m.bands[b], most)}`);
  // Apart from the bands: the built-in demo model's failures there say nothing of the tasks.
  if (m.builtin_cannot)
    lines.push(
      `  built-in cannot ${num(m.builtin_cannot).padStart(3)} (tasks the built-in demo model cannot do: in no band)`,
    );
  const top = Math.max(0, ...m.histogram.map((h) => h.tasks));
  lines.push('  pass rate');
  for (const h of m.histogram)
    lines.push(`  ${h.from.toFixed(1)}–${h.to.toFixed(1)} ${num(h.tasks).padStart(8)} ${bar(h.tasks, top)}`);
  if (m.changed.length) {
    lines.push(`  band changed since the previous run: ${num(m.changed.length)}`);
    for (const c of m.changed.slice(0, LISTED))
      lines.push(`    ${at(c)}: '${cut(c.task)}' ${c.from ?? 'error'} → ${c.to ?? 'error'}`);
    if (m.changed.length > LISTED) lines.push(`    ... ${num(m.changed.length - LISTED)} more`);
  }
  return lines;
}

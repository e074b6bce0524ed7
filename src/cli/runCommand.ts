import { recordOr } from '../core/base/record';
import { appendRunRecords, modelLabel, runRecordsOf } from '../core/overview/runlog/runLog';
import { costOf, tokensOf, usageText } from '../core/overview/runlog/usage';
import { sampleTasks, type TaskRunResult } from '../core/run/sampleTasks';
import { passCount } from '../core/stats';
import { createProvider } from '../core/sampling';
import { resolveCacheDir } from '../core/sampling/cacheDir';
import { fallbackProfile } from '../core/sampling/localModels';
import { resolveProfile } from '../core/sampling/profiles';
import { formatSeconds } from '../core/sampling/retry';
import type { ModelProfile, Price, Provider } from '../core/sampling/types';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFile, type TaskFile } from '../core/taskfile/parse';
import { runnableTasks } from '../core/taskfile/resolve';
import { closest } from '../core/base/suggest';
import { getPair, toJS } from '../core/base/ynode';
import { cut } from '../core/util/cut';
import { plural } from '../core/util/plural';
import { fsReason } from '../core/taskfile/discover';
import { datasetRows, listTaskFiles, pathProblem, readTaskText, type ReadResult } from './files';
import { rowFileType } from '../core/datasets/rowFiles';
import { parseRowTasks } from '../core/datasets/rowTasks';
import { NOT_A_DATASET } from '../core/datasets/detectFormat';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
import { isolationField } from './isolation';
import * as z from 'zod';
import {
  cacheDirOption,
  defaultedOption,
  int,
  modelOptions,
  repeatedOption,
  switchOption,
  text,
  valueOption,
  type Parsed,
} from './options';
import { ProgressReporter } from './progress';
import { openRunCache } from './runCache';
import { terminalSafe } from './terminal';

export const runHelp = `Usage: vtask run PATH... [--task ID] [--samples N] [--base-url URL --model NAME]...
                 [--concurrency N] [--fresh] [--json] [--group-size G] [--cache-dir DIR]

Samples every task N times from a model, verifies each sample, and prints the pass rate,
pass@k and difficulty band per task. PATHs are task files, folders, or JSONL and Parquet
datasets in a known training format (each row a task, as vtask import reads it). Samples are
cached in .vtask-cache/ at the workspace root: a second identical run makes no requests, and
changing only the verifier reuses every sample. --fresh samples again. Ctrl-C stops and keeps
what was sampled.
The model: --base-url and --model, or a profile under the file's models: named by the task's
model: (or --model); OPENAI_BASE_URL and OPENAI_API_KEY are read from the environment. With
none of these, a local server (Ollama, vLLM, llama.cpp, LM Studio) if one answers, else the
built-in demo model (builtin:arith-tiny, arithmetic only).
--model again runs every task with each model in turn, results grouped per model. Each
finished task run adds a line to the run log (.vtask-cache/runs.jsonl) that vtask stats reads.`;

interface RunArgs {
  paths: string[];
  task?: string;
  samples?: number;
  baseUrl?: string;
  /** Every `--model`, in order, each once. */
  models: string[];
  concurrency?: number;
  groupSize: number;
  fresh: boolean;
  json: boolean;
  cacheDir?: string;
}

/** Flag bounds: those of the same fields in a task file (`samples:`, a profile's `concurrency:`). */
const BOUNDS = { samples: 10_000, concurrency: 1024, groupSize: 10_000 } as const;

/** The options of `vtask run`. */
export const runOptions = z.object({
  task: valueOption('--task', 'run only the task with this id', text),
  samples: valueOption('--samples', "samples per task (default: the task's samples:)", int(1, BOUNDS.samples)),
  baseUrl: modelOptions.baseUrl,
  models: repeatedOption('--model', 'the model, or a profile under models:; again for another model', text),
  concurrency: valueOption('--concurrency', 'requests in flight at once', int(1, BOUNDS.concurrency)),
  groupSize: defaultedOption('--group-size', 'the group size of the GRPO figures', int(2, BOUNDS.groupSize), 8),
  cacheDir: cacheDirOption,
  fresh: switchOption('--fresh', 'sample again instead of reading the cache'),
  json: switchOption('--json', 'print one JSON object per task'),
});

function argsOf({ options, positional }: Parsed<typeof runOptions>): RunArgs {
  if (positional.length === 0) throw new UsageError('give at least one file or folder');
  // Every `--model` once, in the order first given.
  return { ...options, paths: positional, models: [...new Set(options.models)] };
}

const pct = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '-');

/** One task's run by one model. */
interface ModelRun {
  readonly file: string;
  /** The model's label (`modelLabel`): what `--model` named, or the task's profile. */
  readonly model: string;
  /** The profile's `price`, which gives its tokens a cost. */
  readonly price?: Price;
  readonly r: TaskRunResult;
}

/** The spec's JSON shape per task, plus what else a script may want. */
function jsonOf({ file, model, r, price }: ModelRun): Record<string, unknown> {
  return {
    file,
    task: r.task.id,
    model,
    profile: r.model,
    samples: r.samples.map((s) => ({
      text: s.text,
      pass: s.verdict.pass,
      score: s.verdict.score,
      reason: s.verdict.reason,
      cached: s.cached,
      truncated: s.truncated,
      finish_reason: s.finishReason,
      ...(s.verdict.error ? { error: s.verdict.error } : {}),
      ...isolationField(s.verdict),
      verified_by: s.verifiedBy,
      ...(s.trajectory ? { trajectory: s.trajectory } : {}),
    })),
    pass_rate: r.stats.passRate,
    // Samples whose verifier could not decide: left out of the pass rate, never counted as fails.
    undecided: r.stats.undecided,
    mean_score: r.stats.meanScore,
    pass_at_k: r.stats.passAtK,
    interval: r.stats.interval,
    band: r.stats.band,
    signal_share: r.stats.signalShare,
    group_size: r.stats.groupSize,
    requests: r.requests,
    ...usageFields(r.samples, price),
    ...(r.error ? { error: r.error } : {}),
    ...(r.note ? { note: r.note } : {}),
  };
}

export async function run(parsed: Parsed<typeof runOptions>, io: CliIO, signal: AbortSignal): Promise<number> {
  const args = argsOf(parsed);
  const listed = listTaskFiles(args.paths, io.stderr, { rows: true });
  let invalid = listed.errors;
  // JSONL and Parquet files whose rows are a dataset: each row a task, as the editor runs them.
  const rows = await datasetRows(listed.files, io);
  for (const p of args.paths)
    if (rowFileType(p) && !rows.has(p) && listed.files.includes(p)) {
      io.stderr.write(terminalSafe(pathProblem(p, 'error', NOT_A_DATASET)) + '\n');
      invalid++;
    }
  // Every file is read and checked before any sampling, so an unknown --task is a usage error.
  const loaded: { file: string; parsed: TaskFile }[] = [];
  for (const file of listed.files) {
    if (rowFileType(file) && !rows.has(file)) continue;
    const rowText = rows.get(file);
    const read: ReadResult = rowText === undefined ? readTaskText(file) : { text: rowText, problems: [] };
    const problems = 'error' in read ? [read.error] : [...read.problems];
    if ('text' in read) {
      const parsed = rowText === undefined ? parseTaskFile(read.text) : parseRowTasks(rowText, { maxRows: Infinity });
      problems.push(
        ...parsed.issues.filter((x) => x.severity === 'error').map((i) => formatIssue(file, parsed.lines, i)),
      );
      loaded.push({ file, parsed });
    }
    for (const p of problems) io.stderr.write(terminalSafe(p) + '\n');
    invalid += problems.length;
  }
  if (args.task !== undefined)
    checkTaskId(
      args.task,
      loaded.flatMap((l) => l.parsed.tasks.map((t) => t.id ?? '')),
    );
  const results: ModelRun[] = [];
  const shared: Shared = { providers: new Map() };
  // Each model in turn over every file: a model's requests and cache writes are not interleaved with another's.
  for (const model of args.models.length ? args.models : [undefined]) {
    for (const { file, parsed } of loaded) {
      results.push(...(await runFile(file, parsed, model, args, io, signal, shared)));
      if (signal.aborted) break;
    }
    if (signal.aborted) break;
  }
  if (args.json) {
    io.stdout.write(JSON.stringify({ tasks: results.map(jsonOf), invalid, cancelled: signal.aborted }) + '\n');
  } else {
    const byModel = new Map<string, ModelRun[]>();
    for (const x of results) byModel.set(x.model, [...(byModel.get(x.model) ?? []), x]);
    [...byModel].forEach(([model, rs], i) => {
      if (i > 0) io.stdout.write('\n');
      printTable(io, model, rs);
    });
  }
  if (signal.aborted) {
    io.stderr.write('stopped: the samples taken so far are kept in the cache\n');
    return 130;
  }
  // A run that measured nothing (band `error`) fails the command, like a sampling error.
  return invalid > 0 || results.some((x) => x.r.error || x.r.stats.band === 'error') ? EXIT.failed : EXIT.ok;
}

/** Why samples got no verdict, as the first of them says: a task whose samples are all undecided must say why. */
function undecidedReason(r: TaskRunResult): string | undefined {
  const s = r.samples.find((x) => x.verdict.error);
  return s ? `undecided: ${s.verdict.reason}` : undefined;
}

/** An agent task's trajectories in a few words: turns and tool calls per sample, and how they stopped. */
function agentSummary(r: TaskRunResult): string | undefined {
  const ts = r.samples.flatMap((s) => (s.trajectory ? [s.trajectory] : []));
  if (!ts.length) return undefined;
  const mean = (f: (t: (typeof ts)[number]) => number): string =>
    (ts.reduce((a, t) => a + f(t), 0) / ts.length).toFixed(1);
  const stops = (['final', 'max_turns', 'error'] as const)
    .map((k) => [k, ts.filter((t) => t.stop === k).length] as const)
    .filter(([, c]) => c > 0);
  return `${mean((t) => t.turns)} turns, ${mean((t) => t.steps.length)} tool calls per sample (${stops.map(([k, c]) => `${c} ${k}`).join(', ')})`;
}

/** What the runs of one command share: providers (and their request limits), the fallback model. */
interface Shared {
  readonly providers: Map<string, Provider>;
  fallback?: { profile: ModelProfile; why: string };
}

/** Runs the tasks of one file with one `--model` (or the tasks' own), and logs the finished runs. */
async function runFile(
  file: string,
  parsed: TaskFile,
  model: string | undefined,
  args: RunArgs,
  io: CliIO,
  signal: AbortSignal,
  shared: Shared,
): Promise<ModelRun[]> {
  let { tasks } = runnableTasks(parsed);
  if (args.task !== undefined) tasks = tasks.filter((t) => t.id === args.task);
  if (tasks.length === 0) return [];
  const models = parsed.parts
    .map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined))
    .find((m) => m?.type === 'map');
  const modelTable = recordOr(toJS(models));
  // Nothing configured at all: a local server if one answers, else the built-in demo model.
  const unconfigured = !args.baseUrl && !model && !process.env.OPENAI_BASE_URL && tasks.some((t) => !t.sampling.model);
  if (unconfigured && !shared.fallback) {
    shared.fallback = await fallbackProfile();
    io.stderr.write(`${shared.fallback.why}\n`);
  }
  const fallback = shared.fallback;
  // The profile each task was sampled with, for its label in the output and the run log.
  const used = new Map<string, ModelProfile>();
  // Resolved once per model name: a profile reads the environment and the flags, the same for
  // every task, and resolving it again for each of thousands of tasks showed in the run's CPU.
  const resolved = new Map<string | undefined, ModelProfile>();
  const profileFor = (t: { id: string; sampling: { model?: string } }): ModelProfile => {
    let p = resolved.get(t.sampling.model);
    if (!p) {
      p =
        !t.sampling.model && unconfigured && fallback
          ? fallback.profile
          : resolveProfile({
              name: t.sampling.model,
              models: modelTable,
              baseUrl: args.baseUrl,
              model,
              concurrency: args.concurrency,
            });
      resolved.set(t.sampling.model, p);
    }
    used.set(t.id, p);
    return p;
  };
  const cacheDir = resolveCacheDir(file, { cacheDir: args.cacheDir });
  const opened = openRunCache(cacheDir);
  const cache = opened.cache;
  if (opened.unreadable) io.stderr.write(opened.unreadable + '\n');
  const total = tasks.reduce((a, t) => a + (args.samples ?? t.sampling.samples), 0);
  const progress = args.json
    ? undefined
    : new ProgressReporter(io.stderr as { write(s: string): unknown; isTTY?: boolean }, tasks.length, total);
  // Waits are shown even with --json (on stderr): a run that waits must not look hung.
  const note = (line: string): void => {
    if (progress) progress.note(line);
    else io.stderr.write(line + '\n');
  };
  let done: TaskRunResult[] = [];
  try {
    done = await sampleTasks(tasks, {
      file,
      cache,
      samples: args.samples,
      fresh: args.fresh,
      signal,
      groupSize: args.groupSize,
      judge: judgeProviders(modelTable, { baseUrl: args.baseUrl, model }, () => tasks[0]?.sampling.model),
      profileFor,
      providerFor: (p) => {
        const key = `${p.name}\0${p.baseUrl}\0${p.model}`;
        let provider = shared.providers.get(key);
        // Answers are kept as the model wrote them: verifiers apply their own final-answer rule.
        if (!provider) shared.providers.set(key, (provider = createProvider(p, { splitThinkTags: false })));
        return provider;
      },
      // None with --json: each sample would count a task's samples for nothing.
      onProgress: progress ? (p) => progress.update(p.task, p.done, p.total) : undefined,
      onRetry: (task, r) =>
        note(
          terminalSafe(
            `${task}: attempt ${r.attempt} failed (${r.error.message}); retrying in ${formatSeconds(r.delayMs)}`,
          ),
        ),
      onWaitForOtherRun: (task) =>
        note(terminalSafe(`${task}: another vtask run on this cache is sampling it; waiting for its samples`)),
      onTaskDone: (r) =>
        progress?.taskDone(
          terminalSafe(`${r.task.id}: ${passCount(r.stats)} · ${r.stats.band}${r.error ? ` · ${r.error}` : ''}`),
        ),
    });
  } finally {
    progress?.finish();
    const notWritten = opened.finish();
    if (notWritten) io.stderr.write(notWritten + '\n');
  }
  if (!opened.unreadable) {
    try {
      appendRunRecords(
        cacheDir,
        runRecordsOf(done, { cacheDir, file, parsed, samples: args.samples, profileOf: (r) => used.get(r.task.id) }),
      );
    } catch (e) {
      io.stderr.write(terminalSafe(`the run log was not written (${cacheDir}: ${fsReason(e)})`) + '\n');
    }
  }
  const labelOf = (r: TaskRunResult): string => {
    const p = used.get(r.task.id);
    return p ? modelLabel(p) : (model ?? r.model);
  };
  return done.map((r) => {
    const price = used.get(r.task.id)?.price;
    return { file, model: labelOf(r), r, ...(price ? { price } : {}) };
  });
}

/** An id no task has is a usage error, named with the closest id there is. */
function checkTaskId(id: string, ids: readonly string[]): void {
  if (ids.includes(id)) return;
  const near = closest(id, ids);
  throw new UsageError(
    `no task has the id '${cut(id)}'${near ? ` (did you mean '${near}'?)` : ids.length ? '' : ': the files have no tasks'}`,
  );
}

/** One model's table, under a line naming it, and its totals. */
function printTable(io: CliIO, model: string, runs: readonly ModelRun[]): void {
  const results = runs.map((x) => x.r);
  io.stdout.write(terminalSafe(`model ${model}`) + '\n');
  const rows = results.map((r) => {
    const ks = Object.keys(r.stats.passAtK);
    const kMax = ks[ks.length - 1] ?? '1';
    const fromCache = r.samples.filter((s) => s.cached).length;
    // A task whose sampling failed has the band `error` (taskStats): its interval of [0, 1] says nothing.
    return [
      r.task.id,
      `${r.stats.passed}/${r.stats.samples}${r.stats.undecided ? ` · ${r.stats.undecided} undecided` : ''}`,
      pct(r.stats.passAtK['1'] ?? NaN),
      `${pct(r.stats.passAtK[kMax] ?? NaN)} (k=${kMax})`,
      r.stats.band,
      r.stats.band === 'error' ? '-' : pct(r.stats.signalShare),
      `${fromCache}/${r.samples.length}`,
      [r.error, undecidedReason(r), r.note, agentSummary(r)].filter(Boolean).join('; '),
    ].map(terminalSafe);
  });
  const head = [
    'task',
    'pass',
    'pass@1',
    'pass@k',
    'band',
    `signal (G=${results[0]?.stats.groupSize ?? 8})`,
    'cached',
    'error / note',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  io.stdout.write(line(head) + '\n');
  for (const r of rows) io.stdout.write(line(r) + '\n');
  const all = results.flatMap((r) => r.samples);
  const requests = results.reduce((a, r) => a + r.requests, 0);
  io.stdout.write(
    `${plural(results.length, 'task')}, ${plural(all.length, 'sample')} (${all.filter((s) => s.cached).length} from the cache, ${plural(requests, 'request')})\n`,
  );
  const usage = usageOf(runs);
  if (usage) io.stdout.write(`${usage}\n`);
}

/** The tokens of the runs' samples and, when every run's profile has a price, their cost; undefined when the endpoint reported no usage. */
function usageOf(runs: readonly ModelRun[]): string | undefined {
  const tokens = tokensOf(runs.flatMap((x) => x.r.samples));
  if (!tokens) return undefined;
  const priced = runs.every((x) => x.price);
  const cost = priced
    ? runs.reduce((sum, x) => sum + costOf(tokensOf(x.r.samples) ?? { prompt: 0, completion: 0 }, x.price as Price), 0)
    : undefined;
  return usageText(tokens, cost);
}

/** A task's `tokens` and `cost` in `--json`, as the run log records them. */
function usageFields(
  samples: TaskRunResult['samples'],
  price: Price | undefined,
): { tokens?: { prompt: number; completion: number }; cost?: number } {
  const tokens = tokensOf(samples);
  return tokens ? { tokens, ...(price ? { cost: costOf(tokens, price) } : {}) } : {};
}

import { recordOr } from '../core/base/record';
import {
  appendRunRecords,
  modelLabel,
  runRecorder,
  type FileRunRecords,
  type RunRecord,
} from '../core/overview/runlog/runLog';
import { streamTasks, type TaskRunResult } from '../core/run/sampleTasks';
import { passCount } from '../core/stats';
import { createProvider } from '../core/sampling';
import { resolveCacheDir } from '../core/sampling/cacheDir';
import { fallbackProfile } from '../core/sampling/localModels';
import { resolveProfile } from '../core/sampling/profiles';
import { formatSeconds } from '../core/sampling/retry';
import type { SampleCache } from '../core/sampling/cache';
import type { ModelProfile, Provider } from '../core/sampling/types';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFile, type TaskFile } from '../core/taskfile/parse';
import { runnableTasks } from '../core/taskfile/resolve';
import { closest } from '../core/base/suggest';
import { getPair, toJS } from '../core/base/ynode';
import { cut } from '../core/util/cut';
import { fsReason } from '../core/taskfile/discover';
import { datasetRows, listTaskFiles, pathProblem, readTaskText, type ReadResult } from './files';
import { rowFileType } from '../core/datasets/rowFiles';
import { parseRowTasks } from '../core/datasets/rowTasks';
import { NOT_A_DATASET } from '../core/datasets/detectFormat';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
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
import { RunOutput, type ModelRun } from './runOutput';
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
  const output = new RunOutput(io, args.json, invalid);
  const shared: Shared = { providers: new Map() };
  try {
    // Each model in turn over every file: a model's requests and cache writes are not interleaved with another's.
    for (const model of args.models.length ? args.models : [undefined]) {
      for (const { file, parsed } of loaded) {
        await runFile(file, parsed, model, args, io, signal, shared, (run) => output.add(run));
        if (signal.aborted) break;
      }
      if (signal.aborted) break;
    }
  } catch (e) {
    output.abandon(signal.aborted);
    throw e;
  }
  output.finish(signal.aborted);
  if (signal.aborted) {
    io.stderr.write('stopped: the samples taken so far are kept in the cache\n');
    return 130;
  }
  // A run that measured nothing (band `error`) fails the command, like a sampling error.
  return invalid > 0 || output.anyFailed ? EXIT.failed : EXIT.ok;
}

/** What the runs of one command share: providers (and their request limits), the fallback model. */
interface Shared {
  readonly providers: Map<string, Provider>;
  fallback?: { profile: ModelProfile; why: string };
}

/** Run-log records are appended once this many are waiting, or a second after the last append. */
const LOG_BATCH = 256;
const LOG_EVERY_MS = 1000;

/**
 * Runs the tasks of one file with one `--model` (or the tasks' own). Each task's run goes to
 * `emit` in task order as it ends, and to the run log once its samples are written.
 */
async function runFile(
  file: string,
  parsed: TaskFile,
  model: string | undefined,
  args: RunArgs,
  io: CliIO,
  signal: AbortSignal,
  shared: Shared,
  emit: (run: ModelRun) => void,
): Promise<void> {
  let { tasks } = runnableTasks(parsed);
  if (args.task !== undefined) tasks = tasks.filter((t) => t.id === args.task);
  if (tasks.length === 0) return;
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
  const labelOf = (r: TaskRunResult): string => {
    const p = used.get(r.task.id);
    return p ? modelLabel(p) : (model ?? r.model);
  };
  const log = opened.unreadable
    ? undefined
    : new RunLogBatches(cacheDir, cache, io, {
        cacheDir,
        file,
        parsed,
        samples: args.samples,
        profileOf: (r) => used.get(r.task.id),
      });
  const onResult = (r: TaskRunResult): void => {
    const price = used.get(r.task.id)?.price;
    emit({ file, model: labelOf(r), r, ...(price ? { price } : {}) });
    log?.add(r);
  };
  try {
    await streamTasks(
      tasks,
      {
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
      },
      onResult,
    );
  } finally {
    progress?.finish();
    const notWritten = opened.finish();
    if (notWritten) io.stderr.write(notWritten + '\n');
    // After the cache's last write: a line of the log never names samples not yet on disk.
    log?.flush();
  }
}

/**
 * A file's run-log records, appended a batch at a time as its tasks end (so a run killed
 * half-way has logged what it finished) and each batch only after the cache has written the
 * samples its records describe.
 */
class RunLogBatches {
  private waiting: RunRecord[] = [];
  private queued = false;
  private lastAppend = Date.now();
  private failed = false;
  private readonly recordOf: ReturnType<typeof runRecorder>;

  constructor(
    private readonly cacheDir: string,
    private readonly cache: SampleCache,
    private readonly io: CliIO,
    of: FileRunRecords,
  ) {
    this.recordOf = runRecorder(of);
  }

  add(r: TaskRunResult): void {
    const record = this.recordOf(r);
    if (!record) return;
    this.waiting.push(record);
    if (this.queued || (this.waiting.length < LOG_BATCH && Date.now() - this.lastAppend < LOG_EVERY_MS)) return;
    this.queued = true;
    // Records taken after the cache's next write: their tasks' samples were put before them.
    this.cache.afterFlush(() => {
      this.queued = false;
      this.flush();
    });
  }

  /** Appends the records waiting; the first failure is reported, once per file. */
  flush(): void {
    if (this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.lastAppend = Date.now();
    try {
      appendRunRecords(this.cacheDir, batch);
    } catch (e) {
      if (!this.failed)
        this.io.stderr.write(terminalSafe(`the run log was not written (${this.cacheDir}: ${fsReason(e)})`) + '\n');
      this.failed = true;
    }
  }
}

/** An id no task has is a usage error, named with the closest id there is. */
function checkTaskId(id: string, ids: readonly string[]): void {
  if (ids.includes(id)) return;
  const near = closest(id, ids);
  throw new UsageError(
    `no task has the id '${cut(id)}'${near ? ` (did you mean '${near}'?)` : ids.length ? '' : ': the files have no tasks'}`,
  );
}

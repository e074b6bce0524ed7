// The runs the sample cache holds, without a request: each task's cached samples verified again by
// the task file as given (so they follow its current verifier, or the one at a git revision).
// `vtask export`, `vtask audit --samples`, `vtask diff` and the workbench's export read runs through it.
import { recordOr } from '../base/record';
import fs from 'node:fs';
import { getPair, toJS } from '../base/ynode';
import type { RunSummary } from '../datasets/format';
import { sampleTasks, type TaskRunResult } from './sampleTasks';
import { SampleCache } from '../sampling/cache';
import { resolveCacheDir } from '../sampling/cacheDir';
import { resolveProfile } from '../sampling/profiles';
import type { ModelProfile, Provider } from '../sampling/types';
import { parseTaskFile, type TaskFile } from '../taskfile/parse';
import type { TaskSpec } from '../taskfile/resolve';
import { must } from '../util/must';
import { rowFileType } from '../datasets/rowFiles';
import { parseRowTasks } from '../datasets/rowTasks';
import { modelLabel } from '../overview/runlog/runLog';
import { runnableTasks } from '../taskfile/resolve';

export interface CachedRunOptions {
  readonly baseUrl?: string;
  readonly model?: string;
  readonly cacheDir?: string;
  /** Each file's cache folder, where its caller places it (the editor's settings); wins over `cacheDir`. */
  readonly cacheDirOf?: (file: string) => string;
  /** A file's text; a JSONL or Parquet dataset's as the JSON lines of its rows (`rowFileText`). */
  readonly read: (file: string) => string;
  /**
   * The profile a task was sampled with, where the caller decides it (the editor's settings);
   * undefined: the task has none. By default the task's `model:` under the file's `models:`.
   */
  readonly profileFor?: (file: string, parsed: TaskFile, task: TaskSpec) => ModelProfile | undefined;
}

/** Cache-only runs never ask a model; a request reaching a provider is a bug, said loudly. */
const NO_REQUESTS: Provider = {
  id: 'cache-only',
  sample: () => Promise.reject(new Error('a cache-only run asked a model')),
};

/**
 * What the sample cache says of each task, without a request: its pass rate and band from the
 * samples a `vtask run` left (verified again now, so they follow the current verifier). A task
 * whose model does not resolve, or whose N samples are not all cached, has no run. Keyed by
 * `file\0task id`.
 */
export async function cachedRuns(files: readonly string[], o: CachedRunOptions): Promise<Map<string, RunSummary>> {
  const out = new Map<string, RunSummary>();
  for (const [key, r] of await cachedTaskRuns(files, o))
    out.set(key, {
      model: labels.get(r) ?? r.model,
      samples: r.stats.samples,
      pass_rate: r.stats.passRate,
      band: r.stats.band,
    });
  return out;
}

// The model label (as `vtask run` and the run log name it) of each cached run.
const labels = new WeakMap<TaskRunResult, string>();

/** The cached runs themselves, samples and verdicts included, keyed as `cachedRuns`. */
export async function cachedTaskRuns(
  files: readonly string[],
  o: CachedRunOptions,
): Promise<Map<string, TaskRunResult>> {
  const out = new Map<string, TaskRunResult>();
  const signal = new AbortController().signal;
  for (const file of files) {
    const dir = o.cacheDirOf?.(file) ?? resolveCacheDir(file, { cacheDir: o.cacheDir });
    if (!fs.existsSync(dir)) continue;
    const text = o.read(file);
    // A JSONL or Parquet dataset (its rows as JSON lines): each row a task, as it was run.
    const parsed = rowFileType(file) ? parseRowTasks(text, { maxRows: Infinity }) : parseTaskFile(text);
    const models = parsed.parts
      .map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined))
      .find((m) => m?.type === 'map');
    const modelTable = recordOr(toJS(models));
    const profiles = new Map<string, ModelProfile | undefined>();
    const byName = (name: string | undefined): ModelProfile | undefined => {
      const key = name ?? '';
      if (!profiles.has(key)) {
        try {
          profiles.set(key, resolveProfile({ name, models: modelTable, baseUrl: o.baseUrl, model: o.model }));
        } catch {
          profiles.set(key, undefined);
        }
      }
      return profiles.get(key);
    };
    const chosen = new Map<TaskSpec, ModelProfile | undefined>();
    const profileOf = (t: TaskSpec): ModelProfile | undefined => {
      if (!chosen.has(t)) chosen.set(t, o.profileFor ? o.profileFor(file, parsed, t) : byName(t.sampling.model));
      return chosen.get(t);
    };
    const tasks = runnableTasks(parsed).tasks.filter((t) => profileOf(t) !== undefined);
    if (!tasks.length) continue;
    const cache = SampleCache.open(dir);
    try {
      cache.load();
      const done = await sampleTasks(tasks, {
        file,
        cache,
        cacheOnly: true,
        signal,
        profileFor: (t) => must(profileOf(t), 'only tasks with a profile are run'),
        providerFor: () => NO_REQUESTS,
      });
      for (const r of done) {
        const p = profileOf(r.task);
        if (p) labels.set(r, modelLabel(p));
        out.set(`${file}\0${r.task.id}`, r);
      }
    } finally {
      cache.close();
    }
  }
  return out;
}

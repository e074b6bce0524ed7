// How each model did on a dataset, from the latest run of each task in the run log: per model
// the counts, the histogram, the bands and the tasks whose band changed; per task and model the
// result; per file the bands; and each pair of models compared. A run recorded under another
// run key than the task's current one (its prompt or verifier changed since) is stale: counted
// per model and left out, since `vtask run` re-verifies its cached samples for free.
import type { Band } from '../../stats';
import { compareRates } from './compare';
import { at, must } from '../../util/must';
import type { DatasetTask, Indexed } from './taskTable';

export type { DatasetTask } from './taskTable';
import type { LatestRun } from '../runlog/latestRuns';
import type { RunRecord } from '../runlog/runLog';
import { countRun, emptyBands, emptyCounts, modelStatsOf, type ModelCounts } from './modelCounts';
import type { ModelComparison, ModelStats, TaskModelResult, TaskRef } from './types';

export interface ModelResults {
  readonly models: Record<string, ModelStats>;
  /** Per file, per model: band counts (models in the order their first counted run was read). */
  readonly fileBands: Map<string, Record<Band, number>>[];
  /** Per task and model, in the dataset's order and then by model. */
  readonly results: TaskModelResult[];
  readonly comparisons: ModelComparison[];
}

/**
 * Adds up `runs` (`readLatestRuns` of each cache folder, in turn) over `tasks`. `models` keeps
 * those models (shown even without a run); `points: false` leaves out the comparisons' points.
 */
export function modelResults(
  tasks: Indexed<DatasetTask>,
  files: number,
  runs: Iterable<LatestRun>,
  o: { readonly models?: readonly string[]; readonly points?: boolean } = {},
): ModelResults {
  const perModel = new Map<string, ModelTally>();
  const tally = (model: string): ModelTally => {
    let t = perModel.get(model);
    if (!t) perModel.set(model, (t = new ModelTally(tasks.length)));
    return t;
  };
  for (const m of o.models ?? []) tally(m);
  const fileBands = Array.from({ length: files }, () => new Map<string, Record<Band, number>>());
  for (const { task, model, latest, previousBand } of runs) {
    const row = must(tasks.at(task), 'a run names a task of the dataset');
    if (!row.valid) continue;
    const t = tally(model);
    if (latest.key !== row.runKey) {
      t.counts.stale++;
      continue;
    }
    t.add(task, row.ref, latest, previousBand);
    const bands = at(fileBands, row.file);
    let b = bands.get(model);
    if (!b) bands.set(model, (b = emptyBands()));
    // The built-in model's runs of tasks it cannot do are in no band (modelCounts.ts).
    if (latest.note === undefined) b[latest.band]++;
  }
  // Models by name (code unit order, as sort() gives strings).
  const named = [...perModel.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const models: Record<string, ModelStats> = {};
  for (const [name, t] of named) models[name] = t.stats();
  // The dataset's order, whatever order the log was written in; models by name.
  const results: TaskModelResult[] = [];
  for (let task = 0; task < tasks.length; task++) {
    // A task's ref is made only for a task with a run.
    let ref: TaskRef | undefined;
    for (const [name, t] of named) {
      const run = t.runs[task];
      if (run && (ref ??= tasks.at(task)?.ref))
        results.push({
          file: ref.file,
          task: ref.task,
          line: ref.line,
          model: name,
          samples: run.samples,
          pass_rate: run.pass_rate,
          band: run.band,
        });
    }
  }
  const refs = { length: tasks.length, at: (i: number) => tasks.at(i)?.ref };
  const comparisons: ModelComparison[] = [];
  for (const [i, [a, ta]] of named.entries())
    for (const [b, tb] of named.slice(i + 1)) comparisons.push(compareRates(a, b, refs, ta.rates, tb.rates, o));
  return { models, fileBands, results, comparisons };
}

/** One model's runs, added up as they are read, with each task's counted run and pass rate. */
class ModelTally {
  readonly counts: ModelCounts = emptyCounts();
  readonly changed: { task: number; change: TaskRef & { from: Band | null; to: Band | null } }[] = [];
  /** Per task of the dataset: its counted run, and its pass rate (NaN: none). */
  readonly runs: (RunRecord | undefined)[];
  readonly rates: Float64Array;

  constructor(tasks: number) {
    this.runs = new Array<RunRecord | undefined>(tasks).fill(undefined);
    this.rates = new Float64Array(tasks).fill(NaN);
  }

  add(task: number, ref: TaskRef, latest: RunRecord, previousBand: Band | undefined): void {
    countRun(this.counts, latest);
    this.runs[task] = latest;
    // A run that failed has no pass rate to compare.
    if (latest.band !== 'error') this.rates[task] = latest.pass_rate;
    if (previousBand !== undefined && previousBand !== latest.band)
      this.changed.push({ task, change: { ...ref, from: previousBand, to: latest.band } });
  }

  stats(): ModelStats {
    return modelStatsOf(
      this.counts,
      this.changed.sort((x, y) => x.task - y.task).map((c) => c.change),
    );
  }
}

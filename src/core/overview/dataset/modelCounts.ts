// One model's runs added up, as `vtask stats` and the dashboard report them: tasks with a fresh
// run, samples, the pass-rate histogram, the bands, the mean GRPO signal share, the stale runs,
// the tokens and the cost.
// A run of band `error` is counted under that band only: it has no pass rate to put in the
// histogram and no signal to average (a 0 there would read as a task nobody solves). A run of
// the built-in demo model on a task it cannot do (its record has a `note`) is counted apart, as
// `builtin_cannot`: its failures say nothing of the task, so it is in no band.
// The CLI adds the whole dataset at once (modelResults.ts); the dashboard adds each file's runs
// and then the files (liveStats.ts): both through these, so they cannot come to disagree.
import { BANDS, type Band } from '../../stats';
import type { BandCounts, HistogramBin, ModelStats } from './types';
import type { Tokens } from '../runlog/usage';

export { BANDS };
export const HISTOGRAM_BINS = 10;

export interface ModelCounts {
  tasks: number;
  samples: number;
  /** Sum of the runs' GRPO signal shares (the mean is reported). */
  signal: number;
  /** Runs recorded under another run key than the task's current one: left out, counted. */
  stale: number;
  /** Tokens of the runs that recorded them (`tokens`), and whether any did. */
  promptTokens: number;
  completionTokens: number;
  withTokens: number;
  /** Dollars of the runs that recorded a `cost`, and how many did. */
  cost: number;
  withCost: number;
  /** Runs of the built-in demo model on tasks it cannot do: in no band. */
  cannot: number;
  readonly bins: number[];
  readonly bands: Record<Band, number>;
}

export function emptyCounts(): ModelCounts {
  return {
    tasks: 0,
    samples: 0,
    signal: 0,
    stale: 0,
    promptTokens: 0,
    completionTokens: 0,
    withTokens: 0,
    cost: 0,
    withCost: 0,
    cannot: 0,
    bins: new Array<number>(HISTOGRAM_BINS).fill(0),
    bands: emptyBands(),
  };
}

/** Zero tasks in every band. */
export function emptyBands(): Record<Band, number> {
  return { too_easy: 0, learnable: 0, too_hard: 0, error: 0 };
}

/** Adds one task's fresh run. A failed run's tokens count too: they were spent. */
export function countRun(
  c: ModelCounts,
  run: {
    readonly samples: number;
    readonly pass_rate: number;
    readonly band: Band | null;
    readonly signal_share: number;
    readonly tokens?: Tokens;
    readonly cost?: number;
    readonly note?: string;
  },
): void {
  c.tasks++;
  if (run.note !== undefined) c.cannot++;
  else if (run.band !== null) c.bands[run.band]++;
  if (run.tokens) {
    c.withTokens++;
    c.promptTokens += run.tokens.prompt;
    c.completionTokens += run.tokens.completion;
  }
  if (run.cost !== undefined) {
    c.withCost++;
    c.cost += run.cost;
  }
  if (run.band === 'error' || run.note !== undefined) return;
  c.samples += run.samples;
  c.signal += run.signal_share;
  const bin = binOf(run.pass_rate);
  c.bins[bin] = (c.bins[bin] ?? 0) + 1;
}

/** Adds the counts of one part (a file) to those of the whole. */
export function addCounts(into: ModelCounts, part: ModelCounts): void {
  into.tasks += part.tasks;
  into.samples += part.samples;
  into.signal += part.signal;
  into.stale += part.stale;
  into.promptTokens += part.promptTokens;
  into.completionTokens += part.completionTokens;
  into.withTokens += part.withTokens;
  into.cost += part.cost;
  into.withCost += part.withCost;
  into.cannot += part.cannot;
  part.bins.forEach((n, i) => (into.bins[i] = (into.bins[i] ?? 0) + n));
  for (const b of BANDS) into.bands[b] += part.bands[b];
}

/** The counts as the statistics report them, with the tasks whose band changed. */
export function modelStatsOf(c: ModelCounts, changed: ModelStats['changed']): ModelStats {
  const histogram: HistogramBin[] = c.bins.map((tasks, i) => ({
    from: i / HISTOGRAM_BINS,
    to: (i + 1) / HISTOGRAM_BINS,
    tasks,
  }));
  const bands = Object.fromEntries(BANDS.map((b) => [b, c.bands[b]])) as BandCounts;
  return {
    tasks: c.tasks,
    samples: c.samples,
    histogram,
    bands,
    signal_share: c.tasks > c.bands.error + c.cannot ? c.signal / (c.tasks - c.bands.error - c.cannot) : 0,
    changed,
    stale: c.stale,
    ...(c.withTokens ? { tokens: { prompt: c.promptTokens, completion: c.completionTokens } } : {}),
    ...(c.withCost ? { cost: c.cost } : {}),
    ...(c.cannot ? { builtin_cannot: c.cannot } : {}),
  };
}

/** The bin of a pass rate: [i/10, (i+1)/10), the last bin holding 1 too. */
function binOf(rate: number): number {
  return Math.min(HISTOGRAM_BINS - 1, Math.max(0, Math.floor(rate * HISTOGRAM_BINS + 1e-9)));
}

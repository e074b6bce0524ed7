// zod/mini, as the panel's protocol: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';

/**
 * The messages between the extension and the dataset dashboard. The host sends the dataset's
 * statistics (`DatasetStats`, the object of `vtask stats --json`, with files relative to the
 * workspace) again after each change settles, without the per-task results: those stay in the
 * host, and the page asks for the comparison of two models a page at a time. The page sends
 * back which task to open. Both sides validate what they receive.
 */

/** The most entries a list of the stats may hold (duplicates of 100,000 tasks, say). */
export const MAX_ITEMS = 1_000_000;

const text = z.string().check(z.maxLength(10_000));
const count = z.int().check(z.minimum(0));
const share = z.number().check(z.minimum(0), z.maximum(1));
const band = z.enum(['too_easy', 'learnable', 'too_hard', 'error']);
const list = <T extends z.core.SomeType>(item: T) => z.array(item).check(z.maxLength(MAX_ITEMS));
const record = <T extends z.core.SomeType>(value: T) => z.record(z.string().check(z.maxLength(1000)), value);

export const taskRef = z.object({ file: text, task: text, line: z.optional(count) });
const bandCounts = z.object({ too_easy: count, learnable: count, too_hard: count, error: count });
const histogramBin = z.object({ from: z.number(), to: z.number(), tasks: count });

export const modelStats = z.object({
  tasks: count,
  samples: count,
  histogram: list(histogramBin),
  bands: bandCounts,
  signal_share: share,
  changed: list(z.extend(taskRef, { from: z.nullable(band), to: z.nullable(band) })),
  /** Runs of an older version of a task (left out). */
  stale: z.optional(count),
  /** Tokens of its runs, when the endpoint reported them. */
  tokens: z.optional(z.object({ prompt: count, completion: count })),
  /** Dollars, when its profile has a price. */
  cost: z.optional(z.number().check(z.minimum(0))),
  /** Runs of the built-in demo model on tasks it cannot do (in no band). */
  builtin_cannot: z.optional(count),
});

const fileCounts = {
  tasks: count,
  kinds: record(count),
  cases: z.object({ total: count, passed: count, failed: count, skipped: count }),
  tasks_without_cases: count,
  errors: count,
  bands: record(bandCounts),
};

export const datasetStats = z.object({
  files: count,
  tasks: count,
  totals: z.object(fileCounts),
  per_file: list(z.object({ file: text, ...fileCounts })),
  models: record(modelStats),
  duplicates: list(z.object({ a: taskRef, b: taskRef, similarity: share, exact: z.boolean() })),
  contamination: list(z.extend(taskRef, { benchmark_row: count, overlap: text, benchmark: z.optional(text) })),
});

/** The comparison's grid: pass rates in tenths, so 100,000 tasks are 100 squares. */
export const COMPARE_GRID = 10;
/** Tasks of a comparison's list sent at once (one page). */
export const COMPARE_PAGE = 50;

/** The square of a pass rate along one side of the grid; the last one holds 1. */
export function gridCell(rate: number): number {
  return Math.min(COMPARE_GRID - 1, Math.max(0, Math.floor(rate * COMPARE_GRID + 1e-9)));
}

/** One page of a list of tasks (of a comparison: those both solve, those both fail). */
const taskPage = z.object({ page: count, total: count, items: z.array(taskRef).check(z.maxLength(COMPARE_PAGE)) });

const cell = z.tuple([
  z.int().check(z.minimum(0), z.maximum(COMPARE_GRID - 1)),
  z.int().check(z.minimum(0), z.maximum(COMPARE_GRID - 1)),
]);
const modelName = z.string().check(z.maxLength(1000));

export const comparisonView = z.object({
  a: modelName,
  b: modelName,
  /** Tasks both ran, and those where A's pass rate is higher, and B's. */
  tasks: count,
  a_higher: count,
  b_higher: count,
  /** Tasks per square: `grid[i][j]` has A's rate in square i and B's in square j. */
  grid: z.array(z.array(count).check(z.length(COMPARE_GRID))).check(z.length(COMPARE_GRID)),
  /** The square the list is of, when one was chosen. */
  cell: z.optional(cell),
  page: count,
  /** Tasks in the list (all pages), largest difference first. */
  total: count,
  items: z.array(z.extend(taskRef, { a: share, b: share })).check(z.maxLength(COMPARE_PAGE)),
  /** Tasks both always solve (pass rate 1 under both) and both never solve (0 under both), a page each. */
  both_solve: taskPage,
  both_fail: taskPage,
});

export const toDashboard = z.discriminatedUnion('type', [
  /** The dataset's statistics, fresh: the page redraws from them, keeping its place. */
  z.object({
    type: z.literal('stats'),
    stats: datasetStats,
    folder: z.optional(text),
    /** Why the duplicates and contamination are empty or not final (turned off, still searched). */
    findings: z.optional(text),
  }),
  /** A page of the comparison the page asked for. */
  z.object({ type: z.literal('comparison'), comparison: comparisonView }),
  /** The host is reading the files (after a change, or the first time). */
  z.object({ type: z.literal('busy'), text }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text }),
]);

export const fromDashboard = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('refresh') }),
  /** Model A against model B: the grid, and a page of the tasks (of one square, when given), of those both solve and of those both fail. */
  z.object({
    type: z.literal('compare'),
    a: modelName,
    b: modelName,
    cell: z.optional(cell),
    page: count,
    solvePage: z.optional(count),
    failPage: z.optional(count),
  }),
  /** Compare two runs (the Compare Runs view's quick picks). */
  z.object({ type: z.literal('compareRuns') }),
  /** Open a task (or, without `task`, a file) as the stats name it. */
  z.object({ type: z.literal('open'), file: text, task: z.optional(text) }),
]);

export type DatasetStatsView = z.infer<typeof datasetStats>;
export type ComparisonView = z.infer<typeof comparisonView>;
export type ToDashboard = z.infer<typeof toDashboard>;
export type FromDashboard = z.infer<typeof fromDashboard>;

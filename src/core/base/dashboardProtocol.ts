// zod/mini, as the panel's protocol: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';

/**
 * The messages between the extension and the dataset dashboard. The host sends the dataset's
 * statistics (`DatasetStats`, the object of `vtask stats --json`, with files relative to the
 * workspace) whole, again after each change settles; the page sends back which task to open.
 * Both sides validate what they receive.
 */

/** The most entries a list of the stats may hold: 100,000 tasks run by 20 models. */
export const MAX_ITEMS = 2_000_000;

const text = z.string().check(z.maxLength(10_000));
const count = z.int().check(z.minimum(0));
const share = z.number().check(z.minimum(0), z.maximum(1));
const band = z.enum(['too_easy', 'learnable', 'too_hard']);
const list = <T extends z.core.SomeType>(item: T) => z.array(item).check(z.maxLength(MAX_ITEMS));
const record = <T extends z.core.SomeType>(value: T) => z.record(z.string().check(z.maxLength(1000)), value);

export const taskRef = z.object({ file: text, task: text, line: z.optional(count) });
const bandCounts = z.object({ too_easy: count, learnable: count, too_hard: count });
const histogramBin = z.object({ from: z.number(), to: z.number(), tasks: count });

export const modelStats = z.object({
  tasks: count,
  samples: count,
  histogram: list(histogramBin),
  bands: bandCounts,
  signal_share: share,
  changed: list(z.extend(taskRef, { from: z.nullable(band), to: z.nullable(band) })),
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
  results: z.optional(list(z.extend(taskRef, { model: text, samples: count, pass_rate: share, band: z.nullable(band) }))),
  duplicates: list(z.object({ a: taskRef, b: taskRef, similarity: share, exact: z.boolean() })),
  contamination: list(z.extend(taskRef, { benchmark_row: count, overlap: text, benchmark: z.optional(text) })),
});

export const toDashboard = z.discriminatedUnion('type', [
  /** The dataset's statistics, fresh: the page redraws from them, keeping its place. */
  z.object({ type: z.literal('stats'), stats: datasetStats, folder: z.optional(text) }),
  /** The host is reading the files (after a change, or the first time). */
  z.object({ type: z.literal('busy'), text }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text }),
]);

export const fromDashboard = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('refresh') }),
  /** Open a task (or, without `task`, a file) as the stats name it. */
  z.object({ type: z.literal('open'), file: text, task: z.optional(text) }),
]);

export type DatasetStatsView = z.infer<typeof datasetStats>;
export type ToDashboard = z.infer<typeof toDashboard>;
export type FromDashboard = z.infer<typeof fromDashboard>;

// zod/mini, as the panel's protocol: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';

/**
 * The messages between the extension and the dataset table view (a `.parquet` file opened in
 * VS Code). The host validates what the page posts before acting on it; the page validates what
 * it gets. The page asks for row windows as it scrolls: the file is never sent whole.
 */

/** The most rows one window request may ask for (the core reads at most this many at once). */
export const MAX_WINDOW_ROWS = 500;

const text = z.string().check(z.maxLength(10_000));
const rowNumber = z.int().check(z.minimum(0));

export const rowResult = z.object({
  passRate: z.number(),
  band: z.optional(z.string()),
  samples: z.optional(z.int()),
  /** `file`: the pass rate an export recorded in the row; `run`: a run in the editor. */
  source: z.enum(['file', 'run']),
  /** Why the run says nothing of the row's task (the built-in demo model on a task it cannot do). */
  note: z.optional(text),
});

export const rowView = z.object({
  n: rowNumber,
  cells: z.array(text).check(z.maxLength(32)),
  error: z.optional(text),
  result: z.optional(rowResult),
});

export const datasetInfo = z.object({
  rows: z.int().check(z.minimum(0)),
  format: z.optional(z.string()),
  columns: z.array(z.string()).check(z.maxLength(32)),
  banner: z.optional(text),
});

export const toDataset = z.discriminatedUnion('type', [
  /** The file opened: what the table shows above and across its rows. */
  z.object({ type: z.literal('dataset'), file: z.string(), info: datasetInfo }),
  /** The file could not be opened (not Parquet, corrupt): shown instead of the table. */
  z.object({ type: z.literal('error'), file: z.string(), text }),
  /** Rows asked for by a window request. */
  z.object({ type: z.literal('rows'), rows: z.array(rowView).check(z.maxLength(MAX_WINDOW_ROWS)) }),
  /** A row's run started (`running`) or ended, with its pass rate when it has one. */
  z.object({
    type: z.literal('run'),
    n: rowNumber,
    running: z.boolean(),
    result: z.optional(rowResult),
    error: z.optional(text),
  }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text }),
]);

export const fromDataset = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Rows `start` up to `end` (exclusive). */
  z
    .object({ type: z.literal('window'), start: rowNumber, end: rowNumber })
    .check(z.refine((m) => m.end - m.start <= MAX_WINDOW_ROWS, `a window holds at most ${MAX_WINDOW_ROWS} rows`)),
  /** ▶ Run verifier on row `n`. */
  z.object({ type: z.literal('run'), n: rowNumber }),
  /** Open row `n` in the task panel. */
  z.object({ type: z.literal('open'), n: rowNumber }),
  z.object({ type: z.literal('convert') }),
]);

export type RowResultView = z.infer<typeof rowResult>;
export type RowView = z.infer<typeof rowView>;
export type DatasetInfoView = z.infer<typeof datasetInfo>;
export type ToDataset = z.infer<typeof toDataset>;
export type FromDataset = z.infer<typeof fromDataset>;

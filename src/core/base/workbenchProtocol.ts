// zod/mini, as the other pages' protocols: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';
import { rowSelection } from './rowSet';
import { samplesFromWorkbench, samplesToWorkbench } from './workbenchSamplesProtocol';

/**
 * The messages between the extension and the workbench page (one table of every task of a
 * dataset). The host validates what the page posts before acting on it; the page validates
 * what it gets. The page asks for windows of the current view as it scrolls: the index stays
 * in the host's worker thread.
 */

/** The most rows one window request may ask for. */
export const MAX_WORKBENCH_WINDOW = 500;
/** The most rows one range of the view selects (shift-click, select all matching). */
export const MAX_SELECTION_ROWS = 2_000_000;

const text = z.string().check(z.maxLength(10_000));
const rowNumber = z.int().check(z.minimum(0));
/** Numbers from the index: NaN and infinities never cross (JSON has none). */
const num = z.number();

const run = z.object({
  rate: num,
  band: z.enum(['too_easy', 'learnable', 'too_hard', 'error']),
  samples: z.int(),
  signal: z.nullable(num),
  tokens: z.optional(num),
  promptTokens: z.optional(num),
  cost: z.optional(num),
});

export const workbenchRow = z.object({
  n: rowNumber,
  id: text,
  file: text,
  line: z.int(),
  kind: z.nullable(z.string()),
  prompt: text,
  cases: z.int(),
  casesPassed: z.int(),
  casesFailed: z.int(),
  findings: z.int(),
  label: z.optional(text),
  error: z.optional(text),
  runs: z.array(z.nullable(run)).check(z.maxLength(64)),
});

/** What the workbench does to a whole selection, with progress and Cancel. */
const bulkAction = z.enum(['audit', 'export']);

const sort = z.object({ column: z.string().check(z.maxLength(300)), descending: z.optional(z.boolean()) });

export const toWorkbench = z.discriminatedUnion('type', [
  /** The dataset is read (again, after a run): its size, its models (the run columns) and its files. */
  z.object({
    type: z.literal('opened'),
    title: text,
    rows: rowNumber,
    models: z.array(text).check(z.maxLength(64)),
    files: rowNumber,
    notes: z.array(text).check(z.maxLength(100)),
  }),
  z.object({ type: z.literal('progress'), done: rowNumber, total: rowNumber }),
  /** The dataset cannot be read. */
  z.object({ type: z.literal('error'), text }),
  /** The view `seq` asked for holds `size` rows. */
  z.object({ type: z.literal('view'), seq: rowNumber, size: rowNumber }),
  /** The query of view `seq` cannot be read: why, and where in it. */
  z.object({ type: z.literal('queryError'), seq: rowNumber, error: text, at: rowNumber }),
  /** Rows of view `seq` from position `start`. */
  z.object({
    type: z.literal('rows'),
    seq: rowNumber,
    start: rowNumber,
    rows: z.array(workbenchRow).check(z.maxLength(MAX_WORKBENCH_WINDOW)),
  }),
  /** Rows to add to the selection (a shift-click's range, or every row of the view). */
  z.object({ type: z.literal('select'), rows: rowSelection }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text }),
  /** Labels were written: the page asks for its view again. */
  z.object({ type: z.literal('labelled'), changed: rowNumber }),
  ...samplesToWorkbench,
  /**
   * What a run of `rows` may cost (the sample budget, tokens and cost): the page asks the user,
   * and posts `run` again, `confirmed`, when they agree.
   */
  z.object({
    type: z.literal('confirmRun'),
    rows: rowSelection,
    samples: z.optional(z.int().check(z.minimum(1), z.maximum(10_000))),
    text,
  }),
  /** A bulk action on the selection is under way: tasks done of all (the page offers Cancel). */
  z.object({ type: z.literal('bulk'), action: bulkAction, done: rowNumber, total: rowNumber }),
  /** A bulk action ended (done, cancelled or failed): what it did. The page asks for its view again. */
  z.object({ type: z.literal('bulkDone'), action: bulkAction, level: z.enum(['info', 'warning', 'error']), text }),
  /** The task panel shows task `at` of the `count` selected tasks being stepped through. */
  z.object({ type: z.literal('stepping'), at: rowNumber, count: rowNumber, id: text }),
]);

export const fromWorkbench = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** A new view: the query typed and the sort. */
  z.object({
    type: z.literal('view'),
    seq: rowNumber,
    query: z.string().check(z.maxLength(2000)),
    sort: z.optional(sort),
  }),
  /** Positions `start` up to `end` (exclusive) of view `seq`. */
  z
    .object({ type: z.literal('window'), seq: rowNumber, start: rowNumber, end: rowNumber })
    .check(
      z.refine((m) => m.end - m.start <= MAX_WORKBENCH_WINDOW, `a window holds at most ${MAX_WORKBENCH_WINDOW} rows`),
    ),
  /** Select the rows at positions `start` up to `end` (exclusive) of the view (shift-click, select all matching). */
  z.object({ type: z.literal('selectRange'), start: rowNumber, end: rowNumber }),
  /** Set the review label of rows (the host asks which when `label` is absent), or clear it. */
  z.object({
    type: z.literal('label'),
    rows: rowSelection,
    label: z.optional(z.string().check(z.maxLength(100))),
    clear: z.optional(z.boolean()),
  }),
  /**
   * Run the rows' tasks with `samples` each (each task's own count when absent). The host says
   * the sample budget and cost first and runs once the user agrees (`confirmed`: already agreed).
   */
  z.object({
    type: z.literal('run'),
    rows: rowSelection,
    samples: z.optional(z.int().check(z.minimum(1), z.maximum(10_000))),
    confirmed: z.optional(z.boolean()),
  }),
  /** Open row `n`'s task where it is written. */
  z.object({ type: z.literal('open'), n: rowNumber }),
  ...samplesFromWorkbench,
  /** Audit the rows' tasks (`vtask audit`'s probes): findings in the table and a report. */
  z.object({ type: z.literal('audit'), rows: rowSelection }),
  /** Export the rows' tasks: the host asks for the format and the file. */
  z.object({ type: z.literal('export'), rows: rowSelection }),
  /** Stop the bulk action under way. */
  z.object({ type: z.literal('cancel') }),
  /** Open the rows' tasks in the task panel, the first one first. */
  z.object({ type: z.literal('openPanel'), rows: rowSelection }),
  /** Show the next (1) or previous (-1) of the tasks being stepped through in the panel. */
  z.object({ type: z.literal('step'), by: z.union([z.literal(1), z.literal(-1)]) }),
]);

export type WorkbenchRowMessage = z.infer<typeof workbenchRow>;
export type ToWorkbench = z.infer<typeof toWorkbench>;
export type FromWorkbench = z.infer<typeof fromWorkbench>;
export type SortMessage = z.infer<typeof sort>;

// zod/mini, as the other pages' protocols: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';
import { rowSelection } from './rowSet';

/**
 * The workbench's samples view: its messages, part of the workbench's protocol
 * (workbenchProtocol.ts). The page asks for the cached samples of the tasks its query shows (or
 * of its selection) in one state, gets their reason groups with counts, then windows of the
 * groups it opens. Samples are named by their place in the collection the host read (`collection`).
 */

/** The most samples one window carries. */
export const MAX_SAMPLE_WINDOW = 200;
/** The most samples one message names. */
export const MAX_NAMED_SAMPLES = 100_000;

const text = z.string().check(z.maxLength(10_000));
const count = z.int().check(z.minimum(0));
const group = z.string().check(z.maxLength(200));

export const sampleStates = z.enum(['all', 'failed', 'flipped', 'undecided', 'errored']);

export const listedSample = z.object({
  id: count,
  row: count,
  file: text,
  line: z.int(),
  task: text,
  model: text,
  index: count,
  pass: z.boolean(),
  score: z.number(),
  reason: text,
  error: z.optional(z.string().check(z.maxLength(100))),
  flip: z.optional(z.enum(['gained', 'lost'])),
  truncated: z.boolean(),
  group,
  preview: text,
});

/** What the host sends the samples view. */
export const samplesToWorkbench = [
  /** The samples of view `seq`: how many in each state, and the groups of the state asked for, largest first. */
  z.object({
    type: z.literal('samples'),
    seq: count,
    collection: count,
    total: count,
    counts: z.record(sampleStates, count),
    groups: z.array(z.object({ key: group, count })).check(z.maxLength(10_000)),
    notes: z.array(text).check(z.maxLength(100)),
  }),
  /** Samples of a group from position `start`. */
  z.object({
    type: z.literal('sampleItems'),
    seq: count,
    group,
    start: count,
    items: z.array(listedSample).check(z.maxLength(MAX_SAMPLE_WINDOW)),
  }),
  /** Samples were added as cases (`added` of them). */
  z.object({ type: z.literal('casesAdded'), added: count }),
] as const;

/** What the samples view asks of the host. */
export const samplesFromWorkbench = [
  /** The samples in `state` of the selection's tasks (`rows`), or of the view's; `fresh`: read them again. */
  z.object({
    type: z.literal('samples'),
    seq: count,
    state: sampleStates,
    rows: z.optional(rowSelection),
    fresh: z.optional(z.boolean()),
  }),
  /** Positions `start` up to `end` (exclusive) of a group of view `seq`. */
  z
    .object({
      type: z.literal('sampleWindow'),
      seq: count,
      collection: count,
      group,
      start: count,
      end: count,
    })
    .check(
      z.refine((m) => m.end - m.start <= MAX_SAMPLE_WINDOW, `a window holds at most ${MAX_SAMPLE_WINDOW} samples`),
    ),
  /**
   * Add a group's samples (or those named) as cases of their tasks, each expecting `expect`;
   * the host asks the user which verdict when absent, and confirms unless `confirmed`.
   */
  z.object({
    type: z.literal('addCases'),
    collection: count,
    group: z.optional(group),
    ids: z.optional(z.array(count).check(z.maxLength(MAX_NAMED_SAMPLES))),
    expect: z.optional(z.enum(['pass', 'fail'])),
    confirmed: z.optional(z.boolean()),
  }),
  /** Open the task of a sample (of row `row`): where it is written, or in the task panel with sample `index` selected. */
  z.object({ type: z.literal('openSample'), row: count, index: count, where: z.enum(['task', 'panel']) }),
] as const;

export type ListedSampleMessage = z.infer<typeof listedSample>;
export type SampleStateMessage = z.infer<typeof sampleStates>;

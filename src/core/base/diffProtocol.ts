// zod/mini, as the dashboard's protocol: the page's bundle keeps only what it uses.
import * as z from 'zod/mini';
import { MAX_ITEMS } from './dashboardProtocol';

/**
 * The messages between the extension and the Compare Runs page. The host sends the comparison
 * of two runs (`DatasetDiff`, the object of `vtask diff --json`, with files relative to the
 * workspace); the page sends back which task to open, or asks for another comparison. Both
 * sides validate what they receive.
 */

const text = z.string().check(z.maxLength(10_000));
const count = z.int().check(z.minimum(0));
const share = z.number().check(z.minimum(0), z.maximum(1));
const band = z.enum(['too_easy', 'learnable', 'too_hard', 'error']);
const outcome = z.enum(['pass', 'fail', 'undecided']);
const list = <T extends z.core.SomeType>(item: T) => z.array(item).check(z.maxLength(MAX_ITEMS));
const diffTask = { file: text, task: text, kind: text };

export const datasetDiff = z.object({
  a: text,
  b: text,
  tasks: count,
  only_a: count,
  only_b: count,
  band_flips: list(z.object({ ...diffTask, from: band, to: band, pass_rate_a: share, pass_rate_b: share })),
  sample_flips: list(z.object({ ...diffTask, sample: count, from: outcome, to: outcome })),
  kinds: z.record(
    z.string().check(z.maxLength(1000)),
    z.object({ tasks: count, band_flips: count, sample_flips: count }),
  ),
  flips: count,
  unread: z.optional(list(z.object({ side: z.enum(['a', 'b']), file: text, reason: text }))),
});

export const toDiff = z.discriminatedUnion('type', [
  /** The comparison; `samples` says whether both sides verified the samples (so their flips were looked for). */
  z.object({ type: z.literal('diff'), diff: datasetDiff, samples: z.boolean() }),
  /** The host is comparing (verifying cached samples again takes a while). */
  z.object({ type: z.literal('busy'), text }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text }),
]);

export const fromDiff = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Pick two other sides (the Compare Runs… quick picks). */
  z.object({ type: z.literal('again') }),
  /** Open a task as the comparison names it. */
  z.object({ type: z.literal('open'), file: text, task: text }),
]);

export type DatasetDiffView = z.infer<typeof datasetDiff>;
export type ToDiff = z.infer<typeof toDiff>;
export type FromDiff = z.infer<typeof fromDiff>;

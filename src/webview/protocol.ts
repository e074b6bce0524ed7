// zod/mini keeps the panel's bundle small; the schemas read the same as with zod.
import { z } from 'zod/mini';

/**
 * The messages between the extension and the task panel, in one place for both sides. The
 * host validates what the panel posts before acting on it; the panel validates what it gets.
 */
export const caseView = z.object({
  index: z.int(),
  name: z.optional(z.string()),
  response: z.string(),
  expected: z.string(),
  actual: z.optional(z.string()),
  ok: z.optional(z.boolean()),
  reason: z.optional(z.string()),
});

export const taskView = z.object({
  id: z.string(),
  file: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  verifier: z.object({ kind: z.string(), summary: z.string(), params: z.string() }),
  cases: z.array(caseView),
});

export const toPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('task'), task: taskView }),
  z.object({ type: z.literal('empty'), reason: z.string() }),
]);

export const fromPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('runCases') }),
  z.object({ type: z.literal('revealCase'), index: z.int().check(z.minimum(0)) }),
]);

export type TaskView = z.infer<typeof taskView>;
export type CaseView = z.infer<typeof caseView>;
export type ToPanel = z.infer<typeof toPanel>;
export type FromPanel = z.infer<typeof fromPanel>;

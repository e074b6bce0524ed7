// zod/mini, imported as a namespace so the bundler keeps only what is used: the panel's script
// is 45 KB instead of 450 KB. The schemas read the same as with zod.
import * as z from 'zod/mini';

/**
 * The messages between the extension and the task panel, in one place for both sides. The
 * host validates what the panel posts before acting on it; the panel validates what it gets.
 */

/** A key or index into the task's YAML, from the task's mapping down. */
export const nodePath = z
  .array(z.union([z.string().check(z.maxLength(500)), z.int().check(z.minimum(0))]))
  .check(z.maxLength(32));
/** A value from a form field; a megabyte is far more than any verifier parameter needs. */
export const scalar = z.union([z.string().check(z.maxLength(1_000_000)), z.number(), z.boolean(), z.null()]);
const taskName = z.string().check(z.maxLength(1000));

export const caseView = z.object({
  index: z.int(),
  name: z.optional(z.string()),
  response: z.string(),
  expected: z.string(),
  actual: z.optional(z.string()),
  ok: z.optional(z.boolean()),
  reason: z.optional(z.string()),
});

/**
 * One row of the verifier form. The form is the verifier's YAML laid out flat: headings for
 * mappings and list items (indented by depth), inputs for scalars, and "add" rows for lists.
 */
export const formRow = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('field'),
    path: nodePath,
    depth: z.int(),
    label: z.string(),
    doc: z.optional(z.string()),
    input: z.enum(['text', 'multiline', 'number', 'boolean', 'enum']),
    options: z.optional(z.array(z.string())),
    value: scalar,
    /** Set on the items of a list of scalars, which can be removed. */
    removable: z.optional(z.boolean()),
  }),
  z.object({
    type: z.literal('heading'),
    path: nodePath,
    depth: z.int(),
    label: z.string(),
    doc: z.optional(z.string()),
    removable: z.boolean(),
  }),
  z.object({ type: z.literal('add'), path: nodePath, depth: z.int(), label: z.string(), options: z.array(z.string()) }),
]);

/** One tool call of an agent sample as shown: arguments and the result or error, as JSON text. */
export const toolCallView = z.object({
  tool: z.string(),
  args: z.string(),
  result: z.optional(z.string()),
  error: z.optional(z.string()),
});

/** An agent sample's trajectory: per assistant turn its text and calls, why it stopped, the final state. */
export const trajectoryView = z.object({
  turns: z.array(z.object({ turn: z.int(), text: z.string(), calls: z.array(toolCallView) })),
  stop: z.enum(['final', 'max_turns', 'error']),
  error: z.optional(z.string()),
  /** The environment's final state as JSON text (cut when long); absent when it could not be read. */
  state: z.optional(z.string()),
  calls: z.int(),
  /** The turn a failed verdict points at (`details.turn` of the failing check), to highlight it. */
  failedTurn: z.optional(z.int()),
});

/** A verified sample. `answer` is the span of the text the verifier read as the answer. */
export const sampleView = z.object({
  index: z.int(),
  text: z.string(),
  /** True when `text` was cut for display (the verdict saw all of it). */
  clipped: z.boolean(),
  reasoning: z.optional(z.string()),
  pass: z.boolean(),
  score: z.number(),
  reason: z.string(),
  error: z.optional(z.string()),
  answer: z.optional(z.tuple([z.int(), z.int()])),
  /** How the verdict changed with the last verifier change: `gained` is fail → pass. */
  flip: z.optional(z.enum(['gained', 'lost'])),
  cached: z.boolean(),
  truncated: z.boolean(),
  /** An agent sample: its turns, calls and results. */
  trajectory: z.optional(trajectoryView),
});

export const statsView = z.object({
  samples: z.int(),
  passed: z.int(),
  /** Samples whose verifier could not decide: not in `samples`, never counted as fails. */
  undecided: z.int(),
  passRate: z.number(),
  meanScore: z.number(),
  passAtK: z.array(z.tuple([z.int(), z.number()])),
  interval: z.tuple([z.number(), z.number()]),
  band: z.string(),
  signalShare: z.number(),
  groupSize: z.int(),
});

export const runView = z.object({
  model: z.string(),
  stats: statsView,
  /** Flips since the previous verifier: counts of fail → pass and pass → fail. */
  flips: z.optional(z.object({ gained: z.int(), lost: z.int() })),
  /** Why sampling stopped early, when it did. */
  error: z.optional(z.string()),
  /** Why the model's results say nothing of the task (the built-in demo model on a task it cannot do). */
  note: z.optional(z.string()),
  /** False when the task's text changed since these samples were verified. */
  fresh: z.boolean(),
});

export const auditView = z.object({
  probes: z.int(),
  findings: z.array(
    z.object({
      probe: z.string(),
      severity: z.enum(['low', 'medium', 'high', 'critical']),
      expected: z.enum(['pass', 'fail']),
      verdict: z.enum(['pass', 'fail']),
      reason: z.string(),
      response: z.string(),
      /** Agent tasks: the tool calls replayed before the response, as JSON. */
      calls: z.optional(z.string()),
      /** The probe's response is a case of the task already: nothing to add. */
      isCase: z.optional(z.boolean()),
    }),
  ),
  /** Verifiers that close what the findings found, by title (the editor's quick fixes). */
  fixes: z.optional(z.array(z.string())),
  /** Samples another reading would pass (false-negative) or that name several answers (false-positive). */
  suspects: z.array(
    z.object({
      sample: z.int(),
      kind: z.enum(['false-negative', 'false-positive']),
      reading: z.string(),
      reason: z.string(),
    }),
  ),
  /** Why some probes could not run here (a judge without a model, code without the sandbox). */
  skipped: z.array(z.string()),
});

export const taskView = z.object({
  id: z.string(),
  file: z.string(),
  /** The file's URI, so a panel restored after a reload can find its task again. */
  uri: z.optional(z.string()),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  verifier: z.object({ kind: z.string(), summary: z.string() }),
  form: z.array(formRow),
  cases: z.array(caseView),
  run: z.optional(runView),
  samples: z.array(sampleView),
  /** Why the form cannot write the task back (a dataset row), when it cannot. */
  readOnly: z.optional(z.string()),
  /** The last audit of the task as it is now, when one ran. */
  audit: z.optional(auditView),
});

export const toPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('task'), task: taskView }),
  z.object({ type: z.literal('empty'), reason: z.string() }),
  /** New samples while sampling: appended to the list as they arrive. */
  z.object({
    type: z.literal('samples'),
    task: z.string(),
    uri: z.optional(z.string()),
    samples: z.array(sampleView),
    done: z.int(),
    total: z.int(),
  }),
  /** What the host is doing (sampling, re-verifying), or null when idle. */
  z.object({ type: z.literal('busy'), what: z.nullable(z.string()), cancellable: z.boolean() }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text: z.string() }),
  /** Select sample `index` of the task shown and scroll to it (a link from the workbench). */
  z.object({ type: z.literal('selectSample'), task: z.string(), index: z.int().check(z.minimum(0)) }),
]);

export const fromPanel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('runCases') }),
  z.object({ type: z.literal('revealCase'), index: z.int().check(z.minimum(0)) }),
  /** Sets the scalar at `path` to `value`; `old` is what the panel showed, to detect a file that changed. */
  z.object({ type: z.literal('edit'), task: taskName, path: nodePath, old: scalar, value: scalar }),
  /** Adds to the list or mapping at `path`: an instruction id, a verifier kind, a key, or an empty entry. */
  z.object({ type: z.literal('addItem'), task: taskName, path: nodePath, item: z.string().check(z.maxLength(200)) }),
  /** Removes the list item or optional key at `path`; `shown` is the row's identity as the panel showed it. */
  z.object({
    type: z.literal('removeItem'),
    task: taskName,
    path: nodePath,
    shown: z.string().check(z.maxLength(10_000)),
  }),
  z.object({
    type: z.literal('addCase'),
    task: taskName,
    sample: z.int().check(z.minimum(0)),
    expect: z.enum(['pass', 'fail']),
  }),
  /** `resample` replaces the samples with fresh ones; `more` adds as many again. */
  z.object({ type: z.literal('sample'), task: taskName, mode: z.enum(['resample', 'more']) }),
  z.object({ type: z.literal('cancel') }),
  /** Runs the audit's probes on the task (and looks for suspects among its samples). */
  z.object({ type: z.literal('audit'), task: taskName }),
  /** Writes a probe of the shown audit into the task's cases, with the verdict it should get. */
  z.object({ type: z.literal('addProbeCase'), task: taskName, probe: z.string().check(z.maxLength(200)) }),
  /** Replaces the task's verifier by the fix of the shown audit with this title. */
  z.object({ type: z.literal('applyFix'), task: taskName, title: z.string().check(z.maxLength(300)) }),
]);

/**
 * What identifies a row to the author: a heading's label, a field's label and value. A removal
 * names it, so a row that changed in the file since the panel showed it is never removed.
 */
export function rowIdentity(row: FormRow): string {
  return row.type === 'field' ? `${row.label}=${JSON.stringify(row.value)}` : row.label;
}

export type TaskView = z.infer<typeof taskView>;
export type FormRow = z.infer<typeof formRow>;
export type SampleView = z.infer<typeof sampleView>;
export type TrajectoryView = z.infer<typeof trajectoryView>;
export type ToolCallView = z.infer<typeof toolCallView>;
export type StatsView = z.infer<typeof statsView>;
export type AuditView = z.infer<typeof auditView>;
export type { NodePath } from './nodePath';
export type Scalar = z.infer<typeof scalar>;
export type ToPanel = z.infer<typeof toPanel>;
export type FromPanel = z.infer<typeof fromPanel>;

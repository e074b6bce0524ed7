import type { CaseResult } from '../run/cases';
import type { TaskRunResult } from '../run/sampleTasks';
import type { TaskEntry } from '../taskfile/parse';
import type { TaskSpec } from '../taskfile/resolve';
import { kindOf } from '../verifiers/verify';
import type { TaskView } from '../base/panelProtocol';
import { verifierForm } from './form';
import { DISPLAY_CHARS, sampleView, statsView, type Reverified } from './samples';

/** What the panel knows of a task's samples: the run shown and, after a re-verification, what flipped. */
export interface ShownRun {
  readonly run: TaskRunResult;
  readonly flips?: Pick<Reverified, 'before' | 'gained' | 'lost'>;
  /** False when the task's prompt or sampling changed since the samples were taken. */
  readonly fresh: boolean;
  /** Whether the workspace was trusted when the verdicts were given. */
  readonly trusted?: boolean;
}

/** How the panel names a task in messages: its id, or its place for a task without one. */
export function taskKey(entry: TaskEntry): string {
  return entry.id ?? `task ${entry.index + 1}`;
}

const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);

/**
 * The task as the panel shows it. A task with errors still gets its form (from its YAML) so the
 * author can fix it there. `file` is the path to show (relative to the workspace).
 */
export function panelTaskView(
  file: string,
  entry: TaskEntry,
  spec: TaskSpec | undefined,
  cases: readonly CaseResult[] | undefined,
  shown: ShownRun | undefined,
): TaskView {
  const found = spec ? kindOf(spec.verify) : undefined;
  const before = shown?.flips?.before;
  return {
    id: taskKey(entry),
    file,
    messages: spec?.messages.map((m) => ({ role: m.role, content: m.content })) ?? [],
    verifier: !found
      ? { kind: '?', summary: 'The task has problems (see Problems); the form below still edits it.' }
      : 'error' in found
        ? { kind: '?', summary: found.error }
        : { kind: found.kind.kind, summary: found.kind.summary },
    form: verifierForm(entry.node).rows,
    cases: (spec?.cases ?? []).map((c) => {
      const r = cases?.find((x) => x.case === c.index);
      return {
        index: c.index,
        name: c.name,
        response: c.response.length > DISPLAY_CHARS ? `${c.response.slice(0, DISPLAY_CHARS)}…` : c.response,
        expected: label(c.expect),
        actual: r ? label(r.actual) : undefined,
        ok: r?.ok,
        reason: r?.verdict.reason,
      };
    }),
    ...(shown
      ? {
          run: {
            model: shown.run.model,
            stats: statsView(shown.run.stats),
            ...(shown.flips ? { flips: { gained: shown.flips.gained, lost: shown.flips.lost } } : {}),
            ...(shown.run.error ? { error: shown.run.error } : {}),
            ...(shown.run.note ? { note: shown.run.note } : {}),
            fresh: shown.fresh,
          },
        }
      : {}),
    samples: shown?.run.samples.map((s) => sampleView(s, before?.get(s.index))) ?? [],
  };
}

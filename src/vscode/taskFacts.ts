import * as vscode from 'vscode';
import type { Band } from '../core/stats';
import type { ResultStore } from './results';
import type { IndexedTask } from './taskIndex';

/** What a task's duplicates are, as the duplicate diagnostics found them. */
export interface DuplicateSource {
  /** How many other tasks share (nearly) this task's prompt, or a benchmark does. */
  duplicatesOf(uri: vscode.Uri, taskId: string): number;
  readonly onDidChange: vscode.Event<readonly vscode.Uri[]>;
}

/** Where bands of runs outside the editor come from (the run log of `vtask run`). */
export interface RunLogSource {
  bandsOf(uri: vscode.Uri, taskId: string): ReadonlyMap<string, Band | null>;
  readonly onDidChange: vscode.Event<void>;
}

export const AUDIT_SOURCE = 'vtask audit';

/**
 * What the overview says of one task beyond its text: its band per model (the editor's runs
 * over the run log's, since they are newer), its failing cases and its audit findings.
 */
export class TaskFacts {
  constructor(
    private readonly results: ResultStore,
    private readonly runLog?: RunLogSource,
    private readonly duplicates?: DuplicateSource,
  ) {}

  /** Bands by model label; a null band is a run that took no sample. */
  bands(uri: vscode.Uri, taskId: string): Map<string, Band | null> {
    const out = new Map(this.runLog?.bandsOf(uri, taskId) ?? []);
    const run = this.results.get(uri, taskId)?.run;
    if (run) out.set(modelOfRun(run.model), run.stats.samples > 0 ? run.stats.band : null);
    return out;
  }

  /** Cases that failed in their last run in the editor. */
  failingCases(uri: vscode.Uri, taskId: string): number {
    return this.results.get(uri, taskId)?.cases?.filter((c) => !c.ok && !c.skipped).length ?? 0;
  }

  duplicatesOf(uri: vscode.Uri, taskId: string): number {
    return this.duplicates?.duplicatesOf(uri, taskId) ?? 0;
  }

  /** The lines of a file's audit findings (the audit's diagnostics stay where it put them). */
  auditLines(uri: vscode.Uri): number[] {
    return vscode.languages.getDiagnostics(uri).filter((d) => d.source === AUDIT_SOURCE).map((d) => d.range.start.line);
  }
}

/**
 * The label of a run's model as the run log gives it: a run names its profile `name (model)`;
 * the log names a profile by its name, an ad-hoc one by its model.
 */
export function modelOfRun(model: string): string {
  const m = /^(.+?) \((.*)\)$/.exec(model);
  if (!m) return model;
  return m[1] === '--base-url' || m[1] === 'OPENAI_BASE_URL' ? (m[2] as string) : (m[1] as string);
}

/** Whether one of `lines` is inside the task. */
export function hasLineIn(lines: readonly number[], t: IndexedTask): boolean {
  return lines.some((l) => l >= t.start && l < t.end);
}

import * as vscode from 'vscode';
import type { RunsByModel } from '../core/overview/runlog/runLogIndex';
import type { TaskRunResult } from '../core/run/sampleTasks';
import type { Band } from '../core/stats';
import type { ResultStore } from './results';
import type { IndexedTask } from './taskIndex';
import { at } from '../core/util/must';

/** What a task's duplicates and benchmark overlaps are, as the duplicate diagnostics found them. */
export interface DuplicateSource {
  /** How many other tasks share (nearly) this task's prompt. */
  duplicatesOf(uri: vscode.Uri, taskId: string): number;
  /** How many benchmarks share a long span with this task's prompt. */
  contaminationOf(uri: vscode.Uri, taskId: string): number;
  readonly onDidChange: vscode.Event<readonly vscode.Uri[]>;
}

/** Where runs outside the editor come from (the run log of `vtask run`). */
export interface RunLogSource {
  /** The task's latest run of each model, fresh or not. */
  runsOf(uri: vscode.Uri, taskId: string): RunsByModel;
  readonly onDidChange: vscode.Event<string>;
}

export const AUDIT_SOURCE = 'vtask audit';

/** A run of the built-in demo model on a task it cannot do, in place of a band. */
const CANNOT = 'cannot';

/**
 * What the overview says of one task beyond its text: its band per model (the editor's runs
 * over the run log's, since they are newer), its failing cases, duplicates and audit findings.
 * A run counts only while the task is the one it ran: recorded under the task's current run key
 * (`vtask stats` leaves the others out as stale too).
 */
export class TaskFacts {
  constructor(
    private readonly results: ResultStore,
    private readonly runLog?: RunLogSource,
    private readonly duplicates?: DuplicateSource,
  ) {}

  /** Bands of the task's fresh runs, by model label; a null band is a run that took no sample. */
  bands(uri: vscode.Uri, task: IndexedTask): Map<string, Band | null> {
    const out = new Map<string, Band | null>();
    for (const [model, band] of this.freshRuns(uri, task)) if (band !== CANNOT) out.set(model, band);
    return out;
  }

  /**
   * The models whose fresh run is the built-in demo model's of a task it cannot do (its run has a
   * `note`): such a run says nothing of the task, so it is in no band (as `vtask stats` counts it).
   */
  cannot(uri: vscode.Uri, task: IndexedTask): string[] {
    return [...this.freshRuns(uri, task)].filter(([, band]) => band === CANNOT).map(([model]) => model);
  }

  /** Each model's fresh run: its band, or CANNOT (the editor's runs over the log's, being newer). */
  private freshRuns(uri: vscode.Uri, task: IndexedTask): Map<string, Band | null | typeof CANNOT> {
    const out = new Map<string, Band | null | typeof CANNOT>();
    for (const [model, e] of this.runLog?.runsOf(uri, task.id) ?? [])
      if (e.latest.key === task.runKey) out.set(model, e.latest.note !== undefined ? CANNOT : e.latest.band);
    for (const r of this.editorRuns(uri, task.id))
      if (r.runKey === task.runKey)
        out.set(r.model, r.run.note ? CANNOT : r.run.samples.length > 0 || r.run.error ? r.run.stats.band : null);
    return out;
  }

  /** The models whose latest run is of an older version of the task (and has no fresh one). */
  staleModels(uri: vscode.Uri, task: IndexedTask): string[] {
    const fresh = this.bands(uri, task);
    const stale = new Set<string>();
    for (const [model, e] of this.runLog?.runsOf(uri, task.id) ?? [])
      if (e.latest.key !== task.runKey) stale.add(model);
    for (const r of this.editorRuns(uri, task.id)) if (r.runKey !== task.runKey) stale.add(r.model);
    return [...stale].filter((m) => !fresh.has(m));
  }

  /** The editor's last run of each model (a run of unknown model under the label its profile gives). */
  private editorRuns(
    uri: vscode.Uri,
    taskId: string,
  ): { model: string; run: TaskRunResult; runKey: string | undefined }[] {
    const r = this.results.get(uri, taskId);
    if (r?.runs) return [...r.runs.values()];
    return r?.run ? [{ model: modelOfRun(r.run.model), run: r.run, runKey: r.runKey }] : [];
  }

  /** Cases that failed in their last run in the editor. */
  failingCases(uri: vscode.Uri, taskId: string): number {
    return this.results.get(uri, taskId)?.cases?.filter((c) => !c.ok && !c.skipped).length ?? 0;
  }

  duplicatesOf(uri: vscode.Uri, taskId: string): number {
    return this.duplicates?.duplicatesOf(uri, taskId) ?? 0;
  }

  contaminationOf(uri: vscode.Uri, taskId: string): number {
    return this.duplicates?.contaminationOf(uri, taskId) ?? 0;
  }

  /** The lines of a file's audit findings (the audit's diagnostics stay where it put them). */
  auditLines(uri: vscode.Uri): number[] {
    return vscode.languages
      .getDiagnostics(uri)
      .filter((d) => d.source === AUDIT_SOURCE)
      .map((d) => d.range.start.line);
  }
}

/**
 * The label of a run's model as the run log gives it: a run names its profile `name (model)`;
 * the log names a profile by its name, an ad-hoc one by its model.
 */
export function modelOfRun(model: string): string {
  const m = /^(.+?) \((.*)\)$/.exec(model);
  if (!m) return model;
  return m[1] === '--base-url' || m[1] === 'OPENAI_BASE_URL' ? at(m, 2) : at(m, 1);
}

/** Whether one of `lines` is inside the task. */
export function hasLineIn(lines: readonly number[], t: IndexedTask): boolean {
  return lines.some((l) => l >= t.start && l < t.end);
}

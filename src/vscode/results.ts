import * as vscode from 'vscode';
import type { CaseResult } from '../core/run/cases';
import type { TaskRunResult } from '../core/run/sampleTasks';
import type { TaskEntry, TaskFile } from '../core/taskfile/parse';
import { resultKeysOf } from '../core/run/resultKeys';

export { resultKeys, resultKeysOf, type ResultKeys } from '../core/run/resultKeys';

/** One model's last run of a task. */
export interface ModelRun {
  /** The model's label (`modelLabel`). */
  readonly model: string;
  readonly run: TaskRunResult;
  readonly runKey: string;
  readonly at: Date;
}

/** What the editor knows of one task: its last sampling run (of each model) and its last case run. */
export interface TaskResults {
  /** The last run, whatever its model, and the key of the task it was made for (see `ResultKeys`). */
  readonly run?: TaskRunResult;
  readonly runKey?: string;
  /** The model of `run`, when known. */
  readonly model?: string;
  /** The last run of each model, by label. */
  readonly runs?: ReadonlyMap<string, ModelRun>;
  readonly cases?: readonly CaseResult[];
  readonly casesKey?: string;
}

/**
 * The results per document and task id: the one place the lenses, the decorations, the panel
 * and the Test Explorer read them from. Results outlive edits: they read as stale while the
 * task differs from the one they were made for, and fresh again when it comes back.
 */
export class ResultStore implements vscode.Disposable {
  private readonly byDoc = new Map<string, Map<string, TaskResults>>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly casesEmitter = new vscode.EventEmitter<{
    uri: vscode.Uri;
    taskId: string;
    cases: readonly CaseResult[];
  }>();
  /** Fires when a task's cases ran, whoever ran them. */
  readonly onDidSetCases = this.casesEmitter.event;

  get(uri: vscode.Uri, taskId: string): TaskResults | undefined {
    return this.byDoc.get(uri.toString())?.get(taskId);
  }

  /** The task's run when it describes the task as it is now. */
  freshRun(uri: vscode.Uri, file: TaskFile, entry: TaskEntry): TaskRunResult | undefined {
    const r = entry.id === undefined ? undefined : this.get(uri, entry.id);
    return r?.run && r.runKey === resultKeysOf(file, entry).run ? r.run : undefined;
  }

  /** The task's case results when they describe the task as it is now. */
  freshCases(uri: vscode.Uri, file: TaskFile, entry: TaskEntry): readonly CaseResult[] | undefined {
    const r = entry.id === undefined ? undefined : this.get(uri, entry.id);
    return r?.cases && r.casesKey === resultKeysOf(file, entry).cases ? r.cases : undefined;
  }

  /**
   * The runs of every model that describe the task as it is now, latest first; the one a summary
   * shows (`own`, the task's own model, when it has one; else the latest) comes first.
   */
  freshModelRuns(uri: vscode.Uri, file: TaskFile, entry: TaskEntry, own?: string): ModelRun[] {
    const r = entry.id === undefined ? undefined : this.get(uri, entry.id);
    if (!r?.runs) return [];
    const key = resultKeysOf(file, entry).run;
    const fresh = [...r.runs.values()].filter((m) => m.runKey === key).sort((a, b) => b.at.getTime() - a.at.getTime());
    const i = fresh.findIndex((m) => m.model === own);
    if (i > 0) fresh.unshift(...fresh.splice(i, 1));
    return fresh;
  }

  /** Records a run; `model` (its label) keeps it beside other models' runs; without it the run replaces the latest one's. */
  setRun(uri: vscode.Uri, taskId: string, runKey: string, run: TaskRunResult, model?: string): void {
    this.update(uri, taskId, (old) => {
      const label = model ?? old?.model;
      if (label === undefined) return { ...old, run, runKey };
      const runs = new Map(old?.runs);
      runs.set(label, { model: label, run, runKey, at: new Date() });
      return { ...old, run, runKey, model: label, runs };
    });
  }

  setCases(uri: vscode.Uri, taskId: string, casesKey: string, cases: readonly CaseResult[]): void {
    this.update(uri, taskId, (old) => ({ ...old, cases, casesKey }));
    this.casesEmitter.fire({ uri, taskId, cases });
  }

  private update(uri: vscode.Uri, taskId: string, fn: (old: TaskResults | undefined) => TaskResults): void {
    let m = this.byDoc.get(uri.toString());
    if (!m) this.byDoc.set(uri.toString(), (m = new Map()));
    m.set(taskId, fn(m.get(taskId)));
    this.emitter.fire(uri);
  }

  dispose(): void {
    this.emitter.dispose();
    this.casesEmitter.dispose();
  }
}

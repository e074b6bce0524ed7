import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { CaseResult } from '../core/run/cases';
import type { TaskRunResult } from '../core/run/sampleTasks';
import type { TaskEntry, TaskFile } from '../core/taskfile/parse';

/** What the editor knows of one task: its last sampling run and its last case run. */
export interface TaskResults {
  /** Hash of the task's text when the results were made: they are stale when it differs. */
  readonly textHash: string;
  readonly run?: TaskRunResult;
  readonly cases?: readonly CaseResult[];
}

/** The hash of a task's text, which decides whether results still describe it. */
export function taskHash(file: TaskFile, entry: TaskEntry): string {
  return createHash('sha1').update(file.text.slice(entry.offset, entry.offset + entry.length).trimEnd()).digest('hex');
}

/**
 * The results per document and task id. Results outlive edits: they read as stale while the
 * task's text differs from when they were made, and fresh again when the text comes back.
 */
export class ResultStore implements vscode.Disposable {
  private readonly byDoc = new Map<string, Map<string, TaskResults>>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  get(uri: vscode.Uri, taskId: string): TaskResults | undefined {
    return this.byDoc.get(uri.toString())?.get(taskId);
  }

  /** Whether results exist and describe the task as it is now. */
  isFresh(uri: vscode.Uri, file: TaskFile, entry: TaskEntry): boolean {
    const r = entry.id === undefined ? undefined : this.get(uri, entry.id);
    return r !== undefined && r.textHash === taskHash(file, entry);
  }

  setRun(uri: vscode.Uri, taskId: string, textHash: string, run: TaskRunResult): void {
    this.update(uri, taskId, (old) => ({ textHash, run, cases: old?.textHash === textHash ? old.cases : undefined }));
  }

  setCases(uri: vscode.Uri, taskId: string, textHash: string, cases: readonly CaseResult[]): void {
    // One hash describes both results: a run of older text must not read as fresh with them.
    this.update(uri, taskId, (old) => ({ textHash, cases, run: old?.textHash === textHash ? old.run : undefined }));
  }

  private update(uri: vscode.Uri, taskId: string, fn: (old: TaskResults | undefined) => TaskResults): void {
    let m = this.byDoc.get(uri.toString());
    if (!m) this.byDoc.set(uri.toString(), (m = new Map()));
    m.set(taskId, fn(m.get(taskId)));
    this.emitter.fire(uri);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

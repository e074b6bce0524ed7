import type * as vscode from 'vscode';
import type { TaskFile } from '../core/taskfile/parse';
import type { DatasetView } from './datasetEditor';
import type { Decorations } from './decorations';
import type { Overview } from './overview';
import type { TaskResults } from './results';
import type { Workbench } from './workbench';

/** What `activate` returns: read-only views for integration tests and other extensions. */
export interface VtaskApi {
  readonly version: string;
  /** The parsed file as the extension sees it now. */
  parse(doc: vscode.TextDocument): TaskFile;
  /** Milliseconds the last (incremental) parse of the document took. */
  lastParseMs(doc: vscode.TextDocument): number | undefined;
  /** The last results of a task (run and cases), as the lenses and decorations show them. */
  results(uri: vscode.Uri, taskId: string): TaskResults | undefined;
  /** Restores a document's results from the sample cache; resolves to the tasks restored. */
  restore(doc: vscode.TextDocument): Promise<number>;
  /** The decorations a document gets now, as data. */
  decorations(doc: vscode.TextDocument): ReturnType<Decorations['compute']>;
  /** The state the Test Explorer shows for each case of a task, in case order. */
  caseStates(uri: vscode.Uri, taskId: string): (string | undefined)[];
  /** The Test Explorer's items: each file's path and whether its tasks are read yet. */
  testFiles(): Promise<{ file: string; read: boolean }[]>;
  /** The Test Explorer's failure message of each case of a task (none for a pass), in case order. */
  caseMessages(uri: vscode.Uri, taskId: string): (vscode.TestMessage | undefined)[];
  /** Whether the task is being sampled (its lens says "sampling…"). */
  isRunning(uri: vscode.Uri, taskId: string): boolean;
  /** The text of the background-failure status item while it shows. */
  failureStatus(): string | undefined;
  /** The table view of an open `.parquet` file: its message handler and what it posted. */
  datasetView(uri: vscode.Uri): Pick<DatasetView, 'handle' | 'posted' | 'onDidPost'> | undefined;
  /** The open workbench of a folder or file: its message handler, its index, what it posted, its bulk actions. */
  workbench(uri: vscode.Uri): Pick<Workbench, 'handle' | 'posted' | 'onDidPost' | 'request' | 'bulk'> | undefined;
  /** The vtask view's tree, the duplicate diagnostics and the dashboard (for tests). */
  readonly overview: Overview;
  /** The extension's log folder (the extension host's own log is two levels up). */
  readonly logUri: vscode.Uri;
}

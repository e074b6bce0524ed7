import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Dashboard } from './dashboard';
import { DatasetTree } from './datasetTree';
import { registerDiffView } from './diffView';
import { DuplicateDiagnostics } from './duplicateDiagnostics';
import type { ResultStore } from './results';
import { RunLogs } from './runLogs';
import { TaskFacts } from './taskFacts';
import type { TaskDocuments } from './taskDocuments';
import { TaskIndex } from './taskIndex';

export interface OverviewServices {
  readonly extensionUri: vscode.Uri;
  readonly documents: TaskDocuments;
  readonly results: ResultStore;
  readonly log: vscode.LogOutputChannel;
}

/** What the overview gives the extension's API (for tests). */
export interface Overview {
  readonly tree: DatasetTree;
  readonly duplicates: DuplicateDiagnostics;
  readonly index: TaskIndex;
  dashboard(): Dashboard | undefined;
}

/** The long reads and searches run in a thread of their own: the bundled worker, when it is built. */
export function overviewWorkerScript(extensionUri: vscode.Uri): string | undefined {
  const script = path.join(extensionUri.fsPath, 'out', 'overviewWorker.js');
  return fs.existsSync(script) ? script : undefined;
}

/**
 * The dataset at a glance: the vtask view's tree of task files, the dataset dashboard and the
 * duplicate and contamination diagnostics, over one index of the workspace's task files.
 */
export function registerOverview(s: OverviewServices): {
  overview: Overview;
  runLogs: RunLogs;
  disposables: vscode.Disposable[];
} {
  const index = new TaskIndex(s.documents);
  const worker = overviewWorkerScript(s.extensionUri);
  const duplicates = new DuplicateDiagnostics(index, s.log, worker);
  const runLogs = new RunLogs(s.log, worker);
  const facts = new TaskFacts(s.results, runLogs, duplicates);
  const changed = new vscode.EventEmitter<readonly vscode.Uri[]>();
  const tree = new DatasetTree(index, facts, s.results, changed.event);
  const disposables: vscode.Disposable[] = [
    index,
    duplicates,
    runLogs,
    changed,
    duplicates.onDidChange((uris) => changed.fire(uris)),
    // A run log written elsewhere may touch any file: everything is drawn again.
    runLogs.onDidChange(() => tree.refresh(undefined)),
    ...tree.register(),
    vscode.commands.registerCommand('vtask.openDashboard', () =>
      Dashboard.createOrShow({ extensionUri: s.extensionUri, index, runLogs, duplicates, log: s.log }),
    ),
    { dispose: () => Dashboard.current?.dispose() },
    ...registerDiffView({ extensionUri: s.extensionUri, index, runLogs, log: s.log }),
  ];
  return { overview: { tree, duplicates, index, dashboard: () => Dashboard.current }, runLogs, disposables };
}

import * as vscode from 'vscode';
import { isRowTaskFile } from '../core/datasets/rowTasks';
import { runnableTasks } from '../core/taskfile/resolve';
import { toRange } from './convert';
import type { ResultStore } from './results';
import { onDidChangeSettings, settingsFor } from './settings';
import type { TaskDocuments } from './taskDocuments';
import type { TaskRunner } from './taskRunner';
import { plural } from '../core/util/plural';

/**
 * Lenses over every task: run the verifier on N samples, run the cases, open the panel; and
 * at the top of the file, run everything (saying how many requests that may make). A task with
 * errors keeps its lenses, greyed (no command), so the text does not jump while one types.
 */
export class CodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  constructor(
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
    private readonly runner: TaskRunner,
  ) {
    this.disposables.push(
      results.onDidChange(() => this.emitter.fire()),
      runner.onDidChangeRunning(() => this.emitter.fire()),
      // `vtask.codeLens.enabled` and `vtask.samples` change what the lenses say.
      onDidChangeSettings(() => this.emitter.fire()),
      documents.onDidChangeWindow(() => this.emitter.fire()),
    );
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const settings = settingsFor(doc.uri);
    if (!settings.codeLensEnabled) return [];
    const file = this.documents.get(doc);
    const { tasks } = runnableTasks(file);
    const lenses: vscode.CodeLens[] = [];
    // Rows: one lens line per row. Run all would run only the rows read around the view.
    const rows = isRowTaskFile(file);
    if (tasks.length > 0 && !rows) {
      const top = new vscode.Range(0, 0, 0, 0);
      const requests = tasks.reduce((a, t) => a + (settings.samples ?? t.sampling.samples), 0);
      lenses.push(
        new vscode.CodeLens(top, {
          title: `▶ Run all (${plural(tasks.length, 'task')}, up to ${plural(requests, 'sample')})`,
          command: 'vtask.runAll',
          arguments: [doc.uri],
        }),
      );
    }
    const runnable = new Map(tasks.map((t) => [t.index, t]));
    for (const entry of file.tasks) {
      const range = toRange(file.lines, entry.offset, entry.offset);
      const t = runnable.get(entry.index);
      // A row's lens line names it: the row itself is one long line of JSON.
      if (rows && entry.id !== undefined) lenses.push(new vscode.CodeLens(range, { title: entry.id, command: '' }));
      if (!t) {
        // Greyed: a lens with no command is shown as plain text.
        lenses.push(
          new vscode.CodeLens(range, {
            title: rows ? 'Run verifier (the row has errors)' : 'Run verifier (fix errors first)',
            command: '',
          }),
        );
        if (entry.id !== undefined)
          lenses.push(
            new vscode.CodeLens(range, {
              title: 'Open panel',
              command: 'vtask.openPanel',
              arguments: [doc.uri, entry.id],
            }),
          );
        continue;
      }
      if (this.runner.isRunning(doc.uri, t.id)) {
        lenses.push(new vscode.CodeLens(range, { title: '$(sync~spin) sampling…', command: '' }));
        lenses.push(
          new vscode.CodeLens(range, { title: 'Cancel', command: 'vtask.cancelTask', arguments: [doc.uri, t.id] }),
        );
      } else {
        lenses.push(
          new vscode.CodeLens(range, {
            title: `▶ Run verifier (${settings.samples ?? t.sampling.samples})`,
            command: 'vtask.runTask',
            arguments: [doc.uri, t.id],
          }),
        );
      }
      if (t.cases.length) {
        const r = this.results.freshCases(doc.uri, file, entry);
        const ok = r?.filter((c) => c.ok).length ?? 0;
        const title = r ? `Cases ${ok}/${r.length} ${ok === r.length ? '✓' : '✗'}` : `Run cases (${t.cases.length})`;
        lenses.push(new vscode.CodeLens(range, { title, command: 'vtask.runCases', arguments: [doc.uri, t.id] }));
      }
      lenses.push(
        new vscode.CodeLens(range, { title: 'Open panel', command: 'vtask.openPanel', arguments: [doc.uri, t.id] }),
      );
      // Rows are audited from their task file or with `vtask audit`: a probe cannot become a case in a row.
      if (!rows)
        lenses.push(
          new vscode.CodeLens(range, {
            title: 'Audit',
            tooltip: 'Probe the verifier with answers it must fail or pass (no model)',
            command: 'vtask.auditTask',
            arguments: [doc.uri, t.id],
          }),
        );
    }
    return lenses;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

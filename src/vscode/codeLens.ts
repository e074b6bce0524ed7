import * as vscode from 'vscode';
import { runnableTasks } from '../core/taskfile/resolve';
import { toRange } from './convert';
import type { ResultStore } from './results';
import type { TaskDocuments } from './taskDocuments';
import type { TaskRunner } from './taskRunner';

/**
 * Lenses over every task: run the verifier on N samples, run the cases, open the panel; and
 * at the top of the file, run everything (saying how many requests that may make).
 */
export class CodeLensProvider implements vscode.CodeLensProvider {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;

  constructor(
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
    private readonly runner: TaskRunner,
  ) {
    results.onDidChange(() => this.emitter.fire());
    runner.onDidChangeRunning(() => this.emitter.fire());
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.getConfiguration('vtask', doc.uri).get<boolean>('codeLens.enabled', true)) return [];
    const file = this.documents.get(doc);
    const { tasks } = runnableTasks(file);
    const lenses: vscode.CodeLens[] = [];
    const samplesSetting = vscode.workspace.getConfiguration('vtask').get<number>('samples');
    if (tasks.length > 0) {
      const top = new vscode.Range(0, 0, 0, 0);
      const requests = tasks.reduce((a, t) => a + (samplesSetting ?? t.sampling.samples), 0);
      lenses.push(new vscode.CodeLens(top, { title: `▶ Run all (${tasks.length} tasks, up to ${requests} samples)`, command: 'vtask.runAll', arguments: [doc.uri] }));
    }
    for (const t of tasks) {
      const range = toRange(file.lines, t.offset, t.offset);
      if (this.runner.isRunning(doc.uri, t.id)) {
        lenses.push(new vscode.CodeLens(range, { title: '$(sync~spin) sampling…', command: '' }));
        lenses.push(new vscode.CodeLens(range, { title: 'Cancel', command: 'vtask.cancelTask', arguments: [doc.uri, t.id] }));
      } else {
        lenses.push(new vscode.CodeLens(range, { title: `▶ Run verifier (${samplesSetting ?? t.sampling.samples})`, command: 'vtask.runTask', arguments: [doc.uri, t.id] }));
      }
      if (t.cases.length) {
        const entry = file.tasks[t.index];
        const r = this.results.get(doc.uri, t.id)?.cases;
        const fresh = entry && this.results.isFresh(doc.uri, file, entry);
        const ok = r?.filter((c) => c.ok).length ?? 0;
        const title = r && fresh ? `Cases ${ok}/${r.length} ${ok === r.length ? '✓' : '✗'}` : `Run cases (${t.cases.length})`;
        lenses.push(new vscode.CodeLens(range, { title, command: 'vtask.runCases', arguments: [doc.uri, t.id] }));
      }
      lenses.push(new vscode.CodeLens(range, { title: 'Open panel', command: 'vtask.openPanel', arguments: [doc.uri, t.id] }));
    }
    return lenses;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

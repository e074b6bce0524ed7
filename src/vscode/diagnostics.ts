import * as vscode from 'vscode';
import { backgroundFailure } from './backgroundFailure';
import { missingFileIssues } from '../core/taskfile/referencedFiles';
import { toDiagnostic } from './convert';
import { withheldIssues } from '../core/sampling/trust';
import { onDidChangeSettings, settingsFor } from './settings';
import { isTaskDocument, type TaskDocuments } from './taskDocuments';

/**
 * Publishes problems for open task files: at once when a file opens, and after a short pause
 * in typing while it changes, so validation never competes with keystrokes.
 */
export class Diagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('vtask');
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(
    private readonly documents: TaskDocuments,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.validateNow(d)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      // Rows of a large dataset are read around what is shown: scrolling reads others.
      documents.onDidChangeWindow((d) => this.schedule(d)),
      // What the user allows changed: the warnings at profiles follow.
      onDidChangeSettings((e) => {
        if (e.affectsConfiguration('vtask.trustedEndpoints'))
          for (const d of vscode.workspace.textDocuments) this.schedule(d);
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        for (const d of vscode.workspace.textDocuments) this.schedule(d);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.cancel(d);
        this.collection.delete(d.uri);
      }),
    );
    for (const d of vscode.workspace.textDocuments) this.validateNow(d);
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!isTaskDocument(doc)) return;
    this.cancel(doc);
    const delay = settingsFor(doc.uri).debounceMs;
    this.timers.set(
      doc.uri.toString(),
      setTimeout(() => this.validateNow(doc), delay),
    );
  }

  private cancel(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  validateNow(doc: vscode.TextDocument): void {
    if (!isTaskDocument(doc) || doc.isClosed) return;
    try {
      const file = this.documents.get(doc);
      // An environment or script named by a file on disk must be next to it, as `vtask check` says;
      // a profile of the file that names secrets its endpoint may not receive is said at the profile.
      const missing = doc.uri.scheme === 'file' ? missingFileIssues(file, doc.uri.fsPath) : [];
      const issues = [...file.issues, ...missing, ...withheldIssues(file.parts)];
      this.collection.set(
        doc.uri,
        issues.map((i) => toDiagnostic(file.lines, i)),
      );
    } catch (e) {
      // A bug in validation must not take the editor down: report it and keep the old problems.
      backgroundFailure(this.log, `validating ${vscode.workspace.asRelativePath(doc.uri)}`, e);
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

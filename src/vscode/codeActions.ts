import * as vscode from 'vscode';
import { IssueDiagnostic } from './convert';
import type { TaskDocuments } from './taskDocuments';
import { toRange } from './convert';

/** Quick fixes for "did you mean" and quoting, straight from the issues' own fixes. */
export class CodeActionProvider implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly documents: TaskDocuments) {}

  provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const file = this.documents.get(doc);
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      // Diagnostics come back from the editor as plain objects; match them to current issues.
      const issue =
        d instanceof IssueDiagnostic
          ? d.issue
          : file.issues.find((i) => i.message === d.message && toRange(file.lines, i.start, i.end).isEqual(d.range));
      for (const fix of issue?.fixes ?? []) {
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(doc.uri, toRange(file.lines, fix.start, fix.end), fix.text);
        action.diagnostics = [d];
        action.isPreferred = issue?.fixes?.length === 1;
        actions.push(action);
      }
    }
    return actions;
  }
}

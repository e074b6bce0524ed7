import * as vscode from 'vscode';
import type { Issue } from '../core/base/issues';
import type { TextEdit } from '../core/edit/taskEdits';
import type { LineIndex } from '../core/taskfile/text';

// The one place where core offsets, edits and issues become VS Code types.

/** A core edit of `doc` as a WorkspaceEdit: applied, it is one step of Undo. */
export function workspaceEdit(doc: vscode.TextDocument, e: TextEdit): vscode.WorkspaceEdit {
  const we = new vscode.WorkspaceEdit();
  we.replace(doc.uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.text);
  return we;
}

export function toRange(lines: LineIndex, start: number, end: number): vscode.Range {
  const s = lines.position(start);
  const e = lines.position(end);
  return new vscode.Range(s.line, s.character, e.line, e.character);
}

const SEVERITY: Record<Issue['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** A diagnostic for an issue; its fixes travel along so quick fixes need not re-validate. */
export class IssueDiagnostic extends vscode.Diagnostic {
  constructor(
    range: vscode.Range,
    readonly issue: Issue,
  ) {
    super(range, issue.message, SEVERITY[issue.severity]);
    this.source = 'vtask';
    this.code = issue.code;
  }
}

export function toDiagnostic(lines: LineIndex, issue: Issue): IssueDiagnostic {
  return new IssueDiagnostic(toRange(lines, issue.start, issue.end), issue);
}

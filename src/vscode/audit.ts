import * as vscode from 'vscode';
import { auditTasks, findingCount, type Finding } from '../core/audit/audit';
import type { Severity } from '../core/audit/probe';
import { getPair } from '../core/base/ynode';
import { addCase } from '../core/edit/taskEdits';
import { replaceKey } from '../core/edit/replaceKey';
import { verifierFixes } from '../core/audit/fixes';
import { isCase } from '../core/panel/audit';
import { runnableTasks } from '../core/taskfile/resolve';
import { cut } from '../core/util/cut';
import { toRange, workspaceEdit } from './convert';
import type { TaskDocuments } from './taskDocuments';

const SOURCE = 'vtask audit';

const SEVERITY: Readonly<Record<Severity, vscode.DiagnosticSeverity>> = {
  critical: vscode.DiagnosticSeverity.Warning,
  high: vscode.DiagnosticSeverity.Warning,
  medium: vscode.DiagnosticSeverity.Information,
  low: vscode.DiagnosticSeverity.Hint,
};

interface Flagged {
  readonly taskId: string;
  readonly finding: Finding;
}

/**
 * The verifier audit in the editor: findings as diagnostics at each task's `verify:`, and a
 * quick fix that writes the probe into the task's cases, so the weakness stays tested once
 * the verifier is fixed. Findings describe the text they were found in: any edit of the file
 * clears them until the next audit.
 */
export class AuditFindings implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('vtask-audit');
  private readonly flagged = new WeakMap<vscode.Diagnostic, Flagged>();
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor(private readonly documents: TaskDocuments) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.collection.has(e.document.uri)) this.collection.delete(e.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.collection.delete(d.uri)),
    );
  }

  /** Audits the given tasks (all when `taskIds` is undefined) and shows what was found. */
  async audit(
    doc: vscode.TextDocument,
    taskIds?: readonly string[],
  ): Promise<{ task: string; findings: Finding[]; skipped: number }[]> {
    const file = this.documents.get(doc);
    const tasks = runnableTasks(file).tasks.filter((t) => !taskIds || taskIds.includes(t.id));
    const version = doc.version;
    const audits = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `vtask: auditing ${tasks.length === 1 ? tasks[0]?.id : `${tasks.length} tasks`}`,
        cancellable: true,
      },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return auditTasks(tasks, { file: doc.uri.fsPath, trusted: vscode.workspace.isTrusted, signal: abort.signal });
      },
    );
    // The file changed while the probes ran: their places are no longer known.
    if (doc.version !== version)
      return audits.map((a) => ({ task: a.task, findings: [...a.findings], skipped: a.skipped.length }));
    const audited = new Set(tasks.map((t) => t.id));
    const kept = (this.collection.get(doc.uri) ?? []).filter((d) => !audited.has(this.flagged.get(d)?.taskId ?? ''));
    const diagnostics: vscode.Diagnostic[] = [...kept];
    for (const a of audits) {
      const entry = file.tasks.find((e) => e.id === a.task);
      const key = entry?.node ? getPair(entry.node, 'verify')?.key : undefined;
      const range =
        entry && key
          ? toRange(file.lines, entry.offset + key.span[0], entry.offset + key.span[1])
          : toRange(file.lines, a.offset, a.offset + 1);
      for (const f of a.findings) {
        const calls = f.calls ? `\ncalls: ${cut(JSON.stringify(f.calls), 200)}` : '';
        const d = new vscode.Diagnostic(
          range,
          `audit (${f.severity}): probe ${f.probe} ${f.verdict === 'pass' ? 'passed' : 'failed'} but should ${f.expected}: ${f.reason}\nresponse: ${cut(JSON.stringify(f.response), 200)}${calls}`,
          SEVERITY[f.severity],
        );
        d.source = SOURCE;
        d.code = `audit:${f.probe}`;
        this.flagged.set(d, { taskId: a.task, finding: f });
        diagnostics.push(d);
      }
    }
    this.collection.set(doc.uri, diagnostics);
    // Said where the author looks after a click: how many findings (none is an answer too), and
    // which probes could not run here (code in an untrusted workspace, a judge without a model).
    const findings = audits.flatMap((a) => a.findings);
    const skipped = [...new Set(audits.flatMap((a) => a.skipped.map((s) => s.reason)))];
    const what = findings.length ? `${findingCount(findings)}, shown at each verify:` : 'no finding';
    void vscode.window.showInformationMessage(
      `vtask audit of ${tasks.length === 1 ? tasks[0]?.id : `${tasks.length} tasks`}: ${what}.${skipped.length ? ` Some probes could not run here: ${skipped.join('; ')}` : ''}`,
    );
    return audits.map((a) => ({ task: a.task, findings: [...a.findings], skipped: a.skipped.length }));
  }

  provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    const flagged = context.diagnostics.flatMap((d) => ((f) => (f ? [{ d, f }] : []))(this.flagged.get(d)));
    out.push(...this.verifierFixActions(doc, flagged));
    const tasks = runnableTasks(this.documents.get(doc)).tasks;
    for (const { d, f } of flagged) {
      // A probe the task has as a case already is not offered again.
      const task = tasks.find((t) => t.id === f.taskId);
      if (task && isCase(task, f.finding)) continue;
      const action = new vscode.CodeAction(
        `Add probe "${f.finding.probe}" as a case (expect ${f.finding.expected})`,
        vscode.CodeActionKind.QuickFix,
      );
      action.diagnostics = [d];
      // An agent task's probe is a trajectory: the case gets its calls too, so that it replays.
      action.command = {
        title: action.title,
        command: 'vtask.addProbeCase',
        arguments: [doc.uri, f.taskId, f.finding.response, f.finding.expected, f.finding.calls],
      };
      out.push(action);
    }
    return out;
  }

  /** The clear fixes of the verifiers the findings are about: each replaces a task's verifier in one edit. */
  private verifierFixActions(
    doc: vscode.TextDocument,
    flagged: readonly { d: vscode.Diagnostic; f: Flagged }[],
  ): vscode.CodeAction[] {
    const file = this.documents.get(doc);
    const out: vscode.CodeAction[] = [];
    for (const taskId of new Set(flagged.map((x) => x.f.taskId))) {
      const entry = file.tasks.find((e) => e.id === taskId);
      const task = runnableTasks(file).tasks.find((t) => t.id === taskId);
      if (!entry || !task) continue;
      const mine = flagged.filter((x) => x.f.taskId === taskId);
      for (const fix of verifierFixes(
        task.verify,
        mine.map((x) => x.f.finding),
      )) {
        const r = replaceKey(file, entry.index, 'verify', task.verify, fix.verify);
        if ('error' in r) continue;
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = mine.map((x) => x.d);
        action.isPreferred = out.length === 0;
        action.edit = workspaceEdit(doc, r.edit);
        out.push(action);
      }
    }
    return out;
  }

  /** Writes a probe into a task's cases (one edit, undoable), with its `calls` for an agent task; false when it could not. */
  async addCase(
    uri: vscode.Uri,
    taskId: string,
    response: string,
    expect: 'pass' | 'fail',
    calls?: readonly unknown[],
  ): Promise<boolean> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const file = this.documents.get(doc);
    const entry = file.tasks.find((e) => e.id === taskId);
    if (!entry) return false;
    const r = addCase(file, entry.index, response, expect, calls);
    if ('error' in r) {
      void vscode.window.showWarningMessage(`vtask: cannot add the case: ${r.error}`);
      return false;
    }
    return vscode.workspace.applyEdit(workspaceEdit(doc, r.edit));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

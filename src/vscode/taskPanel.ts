import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import { runCases, type CaseResult } from '../core/run/cases';
import { taskAt } from '../core/taskfile/locate';
import { runnableTasks, type TaskSpec } from '../core/taskfile/resolve';
import { kindOf } from '../core/verifiers/verify';
import { fromPanel, type TaskView, type ToPanel } from '../webview/protocol';
import type { TaskDocuments } from './taskDocuments';

/**
 * The task panel beside the editor: it follows the task under the cursor and shows the prompt
 * as the model sees it, the verifier and the cases with their verdicts. One panel at a time.
 */
export class TaskPanel implements vscode.Disposable {
  static current: TaskPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private shown: { uri: vscode.Uri; spec: TaskSpec } | undefined;
  private results = new Map<string, CaseResult[]>();

  static createOrShow(extensionUri: vscode.Uri, documents: TaskDocuments, log: vscode.LogOutputChannel): TaskPanel {
    if (TaskPanel.current) {
      TaskPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      return TaskPanel.current;
    }
    const panel = vscode.window.createWebviewPanel('vtask.task', 'vtask task', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'out'), vscode.Uri.joinPath(extensionUri, 'media')],
    });
    TaskPanel.current = new TaskPanel(panel, extensionUri, documents, log);
    return TaskPanel.current;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly documents: TaskDocuments,
    private readonly log: vscode.LogOutputChannel,
  ) {
    panel.webview.html = html(panel.webview, extensionUri);
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
      vscode.window.onDidChangeTextEditorSelection((e) => this.follow(e.textEditor)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.shown && e.document.uri.toString() === this.shown.uri.toString()) this.follow(vscode.window.activeTextEditor);
      }),
    );
  }

  /** Shows the task under the cursor of `editor`, when it is a task file. */
  follow(editor: vscode.TextEditor | undefined): void {
    if (!editor || editor.document.languageId !== 'vtask') return;
    const file = this.documents.get(editor.document);
    const entry = taskAt(file, editor.document.offsetAt(editor.selection.active));
    if (!entry) return;
    const spec = runnableTasks(file).tasks.find((t) => t.index === entry.index);
    if (!spec) {
      void this.post({ type: 'empty', reason: `Task ${entry.id ?? entry.index + 1} has problems: fix them (see Problems) to preview it.` });
      return;
    }
    this.shown = { uri: editor.document.uri, spec };
    void this.post({ type: 'task', task: this.view(editor.document.uri, spec) });
  }

  private view(uri: vscode.Uri, spec: TaskSpec): TaskView {
    const found = kindOf(spec.verify);
    const results = this.results.get(`${uri.toString()}#${spec.id}`);
    return {
      id: spec.id,
      file: vscode.workspace.asRelativePath(uri),
      messages: spec.messages.map((m) => ({ role: m.role, content: m.content })),
      verifier: 'error' in found ? { kind: '?', summary: found.error, params: '' } : { kind: found.kind.kind, summary: found.kind.summary, params: stringify(found.params).trimEnd() },
      cases: spec.cases.map((c) => {
        const r = results?.find((x) => x.case === c.index);
        const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);
        return { index: c.index, name: c.name, response: c.response, expected: label(c.expect), actual: r ? label(r.actual) : undefined, ok: r?.ok, reason: r?.verdict.reason };
      }),
    };
  }

  private receive(raw: unknown): void {
    const parsed = fromPanel.safeParse(raw);
    if (!parsed.success) {
      this.log.warn('ignored a malformed message from the task panel');
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'ready') this.follow(vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.languageId === 'vtask'));
    else if (msg.type === 'runCases') void this.runCases();
    else this.revealCase(msg.index);
  }

  /** Runs the shown task's cases and shows their verdicts. */
  async runCases(): Promise<CaseResult[] | undefined> {
    const shown = this.shown;
    if (!shown) return undefined;
    const results = await runCases([shown.spec], { file: shown.uri.fsPath, trusted: vscode.workspace.isTrusted });
    this.results.set(`${shown.uri.toString()}#${shown.spec.id}`, results);
    await this.post({ type: 'task', task: this.view(shown.uri, shown.spec) });
    return results;
  }

  private revealCase(index: number): void {
    const shown = this.shown;
    const c = shown?.spec.cases.find((x) => x.index === index);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === shown?.uri.toString());
    if (!c || !editor) return;
    const pos = editor.document.positionAt(c.offset);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private post(message: ToPanel): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  /** What the panel shows now, for tests. */
  get task(): { uri: vscode.Uri; id: string } | undefined {
    return this.shown && { uri: this.shown.uri, id: this.shown.spec.id };
  }

  dispose(): void {
    TaskPanel.current = undefined;
    this.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** The panel's page: scripts only from the bundle, with a fresh nonce; styles from media/. */
function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'out', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'panel.css'));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>vtask task</title>
</head>
<body>
<main id="root"><p class="empty">Put the cursor in a task to preview it.</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

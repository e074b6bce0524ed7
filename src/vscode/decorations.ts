import * as vscode from 'vscode';
import type { TaskRunResult } from '../core/run/sampleTasks';
import type { TaskFile } from '../core/taskfile/parse';
import type { ResultStore } from './results';
import { toRange } from './convert';
import type { TaskDocuments } from './taskDocuments';

type Gutter = 'pass' | 'mixed' | 'fail' | 'error';

/** The summary shown after a task's id: `5/8 pass · pass@1 0.62 · learnable`. */
export function summaryOf(run: TaskRunResult): string {
  const s = run.stats;
  const p1 = s.passAtK['1'];
  const parts = [`${s.passed}/${s.samples} pass`, `pass@1 ${p1 === undefined || Number.isNaN(p1) ? '-' : p1.toFixed(2)}`, s.band];
  if (run.error) parts.push(`error: ${run.error}`);
  return parts.join(' · ');
}

/** The gutter state of a run: all pass, mixed, none pass, or the verifier could not decide. */
export function gutterOf(run: TaskRunResult): Gutter {
  if (run.error || run.samples.some((s) => s.verdict.error)) return 'error';
  if (run.stats.samples > 0 && run.stats.passed === run.stats.samples) return 'pass';
  return run.stats.passed === 0 ? 'fail' : 'mixed';
}

/**
 * Paints results into visible editors: a gutter icon and an inline summary per task with a
 * run, dimmed and marked stale when the task's text changed since; ✓/✗ on case lines.
 */
export class Decorations implements vscode.Disposable {
  private readonly gutters: Record<Gutter, vscode.TextEditorDecorationType>;
  private readonly summary = vscode.window.createTextEditorDecorationType({ after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground') } });
  private readonly stale = vscode.window.createTextEditorDecorationType({ after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('disabledForeground'), fontStyle: 'italic' } });
  private readonly caseOk = vscode.window.createTextEditorDecorationType({ after: { margin: '0 0 0 1em', color: new vscode.ThemeColor('testing.iconPassed') } });
  private readonly caseBad = vscode.window.createTextEditorDecorationType({ after: { margin: '0 0 0 1em', color: new vscode.ThemeColor('testing.iconFailed') } });
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
  ) {
    const icon = (name: string): vscode.TextEditorDecorationType => vscode.window.createTextEditorDecorationType({ gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', `gutter-${name}.svg`), gutterIconSize: 'contain' });
    this.gutters = { pass: icon('pass'), mixed: icon('mixed'), fail: icon('fail'), error: icon('error') };
    this.disposables.push(
      results.onDidChange(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
    );
    this.refreshAll();
  }

  private schedule(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'vtask') return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refreshAll(), 150);
  }

  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) if (editor.document.languageId === 'vtask') this.paint(editor);
  }

  /** What the decorations of a file are, as plain data (the editor paints this; tests read it). */
  compute(uri: vscode.Uri, file: TaskFile): { gutters: Record<Gutter, vscode.Range[]>; summaries: vscode.DecorationOptions[]; stale: vscode.DecorationOptions[]; caseOk: vscode.DecorationOptions[]; caseBad: vscode.DecorationOptions[] } {
    const out = { gutters: { pass: [], mixed: [], fail: [], error: [] } as Record<Gutter, vscode.Range[]>, summaries: [] as vscode.DecorationOptions[], stale: [] as vscode.DecorationOptions[], caseOk: [] as vscode.DecorationOptions[], caseBad: [] as vscode.DecorationOptions[] };
    for (const t of file.tasks) {
      if (t.id === undefined) continue;
      const r = this.results.get(uri, t.id);
      if (!r) continue;
      const fresh = this.results.isFresh(uri, file, t);
      const anchor = toRange(file.lines, t.offset + t.anchor[1], t.offset + t.anchor[1]);
      if (r.run) {
        const text = summaryOf(r.run);
        if (fresh) {
          out.gutters[gutterOf(r.run)].push(anchor);
          out.summaries.push({ range: anchor, renderOptions: { after: { contentText: text } }, hoverMessage: runHover(r.run) });
        } else out.stale.push({ range: anchor, renderOptions: { after: { contentText: `${text} (stale: the task changed)` } } });
      }
      if (r.cases && fresh) {
        for (const c of r.cases) {
          const line = file.lines.position(c.offset).line;
          const range = new vscode.Range(line, Number.MAX_SAFE_INTEGER, line, Number.MAX_SAFE_INTEGER);
          const got = typeof c.actual === 'string' ? c.actual : `score ${c.actual.score.toFixed(3)}`;
          if (c.ok) out.caseOk.push({ range, renderOptions: { after: { contentText: '✓' } } });
          else out.caseBad.push({ range, renderOptions: { after: { contentText: `✗ got ${got}: ${c.verdict.reason}` } }, hoverMessage: new vscode.MarkdownString().appendCodeblock(JSON.stringify(c.verdict.details, null, 2).slice(0, 4000), 'json') });
        }
      }
    }
    return out;
  }

  private paint(editor: vscode.TextEditor): void {
    const file = this.documents.get(editor.document);
    const d = this.compute(editor.document.uri, file);
    for (const g of Object.keys(this.gutters) as Gutter[]) editor.setDecorations(this.gutters[g], d.gutters[g]);
    editor.setDecorations(this.summary, d.summaries);
    editor.setDecorations(this.stale, d.stale);
    editor.setDecorations(this.caseOk, d.caseOk);
    editor.setDecorations(this.caseBad, d.caseBad);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of [...Object.values(this.gutters), this.summary, this.stale, this.caseOk, this.caseBad, ...this.disposables]) d.dispose();
  }
}

function runHover(run: TaskRunResult): vscode.MarkdownString {
  const s = run.stats;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${run.task.id}** on ${run.model}\n\n`);
  md.appendMarkdown(`pass rate ${s.passRate.toFixed(2)} (95% ${s.interval[0].toFixed(2)}–${s.interval[1].toFixed(2)}) · mean score ${s.meanScore.toFixed(2)} · ${s.band} · GRPO groups with signal (G=${s.groupSize}) ${(100 * s.signalShare).toFixed(0)}%\n\n`);
  md.appendMarkdown(`pass@k: ${Object.entries(s.passAtK).map(([k, v]) => `@${k} ${v.toFixed(2)}`).join(', ')}\n\n`);
  for (const smp of run.samples.slice(0, 8)) md.appendMarkdown(`- ${smp.verdict.pass ? '✓' : '✗'} ${smp.verdict.reason.replace(/[\\`*_[\]]/g, '\\$&')}${smp.truncated ? ' (truncated)' : ''}\n`);
  return md;
}

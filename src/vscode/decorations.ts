import * as vscode from 'vscode';
import type { TaskRunResult } from '../core/run/sampleTasks';
import { passCount } from '../core/stats';
import type { RunRecord } from '../core/overview/runlog/runLog';
import type { TaskEntry, TaskFile } from '../core/taskfile/parse';
import { getPair } from '../core/base/ynode';
import { resultKeysOf, type ModelRun, type ResultStore } from './results';
import type { RunLogSource } from './taskFacts';
import { toRange } from './convert';
import { onDidChangeSettings, settingsFor } from './settings';
import { runnableTasks, type TaskSpec } from '../core/taskfile/resolve';
import { modelLabel } from '../core/overview/runlog/runLog';
import { profileForTask } from './models';
import { isTaskDocument, type TaskDocuments } from './taskDocuments';
import { isRowTaskFile } from '../core/datasets/rowTasks';

type Gutter = 'pass' | 'mixed' | 'fail' | 'error';

/** What a summary says in place of the band of a run the demo model could not do. */
export const DEMO_SHORT = 'demo model: cannot do this task';

/**
 * The summary shown after a task's id: `5/8 pass · pass@1 0.62 · learnable`, with `· 1 undecided`
 * when some samples got no verdict. A run of the built-in demo model on a task it cannot do says
 * so in place of a band: its `too_hard` would say nothing of the task.
 */
export function summaryOf(run: TaskRunResult): string {
  const s = run.stats;
  const p1 = s.passAtK['1'];
  const parts = [
    passCount(s),
    `pass@1 ${p1 === undefined || Number.isNaN(p1) ? '-' : p1.toFixed(2)}`,
    run.note ? DEMO_SHORT : s.band,
  ];
  if (run.error) parts.push(`error: ${run.error}`);
  return parts.join(' · ');
}

/** The gutter state of a run: all pass, mixed, none pass, or the verifier could not decide. */
export function gutterOf(run: TaskRunResult): Gutter {
  if (run.error || run.samples.some((s) => s.verdict.error)) return 'error';
  if (run.stats.samples > 0 && run.stats.passed === run.stats.samples) return 'pass';
  return run.stats.passed === 0 ? 'fail' : 'mixed';
}

/** The overview ruler mark of each state, so results show beside the scrollbar too. */
const RULER: Record<Gutter, string> = {
  pass: 'testing.iconPassed',
  mixed: 'charts.yellow',
  fail: 'testing.iconFailed',
  error: 'editorWarning.foreground',
};

/**
 * Paints results into visible editors: an icon and an inline summary per task with a run,
 * dimmed and marked stale when what the task samples or verifies changed since; ✓/✗ on case
 * lines. A task with cases has the Testing icon in the gutter, so its result icon goes inline,
 * before the summary; other tasks get it in the gutter. Both also mark the overview ruler.
 * A dataset row (JSONL) is one long line: its summary goes before the row, where it is seen
 * without scrolling, and the row's hover repeats it with the details (`RowHoverProvider`).
 */
export class Decorations implements vscode.Disposable {
  private readonly gutters: Record<Gutter, vscode.TextEditorDecorationType>;
  private readonly inline: Record<Gutter, vscode.TextEditorDecorationType>;
  private readonly summary: vscode.TextEditorDecorationType;
  private readonly stale: vscode.TextEditorDecorationType;
  private readonly rowSummary: vscode.TextEditorDecorationType;
  private readonly rowStale: vscode.TextEditorDecorationType;
  // charts.green, not testing.iconPassed: text in that colour is hard to read on a light theme.
  private readonly caseOk = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 1em', color: new vscode.ThemeColor('charts.green') },
  });
  private readonly caseBad = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 1em', color: new vscode.ThemeColor('testing.iconFailed') },
  });
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private runLog: RunLogSource | undefined;

  constructor(
    extensionUri: vscode.Uri,
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
  ) {
    const path = (g: Gutter): vscode.Uri => vscode.Uri.joinPath(extensionUri, 'media', `gutter-${g}.svg`);
    const ruler = (g: Gutter): vscode.DecorationRenderOptions => ({
      overviewRulerColor: new vscode.ThemeColor(RULER[g]),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    const each = (
      make: (g: Gutter) => vscode.DecorationRenderOptions,
    ): Record<Gutter, vscode.TextEditorDecorationType> => ({
      pass: vscode.window.createTextEditorDecorationType(make('pass')),
      mixed: vscode.window.createTextEditorDecorationType(make('mixed')),
      fail: vscode.window.createTextEditorDecorationType(make('fail')),
      error: vscode.window.createTextEditorDecorationType(make('error')),
    });
    this.gutters = each((g) => ({ gutterIconPath: path(g), gutterIconSize: 'contain', ...ruler(g) }));
    // Made before the summary, so that the icon comes first after the task's id.
    this.inline = each((g) => ({
      after: { contentIconPath: path(g), margin: '0 0 0 2em', width: '0.9em', height: '0.9em' },
      ...ruler(g),
    }));
    this.summary = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground') },
    });
    this.stale = vscode.window.createTextEditorDecorationType({
      after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('disabledForeground'), fontStyle: 'italic' },
    });
    this.rowSummary = vscode.window.createTextEditorDecorationType({
      before: { margin: '0 1em 0 0', color: new vscode.ThemeColor('editorCodeLens.foreground') },
    });
    this.rowStale = vscode.window.createTextEditorDecorationType({
      before: { margin: '0 1em 0 0', color: new vscode.ThemeColor('disabledForeground'), fontStyle: 'italic' },
    });
    this.disposables.push(
      results.onDidChange(() => this.refreshAll()),
      onDidChangeSettings(() => this.refreshAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refreshAll()),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      documents.onDidChangeWindow((d) => this.schedule(d)),
    );
    this.refreshAll();
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!isTaskDocument(doc)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refreshAll(), 150);
  }

  refreshAll(): void {
    for (const editor of vscode.window.visibleTextEditors) if (isTaskDocument(editor.document)) this.paint(editor);
  }

  /** What the decorations of a file are, as plain data (the editor paints this; tests read it). */
  compute(
    uri: vscode.Uri,
    file: TaskFile,
  ): {
    gutters: Record<Gutter, vscode.Range[]>;
    inline: Record<Gutter, vscode.Range[]>;
    summaries: vscode.DecorationOptions[];
    stale: vscode.DecorationOptions[];
    caseOk: vscode.DecorationOptions[];
    caseBad: vscode.DecorationOptions[];
  } {
    const none = (): Record<Gutter, vscode.Range[]> => ({ pass: [], mixed: [], fail: [], error: [] });
    const out = {
      gutters: none(),
      inline: none(),
      summaries: [] as vscode.DecorationOptions[],
      stale: [] as vscode.DecorationOptions[],
      caseOk: [] as vscode.DecorationOptions[],
      caseBad: [] as vscode.DecorationOptions[],
    };
    // A row's text goes before it: after a row of hundreds of characters it would be off-screen.
    const rows = isRowTaskFile(file);
    const specs = new Map(runnableTasks(file).tasks.map((s) => [s.index, s]));
    const text = (contentText: string, margin: { margin?: string } = {}): vscode.DecorationInstanceRenderOptions =>
      rows ? { before: { contentText } } : { after: { contentText, ...margin } };
    for (const t of file.tasks) {
      if (t.id === undefined) continue;
      const r = this.results.get(uri, t.id);
      const anchor = rows
        ? toRange(file.lines, t.offset, t.offset)
        : toRange(file.lines, t.offset + t.anchor[1], t.offset + t.anchor[1]);
      const hasCases = t.node !== null && getPair(t.node, 'cases') !== undefined;
      // Beside an inline icon the summary keeps close to it.
      const margin = hasCases ? { margin: '0 0 0 0.4em' } : {};
      // The task's own model's run when there is one, else the latest; each model's run in the hover.
      const byModel = r?.run ? this.results.freshModelRuns(uri, file, t, ownModel(file, specs.get(t.index), uri)) : [];
      const logged = this.loggedRuns(uri, file, t, byModel);
      const shown = r?.run ? (byModel[0]?.run ?? this.results.freshRun(uri, file, t)) : undefined;
      const named = (run: TaskRunResult, model: string | undefined): string =>
        model ? `${model}: ${summaryOf(run)}` : summaryOf(run);
      if (shown) {
        (hasCases ? out.inline : out.gutters)[gutterOf(shown)].push(anchor);
        out.summaries.push({
          range: anchor,
          renderOptions: text(named(shown, byModel[0]?.model), margin),
          hoverMessage: runHover(shown, byModel, logged),
        });
      } else if (logged[0]) {
        // No run in this window, but `vtask run` (or another window) recorded one of the task as it is.
        const [first] = logged;
        (hasCases ? out.inline : out.gutters)[loggedGutter(first.record)].push(anchor);
        out.summaries.push({
          range: anchor,
          renderOptions: text(`${first.model}: ${loggedSummary(first.record)} (run log)`, margin),
          hoverMessage: logHover(t.id, logged),
        });
      } else if (r?.run)
        out.stale.push({ range: anchor, renderOptions: text(`${named(r.run, r.model)} (stale: the task changed)`) });
      const cases = this.results.freshCases(uri, file, t);
      if (cases) {
        // Each case where it is now: an edit above (a case added to a task before) moved it since the run.
        const items = t.node ? getPair(t.node, 'cases')?.value : undefined;
        for (const c of cases) {
          const node = items?.type === 'seq' ? items.items[c.case] : undefined;
          if (!node) continue;
          const line = file.lines.position(t.offset + node.span[0]).line;
          const range = new vscode.Range(line, Number.MAX_SAFE_INTEGER, line, Number.MAX_SAFE_INTEGER);
          const got = typeof c.actual === 'string' ? c.actual : `score ${c.actual.score.toFixed(3)}`;
          if (c.ok) out.caseOk.push({ range, renderOptions: { after: { contentText: '✓' } } });
          else
            out.caseBad.push({
              range,
              renderOptions: { after: { contentText: `✗ got ${got}: ${c.verdict.reason}` } },
              hoverMessage: new vscode.MarkdownString().appendCodeblock(
                JSON.stringify(c.verdict.details, null, 2).slice(0, 4000),
                'json',
              ),
            });
        }
      }
    }
    return out;
  }

  /**
   * Runs of the task as it is now (the same run key) recorded in the run log, by models this
   * window has no run of: runs of `vtask run --model ...` in a terminal, or of another window.
   */
  private loggedRuns(uri: vscode.Uri, file: TaskFile, t: TaskEntry, inWindow: readonly ModelRun[]): LoggedRun[] {
    const runs = this.runLog && t.id !== undefined ? this.runLog.runsOf(uri, t.id) : undefined;
    if (!runs?.size) return [];
    const key = resultKeysOf(file, t).run;
    const have = new Set(inWindow.map((m) => m.model));
    const out: LoggedRun[] = [];
    for (const [model, e] of runs) if (e.latest.key === key && !have.has(model)) out.push({ model, record: e.latest });
    return out.sort((a, b) => b.record.at.localeCompare(a.record.at));
  }

  /** The run log the decorations read besides this window's runs; they are drawn again when it changes. */
  useRunLog(log: RunLogSource): vscode.Disposable {
    this.runLog = log;
    this.refreshAll();
    return log.onDidChange(() => this.refreshAll());
  }

  private paint(editor: vscode.TextEditor): void {
    const file = this.documents.get(editor.document);
    const d = this.compute(editor.document.uri, file);
    for (const g of Object.keys(this.gutters) as Gutter[]) {
      editor.setDecorations(this.gutters[g], d.gutters[g]);
      editor.setDecorations(this.inline[g], d.inline[g]);
    }
    // A row's hover comes from RowHoverProvider, over the whole row: not twice.
    const rows = isRowTaskFile(file);
    const bare = (ds: vscode.DecorationOptions[]): vscode.DecorationOptions[] =>
      ds.map((o) => ({ range: o.range, renderOptions: o.renderOptions }));
    editor.setDecorations(this.summary, rows ? [] : d.summaries);
    editor.setDecorations(this.stale, rows ? [] : d.stale);
    editor.setDecorations(this.rowSummary, rows ? bare(d.summaries) : []);
    editor.setDecorations(this.rowStale, rows ? bare(d.stale) : []);
    editor.setDecorations(this.caseOk, d.caseOk);
    editor.setDecorations(this.caseBad, d.caseBad);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of [
      ...Object.values(this.gutters),
      ...Object.values(this.inline),
      this.summary,
      this.stale,
      this.rowSummary,
      this.rowStale,
      this.caseOk,
      this.caseBad,
      ...this.disposables,
    ])
      d.dispose();
  }
}

/**
 * The label of the model a task samples (its `model:`, the file's `defaults`, else the setting),
 * as its runs are labelled; undefined when none is configured.
 */
function ownModel(file: TaskFile, spec: TaskSpec | undefined, uri: vscode.Uri): string | undefined {
  if (!spec) return settingsFor(uri).model || undefined;
  try {
    return modelLabel(profileForTask(file, spec, uri));
  } catch {
    return undefined;
  }
}

/** Samples listed in a summary's hover; the panel shows them all. */
const HOVER_SAMPLES = 8;

/** Markdown text of a name or a reason, shown as written: HTML-like text such as `<answer>` too. */
const plain = (s: string): string => s.replace(/[\\`*_[\]<>#|]/g, '\\$&');

/** A run of a task recorded in the run log, by its model's label. */
interface LoggedRun {
  readonly model: string;
  readonly record: RunRecord;
}

function loggedSummary(r: RunRecord): string {
  return `${r.passed}/${r.samples} pass · ${r.band}`;
}

function loggedGutter(r: RunRecord): Gutter {
  if (r.band === 'error') return 'error';
  return r.samples > 0 && r.passed === r.samples ? 'pass' : r.passed === 0 ? 'fail' : 'mixed';
}

const TABLE_HEAD = '| model | pass rate | band | samples | when |\n|---|---|---|---|---|\n';
const loggedRow = (m: LoggedRun): string =>
  `| ${plain(m.model)} (run log) | ${m.record.pass_rate.toFixed(2)} | ${m.record.band} | ${m.record.samples} | ${new Date(m.record.at).toLocaleString()} |\n`;

/** The hover of a task whose runs are only in the run log: each model's, with where to see the samples. */
function logHover(taskId: string, logged: readonly LoggedRun[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${plain(taskId)}**: runs recorded by \`vtask run\` or another window\n\n${TABLE_HEAD}`);
  for (const m of logged) md.appendMarkdown(loggedRow(m));
  md.appendMarkdown('\n▶ Run verifier with that model shows its samples (from the cache when they are there).\n');
  return md;
}

function runHover(
  run: TaskRunResult,
  byModel: readonly ModelRun[],
  logged: readonly LoggedRun[] = [],
): vscode.MarkdownString {
  const s = run.stats;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${plain(run.task.id)}** on ${plain(run.model)}\n\n`);
  if (run.note) md.appendMarkdown(`⚠ ${plain(run.note)}\n\n`);
  if (byModel.length || logged.length) {
    md.appendMarkdown(TABLE_HEAD);
    for (const m of byModel)
      md.appendMarkdown(
        `| ${plain(m.model)} | ${m.run.stats.passRate.toFixed(2)} | ${m.run.stats.band} | ${m.run.stats.samples} | ${m.at.toLocaleString()} |\n`,
      );
    for (const m of logged) md.appendMarkdown(loggedRow(m));
    md.appendMarkdown('\n');
  }
  md.appendMarkdown(
    `pass rate ${s.passRate.toFixed(2)} (95% ${s.interval[0].toFixed(2)}–${s.interval[1].toFixed(2)}) · mean score ${s.meanScore.toFixed(2)} · ${s.band} · GRPO groups with signal (G=${s.groupSize}) ${(100 * s.signalShare).toFixed(0)}%\n\n`,
  );
  md.appendMarkdown(
    `pass@k: ${Object.entries(s.passAtK)
      .map(([k, v]) => `@${k} ${v.toFixed(2)}`)
      .join(', ')}\n\n`,
  );
  const shown = run.samples.slice(0, HOVER_SAMPLES);
  if (shown.length < run.samples.length)
    md.appendMarkdown(`${shown.length} of ${run.samples.length} samples shown (all of them in the task panel):\n\n`);
  // A reason quotes the response's markup (`no <answer>...</answer> in the response`): shown as written, not read as HTML.
  for (const smp of shown)
    md.appendMarkdown(
      `- ${smp.verdict.error ? '⚠' : smp.verdict.pass ? '✓' : '✗'} ${plain(smp.verdict.reason)}${smp.truncated ? ' (truncated)' : ''}\n`,
    );
  return md;
}

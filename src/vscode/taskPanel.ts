import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { locate } from '../core/edit/locate';
import { addCase, addKey, appendItem, removeItem, removeKey, setScalar, type EditResult } from '../core/edit/taskEdits';
import { sameRow, verifierForm } from '../core/panel/form';
import { reverify, sampleView } from '../core/panel/samples';
import { trajectoryCalls } from '../core/panel/trajectory';
import { panelTaskView, taskKey, type ShownRun } from '../core/panel/view';
import { runCases, type CaseResult } from '../core/run/cases';
import { responseOf, type TaskRunResult } from '../core/run/sampleTasks';
import { taskStats } from '../core/stats';
import type { TaskEntry, TaskFile } from '../core/taskfile/parse';
import { taskAt } from '../core/taskfile/taskAt';
import { runnableTasks, type TaskSpec } from '../core/taskfile/resolve';
import { toJS } from '../core/base/ynode';
import { panelHtml } from '../webview/page';
import {
  fromPanel,
  type AuditView,
  type FromPanel,
  type NodePath,
  type TaskView,
  type ToPanel,
} from '../core/base/panelProtocol';
import { auditTasks, type Finding } from '../core/audit/audit';
import { findSuspects } from '../core/audit/readings';
import { auditView } from '../core/panel/audit';
import { verifierFixes } from '../core/audit/fixes';
import { replaceKey } from '../core/edit/replaceKey';
import { workspaceEdit } from './convert';
import { parseRowUri } from './datasetRows';
import { resultKeysOf, type ResultStore } from './results';
import { settingsFor } from './settings';
import { isRowDocument, isTaskDocument, type TaskDocuments } from './taskDocuments';
import { withEditorSettings, type TaskRunner } from './taskRunner';
import { plural } from '../core/util/plural';
import { pageOptions, pageWebviewOptions } from './webviewPage';

const SUPERSEDED = Symbol('superseded');

/** Messages that change the file. */
const MUTATING: ReadonlySet<FromPanel['type']> = new Set([
  'edit',
  'addItem',
  'removeItem',
  'addCase',
  'addProbeCase',
  'applyFix',
]);

/** What the panel says over a dataset row, whose form cannot write YAML back into JSON. */
export const ROW_READ_ONLY =
  'A row of a dataset (JSONL): the form shows its verifier read-only. Edit the row in the editor; the samples are verified again when it changes.';

/** More samples stops doubling here. */
const MAX_SAMPLES = 1024;

/** Refreshes wait this long after the last change, so typing in the file is not slowed. */
const REFRESH_DELAY_MS = 40;

/** What a verdict depends on besides the response: a change re-verifies the samples. */
const verdictInputs = (t: TaskSpec): string => JSON.stringify([t.verify, t.messages, t.meta]);
/** What a sample depends on: a change makes the samples describe an older task. */
const requestInputs = (t: TaskSpec, uri?: vscode.Uri): string =>
  JSON.stringify([t.messages, withEditorSettings(t, uri).sampling]);

export interface PanelServices {
  readonly documents: TaskDocuments;
  readonly results: ResultStore;
  readonly runner: TaskRunner;
  readonly log: vscode.LogOutputChannel;
}

/**
 * The task panel beside the editor, where an author debugs a verifier: it follows the task
 * under the cursor; the form writes back into the file as undoable edits of one node; every
 * change to the verifier re-verifies the task's samples (no model is asked) and shows what
 * flipped; samples can be added as cases, and resampled with new ones streaming in.
 */
export class TaskPanel implements vscode.Disposable {
  static current: TaskPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private target: { uri: vscode.Uri; id: string; index: number } | undefined;
  /** The samples shown per task, with what flipped at the last re-verification. */
  private readonly runs = new Map<string, ShownRun>();
  /** The last audit of each task, with the task's text it was made for and the whole probes. */
  private readonly audits = new Map<string, { text: string; view: AuditView; findings: readonly Finding[] }>();
  /** The store's run each shown run came from, to tell a new sampling run from our own writes. */
  private readonly seen = new Map<string, TaskRunResult>();
  private chain: Promise<unknown> = Promise.resolve();
  private mutations: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private queued: Promise<TaskView | undefined | typeof SUPERSEDED> | undefined;
  private latest: Promise<TaskView | undefined | typeof SUPERSEDED> = Promise.resolve(undefined);
  private reverifying: { abort: AbortController; inputs: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sampling: { uri: vscode.Uri; id: string } | undefined;
  /** What the last view was made of, to skip sending the same view again. */
  private posted: unknown[] | undefined;
  /** The last view posted, for tests. */
  lastView: TaskView | undefined;
  /** The last notice shown, for tests. */
  lastNotice: string | undefined;
  /** A sample to select once the page shows its task (a link from the workbench). */
  private pendingSample: { uri: string; id: string; index: number } | undefined;
  /** Whether the page said it is ready: before, what is posted is lost (it is sent again on ready). */
  private pageReady = false;
  /** The last sample selected from elsewhere, for tests. */
  lastSelected: { id: string; index: number } | undefined;

  /** The panel's tab title (for tests). */
  get title(): string {
    return this.panel.title;
  }

  static createOrShow(extensionUri: vscode.Uri, services: PanelServices): TaskPanel {
    if (TaskPanel.current) {
      TaskPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      return TaskPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(
      TaskPanel.viewType,
      'vtask task',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      TaskPanel.options(extensionUri),
    );
    TaskPanel.current = new TaskPanel(panel, extensionUri, services);
    return TaskPanel.current;
  }

  static readonly viewType = 'vtask.task';

  private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    // The page keeps its own state (setState) and is rebuilt when shown again.
    return { ...pageWebviewOptions(extensionUri), retainContextWhenHidden: false };
  }

  /** Brings back a panel that was open when VS Code closed, on the task it showed. */
  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    services: PanelServices,
    state: unknown,
  ): TaskPanel {
    TaskPanel.current?.dispose();
    panel.webview.options = TaskPanel.options(extensionUri);
    const p = (TaskPanel.current = new TaskPanel(panel, extensionUri, services));
    const task = (state as { task?: { uri?: unknown; id?: unknown } } | undefined)?.task;
    if (typeof task?.uri === 'string' && typeof task.id === 'string') {
      const uri = vscode.Uri.parse(task.uri);
      const id = task.id;
      void vscode.workspace.openTextDocument(uri).then(
        () => p.show(uri, id),
        () => undefined,
      );
    }
    return p;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly s: PanelServices,
  ) {
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'gutter-mixed.svg');
    panel.webview.html = html(panel.webview, extensionUri);
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handle(m)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (isTaskDocument(e.textEditor.document)) this.follow(e.textEditor);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.target && e.document.uri.toString() === this.target.uri.toString()) this.schedule();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.schedule()),
      s.results.onDidChange((uri) => {
        if (this.target && uri.toString() === this.target.uri.toString()) this.schedule();
      }),
    );
  }

  /** Shows the task under the cursor of `editor`, when it is a task file. */
  follow(editor: vscode.TextEditor | undefined): void {
    if (!editor || !isTaskDocument(editor.document)) return;
    const file = this.s.documents.get(editor.document);
    const entry = taskAt(file, editor.document.offsetAt(editor.selection.active));
    if (!entry) return;
    const same = this.target?.uri.toString() === editor.document.uri.toString() && this.target.index === entry.index;
    this.target = { uri: editor.document.uri, id: entry.id ?? '', index: entry.index };
    if (!same) void this.refresh();
  }

  /** Shows a task by id (from its `Open panel` lens). */
  show(uri: vscode.Uri, taskId: string): void {
    this.target = { uri, id: taskId, index: -1 };
    void this.refresh();
  }

  /** Shows a task by id with sample `index` selected (from the workbench's samples view). */
  async showSample(uri: vscode.Uri, taskId: string, index: number): Promise<void> {
    this.pendingSample = { uri: uri.toString(), id: taskId, index };
    this.show(uri, taskId);
    await this.refresh();
    await this.selectPending();
  }

  /** Selects the pending sample once the page is there and shows its task. */
  private async selectPending(): Promise<void> {
    const p = this.pendingSample;
    if (!p || !this.pageReady) return;
    this.pendingSample = undefined;
    if (this.target?.uri.toString() !== p.uri || this.target.id !== p.id) return;
    this.lastSelected = { id: p.id, index: p.index };
    await this.post({ type: 'selectSample', task: p.id, index: p.index });
  }

  /** What the panel shows now, for tests. */
  get task(): { uri: vscode.Uri; id: string } | undefined {
    return this.target && { uri: this.target.uri, id: this.target.id };
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), REFRESH_DELAY_MS);
  }

  /** The shown task's document, parsed file, entry and (when it has no errors) spec. */
  private locate():
    { doc: vscode.TextDocument; file: TaskFile; entry: TaskEntry; spec: TaskSpec | undefined } | undefined {
    const t = this.target;
    const doc = t && vscode.workspace.textDocuments.find((d) => d.uri.toString() === t.uri.toString());
    if (!t || !doc) return undefined;
    const file = this.s.documents.get(doc);
    // The task at the index when it still has the id (ids may repeat while a copy is renamed);
    // else by id, so the panel stays on its task when tasks above it are added or removed.
    const atIndex = file.tasks[t.index];
    const entry =
      atIndex && (atIndex.id ?? '') === t.id
        ? atIndex
        : ((t.id ? file.tasks.find((e) => e.id === t.id) : undefined) ?? atIndex);
    if (!entry) return undefined;
    t.index = entry.index;
    t.id = entry.id ?? t.id;
    return { doc, file, entry, spec: runnableTasks(file).tasks.find((x) => x.index === entry.index) };
  }

  /**
   * Rebuilds the view; re-verifies the samples first when the verifier changed. Refreshes run
   * one at a time, each on the latest text, and a refresh asked for while one waits joins it.
   */
  refresh(): Promise<TaskView | undefined> {
    if (!this.queued) {
      // A slow re-verification (code runs each sample) gives way to a newer verifier, not to
      // other changes (the store announcing the verdicts it was just given, say).
      if (this.reverifying) {
        const spec = this.locate()?.spec;
        if (spec && verdictInputs(spec) !== this.reverifying.inputs) this.reverifying.abort.abort();
      }
      const next = this.chain.then(() => {
        this.queued = undefined;
        return this.render().catch((e: unknown) => {
          this.s.log.error(e instanceof Error ? e : String(e));
          return undefined;
        });
      });
      this.queued = this.latest = next;
      this.chain = next.catch(() => undefined);
    }
    return this.settle(this.queued);
  }

  /** The view a refresh ends with: a superseded one ends with the refresh that replaced it. */
  private settle(p: Promise<TaskView | undefined | typeof SUPERSEDED>): Promise<TaskView | undefined> {
    return p.then((v) => (v === SUPERSEDED ? this.settle(this.latest) : v));
  }

  private async render(): Promise<TaskView | undefined | typeof SUPERSEDED> {
    const at = this.locate();
    if (!at) {
      await this.post({
        type: 'empty',
        reason: 'Put the cursor in a task of a .vtask file, or on a row of a dataset (.jsonl), to see it here.',
      });
      return undefined;
    }
    const { doc, file, entry, spec } = at;
    const key = `${doc.uri.toString()}#${entry.id ?? ''}`;
    const stored = entry.id === undefined ? undefined : this.s.results.get(doc.uri, entry.id);
    // A run the store got from elsewhere (Run verifier, Resample) replaces what is shown.
    if (stored?.run && this.seen.get(key) !== stored.run) {
      this.seen.set(key, stored.run);
      this.runs.set(key, { run: stored.run, fresh: true, trusted: vscode.workspace.isTrusted });
    }
    let shown = this.runs.get(key);
    // Verdicts change with the verifier, and with trust: code and script verifiers refuse to
    // run in an untrusted workspace and run once it is trusted.
    const trusted = vscode.workspace.isTrusted;
    if (
      shown &&
      spec &&
      (verdictInputs(spec) !== verdictInputs(shown.run.task) || (shown.trusted ?? trusted) !== trusted) &&
      shown.run.samples.length
    ) {
      // Say so only when it takes a while (code verifiers), so quick ones do not flicker.
      let said = false;
      const count = shown.run.samples.length;
      // While sampling, the sampling status (with its Cancel) stays.
      const slow = setTimeout(() => {
        said = !this.sampling;
        if (said)
          void this.post({ type: 'busy', what: `Re-verifying ${plural(count, 'sample')}…`, cancellable: false });
      }, 150);
      const abort = new AbortController();
      this.reverifying = { abort, inputs: verdictInputs(spec) };
      const r = await reverify(spec, shown.run, {
        file: doc.uri.fsPath,
        trusted: vscode.workspace.isTrusted,
        signal: abort.signal,
      }).finally(() => clearTimeout(slow));
      if (said && !this.sampling) await this.post({ type: 'busy', what: null, cancellable: false });
      if (this.reverifying?.abort === abort) this.reverifying = undefined;
      // Superseded: the refresh queued behind this one verifies the newer verifier.
      if (abort.signal.aborted) return SUPERSEDED;
      const fresh = shown.fresh && requestInputs(spec, doc.uri) === requestInputs(shown.run.task, doc.uri);
      shown = { run: r.run, flips: r, fresh, trusted };
      this.runs.set(key, shown);
      // The new verdicts describe the task as it is: lenses and decorations show them too.
      if (fresh && entry.id !== undefined) {
        this.seen.set(key, r.run);
        this.s.results.setRun(doc.uri, entry.id, resultKeysOf(file, entry).run, r.run);
      }
      // The cases are the verifier's own tests: they run again with it.
      if (spec.cases.length) {
        const results = await runCases([spec], {
          file: doc.uri.fsPath,
          trusted: vscode.workspace.isTrusted,
          signal: abort.signal,
        });
        if (abort.signal.aborted) return SUPERSEDED;
        this.s.results.setCases(doc.uri, spec.id, resultKeysOf(file, entry).cases, results);
      }
    }
    const fresh =
      shown !== undefined &&
      shown.fresh &&
      (!spec || requestInputs(spec, doc.uri) === requestInputs(shown.run.task, doc.uri));
    const cases = this.s.results.freshCases(doc.uri, file, entry);
    // Typing elsewhere in the file changes nothing here: the view is not sent again.
    const same = [
      doc.uri.toString(),
      entry.index,
      file.text.slice(entry.offset, entry.offset + entry.length),
      spec && verdictInputs(spec) + requestInputs(spec, doc.uri),
      shown,
      fresh,
      cases,
    ];
    if (this.posted && same.every((x, i) => x === this.posted?.[i])) return this.lastView;
    this.posted = same;
    // An audit describes the task's text as it was audited: an edit of the task retires it.
    const audit = entry.id !== undefined ? this.audits.get(`${doc.uri.toString()}#${entry.id}`) : undefined;
    const audited =
      audit && audit.text === file.text.slice(entry.offset, entry.offset + entry.length) ? { audit: audit.view } : {};
    const readOnly = readOnlyNote(doc.uri);
    const view = {
      ...panelTaskView(shownFile(doc.uri), entry, spec, cases, shown && { ...shown, fresh }),
      uri: doc.uri.toString(),
      ...(readOnly ? { readOnly } : audited),
    };
    this.lastView = view;
    if (this.disposed) return view;
    const row = parseRowUri(doc.uri);
    // A Parquet row's document has a made-up path: the title names the real file and row.
    this.panel.title = row
      ? `vtask: ${view.id} (${row.file.path.slice(row.file.path.lastIndexOf('/') + 1)}, row ${row.n})`
      : `vtask: ${view.id}`;
    await this.post({ type: 'task', task: view });
    return view;
  }

  /** Acts on a message from the page, once it is known to be well-formed. */
  async handle(raw: unknown): Promise<void> {
    const parsed = fromPanel.safeParse(raw);
    if (!parsed.success) {
      this.s.log.warn('ignored a malformed message from the task panel');
      return;
    }
    const msg = parsed.data;
    try {
      if (MUTATING.has(msg.type) && this.target && readOnlyNote(this.target.uri)) {
        const row = parseRowUri(this.target.uri);
        await this.notice(
          'warning',
          row
            ? `Nothing was changed: ${readOnlyRow(row)}`
            : 'A dataset row cannot be changed from the panel: edit its JSON in the editor.',
        );
        return;
      }
      // Changes to the file go one at a time: each is computed on the text the one before left.
      if (MUTATING.has(msg.type)) {
        const next = this.mutations.then(() => this.act(msg));
        this.mutations = next.catch(() => undefined);
        await next;
      } else await this.act(msg);
    } catch (e) {
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.notice('error', errorMessage(e));
    }
  }

  private async act(msg: FromPanel): Promise<void> {
    switch (msg.type) {
      case 'ready':
        // A new page (shown again, or reloaded): it needs the view and the status again.
        this.posted = undefined;
        this.pageReady = true;
        if (this.sampling) void this.post({ type: 'busy', what: `Sampling ${this.sampling.id}…`, cancellable: true });
        if (this.target) {
          await this.refresh();
          await this.selectPending();
        } else
          this.follow(
            vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => isTaskDocument(e.document)),
          );
        return;
      case 'runCases':
        await this.runCases();
        return;
      case 'revealCase':
        this.revealCase(msg.index);
        return;
      case 'edit':
        await this.edit(msg.task, (f, i) => setScalar(f, i, msg.path, msg.old, msg.value));
        return;
      case 'addItem':
        await this.edit(msg.task, (f, i) => {
          const add = verifierForm(f.tasks[i]?.node ?? null).additionFor(msg.path, msg.item);
          if (!add) return { error: `cannot add \`${msg.item}\` here` };
          return add.type === 'item'
            ? appendItem(f, i, msg.path, add.value)
            : addKey(f, i, msg.path, add.key, add.value);
        });
        return;
      case 'removeItem':
        await this.edit(msg.task, (f, i) => removal(f, i, msg.path, msg.shown));
        return;
      case 'addCase':
        await this.addCase(msg.task, msg.sample, msg.expect);
        return;
      case 'sample':
        await this.sample(msg.task, msg.mode);
        return;
      case 'cancel':
        if (this.sampling) this.s.runner.cancel(this.sampling.uri, this.sampling.id, true);
        return;
      case 'audit':
        await this.audit(msg.task);
        return;
      case 'addProbeCase':
        await this.addProbeCase(msg.task, msg.probe);
        return;
      case 'applyFix':
        await this.applyFix(msg.task, msg.title);
        return;
    }
  }

  /** Runs the audit's probes on the shown task, and looks for suspects among its shown samples. */
  async audit(taskId: string): Promise<AuditView | undefined> {
    const at = this.locate();
    if (!at?.spec || taskKey(at.entry) !== taskId) {
      await this.notice('warning', `Task ${taskId} is not shown, or has errors: nothing was audited.`);
      return undefined;
    }
    const { doc, file, entry, spec } = at;
    const key = `${doc.uri.toString()}#${spec.id}`;
    await this.post({ type: 'busy', what: `Auditing ${spec.id}…`, cancellable: false });
    try {
      const trusted = vscode.workspace.isTrusted;
      const [audit] = await auditTasks([spec], { file: doc.uri.fsPath, trusted });
      const shown = this.runs.get(key)?.run;
      const suspects = shown
        ? await findSuspects(
            spec,
            doc.uri.fsPath,
            shown.samples.map((x) => ({ index: x.index, response: responseOf(x), verdict: x.verdict })),
            { trusted },
          )
        : [];
      if (!audit) return undefined;
      const view = auditView(audit, suspects, spec);
      this.audits.set(key, {
        text: file.text.slice(entry.offset, entry.offset + entry.length),
        view,
        findings: audit.findings,
      });
      this.posted = undefined;
      await this.refresh();
      return view;
    } finally {
      if (!this.disposed && !this.sampling) await this.post({ type: 'busy', what: null, cancellable: false });
    }
  }

  /** Replaces the task's verifier by a fix the last audit offered (as the quick fix does), in one undoable edit. */
  private async applyFix(taskId: string, title: string): Promise<void> {
    const at = this.locate();
    const key = this.target && `${this.target.uri.toString()}#${taskId}`;
    const findings = key ? this.audits.get(key)?.findings : undefined;
    const fix =
      at?.spec && findings ? verifierFixes(at.spec.verify, findings).find((f) => f.title === title) : undefined;
    if (!at?.spec || !fix) {
      await this.notice('warning', `The fix "${title}" is no longer offered; audit the task again.`);
      return;
    }
    const old = at.spec.verify;
    await this.edit(taskId, (f, i) => replaceKey(f, i, 'verify', old, fix.verify));
  }

  /** Writes a probe of the last audit into the task's cases, expecting what a sound verifier does. */
  private async addProbeCase(taskId: string, probe: string): Promise<void> {
    const key = this.target && `${this.target.uri.toString()}#${taskId}`;
    const finding = key ? this.audits.get(key)?.findings.find((f) => f.probe === probe) : undefined;
    if (!finding) {
      await this.notice('warning', `The probe ${probe} is no longer shown; audit the task again.`);
      return;
    }
    if (!(await this.edit(taskId, (f, i) => addCase(f, i, finding.response, finding.expected, finding.calls)))) return;
    const calls = finding.calls
      ? ` with its ${finding.calls.length} tool call${finding.calls.length === 1 ? '' : 's'}`
      : '';
    await this.notice('info', `Added the probe ${probe}${calls} as a case that expects ${finding.expected}.`);
    await this.runCases();
  }

  /**
   * Applies one edit of one node as a WorkspaceEdit (undoable like typing). The edit is
   * computed on the document as it is now; when the node changed since the panel showed it,
   * nothing is written and the panel is refreshed instead.
   */
  private async edit(taskId: string, make: (file: TaskFile, index: number) => EditResult): Promise<boolean> {
    const at = this.locate();
    if (!at || taskKey(at.entry) !== taskId) {
      await this.notice('warning', `Task ${taskId} is no longer shown; nothing was changed.`);
      return false;
    }
    const row = parseRowUri(at.doc.uri);
    if (row) {
      await this.notice('info', readOnlyRow(row));
      return false;
    }
    const r = make(at.file, at.entry.index);
    if ('error' in r) {
      await this.notice('warning', r.error);
      await this.refresh();
      return false;
    }
    const { doc } = at;
    const ok = await vscode.workspace.applyEdit(workspaceEdit(doc, r.edit));
    if (!ok) await this.notice('error', 'VS Code refused the edit (is the file read-only?).');
    return ok;
  }

  private async addCase(taskId: string, index: number, expect: 'pass' | 'fail'): Promise<void> {
    const key = this.target && `${this.target.uri.toString()}#${taskId}`;
    const sample = key ? this.runs.get(key)?.run.samples.find((x) => x.index === index) : undefined;
    if (!sample) {
      await this.notice('warning', `Sample #${index + 1} is no longer shown.`);
      return;
    }
    // The case holds the response as verifiers see it, <think> block included.
    const calls = sample.trajectory ? trajectoryCalls(sample.trajectory) : undefined;
    if (!(await this.edit(taskId, (f, i) => addCase(f, i, responseOf(sample), expect, calls)))) return;
    const n = sample.trajectory?.steps.length ?? 0;
    await this.notice(
      'info',
      `Added sample #${index + 1}${calls ? ` with its ${n} tool call${n === 1 ? '' : 's'}` : ''} as a case that expects ${expect}.`,
    );
    // Parsing after the edit is synchronous on get(); run the cases so the new one shows its verdict.
    await this.runCases();
  }

  /**
   * Resample: N fresh samples replace the shown ones. More: as many again are added. New
   * samples join the shown run as they arrive, so edits, Add as case and a panel shown again
   * see them before the run ends.
   */
  private async sample(taskId: string, mode: 'resample' | 'more'): Promise<void> {
    const at = this.locate();
    if (this.sampling || (at && this.s.runner.isRunning(at.doc.uri, taskId))) {
      await this.notice('info', 'This task is being sampled already.');
      return;
    }
    if (!at || taskKey(at.entry) !== taskId) {
      await this.notice('warning', `Task ${taskId} is no longer shown.`);
      return;
    }
    if (!at.spec) {
      await this.notice('warning', 'Fix the task first (see Problems): only a task without errors can be sampled.');
      return;
    }
    const { doc, spec } = at;
    this.sampling = { uri: doc.uri, id: spec.id };
    const key = `${doc.uri.toString()}#${spec.id}`;
    const base = mode === 'more' ? this.runs.get(key) : undefined;
    const have = this.runs.get(key)?.run.samples.length ?? 0;
    const n = settingsFor(doc.uri).samples ?? spec.sampling.samples;
    // More doubles what is shown, up to a bound: every sample is a paid request.
    const total = mode === 'more' ? Math.min(MAX_SAMPLES, Math.max(have, n) * 2) : Math.max(have, n);
    const samples = new Map((base?.run.samples ?? []).map((x) => [x.index, x]));
    const partial = (): ShownRun => {
      const list = [...samples.values()].sort((a, b) => a.index - b.index);
      return {
        run: {
          task: spec,
          model: base?.run.model ?? '…',
          samples: list,
          stats: taskStats(list.map((x) => x.verdict)),
          requests: 0,
        },
        fresh: true,
      };
    };
    this.runs.set(key, partial());
    try {
      await this.post({ type: 'busy', what: `Sampling ${spec.id}…`, cancellable: true });
      if (mode === 'resample') await this.refresh();
      const [r] = await this.s.runner.run(doc, [spec.id], {
        fresh: mode === 'resample',
        samples: total,
        onSample: (task, x) => {
          if (this.disposed) return;
          samples.set(x.index, x);
          this.runs.set(key, partial());
          void this.post({
            type: 'samples',
            task,
            uri: doc.uri.toString(),
            samples: [sampleView(x)],
            done: samples.size,
            total,
          });
        },
      });
      if (r?.error && r.error !== 'cancelled') await this.notice('error', r.error);
    } finally {
      this.sampling = undefined;
      if (!this.disposed) await this.post({ type: 'busy', what: null, cancellable: false });
    }
  }

  /** Runs the shown task's cases and shows their verdicts (also in the lenses and gutter). */
  async runCases(): Promise<CaseResult[] | undefined> {
    const at = this.locate();
    if (!at?.spec) {
      if (at)
        await this.notice('warning', 'Fix the task first (see Problems): its cases cannot run while it has errors.');
      return undefined;
    }
    const key = resultKeysOf(at.file, at.entry).cases;
    const results = await runCases([at.spec], { file: at.doc.uri.fsPath, trusted: vscode.workspace.isTrusted });
    // Results of a task that changed while they ran would pass for the new one's: drop them.
    const now = this.locate();
    if (now && resultKeysOf(now.file, now.entry).cases === key)
      this.s.results.setCases(at.doc.uri, at.spec.id, key, results);
    await this.refresh();
    return results;
  }

  private revealCase(index: number): void {
    const at = this.locate();
    const c = at?.spec?.cases.find((x) => x.index === index);
    if (!at || !c) return;
    void vscode.window
      .showTextDocument(at.doc, { viewColumn: vscode.ViewColumn.One, preserveFocus: false })
      .then((editor) => {
        const pos = at.doc.positionAt(c.offset);
        editor.selection = new vscode.Selection(pos, pos);
        editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      });
  }

  private notice(level: 'info' | 'warning' | 'error', text: string): Thenable<boolean> {
    if (level !== 'info') this.s.log.warn(`task panel: ${text}`);
    this.lastNotice = text;
    return this.post({ type: 'notice', level, text });
  }

  private post(message: ToPanel): Thenable<boolean> {
    if (this.disposed) return Promise.resolve(false);
    return this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (TaskPanel.current === this) TaskPanel.current = undefined;
    clearTimeout(this.timer);
    this.reverifying?.abort.abort();
    if (this.sampling) this.s.runner.cancel(this.sampling.uri, this.sampling.id, true);
    this.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Removes a list item or an optional key, only when the row there is still the one the panel
 * showed (an item inserted above it in the file would otherwise shift the index).
 */
function removal(file: TaskFile, index: number, path: NodePath, shown: string): EditResult {
  if (!sameRow(verifierForm(file.tasks[index]?.node ?? null).rows, path, shown))
    return { error: `\`${shown}\` changed in the file since the panel showed it; nothing was removed` };
  const last = path[path.length - 1];
  if (typeof last === 'number') return removeItem(file, index, path);
  const at = locate(file, index, path);
  if ('error' in at) return at;
  return removeKey(file, index, path.slice(0, -1), String(last), toJS(at.steps[at.steps.length - 1]?.node));
}

/** What the panel says over a row of a dataset: it shows the row, it cannot change it. */
function readOnlyRow(row: { file: vscode.Uri; n: number }): string {
  return `Row ${row.n} of ${vscode.workspace.asRelativePath(row.file)}, read-only: Convert to .vtask (in the dataset's editor title) to edit it.`;
}

/** Why the form of a document's task is read-only (a row of a JSONL or Parquet dataset), or undefined when it is not. */
function readOnlyNote(uri: vscode.Uri): string | undefined {
  const row = parseRowUri(uri);
  if (row) return readOnlyRow(row);
  return isRowDocument({ uri }) ? ROW_READ_ONLY : undefined;
}

/** The file the panel names: a Parquet row by its dataset and row number, anything else by its path in the workspace. */
function shownFile(uri: vscode.Uri): string {
  const row = parseRowUri(uri);
  return row ? `${vscode.workspace.asRelativePath(row.file)}, row ${row.n}` : vscode.workspace.asRelativePath(uri);
}

/** The panel's page, with a fresh nonce each time it is built. */
function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return panelHtml(pageOptions(webview, extensionUri));
}

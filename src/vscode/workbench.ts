// The dataset workbench: one table of every task of a folder or file (task files, JSONL,
// Parquet), opened by `vtask.openWorkbench` from the explorer, the vtask view, the dashboard or
// a Parquet table. The index lives in a worker thread (src/core/workbench); this panel passes the
// page's requests to it and its answers back, so the extension host never filters or sorts.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import { RowSet } from '../core/base/rowSet';
import { rowFileType } from '../core/datasets/rowFiles';
import {
  fromWorkbench,
  MAX_SELECTION_ROWS,
  type FromWorkbench,
  type ToWorkbench,
} from '../core/base/workbenchProtocol';
import { rowMessage, WorkbenchClient, type WorkbenchOpened } from '../core/workbench/client';
import { actualText, type PlannedTask, type TaskUsage } from '../core/workbench/estimate';
import type { WorkbenchRowView } from '../core/workbench/index';
import { labelProblem } from '../core/workbench/labels';
import { cut } from '../core/util/cut';
import { workbenchHtml } from '../webview/page';
import { revealLine } from './datasetTree';
import { cacheDirFor, settingsFor } from './settings';
import type { TaskDocuments } from './taskDocuments';
import type { TaskRunner } from './taskRunner';
import { runnableTasks } from '../core/taskfile/resolve';
import { PageOutbox, showPage } from './webviewPage';
import { actOnSamples, isSamplesMessage } from './workbenchSamples';
import { plannedTasks, runEstimateText, runUsage, WorkbenchBulk } from './workbenchBulk';

export interface WorkbenchServices {
  readonly extensionUri: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  readonly documents: TaskDocuments;
  readonly runner: TaskRunner;
}

/** Messages kept per panel for tests (the last ones). */
const POSTED_KEPT = 200;
/** Characters of an error the page is sent. */
const MESSAGE_CHARS = 2000;

/** One workbench panel over one folder or file. */
export class Workbench implements vscode.Disposable {
  static readonly viewType = 'vtask.workbench';
  private readonly outbox: PageOutbox<ToWorkbench>;
  private readonly disposables: vscode.Disposable[] = [];
  private client: WorkbenchClient | undefined;
  private opened: Promise<WorkbenchOpened> | undefined;
  private disposed = false;
  private readonly root: string;
  /** Audit, export and the task panel over the selection. */
  readonly bulk: WorkbenchBulk;

  constructor(
    readonly target: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly s: WorkbenchServices,
  ) {
    this.root = vscode.workspace.getWorkspaceFolder(target)?.uri.fsPath ?? path.dirname(target.fsPath);
    showPage(panel, s.extensionUri, workbenchHtml);
    this.outbox = new PageOutbox(panel.webview, POSTED_KEPT);
    this.disposables.push(this.outbox);
    this.bulk = new WorkbenchBulk({
      root: this.root,
      worker: this.workerScript,
      log: s.log,
      client: () => this.clientReady(),
      post: (m) => this.post(m),
    });
    this.disposables.push(
      this.bulk,
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handle(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Acts on a message from the page, once it is known to be well-formed. */
  async handle(raw: unknown): Promise<void> {
    const parsed = fromWorkbench.safeParse(raw);
    if (!parsed.success) {
      this.s.log.warn('ignored a malformed message from the workbench');
      return;
    }
    try {
      await this.act(parsed.data);
    } catch (e) {
      if (this.disposed) return;
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.post({ type: 'notice', level: 'error', text: cut(errorMessage(e), MESSAGE_CHARS) });
    }
  }

  private get workerScript(): string {
    return path.join(this.s.extensionUri.fsPath, 'out', 'workbenchWorker.js');
  }

  /** The worker, started on the first `ready` (a page shown again reads nothing again). */
  private start(): Promise<WorkbenchOpened> {
    if (!this.opened) {
      const script = this.workerScript;
      // The cache folder the settings name, as runs in the editor find it; else each file's own.
      const options = {
        root: this.root,
        ...(settingsFor(this.target).cacheDir ? { cacheDir: cacheDirFor(this.target) } : {}),
      };
      this.client = new WorkbenchClient(
        script,
        { paths: [this.target.fsPath], options },
        (done, total) => void this.post({ type: 'progress', done, total }),
      );
      this.opened = this.client.opened;
    }
    return this.opened;
  }

  private async act(msg: FromWorkbench): Promise<void> {
    if (isSamplesMessage(msg))
      return actOnSamples(
        {
          target: this.target,
          root: this.root,
          log: this.s.log,
          client: () => this.clientReady(),
          post: (m) => this.post(m),
          open: (n) => this.act({ type: 'open', n }),
        },
        msg,
      );
    switch (msg.type) {
      case 'ready': {
        let opened: WorkbenchOpened;
        try {
          opened = await this.start();
        } catch (e) {
          await this.post({
            type: 'error',
            text: cut(
              `${vscode.workspace.asRelativePath(this.target)} cannot be read: ${errorMessage(e)}`,
              MESSAGE_CHARS,
            ),
          });
          return;
        }
        await this.postOpened(opened);
        return;
      }
      case 'view': {
        const client = await this.clientReady();
        const r = await client.request({
          op: 'view',
          query: msg.query,
          ...(msg.sort ? { sort: { column: msg.sort.column as never, descending: msg.sort.descending } } : {}),
        });
        await this.post(
          'error' in r
            ? { type: 'queryError', seq: msg.seq, error: r.error, at: r.at }
            : { type: 'view', seq: msg.seq, size: r.size },
        );
        return;
      }
      case 'window': {
        const client = await this.clientReady();
        const rows = await client.request({ op: 'window', start: msg.start, end: msg.end });
        await this.post({ type: 'rows', seq: msg.seq, start: msg.start, rows: rows.map(rowMessage) });
        return;
      }
      case 'selectRange': {
        const client = await this.clientReady();
        const rows = await client.request({
          op: 'rows',
          start: msg.start,
          end: Math.min(msg.end, msg.start + MAX_SELECTION_ROWS),
        });
        await this.post({ type: 'select', rows });
        return;
      }
      case 'label': {
        const label = msg.clear ? undefined : (msg.label ?? (await askLabel(RowSet.decode(msg.rows).size)));
        if (!msg.clear && label === undefined) return;
        const client = await this.clientReady();
        const done = await client.request({ op: 'label', rows: msg.rows, label });
        for (const e of done.errors) this.s.log.warn(`label not set: ${e}`);
        if (done.errors.length)
          await this.post({
            type: 'notice',
            level: 'warning',
            text: cut(
              `${done.errors.length} label${done.errors.length === 1 ? '' : 's'} not set: ${done.errors[0]}`,
              MESSAGE_CHARS,
            ),
          });
        await this.post({ type: 'labelled', changed: done.changed });
        return;
      }
      case 'run':
        await this.run(msg.rows, msg.samples, msg.confirmed === true);
        return;
      case 'audit':
        await this.bulk.audit(msg.rows);
        return;
      case 'export':
        await this.bulk.export(msg.rows);
        return;
      case 'cancel':
        this.bulk.cancel();
        return;
      case 'openPanel':
        await this.bulk.openPanel(msg.rows);
        return;
      case 'step':
        await this.bulk.step(msg.by);
        return;
      case 'open': {
        const client = await this.clientReady();
        const [row] = await client.request({ op: 'rowsByNumber', rows: RowSet.range(msg.n, msg.n + 1).encode() });
        if (!row) return;
        const uri = vscode.Uri.file(path.resolve(this.root, row.file));
        // A Parquet file is no text: it opens in its table view.
        if (rowFileType(row.file) === 'parquet') await vscode.commands.executeCommand('vscode.open', uri);
        else await revealLine(uri, row.line);
        return;
      }
    }
  }

  /**
   * Runs the tasks of `rows` (task files and JSONL rows; Parquet rows run from their table)
   * file by file through the editor's runner, after the user agreed to the sample budget and
   * the estimate of tokens and cost (the page shows it); cancelling keeps the runs that
   * finished (they are in the run log). Then the dataset is read again, so the table shows the
   * new runs, and the tokens and cost the run used are said.
   */
  private async run(rows: string, samples: number | undefined, confirmed: boolean): Promise<void> {
    const client = await this.clientReady();
    // Only the tasks a run takes cross to the host: a selection of a million Parquet rows is a count.
    const picked = await client.request({ op: 'tasksOf', rows, kinds: 'runnable', start: 0, end: MAX_SELECTION_ROWS });
    const byFile = new Map<string, Map<string, WorkbenchRowView>>();
    const skipped = picked.skipped;
    for (const r of picked.rows) {
      const ids = byFile.get(r.file) ?? new Map<string, WorkbenchRowView>();
      ids.set(r.id, r);
      byFile.set(r.file, ids);
    }
    const docs: { doc: vscode.TextDocument; ids: string[]; planned: PlannedTask[] }[] = [];
    for (const [file, ids] of byFile) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.resolve(this.root, file)));
      const n = settingsFor(doc.uri).samples;
      const parsed = this.s.documents.get(doc);
      const tasks = runnableTasks(parsed).tasks.flatMap((task) => {
        const row = ids.get(task.id);
        return row ? [{ task, row, samples: samples ?? n ?? task.sampling.samples }] : [];
      });
      docs.push({ doc, ids: [...ids.keys()], planned: plannedTasks(parsed, doc.uri, tasks) });
    }
    if (!docs.length) {
      await this.post({
        type: 'notice',
        level: 'warning',
        text: 'Nothing to run: pick tasks of task files or JSONL rows (a Parquet row runs from its table).',
      });
      return;
    }
    const leftOut = skipped
      ? ` ${skipped} selected ${skipped === 1 ? 'row is' : 'rows are'} left out (Parquet rows, tasks with errors).`
      : '';
    const what = runEstimateText(
      (await this.start()).models,
      docs.flatMap((d) => d.planned),
      leftOut,
    );
    // The page shows the estimate and asks; it posts the run again, confirmed, when the user agrees.
    if (!confirmed) {
      await this.post({
        type: 'confirmRun',
        rows,
        ...(samples ? { samples } : {}),
        text: cut(what, MESSAGE_CHARS),
      });
      return;
    }
    this.s.log.info(`workbench: ${what}`);
    const used: TaskUsage[] = [];
    for (const { doc, ids, planned } of docs) {
      const done = await this.s.runner.run(doc, ids, samples ? { samples } : {});
      used.push(...runUsage(done, planned));
      // Cancelled: the runner's progress was cancelled; what finished is logged, the rest is not started.
      if (done.some((r) => r.error && /cancel/i.test(r.error))) break;
    }
    this.opened = client.request({ op: 'reload' });
    await this.postOpened(await this.opened);
    const actual = actualText(used);
    this.s.log.info(`workbench: ${actual}`);
    await this.post({ type: 'notice', level: 'info', text: cut(actual, MESSAGE_CHARS) });
  }

  private async postOpened(opened: WorkbenchOpened): Promise<void> {
    const title = vscode.workspace.asRelativePath(this.target);
    await this.post({
      type: 'opened',
      title,
      rows: opened.rows,
      models: [...opened.models],
      files: opened.files.length,
      notes: opened.notes.slice(0, 100).map((n) => cut(n, MESSAGE_CHARS)),
    });
  }

  private async clientReady(): Promise<WorkbenchClient> {
    await this.start();
    if (!this.client) throw new Error('the workbench is not open');
    return this.client;
  }

  /** The index's answer to a request (for tests and commands acting on a selection). */
  async request(...args: Parameters<WorkbenchClient['request']>): ReturnType<WorkbenchClient['request']> {
    return (await this.clientReady()).request(...args);
  }

  /** What the page was sent, most recent last (for tests). */
  get posted(): readonly ToWorkbench[] {
    return this.outbox.posted;
  }

  get onDidPost(): vscode.Event<ToWorkbench> {
    return this.outbox.onDidPost;
  }

  private post(message: ToWorkbench): Thenable<boolean> {
    return this.outbox.post(message);
  }

  reveal(): void {
    this.panel.reveal();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    void this.client?.close();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

/** The label to set on `count` rows, asked of the user; undefined when they cancel. */
async function askLabel(count: number): Promise<string | undefined> {
  const label = await vscode.window.showInputBox({
    title: `vtask: review label of ${count.toLocaleString('en-US')} ${count === 1 ? 'task' : 'tasks'}`,
    prompt: "Stored as the task's meta.review in a task file, in <file>.labels.json beside a JSONL or Parquet file",
    placeHolder: 'checked, bad_gold, needs_review…',
    validateInput: (v) => labelProblem(v),
  });
  return label?.trim() || undefined;
}

/** The open workbenches by target, and the command that opens one. */
export class Workbenches implements vscode.Disposable {
  private readonly open = new Map<string, Workbench>();

  constructor(private readonly s: WorkbenchServices) {}

  /** Opens (or shows) the workbench of a folder or dataset file; the workspace's first folder by default. */
  show(target: vscode.Uri | undefined): Workbench | undefined {
    const uri = target ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!uri || uri.scheme !== 'file') {
      void vscode.window.showInformationMessage(
        'vtask: open a folder, or pick a folder or dataset file, to open the workbench.',
      );
      return undefined;
    }
    const key = uri.toString();
    const known = this.open.get(key);
    if (known) {
      known.reveal();
      return known;
    }
    const panel = vscode.window.createWebviewPanel(
      Workbench.viewType,
      `vtask: ${path.basename(uri.fsPath)}`,
      vscode.ViewColumn.Active,
      { retainContextWhenHidden: false },
    );
    const w = new Workbench(uri, panel, this.s);
    this.open.set(key, w);
    panel.onDidDispose(() => this.open.delete(key));
    return w;
  }

  /** The open workbench of a target (for tests). */
  of(uri: vscode.Uri): Workbench | undefined {
    return this.open.get(uri.toString());
  }

  register(): vscode.Disposable[] {
    return [vscode.commands.registerCommand('vtask.openWorkbench', (arg?: unknown) => this.show(targetOf(arg))), this];
  }

  dispose(): void {
    for (const w of this.open.values()) w.dispose();
    this.open.clear();
  }
}

/** A command's argument as a target: a Uri (explorer, editor), a tree node with one, or none. */
function targetOf(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const uri = arg && typeof arg === 'object' ? (arg as { uri?: unknown }).uri : undefined;
  if (uri instanceof vscode.Uri) return uri;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText ? input.uri : undefined;
}

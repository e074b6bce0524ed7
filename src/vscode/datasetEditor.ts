import * as path from 'node:path';
import * as vscode from 'vscode';
import { fromDataset, type FromDataset, type RowResultView, type ToDataset } from '../core/base/datasetProtocol';
import { errorMessage } from '../core/base/errorMessage';
import { clip, convertDataset, type Conversion } from '../core/datasets/datasetView';
import { datasetHtml } from '../webview/page';
import { DatasetTables, RowDocuments, ROW_SCHEME } from './datasetRows';
import type { ResultStore } from './results';
import type { TaskDocuments } from './taskDocuments';
import { TaskPanel } from './taskPanel';
import type { TaskRunner } from './taskRunner';
import { plural } from '../core/util/plural';
import { showPage } from './webviewPage';

export interface DatasetServices {
  readonly extensionUri: vscode.Uri;
  readonly documents: TaskDocuments;
  readonly results: ResultStore;
  readonly runner: TaskRunner;
  readonly log: vscode.LogOutputChannel;
}

/** Messages kept per view for tests (the last ones). */
const POSTED_KEPT = 200;
/** Characters of an error the page is sent (its protocol takes 10,000; the output has it all). */
const MESSAGE_CHARS = 2000;
/** Rows whose reasons a conversion shows in its message; the output channel has them all. */
const BAD_ROWS_SHOWN = 5;

/** The dataset table view of one `.parquet` file in one editor. */
export class DatasetView implements vscode.Disposable {
  /** What the view posted to its page, most recent last (for tests). */
  readonly posted: ToDataset[] = [];
  private readonly postEmitter = new vscode.EventEmitter<ToDataset>();
  /** Fires for each message posted to the page (tests wait on it). */
  readonly onDidPost = this.postEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.postEmitter];
  private readonly running = new Set<number>();
  private disposed = false;

  constructor(
    readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly s: DatasetServices & {
      tables: DatasetTables;
      rows: RowDocuments;
      runs: Map<string, RowResultView>;
    },
  ) {
    showPage(panel, s.extensionUri, datasetHtml);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handle(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Acts on a message from the page, once it is known to be well-formed. */
  async handle(raw: unknown): Promise<void> {
    const parsed = fromDataset.safeParse(raw);
    if (!parsed.success) {
      this.s.log.warn('ignored a malformed message from the dataset view');
      return;
    }
    try {
      await this.act(parsed.data);
    } catch (e) {
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.post({ type: 'notice', level: 'error', text: clip(errorMessage(e), MESSAGE_CHARS) });
    }
  }

  private async act(msg: FromDataset): Promise<void> {
    const file = vscode.workspace.asRelativePath(this.uri);
    switch (msg.type) {
      case 'ready': {
        let info;
        try {
          info = (await this.s.tables.get(this.uri)).info;
        } catch (e) {
          await this.post({
            type: 'error',
            file,
            text: clip(`${file} cannot be shown: ${errorMessage(e)}`, MESSAGE_CHARS),
          });
          return;
        }
        await this.post({
          type: 'dataset',
          file,
          info: { rows: info.rows, format: info.format, columns: [...info.columns], banner: info.banner },
        });
        // Runs made earlier in this window (the page was closed and opened again).
        for (const n of this.running) await this.post({ type: 'run', n, running: true });
        return;
      }
      case 'window': {
        const rows = await (await this.s.tables.get(this.uri)).window(msg.start, msg.end);
        await this.post({
          type: 'rows',
          rows: rows.map((r) => ({ ...r, cells: [...r.cells], ...this.runResult(r.n) })),
        });
        return;
      }
      case 'run':
        await this.run(msg.n);
        return;
      case 'open': {
        const row = await this.s.rows.open(this.uri, msg.n);
        if ('error' in row) {
          await this.post({ type: 'notice', level: 'warning', text: `Row ${msg.n}: ${row.error}` });
          return;
        }
        const panel = TaskPanel.createOrShow(this.s.extensionUri, this.s);
        panel.show(row.doc.uri, row.id);
        return;
      }
      case 'convert': {
        const done = await vscode.commands.executeCommand<Conversion | undefined>('vtask.convertDataset', this.uri);
        if (done)
          await this.post({
            type: 'notice',
            level: done.bad.length || done.errors ? 'warning' : 'info',
            text: conversionSummary(done),
          });
        return;
      }
    }
  }

  /** The result of a run of row n in this window, as a row's `result`. */
  private runResult(n: number): { result: RowResultView } | Record<string, never> {
    const r = this.s.runs.get(`${this.uri.toString()}#${n}`);
    return r ? { result: r } : {};
  }

  /** ▶ Run verifier on a row: its task document sampled by the same runner as a lens click. */
  private async run(n: number): Promise<RowResultView | undefined> {
    if (this.running.has(n)) return undefined;
    const row = await this.s.rows.open(this.uri, n);
    if ('error' in row) {
      await this.post({ type: 'notice', level: 'warning', text: `Row ${n} cannot run: ${row.error}` });
      return undefined;
    }
    this.running.add(n);
    await this.post({ type: 'run', n, running: true });
    try {
      const [r] = await this.s.runner.run(row.doc, [row.id]);
      if (!r) throw new Error(`row ${n} has no task that can run`);
      const result: RowResultView = {
        passRate: r.stats.passRate,
        band: r.stats.band,
        samples: r.stats.samples,
        source: 'run',
        ...(r.note ? { note: r.note } : {}),
      };
      if (r.samples.length > 0) this.s.runs.set(`${this.uri.toString()}#${n}`, result);
      await this.post({
        type: 'run',
        n,
        running: false,
        ...(r.samples.length > 0 ? { result } : {}),
        ...(r.error ? { error: clip(r.error, MESSAGE_CHARS) } : {}),
      });
      return result;
    } catch (e) {
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.post({ type: 'run', n, running: false, error: clip(errorMessage(e), MESSAGE_CHARS) });
      return undefined;
    } finally {
      this.running.delete(n);
    }
  }

  private post(message: ToDataset): Thenable<boolean> {
    this.posted.push(message);
    if (this.posted.length > POSTED_KEPT) this.posted.shift();
    if (this.disposed) return Promise.resolve(false);
    this.postEmitter.fire(message);
    return this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
  }
}

/** `.parquet` files open as a read-only table of their rows. */
export class DatasetEditorProvider implements vscode.CustomReadonlyEditorProvider {
  static readonly viewType = 'vtask.dataset';
  private readonly views = new Set<DatasetView>();
  private readonly tables = new DatasetTables();
  private readonly rows = new RowDocuments(this.tables);
  /** Pass rates of rows run in this window, by `uri#n`. */
  private readonly runs = new Map<string, RowResultView>();

  constructor(private readonly s: DatasetServices) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const view = new DatasetView(document.uri, panel, {
      ...this.s,
      tables: this.tables,
      rows: this.rows,
      runs: this.runs,
    });
    this.views.add(view);
    panel.onDidDispose(() => this.views.delete(view));
  }

  /** The open view of a file (for tests). */
  viewOf(uri: vscode.Uri): DatasetView | undefined {
    return [...this.views].find((v) => v.uri.toString() === uri.toString());
  }

  /** The provider, the row documents and the Convert command. */
  register(): vscode.Disposable[] {
    return [
      vscode.window.registerCustomEditorProvider(DatasetEditorProvider.viewType, this, {
        supportsMultipleEditorsPerDocument: true,
      }),
      vscode.workspace.registerTextDocumentContentProvider(ROW_SCHEME, this.rows),
      vscode.commands.registerCommand('vtask.convertDataset', (uri?: unknown) =>
        this.convert(uri instanceof vscode.Uri ? uri : activeDataset()),
      ),
      { dispose: () => this.views.forEach((v) => v.dispose()) },
    ];
  }

  /** Writes a dataset's rows as a task file beside it, says which rows it left out, opens it. */
  private async convert(uri: vscode.Uri | undefined): Promise<Conversion | undefined> {
    if (!uri) {
      void vscode.window.showInformationMessage('Open a .parquet dataset to convert it.');
      return undefined;
    }
    const name = path.basename(uri.fsPath);
    try {
      const done = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `vtask: converting ${name} to .vtask` },
        () => convertDataset(uri.fsPath, vscode.workspace.asRelativePath(uri)),
      );
      for (const b of done.bad) this.s.log.warn(`${uri.fsPath}:${b.where}: not converted: ${b.reason}`);
      const summary = conversionSummary(done);
      if (done.bad.length || done.errors) void vscode.window.showWarningMessage(`vtask: ${summary}`);
      else void vscode.window.showInformationMessage(`vtask: ${summary}`);
      await vscode.window.showTextDocument(vscode.Uri.file(done.out), { preview: false });
      return done;
    } catch (e) {
      this.s.log.error(e instanceof Error ? e : String(e));
      void vscode.window.showErrorMessage(`vtask: ${name} was not converted: ${errorMessage(e)}`);
      return undefined;
    }
  }
}

/** The dataset of the active editor tab, when it is a table view. */
function activeDataset(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom && input.viewType === DatasetEditorProvider.viewType
    ? input.uri
    : undefined;
}

/** `Wrote train.vtask: 98 tasks from verl rows; 2 rows not converted: row 3 (why), row 9 (why).` */
export function conversionSummary(c: Conversion): string {
  let text = `Wrote ${path.basename(c.out)}: ${plural(c.tasks, 'task')} from ${c.format} rows`;
  if (c.bad.length) {
    const shown = c.bad.slice(0, BAD_ROWS_SHOWN).map((b) => `${b.where} (${clip(b.reason, 200)})`);
    text += `; ${c.bad.length} row${c.bad.length === 1 ? '' : 's'} not converted: ${shown.join(', ')}${c.bad.length > BAD_ROWS_SHOWN ? ', … (all in the vtask output)' : ''}`;
  }
  if (c.errors) text += `; ${c.errors} validation error${c.errors === 1 ? '' : 's'} (see Problems)`;
  return `${text}.`;
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { fromDashboard, type FromDashboard, type ToDashboard } from '../core/base/dashboardProtocol';
import { errorMessage } from '../core/base/errorMessage';
import { rowFileText, rowFileType } from '../core/datasets/rowFiles';
import { ComparisonPages } from '../core/overview/dataset/dashboardCompare';
import { LiveDatasetStats } from '../core/overview/dataset/liveStats';
import { relativise } from '../core/overview/dataset/dashboardView';
import type { ContaminationHit, DatasetStats, DuplicatePair, TaskRef } from '../core/overview/dataset/types';
import { cut } from '../core/util/cut';
import { SLICE_MS, TimeSlices } from '../core/util/slices';
import { dashboardHtml } from '../webview/page';
import { revealLine } from './datasetTree';
import { overviewSettings } from './duplicateDiagnostics';
import type { RunLogs } from './runLogs';
import type { TaskIndex } from './taskIndex';
import { PageOutbox, showPage } from './webviewPage';

export interface DashboardServices {
  readonly extensionUri: vscode.Uri;
  readonly index: TaskIndex;
  readonly runLogs: RunLogs;
  readonly duplicates: DuplicateFindings;
  readonly log: vscode.LogOutputChannel;
}

/** The duplicate diagnostics' last findings, for the dashboard to show without searching again. */
export interface DuplicateFindings {
  readonly last: { readonly duplicates: readonly DuplicatePair[]; readonly contamination: readonly ContaminationHit[] };
  /** True while a search is scheduled or under way. */
  readonly searching: boolean;
  readonly onDidChange: vscode.Event<readonly vscode.Uri[]>;
}

/** Statistics are computed again this long after the last change (an edit, a save, a run). */
const DEBOUNCE_MS = 1000;
/** The progress line is posted at most this often while files are read. */
const PROGRESS_MS = 250;
/** Messages kept for tests (the last ones). */
const POSTED_KEPT = 50;

/**
 * The dataset dashboard: `vtask stats` over the workspace's task files in a webview, kept up to
 * date after changes settle (edits, saves, runs logged by the editor or by `vtask run` in a
 * terminal, new duplicate findings). Only what changed is read again (liveStats.ts), in time
 * slices between which the extension host does its other work; duplicates and contamination
 * are the duplicate diagnostics' own. The page gets the statistics without the per-task results
 * (those stay here: it asks for a comparison a page at a time); files are named relative to the
 * workspace, and the page's links name them back.
 */
export class Dashboard implements vscode.Disposable {
  static readonly viewType = 'vtask.dashboard';
  static current: Dashboard | undefined;
  private readonly outbox: PageOutbox<ToDashboard>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly live = new LiveDatasetStats();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private abort: AbortController | undefined;
  /** Files by the name the page knows them by. */
  private byName = new Map<string, vscode.Uri>();
  /** Comparisons over the last statistics' per-task results (which stay here). */
  private comparisons: ComparisonPages | undefined;
  private stale = true;
  /** Whether the page has had statistics (until then it says it is reading). */
  private shown = false;
  private ready = false;
  private disposed = false;

  static createOrShow(s: DashboardServices): Dashboard {
    if (Dashboard.current) {
      Dashboard.current.panel.reveal();
      return Dashboard.current;
    }
    const panel = vscode.window.createWebviewPanel(Dashboard.viewType, 'vtask: Dataset', vscode.ViewColumn.Active, {
      retainContextWhenHidden: false,
    });
    return (Dashboard.current = new Dashboard(panel, s));
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly s: DashboardServices,
  ) {
    panel.iconPath = vscode.Uri.joinPath(s.extensionUri, 'media', 'view.svg');
    showPage(panel, s.extensionUri, dashboardHtml);
    this.outbox = new PageOutbox(panel.webview, POSTED_KEPT);
    this.disposables.push(this.outbox);
    const changed = (): void => this.schedule();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handle(m)),
      panel.onDidDispose(() => this.dispose()),
      // Hidden, the page is gone: it asks again (`ready`) when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      s.index.onDidChange((uris) => {
        // An empty list: the set of files changed, and with it possibly any file.
        this.live.changed(uris.length ? uris.map((u) => u.fsPath) : undefined);
        this.schedule();
      }),
      // A run log appended by any process: the editor's runs and `vtask run` in a terminal.
      s.runLogs.onDidChange(changed),
      s.duplicates.onDidChange(changed),
    );
  }

  /** Acts on a message from the page, once it is known to be well-formed. */
  async handle(raw: unknown): Promise<void> {
    const parsed = fromDashboard.safeParse(raw);
    if (!parsed.success) {
      this.s.log.warn('ignored a malformed message from the dataset dashboard');
      return;
    }
    try {
      await this.act(parsed.data);
    } catch (e) {
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.post({ type: 'notice', level: 'error', text: cut(errorMessage(e), 2000) });
    }
  }

  private async act(msg: FromDashboard): Promise<void> {
    switch (msg.type) {
      case 'ready':
        // A page (re)loaded: it has nothing until the statistics come.
        this.ready = true;
        this.shown = false;
        await this.update();
        return;
      case 'refresh':
        this.live.changed();
        await this.update();
        return;
      case 'compare':
        if (this.comparisons)
          await this.post({
            type: 'comparison',
            comparison: await this.comparisons.page(
              msg.a,
              msg.b,
              msg.cell,
              msg.page,
              msg.solvePage,
              msg.failPage,
              new TimeSlices(),
            ),
          });
        return;
      case 'compareRuns':
        await vscode.commands.executeCommand('vtask.diffRuns');
        return;
      case 'open': {
        const uri = this.byName.get(msg.file);
        if (!uri) {
          await this.post({ type: 'notice', level: 'warning', text: `${msg.file} is no longer in the workspace.` });
          return;
        }
        const task =
          msg.task === undefined ? undefined : (await this.s.index.get(uri)).tasks.find((t) => t.id === msg.task);
        if (msg.task !== undefined && !task)
          await this.post({ type: 'notice', level: 'warning', text: `${msg.task} is no longer in ${msg.file}.` });
        // A Parquet row has no text to go to: its dataset opens in the table view.
        if (rowFileType(uri.path) === 'parquet')
          await vscode.commands.executeCommand('vscode.openWith', uri, 'vtask.dataset');
        else await revealLine(uri, task?.line ?? 0);
        return;
      }
    }
  }

  private schedule(): void {
    this.stale = true;
    clearTimeout(this.timer);
    // A hidden dashboard computes nothing: it asks when it is shown again.
    if (this.ready) this.timer = setTimeout(() => void this.update(), DEBOUNCE_MS);
  }

  /** Brings the statistics up to date (cancelling a computation under way) and posts them. */
  async update(): Promise<DatasetStats | undefined> {
    clearTimeout(this.timer);
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    const listed = (await this.s.index.files()).filter((u) => u.scheme === 'file');
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.fsPath, d]));
    const found = this.s.duplicates.last;
    // The findings name files by URI, the statistics by path: each file's path is made once.
    const paths = new Map<string, string>();
    const fsRef = <T extends TaskRef>(r: T): T => {
      let file = paths.get(r.file);
      if (file === undefined) paths.set(r.file, (file = vscode.Uri.parse(r.file).fsPath));
      return { ...r, file };
    };
    let lastProgress = 0;
    if (!this.shown)
      await this.post({ type: 'busy', text: `Reading ${listed.length.toLocaleString('en-US')} task files…` });
    // A file deleted after it was listed (a checkout, a script) is no longer part of the dataset:
    // the statistics are made again without it rather than failing (the index drops it as its
    // watcher reports the deletion). Each attempt leaves out at least one more file.
    const gone = new Set<string>();
    let uris = listed;
    let stats: DatasetStats;
    try {
      for (;;) {
        uris = listed.filter((u) => !gone.has(u.fsPath));
        const goneBefore = gone.size;
        try {
          stats = await this.live.compute(
            uris.map((u) => ({ file: u.fsPath, cacheDir: this.s.runLogs.placeOf(u).cacheDir })),
            {
              read: (f) => textNow(f, open, gone),
              unsaved: (f) => open.get(f)?.isDirty === true,
              runLog: (cacheDir) => this.s.runLogs.read(cacheDir),
              duplicates: found.duplicates
                .map((d) => ({ ...d, a: fsRef(d.a), b: fsRef(d.b) }))
                .filter((d) => !gone.has(d.a.file) && !gone.has(d.b.file)),
              contamination: found.contamination.map(fsRef).filter((c) => !gone.has(c.file)),
            },
            {
              slices: new TimeSlices(SLICE_MS, abort.signal),
              onFile: (done, total) => {
                if (Date.now() - lastProgress < PROGRESS_MS) return;
                lastProgress = Date.now();
                void this.post({
                  type: 'busy',
                  text: `Reading task files… ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`,
                });
              },
            },
          );
          break;
        } catch (e) {
          if (abort.signal.aborted || gone.size === goneBefore) throw e;
        }
      }
      if (abort.signal.aborted) return undefined;
      this.stale = false;
      const names = new Map(uris.map((u) => [u.fsPath, vscode.workspace.asRelativePath(u)]));
      this.byName = new Map(uris.map((u) => [names.get(u.fsPath) as string, u]));
      const name = (f: string): string => names.get(f) ?? names.get(path.resolve(f)) ?? f;
      // The per-task results (100,000 × models) stay here: the page asks for a comparison's page.
      this.comparisons = new ComparisonPages(this.live.resultsByFile, name);
      const findings = !overviewSettings().enabled
        ? 'The duplicate search is turned off (vtask.duplicates.enabled).'
        : this.s.duplicates.searching
          ? 'Looking for duplicates…'
          : undefined;
      this.shown = true;
      await this.post({
        type: 'stats',
        stats: relativise(stats, name),
        ...(vscode.workspace.name ? { folder: vscode.workspace.name } : {}),
        ...(findings ? { findings } : {}),
      });
      return stats;
    } catch (e) {
      if (abort.signal.aborted) return undefined;
      this.s.log.error(e instanceof Error ? e : String(e));
      await this.post({
        type: 'notice',
        level: 'error',
        text: `The statistics could not be computed: ${cut(errorMessage(e), 2000)}`,
      });
      return undefined;
    }
  }

  /** Whether the statistics shown are older than the files (for tests). */
  get isStale(): boolean {
    return this.stale;
  }

  /** What the page was sent, most recent last (for tests). */
  get posted(): readonly ToDashboard[] {
    return this.outbox.posted;
  }

  get onDidPost(): vscode.Event<ToDashboard> {
    return this.outbox.onDidPost;
  }

  private post(message: ToDashboard): Thenable<boolean> {
    return this.outbox.post(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.live.flush();
    if (Dashboard.current === this) Dashboard.current = undefined;
    this.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * A file's text now: an open editor's (saved or not, as the tree and the problems have it), else
 * the disk's; a Parquet dataset as its rows (JSON lines), as `vtask stats` reads it. A file no
 * longer on disk, unless an editor has unsaved text of it, is added to `gone` before the error
 * goes on.
 */
async function textNow(
  file: string,
  open: ReadonlyMap<string, vscode.TextDocument>,
  gone: Set<string>,
): Promise<string> {
  try {
    if (rowFileType(file) === 'parquet') return await rowFileText(file);
    // A document VS Code still holds for a file deleted since (a test run or a tree view loaded
    // it) is the text the file had: only unsaved edits count without the file.
    const doc = open.get(file);
    return doc && (doc.isDirty || fs.existsSync(file)) ? doc.getText() : fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') gone.add(file);
    throw e;
  }
}

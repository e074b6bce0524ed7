// Compare Runs (`vtask.diffRuns`): `vtask diff` in the editor. Quick picks choose the two sides
// (two models' latest runs, a model before and after a date, or the verifiers of a git revision
// against the working tree); the comparison (core: diffSides.ts) is drawn in a webview whose
// task links open the task. The workspace's task files, and its JSONL and Parquet datasets row by
// row, are compared as the editors have them.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import { fromDiff, type FromDiff, type ToDiff } from '../core/base/diffProtocol';
import { parseSelection } from '../core/overview/runlog/diff';
import {
  compareSides,
  DiffSideError,
  parseSide,
  verifiesSamples,
  WORKTREE,
  type DiffSide,
} from '../core/overview/runlog/diffSides';
import { rowFileText, rowFileType } from '../core/datasets/rowFiles';
import { isTaskFileName } from '../core/taskfile/discover';
import { cut } from '../core/util/cut';
import { diffHtml } from '../webview/page';
import { revealLine } from './datasetTree';
import { profileForTask } from './models';
import type { RunLogs } from './runLogs';
import type { TaskIndex } from './taskIndex';
import { PageOutbox, showPage } from './webviewPage';

export interface DiffViewServices {
  readonly extensionUri: vscode.Uri;
  readonly index: TaskIndex;
  readonly runLogs: RunLogs;
  readonly log: vscode.LogOutputChannel;
}

/** Messages kept for tests (the last ones). */
const POSTED_KEPT = 50;
/** Commits offered as revisions. */
const RECENT_COMMITS = 30;

/** The Compare Runs page: one at a time, showing the last comparison asked for. */
export class DiffView implements vscode.Disposable {
  static readonly viewType = 'vtask.diff';
  static current: DiffView | undefined;
  private readonly outbox: PageOutbox<ToDiff>;
  private readonly disposables: vscode.Disposable[] = [];
  /** Files by the name the page knows them by. */
  private byName = new Map<string, vscode.Uri>();
  /** The comparison shown, posted again when the page (re)loads. */
  private shown: ToDiff | undefined;
  private computing: Promise<void> | undefined;
  private disposed = false;

  static show(s: DiffViewServices): DiffView {
    if (DiffView.current) {
      DiffView.current.panel.reveal();
      return DiffView.current;
    }
    const panel = vscode.window.createWebviewPanel(DiffView.viewType, 'vtask: Compare Runs', vscode.ViewColumn.Active, {
      retainContextWhenHidden: false,
    });
    return (DiffView.current = new DiffView(panel, s));
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly s: DiffViewServices,
  ) {
    panel.iconPath = vscode.Uri.joinPath(s.extensionUri, 'media', 'view.svg');
    showPage(panel, s.extensionUri, diffHtml);
    this.outbox = new PageOutbox(panel.webview, POSTED_KEPT);
    this.disposables.push(this.outbox);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.handle(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Acts on a message from the page, once it is known to be well-formed. */
  async handle(raw: unknown): Promise<void> {
    const parsed = fromDiff.safeParse(raw);
    if (!parsed.success) {
      this.s.log.warn('ignored a malformed message from the Compare Runs page');
      return;
    }
    await this.act(parsed.data);
  }

  private async act(msg: FromDiff): Promise<void> {
    switch (msg.type) {
      case 'ready':
        if (this.shown) await this.post(this.shown);
        return;
      case 'again':
        await vscode.commands.executeCommand('vtask.diffRuns');
        return;
      case 'open': {
        const uri = this.byName.get(msg.file);
        const task = uri && (await this.s.index.get(uri)).tasks.find((t) => t.id === msg.task);
        if (!uri || !task) {
          await this.post({ type: 'notice', level: 'warning', text: `${msg.task} is no longer in ${msg.file}.` });
          return;
        }
        // A Parquet row has no text to go to: its dataset opens in the table view.
        if (rowFileType(uri.path) === 'parquet')
          await vscode.commands.executeCommand('vscode.openWith', uri, 'vtask.dataset');
        else await revealLine(uri, task.line);
        return;
      }
    }
  }

  /** Compares side A with side B over the workspace's task files and shows the result. */
  compare(a: DiffSide, b: DiffSide): Promise<void> {
    const run = async (): Promise<void> => {
      await this.computing;
      await this.post({ type: 'busy', text: `Comparing ${a.label} with ${b.label}…` });
      try {
        const { unread, ...d } = await this.diff(a, b);
        const shown: ToDiff = {
          type: 'diff',
          diff: {
            ...d,
            band_flips: [...d.band_flips],
            sample_flips: [...d.sample_flips],
            ...(unread ? { unread: [...unread] } : {}),
          },
          samples: verifiesSamples(a) && verifiesSamples(b),
        };
        this.shown = shown;
        await this.post(shown);
      } catch (e) {
        if (!(e instanceof DiffSideError)) this.s.log.error(e instanceof Error ? e : String(e));
        await this.post({
          type: 'notice',
          level: e instanceof DiffSideError ? 'warning' : 'error',
          text: `The runs could not be compared: ${cut(errorMessage(e), 2000)}`,
        });
      }
    };
    const done = run();
    this.computing = done;
    return done;
  }

  private async diff(a: DiffSide, b: DiffSide): ReturnType<typeof compareSides> {
    // Task files, and the JSONL and Parquet datasets the index keeps (those in a known format).
    const uris = (await this.s.index.files()).filter(
      (u) => u.scheme === 'file' && (isTaskFileName(u.path) || rowFileType(u.path)),
    );
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.fsPath, d]));
    const names = new Map(uris.map((u) => [u.fsPath, vscode.workspace.asRelativePath(u)]));
    this.byName = new Map(uris.map((u) => [names.get(u.fsPath) ?? u.fsPath, u]));
    // A Parquet file's rows as JSON lines, read before the comparison (the reader is asynchronous).
    const parquet = new Map<string, string>();
    for (const u of uris) if (rowFileType(u.path) === 'parquet') parquet.set(u.fsPath, await rowFileText(u.fsPath));
    return compareSides(
      uris.map((u) => u.fsPath),
      a,
      b,
      {
        // What the editors show, saved or not: the working tree as the user sees it.
        read: (f) => parquet.get(f) ?? open.get(f)?.getText() ?? fs.readFileSync(f, 'utf8'),
        name: (f) => names.get(f) ?? f,
        cacheDirOf: (f) => this.s.runLogs.placeOf(vscode.Uri.file(f)).cacheDir,
        // The samples of each task's model as the editor runs it (a dataset's rows name none).
        profileFor: (f, parsed, t) => {
          try {
            return profileForTask(parsed, t, vscode.Uri.file(f));
          } catch {
            return undefined;
          }
        },
      },
    );
  }

  /** What the page was sent, most recent last (for tests). */
  get posted(): readonly ToDiff[] {
    return this.outbox.posted;
  }

  get onDidPost(): vscode.Event<ToDiff> {
    return this.outbox.onDidPost;
  }

  private post(message: ToDiff): Thenable<boolean> {
    return this.outbox.post(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (DiffView.current === this) DiffView.current = undefined;
    this.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * `vtask.diffRuns`: with two side names (`model:NAME`, `model:NAME@DATE`, `git:REV`,
 * `worktree`, as `vtask diff` takes them) it compares them; without, it asks. Resolves to the
 * view, or undefined when the user gave up.
 */
export function registerDiffView(s: DiffViewServices): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('vtask.diffRuns', async (a?: unknown, b?: unknown) => {
      const sides = typeof a === 'string' && typeof b === 'string' ? namedSides(a, b) : await pickSides(s);
      if (!sides) return undefined;
      const view = DiffView.show(s);
      await view.compare(...sides);
      return view;
    }),
    { dispose: () => DiffView.current?.dispose() },
  ];
}

function namedSides(a: string, b: string): [DiffSide, DiffSide] | undefined {
  const sa = parseSide(a);
  const sb = parseSide(b);
  if (typeof sa === 'string' || typeof sb === 'string') {
    void vscode.window.showErrorMessage(typeof sa === 'string' ? sa : String(sb));
    return undefined;
  }
  return [sa, sb];
}

type Way = 'git' | 'models' | 'date';

/** The quick picks: which two sides to compare. */
async function pickSides(s: DiffViewServices): Promise<[DiffSide, DiffSide] | undefined> {
  const way = await vscode.window.showQuickPick<vscode.QuickPickItem & { way: Way }>(
    [
      {
        way: 'git',
        label: '$(git-commit) Verifiers: a git revision against the working tree',
        detail: 'The cached samples verified again by the task files at a revision and as they are now',
      },
      { way: 'models', label: '$(versions) Two models', detail: "Each model's latest runs, from the run log" },
      {
        way: 'date',
        label: '$(calendar) One model before and after a date',
        detail: 'Its latest runs up to a day against its latest runs',
      },
    ],
    { title: 'vtask: Compare Runs', placeHolder: 'What to compare' },
  );
  if (!way) return undefined;
  const side = (name: string): DiffSide | undefined => {
    const p = parseSide(name);
    return typeof p === 'string' ? undefined : p;
  };
  const both = (a: string | undefined, b: string | undefined): [DiffSide, DiffSide] | undefined => {
    const sa = a === undefined ? undefined : side(a);
    const sb = b === undefined ? undefined : side(b);
    return sa && sb ? [sa, sb] : undefined;
  };
  switch (way.way) {
    case 'git': {
      const rev = await pickRevision();
      return rev === undefined ? undefined : both(`git:${rev}`, WORKTREE);
    }
    case 'models': {
      const models = await loggedModels(s);
      const a = await pickModel(models, 'Model A');
      const b =
        a === undefined
          ? undefined
          : await pickModel(
              models.filter((m) => m !== a),
              'Model B',
            );
      return b === undefined ? undefined : both(`model:${a}`, `model:${b}`);
    }
    case 'date': {
      const model = await pickModel(await loggedModels(s), 'The model');
      if (model === undefined) return undefined;
      const date = await vscode.window.showInputBox({
        title: `vtask: Compare Runs of ${model}`,
        prompt: 'Its latest runs up to this day (UTC) against its latest runs',
        placeHolder: 'YYYY-MM-DD',
        validateInput: (v) => {
          const sel = parseSelection(`model:${model}@${v.trim()}`);
          return typeof sel === 'string' ? sel : undefined;
        },
      });
      return date === undefined ? undefined : both(`model:${model}@${date.trim()}`, `model:${model}`);
    }
  }
}

/** The models the run logs of the workspace's task files name, sorted. */
async function loggedModels(s: DiffViewServices): Promise<string[]> {
  const dirs = new Set((await s.index.files()).map((u) => s.runLogs.placeOf(u).cacheDir));
  const models = new Set<string>();
  for (const dir of dirs)
    for (const tasks of (await s.runLogs.read(dir)).values())
      for (const byModel of tasks.values()) for (const m of byModel.keys()) models.add(m);
  return [...models].sort();
}

async function pickModel(models: readonly string[], title: string): Promise<string | undefined> {
  if (!models.length) {
    void vscode.window.showInformationMessage(
      'No run in the run log to compare: run the tasks first (▶ Run, or vtask run --model NAME).',
    );
    return undefined;
  }
  return vscode.window.showQuickPick(models, { title: `vtask: Compare Runs: ${title}` });
}

/** A revision: one of the recent commits, or any revision typed in. */
async function pickRevision(): Promise<string | undefined> {
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const commits = cwd ? await recentCommits(cwd) : [];
  const other = { label: '$(edit) Another revision…', rev: '' };
  const picked = commits.length
    ? await vscode.window.showQuickPick([...commits, other], {
        title: 'vtask: Compare Runs: the revision whose verifiers to compare with the working tree',
      })
    : other;
  if (!picked) return undefined;
  if (picked.rev) return picked.rev;
  const typed = await vscode.window.showInputBox({
    title: 'vtask: Compare Runs: a git revision',
    prompt: 'The task files at this revision against the working tree',
    value: 'HEAD',
    validateInput: (v) =>
      typeof parseSide(`git:${v.trim()}`) === 'string' ? 'a git revision: HEAD~1, main, a hash' : undefined,
  });
  return typed?.trim() || undefined;
}

/** The last commits of the repository at `cwd`; none when it is not one (or git is missing). */
function recentCommits(cwd: string): Promise<(vscode.QuickPickItem & { rev: string })[]> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['log', `-n${RECENT_COMMITS}`, '--format=%h%x09%s%x09%cr'],
      { cwd, encoding: 'utf8' },
      (err, stdout) => {
        if (err) return resolve([]);
        resolve(
          stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => {
              const [rev = '', subject = '', when = ''] = line.split('\t');
              return { rev, label: `$(git-commit) ${rev}`, description: subject, detail: when };
            }),
        );
      },
    );
  });
}

import * as path from 'node:path';
import * as vscode from 'vscode';
import { rowFileType } from '../core/datasets/rowFiles';
import { BANDS, type Band } from '../core/stats';
import { VERIFIERS } from '../core/verifiers/registry';
import { addTotals, fileTotals, type FileTotals, type Totals } from './fileTotals';
import type { ResultStore } from './results';
import { hasLineIn, type TaskFacts } from './taskFacts';
import type { IndexedFile, IndexedTask, TaskIndex } from './taskIndex';

export const VIEW_ID = 'vtask.tasks';

type FolderNode = { readonly kind: 'folder'; readonly uri: vscode.Uri; readonly label: string };
type FileNode = { readonly kind: 'file'; readonly uri: vscode.Uri };
type TaskNode = { readonly kind: 'task'; readonly uri: vscode.Uri; readonly task: IndexedTask };
export type TreeNode = FolderNode | FileNode | TaskNode;

/** A filter of the view: which tasks it shows. */
export interface TaskFilter {
  readonly label: string;
  test(uri: vscode.Uri, t: IndexedTask, facts: TaskFacts, auditLines: readonly number[]): boolean;
}

const BAND_WORDS: Readonly<Record<Band, string>> = {
  too_easy: 'too easy',
  learnable: 'learnable',
  too_hard: 'too hard',
  error: 'error',
};
/** Each band's colour: learnable is what a dataset wants; the others are to look at (a run that failed says nothing of the task). */
const BAND_ICON: Readonly<Record<Band, vscode.ThemeIcon>> = {
  too_easy: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('charts.blue')),
  learnable: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('testing.iconPassed')),
  too_hard: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('testing.iconFailed')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
};
const NOT_RUN_ICON = new vscode.ThemeIcon('circle-outline');
/** A task only the built-in demo model ran, and it cannot do such tasks: no band, and a mark of its own. */
const CANNOT_ICON = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
const CANNOT_WORDS = 'built-in model cannot do this task';
const BAR_CELLS = 5;
/** Models named on a file's line; the tooltip has them all. */
const MODELS_NAMED = 3;
/** Tree refreshes are gathered for this long, so a burst of parsed files is one redraw. */
const REFRESH_MS = 100;

/** The filters the view offers, in groups (the quick pick's separators). */
export function filterChoices(): { group: string; label: string; filter: TaskFilter }[] {
  const choice = (
    group: string,
    label: string,
    test: TaskFilter['test'],
    name = label,
  ): { group: string; label: string; filter: TaskFilter } => ({ group, label, filter: { label: name, test } });
  return [
    ...BANDS.map((b) =>
      choice('band (any model)', BAND_WORDS[b], (u, t, f) => [...f.bands(u, t).values()].includes(b)),
    ),
    choice('band (any model)', 'not run', (u, t, f) => f.bands(u, t).size === 0 && !f.cannot(u, t).length),
    choice('band (any model)', CANNOT_WORDS, (u, t, f) => f.cannot(u, t).length > 0),
    choice('problems', 'failing cases', (u, t, f) => f.failingCases(u, t.id) > 0),
    choice('problems', 'audit findings', (_u, t, _f, audit) => hasLineIn(audit, t)),
    choice('problems', 'duplicates', (u, t, f) => f.duplicatesOf(u, t.id) > 0),
    choice('problems', 'contaminated', (u, t, f) => f.contaminationOf(u, t.id) > 0),
    choice('problems', 'errors', (_u, t) => t.errors),
    ...[...VERIFIERS.keys()].map((k) => choice('verifier kind', k, (_u, t) => t.kind === k, `verifier ${k}`)),
  ];
}

/** `▰▰▰▱▱`: the share of a file's run tasks that are learnable. */
export function bandBar(learnable: number, run: number): string {
  if (run === 0) return '';
  const full = Math.round((BAR_CELLS * learnable) / run);
  return '▰'.repeat(full) + '▱'.repeat(BAR_CELLS - full);
}

/**
 * The vtask view: the workspace's task files as folders, files and tasks, with counts, a band
 * bar per file and filters. Children are made when a node opens, files are read by the index
 * in the background, and a change redraws only the files it touched and the folders holding
 * them. A file's counts are kept until it is redrawn, so a folder adds up its files cheaply.
 */
export class DatasetTree implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private readonly fileNodes = new Map<string, FileNode>();
  private readonly folderNodes = new Map<string, FolderNode>();
  /** Each file's counts, for the summary it was made from. */
  private readonly totals = new Map<string, { file: IndexedFile; totals: FileTotals }>();
  /** The task files as last listed (folders add up theirs). */
  private listed: readonly vscode.Uri[] = [];
  /** Files a folder asked the index for, not read yet. */
  private readonly requested = new Set<string>();
  private dirty = new Set<TreeNode | undefined>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private filterValue: TaskFilter | undefined;
  private view: vscode.TreeView<TreeNode> | undefined;

  constructor(
    private readonly index: TaskIndex,
    private readonly facts: TaskFacts,
    results: ResultStore,
    onDidChangeFacts: vscode.Event<readonly vscode.Uri[]>,
  ) {
    this.disposables.push(
      index.onDidChange((uris) => (uris.length ? uris.forEach((u) => this.refresh(u)) : this.refresh(undefined))),
      results.onDidChange((u) => this.refresh(u)),
      onDidChangeFacts((uris) => uris.forEach((u) => this.refresh(u))),
      // Audit findings come and go as diagnostics.
      vscode.languages.onDidChangeDiagnostics((e) =>
        e.uris.forEach((u) => this.fileNodes.has(u.toString()) && this.refresh(u)),
      ),
    );
  }

  /** Registers the view and its commands. */
  register(): vscode.Disposable[] {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    return [
      this.view,
      this,
      vscode.commands.registerCommand('vtask.revealTask', (uri: unknown, line: unknown) =>
        uri instanceof vscode.Uri && typeof line === 'number' ? revealLine(uri, line) : undefined,
      ),
      vscode.commands.registerCommand('vtask.filterTasks', () => this.pickFilter()),
      vscode.commands.registerCommand('vtask.clearTaskFilter', () => this.setFilter(undefined)),
      vscode.commands.registerCommand('vtask.refreshTasks', () => this.refresh(undefined)),
    ];
  }

  get filter(): TaskFilter | undefined {
    return this.filterValue;
  }

  setFilter(f: TaskFilter | undefined): void {
    this.filterValue = f;
    void vscode.commands.executeCommand('setContext', 'vtask.tasksFiltered', f !== undefined);
    if (this.view) this.view.description = f ? `filter: ${f.label}` : undefined;
    if (f) void this.readAllForFilter();
    this.refresh(undefined);
  }

  /** A filter needs every file read: the view says how far that got. */
  private async readAllForFilter(): Promise<void> {
    const files = await this.index.files();
    let read = 0;
    for (const u of files) {
      if (!this.filterValue) break;
      if (!this.index.peek(u)) {
        await this.index.get(u);
        if (++read % 50 === 0 && this.view) this.view.message = `Reading task files… ${read} of ${files.length}`;
      }
    }
    if (this.view) this.view.message = undefined;
    this.refresh(undefined);
  }

  private async pickFilter(): Promise<void> {
    type Item = vscode.QuickPickItem & { filter?: TaskFilter };
    const items: Item[] = [];
    let group = '';
    for (const c of filterChoices()) {
      if (c.group !== group) items.push({ label: (group = c.group), kind: vscode.QuickPickItemKind.Separator });
      items.push({ label: c.label, filter: c.filter });
    }
    if (this.filterValue) items.unshift({ label: '$(clear-all) Clear filter', description: this.filterValue.label });
    const picked = await vscode.window.showQuickPick(items, {
      title: 'Show only tasks that…',
      placeHolder: 'band, failing cases, audit findings, duplicates, contamination or verifier kind',
    });
    if (picked) this.setFilter(picked.filter);
  }

  /** Redraws the node of `uri` (its file) and the folders holding it, or everything. */
  refresh(uri: vscode.Uri | undefined): void {
    const node = uri ? this.fileNodes.get(uri.toString()) : undefined;
    // A file of a folder never opened has no node, but the folder counts it ("reading 1 of N files…").
    const folders = uri ? [...this.folderNodes.values()].filter((f) => isInside(uri, f.uri)) : [];
    if (uri && !node && !folders.length) return;
    if (uri) this.totals.delete(uri.toString());
    else this.totals.clear();
    // A filter may hide or show whole folders: the tree is redrawn from its root.
    if (this.filterValue || !uri) this.dirty.add(undefined);
    else {
      if (node) this.dirty.add(node);
      for (const folder of folders) this.dirty.add(folder);
    }
    this.refreshTimer ??= setTimeout(() => {
      this.refreshTimer = undefined;
      const dirty = this.dirty;
      this.dirty = new Set();
      // A redrawn folder redraws what it holds: only the outermost nodes are told.
      const nodes = dirty.has(undefined)
        ? [undefined]
        : [...dirty].filter(
            (n) => !(n && [...dirty].some((m) => m && m !== n && m.kind === 'folder' && isInside(n.uri, m.uri))),
          );
      for (const n of nodes) this.emitter.fire(n);
    }, REFRESH_MS);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    if (node.kind === 'task') return this.fileNodes.get(node.uri.toString());
    const folder = vscode.workspace.getWorkspaceFolder(node.uri);
    const parent = vscode.Uri.joinPath(node.uri, '..');
    if (
      !folder ||
      parent.path.length < folder.uri.path.length ||
      (node.kind === 'folder' && node.uri.toString() === folder.uri.toString())
    )
      return undefined;
    if (parent.toString() === folder.uri.toString() && (vscode.workspace.workspaceFolders?.length ?? 0) <= 1)
      return undefined;
    return this.folderNode(parent);
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node?.kind === 'task') return [];
    if (node?.kind === 'file') {
      const f = await this.index.get(node.uri);
      const audit = this.filterValue ? this.facts.auditLines(node.uri) : [];
      return f.tasks
        .filter((t) => this.shown(node.uri, t, audit))
        .map((task) => ({ kind: 'task', uri: node.uri, task }));
    }
    const files = (this.listed = await this.index.files());
    const roots = vscode.workspace.workspaceFolders ?? [];
    if (!node && roots.length > 1)
      return roots.filter((r) => files.some((f) => isInside(f, r.uri))).map((r) => this.folderNode(r.uri, r.name));
    const base = node?.uri ?? roots[0]?.uri;
    if (!base) return files.map((u) => this.fileNode(u));
    // The folders and files directly inside `base`, folders first.
    const folders = new Map<string, vscode.Uri>();
    const direct: vscode.Uri[] = [];
    for (const f of files) {
      if (!isInside(f, base)) continue;
      const rest = f.path.slice(base.path.replace(/\/$/, '').length + 1);
      const slash = rest.indexOf('/');
      if (slash === -1) direct.push(f);
      else {
        const sub = vscode.Uri.joinPath(base, rest.slice(0, slash));
        if (!this.filterValue || this.fileMatches(f)) folders.set(sub.toString(), sub);
      }
    }
    return [
      ...[...folders.values()].map((u) => this.folderNode(u)),
      ...direct.filter((u) => !this.filterValue || this.fileMatches(u)).map((u) => this.fileNode(u)),
    ];
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.kind === 'folder') return this.folderItem(node);
    if (node.kind === 'file') return this.fileItem(node);
    return this.taskItem(node);
  }

  private folderItem(node: FolderNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `folder:${node.uri.toString()}`;
    item.resourceUri = node.uri;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'vtaskFolder';
    const files = this.listed.filter((u) => isInside(u, node.uri));
    const read: Totals[] = [];
    for (const u of files) {
      const t = this.totalsOf(u);
      if (t) read.push(t);
      else if (!this.requested.has(u.toString())) {
        // Read in the background; each file read redraws this folder with it.
        this.requested.add(u.toString());
        void this.index.get(u).then(() => {
          this.requested.delete(u.toString());
          this.refresh(u);
        });
      }
    }
    const sum = addTotals(read);
    const parts = [this.countOfTasks(sum), ...problems(sum)];
    if (read.length < files.length)
      parts.push(`reading ${(files.length - read.length).toLocaleString('en-US')} of ${plural(files.length, 'file')}…`);
    item.description = parts.join(' · ');
    item.tooltip = `${vscode.workspace.asRelativePath(node.uri)}\n\n${plural(files.length, 'task file')}: ${plural(sum.tasks, 'task')}, ${plural(sum.cases, 'case')}, ${sum.failing} failing, ${plural(sum.errors, 'error')}`;
    return item;
  }

  private fileItem(node: FileNode): vscode.TreeItem {
    const item = new vscode.TreeItem(path.posix.basename(node.uri.path), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `file:${node.uri.toString()}`;
    item.resourceUri = node.uri;
    item.iconPath = vscode.ThemeIcon.File;
    item.contextValue = 'vtaskFile';
    const f = this.index.peek(node.uri);
    const s = this.totalsOf(node.uri);
    if (!f || !s) {
      item.description = 'reading…';
      void this.index.get(node.uri).then(() => this.refresh(node.uri));
      return item;
    }
    const parts = [this.countOfTasks(s), ...problems(s)];
    // The models run: the bar is the first's (the one with the most runs), the others are named.
    const [first, ...others] = s.models;
    if (first) {
      const named = [first, ...others.slice(0, MODELS_NAMED - 1)].map((m) => m.model).join(', ');
      const more = others.length >= MODELS_NAMED ? ` +${others.length - MODELS_NAMED + 1}` : '';
      parts.push(`${bandBar(first.counts.learnable, first.run - first.none)} ${named}${more}`);
    }
    item.description = parts.join(' · ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendText(
      `${vscode.workspace.asRelativePath(node.uri)}\n\n${plural(f.tasks.length, 'task')}, ${plural(s.cases, 'case')}, ${s.failing} failing\n`,
    );
    if (f.format) tip.appendText(`\nA dataset in the ${f.format} format: each row is a task\n`);
    if (f.unreadable) tip.appendText(`\nCannot be read: ${f.unreadable}\n`);
    for (const m of s.models) {
      tip.appendMarkdown(`\n**`);
      tip.appendText(m.model);
      tip.appendMarkdown('**: ');
      tip.appendText(
        `${BANDS.filter((b) => b !== 'error' || m.counts.error)
          .map((b) => `${m.counts[b]} ${BAND_WORDS[b]}`)
          .join(', ')}${m.none ? `, ${m.none} without samples` : ''}, ${f.tasks.length - m.run} not run\n`,
      );
    }
    if (first) tip.appendText(`\nThe bar is the share of ${first.model}'s run tasks that are learnable.`);
    else tip.appendText('\nNo runs yet: run the tasks (▶ Run all, or vtask run) to see their bands.');
    item.tooltip = tip;
    return item;
  }

  private taskItem(node: TaskNode): vscode.TreeItem {
    const { uri, task } = node;
    const item = new vscode.TreeItem(task.id, vscode.TreeItemCollapsibleState.None);
    item.id = `task:${uri.toString()}#${task.id}`;
    const bands = this.facts.bands(uri, task);
    const failing = this.facts.failingCases(uri, task.id);
    const dups = this.facts.duplicatesOf(uri, task.id);
    const benchmarks = this.facts.contaminationOf(uri, task.id);
    const first = [...bands.values()].find((b): b is Band => b !== null);
    const cannot = this.facts.cannot(uri, task);
    item.iconPath = task.errors
      ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
      : first
        ? BAND_ICON[first]
        : cannot.length
          ? CANNOT_ICON
          : NOT_RUN_ICON;
    const parts = [task.kind ?? (task.errors ? 'has errors' : '')];
    if (first) parts.push(BAND_WORDS[first]);
    else if (cannot.length) parts.push(CANNOT_WORDS);
    if (failing) parts.push(`${failing} failing`);
    if (dups) parts.push(`${dups} duplicate${dups === 1 ? '' : 's'}`);
    if (benchmarks) parts.push(benchmarks === 1 ? 'contaminated' : `contaminated (${benchmarks} benchmarks)`);
    item.description = parts.filter(Boolean).join(' · ');
    const tip = new vscode.MarkdownString();
    tip.appendText(
      `${task.id} (${rowFileType(uri.path) === 'parquet' ? `row ${task.line + 1}` : `line ${task.line + 1}`})${task.kind ? `, ${task.kind}` : ''}, ${plural(task.cases, 'case')}\n`,
    );
    for (const [model, band] of bands) tip.appendText(`\n${model}: ${band ? BAND_WORDS[band] : 'no samples'}`);
    for (const model of cannot) tip.appendText(`\n${model}: ${CANNOT_WORDS} (its run is in no band)`);
    for (const model of this.facts.staleModels(uri, task))
      tip.appendText(`\n${model}: run before the task changed (run it again)`);
    if (task.prompt) tip.appendText(`\n\n${task.prompt.length > 300 ? `${task.prompt.slice(0, 300)}…` : task.prompt}`);
    item.tooltip = tip;
    item.contextValue = 'vtaskTask';
    // A Parquet row has no text to go to: its dataset opens in the table view.
    item.command =
      rowFileType(uri.path) === 'parquet'
        ? { command: 'vscode.openWith', title: 'Open Dataset', arguments: [uri, 'vtask.dataset'] }
        : { command: 'vtask.revealTask', title: 'Go to Task', arguments: [uri, task.line] };
    return item;
  }

  /** `N tasks`, or `K of N tasks` under a filter. */
  private countOfTasks(t: Totals): string {
    return this.filterValue
      ? `${t.shown.toLocaleString('en-US')} of ${plural(t.tasks, 'task')}`
      : plural(t.tasks, 'task');
  }

  /** A read file's counts (kept until the file is redrawn); undefined while it is not read. */
  private totalsOf(uri: vscode.Uri): FileTotals | undefined {
    const f = this.index.peek(uri);
    if (!f) return undefined;
    const known = this.totals.get(uri.toString());
    if (known?.file === f) return known.totals;
    const filter = this.filterValue;
    const totals = fileTotals(f, this.facts, filter && ((u, t, audit) => filter.test(u, t, this.facts, audit)));
    this.totals.set(uri.toString(), { file: f, totals });
    return totals;
  }

  private shown(uri: vscode.Uri, t: IndexedTask, audit: readonly number[]): boolean {
    return !this.filterValue || this.filterValue.test(uri, t, this.facts, audit);
  }

  /** Whether a file has a task the filter shows; unread files are hidden until read. */
  private fileMatches(uri: vscode.Uri): boolean {
    return (this.totalsOf(uri)?.shown ?? 0) > 0;
  }

  private fileNode(uri: vscode.Uri): FileNode {
    let n = this.fileNodes.get(uri.toString());
    if (!n) this.fileNodes.set(uri.toString(), (n = { kind: 'file', uri }));
    return n;
  }

  private folderNode(uri: vscode.Uri, label?: string): FolderNode {
    let n = this.folderNodes.get(uri.toString());
    if (!n)
      this.folderNodes.set(
        uri.toString(),
        (n = { kind: 'folder', uri, label: label ?? path.posix.basename(uri.path) }),
      );
    return n;
  }

  /** The node of a file (for tests and reveal). */
  nodeOf(uri: vscode.Uri): TreeNode | undefined {
    return this.fileNodes.get(uri.toString());
  }

  /** Shows a task file in the view, its folders and its tasks open. */
  async reveal(uri: vscode.Uri): Promise<void> {
    if (!this.view) return;
    this.listed = await this.index.files();
    await this.view.reveal(this.fileNode(uri), { expand: true, select: true, focus: false });
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
  }
}

/** The failing cases and errors of a file or folder, when there are any. */
function problems(t: Totals): string[] {
  const out: string[] = [];
  if (t.failing) out.push(`${t.failing.toLocaleString('en-US')} failing`);
  if (t.errors) out.push(plural(t.errors, 'error'));
  return out;
}

function isInside(file: vscode.Uri, folder: vscode.Uri): boolean {
  const base = folder.path.endsWith('/') ? folder.path : `${folder.path}/`;
  return file.scheme === folder.scheme && file.authority === folder.authority && file.path.startsWith(base);
}

const plural = (n: number, word: string): string => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** Opens a task file with the selection on the task's id line (its text, not its indentation). */
export async function revealLine(uri: vscode.Uri, line: number): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const l = doc.lineAt(Math.min(line, doc.lineCount - 1));
  const range = new vscode.Range(l.lineNumber, l.firstNonWhitespaceCharacterIndex, l.lineNumber, l.text.length);
  return vscode.window.showTextDocument(doc, { selection: range, preview: true });
}

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Band } from '../core/stats';
import { VERIFIERS } from '../core/verifiers/registry';
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

const BANDS: readonly Band[] = ['too_easy', 'learnable', 'too_hard'];
const BAND_WORDS: Readonly<Record<Band, string>> = { too_easy: 'too easy', learnable: 'learnable', too_hard: 'too hard' };
/** Each band's colour: learnable is what a dataset wants; the other two are to look at. */
const BAND_ICON: Readonly<Record<Band, vscode.ThemeIcon>> = {
  too_easy: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('charts.blue')),
  learnable: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('testing.iconPassed')),
  too_hard: new vscode.ThemeIcon('circle-filled', new vscode.ThemeColor('testing.iconFailed')),
};
const NOT_RUN_ICON = new vscode.ThemeIcon('circle-outline');
const BAR_CELLS = 5;
/** Tree refreshes are gathered for this long, so a burst of parsed files is one redraw. */
const REFRESH_MS = 100;

/** The filters the view offers, in groups (the quick pick's separators). */
export function filterChoices(): { group: string; label: string; filter: TaskFilter }[] {
  const choice = (group: string, label: string, test: TaskFilter['test'], name = label): { group: string; label: string; filter: TaskFilter } => ({ group, label, filter: { label: name, test } });
  return [
    ...BANDS.map((b) => choice('band (any model)', BAND_WORDS[b], (u, t, f) => [...f.bands(u, t.id).values()].includes(b))),
    choice('band (any model)', 'not run', (u, t, f) => f.bands(u, t.id).size === 0),
    choice('problems', 'failing cases', (u, t, f) => f.failingCases(u, t.id) > 0),
    choice('problems', 'audit findings', (_u, t, _f, audit) => hasLineIn(audit, t)),
    choice('problems', 'duplicates', (u, t, f) => f.duplicatesOf(u, t.id) > 0),
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
 * in the background, and a change redraws only the files it touched.
 */
export class DatasetTree implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private readonly fileNodes = new Map<string, FileNode>();
  private readonly folderNodes = new Map<string, FolderNode>();
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
      vscode.languages.onDidChangeDiagnostics((e) => e.uris.forEach((u) => this.fileNodes.has(u.toString()) && this.refresh(u))),
    );
  }

  /** Registers the view and its commands. */
  register(): vscode.Disposable[] {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    return [
      this.view,
      this,
      vscode.commands.registerCommand('vtask.revealTask', (uri: unknown, line: unknown) => (uri instanceof vscode.Uri && typeof line === 'number' ? revealLine(uri, line) : undefined)),
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
    const picked = await vscode.window.showQuickPick(items, { title: 'Show only tasks that…', placeHolder: 'band, failing cases, audit findings, duplicates or verifier kind' });
    if (picked) this.setFilter(picked.filter);
  }

  /** Redraws the node of `uri` (its file), or everything. */
  refresh(uri: vscode.Uri | undefined): void {
    const node = uri ? this.fileNodes.get(uri.toString()) : undefined;
    if (uri && !node) return;
    // A filter may hide or show whole folders: the tree is redrawn from its root.
    this.dirty.add(this.filterValue ? undefined : node);
    this.refreshTimer ??= setTimeout(() => {
      this.refreshTimer = undefined;
      const nodes = this.dirty.has(undefined) ? [undefined] : [...this.dirty];
      this.dirty = new Set();
      for (const n of nodes) this.emitter.fire(n);
    }, REFRESH_MS);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    if (node.kind === 'task') return this.fileNodes.get(node.uri.toString());
    const folder = vscode.workspace.getWorkspaceFolder(node.uri);
    const parent = vscode.Uri.joinPath(node.uri, '..');
    if (!folder || parent.path.length < folder.uri.path.length || (node.kind === 'folder' && node.uri.toString() === folder.uri.toString())) return undefined;
    if (parent.toString() === folder.uri.toString() && (vscode.workspace.workspaceFolders?.length ?? 0) <= 1) return undefined;
    return this.folderNode(parent);
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node?.kind === 'task') return [];
    if (node?.kind === 'file') {
      const f = await this.index.get(node.uri);
      const audit = this.filterValue ? this.facts.auditLines(node.uri) : [];
      return f.tasks.filter((t) => this.shown(node.uri, t, audit)).map((task) => ({ kind: 'task', uri: node.uri, task }));
    }
    const files = await this.index.files();
    const roots = vscode.workspace.workspaceFolders ?? [];
    if (!node && roots.length > 1) return roots.filter((r) => files.some((f) => isInside(f, r.uri))).map((r) => this.folderNode(r.uri, r.name));
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
        if (!this.filterValue || files.some((g) => isInside(g, sub) && this.fileMatches(g))) folders.set(sub.toString(), sub);
      }
    }
    return [...[...folders.values()].map((u) => this.folderNode(u)), ...direct.filter((u) => !this.filterValue || this.fileMatches(u)).map((u) => this.fileNode(u))];
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.kind === 'folder') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `folder:${node.uri.toString()}`;
      item.resourceUri = node.uri;
      item.iconPath = vscode.ThemeIcon.Folder;
      item.contextValue = 'vtaskFolder';
      return item;
    }
    if (node.kind === 'file') return this.fileItem(node);
    return this.taskItem(node);
  }

  private fileItem(node: FileNode): vscode.TreeItem {
    const item = new vscode.TreeItem(path.posix.basename(node.uri.path), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `file:${node.uri.toString()}`;
    item.resourceUri = node.uri;
    item.iconPath = vscode.ThemeIcon.File;
    item.contextValue = 'vtaskFile';
    const f = this.index.peek(node.uri);
    if (!f) {
      item.description = 'reading…';
      void this.index.get(node.uri).then(() => this.refresh(node.uri));
      return item;
    }
    const s = this.summary(f);
    const parts = [this.filterValue ? `${s.shown} of ${plural(f.tasks.length, 'task')}` : plural(f.tasks.length, 'task')];
    if (s.failing) parts.push(`${s.failing} failing`);
    if (f.errors) parts.push(plural(f.errors, 'error'));
    if (s.primary) parts.push(bandBar(s.primary.counts.learnable, s.primary.run));
    item.description = parts.join(' · ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendText(`${vscode.workspace.asRelativePath(node.uri)}\n\n${plural(f.tasks.length, 'task')}, ${plural(s.cases, 'case')}, ${s.failing} failing\n`);
    if (f.unreadable) tip.appendText(`\nCannot be read: ${f.unreadable}\n`);
    for (const [model, counts] of s.models) {
      tip.appendMarkdown(`\n**`);
      tip.appendText(model);
      tip.appendMarkdown('**: ');
      tip.appendText(`${BANDS.map((b) => `${counts[b]} ${BAND_WORDS[b]}`).join(', ')}${counts.none ? `, ${counts.none} without samples` : ''}, ${f.tasks.length - counts.run} not run\n`);
    }
    if (!s.models.size) tip.appendText('\nNo runs yet: run the tasks (▶ Run all, or vtask run) to see their bands.');
    item.tooltip = tip;
    return item;
  }

  private taskItem(node: TaskNode): vscode.TreeItem {
    const { uri, task } = node;
    const item = new vscode.TreeItem(task.id, vscode.TreeItemCollapsibleState.None);
    item.id = `task:${uri.toString()}#${task.id}`;
    const bands = this.facts.bands(uri, task.id);
    const failing = this.facts.failingCases(uri, task.id);
    const dups = this.facts.duplicatesOf(uri, task.id);
    const first = [...bands.values()].find((b): b is Band => b !== null);
    item.iconPath = task.errors ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')) : first ? BAND_ICON[first] : NOT_RUN_ICON;
    const parts = [task.kind ?? (task.errors ? 'has errors' : '')];
    if (first) parts.push(BAND_WORDS[first]);
    if (failing) parts.push(`${failing} failing`);
    if (dups) parts.push(`${dups} duplicate${dups === 1 ? '' : 's'}`);
    item.description = parts.filter(Boolean).join(' · ');
    const tip = new vscode.MarkdownString();
    tip.appendText(`${task.id} (line ${task.line + 1})${task.kind ? `, ${task.kind}` : ''}, ${plural(task.cases, 'case')}\n`);
    for (const [model, band] of bands) tip.appendText(`\n${model}: ${band ? BAND_WORDS[band] : 'no samples'}`);
    if (task.prompt) tip.appendText(`\n\n${task.prompt.length > 300 ? `${task.prompt.slice(0, 300)}…` : task.prompt}`);
    item.tooltip = tip;
    item.contextValue = 'vtaskTask';
    item.command = { command: 'vtask.revealTask', title: 'Go to Task', arguments: [uri, task.line] };
    return item;
  }

  /** A file's counts: cases, failing cases, tasks shown, band counts per model. */
  private summary(f: IndexedFile): { cases: number; failing: number; shown: number; models: Map<string, Record<Band | 'none' | 'run', number>>; primary?: { counts: Record<Band, number>; run: number } } {
    const models = new Map<string, Record<Band | 'none' | 'run', number>>();
    const audit = this.filterValue ? this.facts.auditLines(f.uri) : [];
    let cases = 0;
    let failing = 0;
    let shown = 0;
    for (const t of f.tasks) {
      cases += t.cases;
      failing += this.facts.failingCases(f.uri, t.id);
      if (this.shown(f.uri, t, audit)) shown++;
      for (const [model, band] of this.facts.bands(f.uri, t.id)) {
        let c = models.get(model);
        if (!c) models.set(model, (c = { too_easy: 0, learnable: 0, too_hard: 0, none: 0, run: 0 }));
        c.run++;
        c[band ?? 'none']++;
      }
    }
    // The bar shows the model with the most runs in the file.
    const best = [...models.values()].sort((a, b) => b.run - a.run)[0];
    return { cases, failing, shown, models, ...(best ? { primary: { counts: best, run: best.run - best.none } } : {}) };
  }

  private shown(uri: vscode.Uri, t: IndexedTask, audit: readonly number[]): boolean {
    return !this.filterValue || this.filterValue.test(uri, t, this.facts, audit);
  }

  /** Whether a file has a task the filter shows; unread files are hidden until read. */
  private fileMatches(uri: vscode.Uri): boolean {
    const f = this.index.peek(uri);
    if (!f) return false;
    const audit = this.facts.auditLines(uri);
    return f.tasks.some((t) => this.shown(uri, t, audit));
  }

  private fileNode(uri: vscode.Uri): FileNode {
    let n = this.fileNodes.get(uri.toString());
    if (!n) this.fileNodes.set(uri.toString(), (n = { kind: 'file', uri }));
    return n;
  }

  private folderNode(uri: vscode.Uri, label?: string): FolderNode {
    let n = this.folderNodes.get(uri.toString());
    if (!n) this.folderNodes.set(uri.toString(), (n = { kind: 'folder', uri, label: label ?? path.posix.basename(uri.path) }));
    return n;
  }

  /** The node of a file (for tests and reveal). */
  nodeOf(uri: vscode.Uri): TreeNode | undefined {
    return this.fileNodes.get(uri.toString());
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
  }
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

import * as vscode from 'vscode';
import { caseOutcome, runCases, type CaseResult } from '../core/run/cases';
import { runnableTasks } from '../core/taskfile/resolve';
import { toRange } from './convert';
import type { ResultStore } from './results';
import { resultKeysOf } from './results';
import type { TaskDocuments } from './taskDocuments';
import { TASK_FILE_GLOB } from './taskIndex';

const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);

/**
 * The Test Explorer: one item per task with its cases as children, for every task file of the
 * workspace: the files are listed at start (not read), and a file's tasks are read when its item
 * is expanded or run, or when it is opened. Running an item runs its cases (no model); failures
 * show expected vs actual verdict. A
 * failure's message has no place in the file: vtask draws each case's ✓/✗ and reason on its
 * line itself, and VS Code would draw the message over it. Once a task's verifier or cases
 * change, its results are marked outdated, as vtask's own marks go.
 */
export class CaseTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController('vtask', 'vtask cases');
  private readonly disposables: vscode.Disposable[] = [this.controller];
  /** The state each case item was last given, by item id (for tests and the API). */
  private readonly states = new Map<string, 'passed' | 'failed' | 'skipped' | 'outdated'>();
  /** The message each case item was last given with a failure, by item id (for tests and the API). */
  private readonly messages = new Map<string, vscode.TestMessage>();
  /** The cases key (`resultKeysOf`) of the results each task item shows, by item id. */
  private readonly shownKeys = new Map<string, string>();
  /** Tasks whose cases this controller is running: their results are reported by that run. */
  private readonly own = new Set<string>();

  constructor(
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
  ) {
    this.controller.createRunProfile(
      'Run cases',
      vscode.TestRunProfileKind.Run,
      (req, token) => this.run(req, token),
      true,
      undefined,
      true,
    );
    this.controller.resolveHandler = (item) => (item ? this.resolveFile(item) : this.listFiles());
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.refresh(d)),
      // Rebuilding the tree is not for every keystroke: wait for a pause in typing.
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      { dispose: () => this.timers.forEach((t) => clearTimeout(t)) },
      // Cases run elsewhere (a lens, the panel, a re-verification) show here too.
      results.onDidSetCases(({ uri, taskId, cases }) => {
        if (!this.own.has(`${uri.toString()}#${taskId}`)) this.reportElsewhere(uri, taskId, cases);
      }),
    );
    for (const d of vscode.workspace.textDocuments) this.refresh(d);
    // Listed at start, so the Test Explorer shows every file before any is opened or run.
    void this.listFiles();
  }

  private listing: Promise<void> | undefined;

  /** Adds an item for each task file of the workspace, unread: its tasks come when it is resolved. */
  listFiles(): Promise<void> {
    this.listing ??= Promise.resolve(vscode.workspace.findFiles(TASK_FILE_GLOB, '**/node_modules/**')).then((files) => {
      for (const uri of files) {
        if (this.controller.items.get(uri.toString())) continue;
        const item = this.controller.createTestItem(uri.toString(), vscode.workspace.asRelativePath(uri), uri);
        item.canResolveChildren = true;
        this.controller.items.add(item);
      }
    });
    return this.listing;
  }

  /** Reads the tasks of a file item not read yet. */
  private async resolveFile(item: vscode.TestItem): Promise<void> {
    if (!item.canResolveChildren || !item.uri || item.id.includes('#')) return;
    this.refresh(await vscode.workspace.openTextDocument(item.uri));
  }

  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  private schedule(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'vtask') return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => this.refresh(doc), 400),
    );
  }

  /** Rebuilds the items of one document from its parsed tasks. */
  refresh(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'vtask') return;
    const file = this.documents.get(doc);
    const fileItem =
      this.controller.items.get(doc.uri.toString()) ??
      this.controller.createTestItem(doc.uri.toString(), vscode.workspace.asRelativePath(doc.uri), doc.uri);
    fileItem.canResolveChildren = false;
    this.controller.items.add(fileItem);
    const items: vscode.TestItem[] = [];
    const outdated: string[] = [];
    for (const spec of runnableTasks(file).tasks) {
      const taskItem = this.controller.createTestItem(`${doc.uri.toString()}#${spec.id}`, spec.id, doc.uri);
      const entry = file.tasks[spec.index];
      const shown = this.shownKeys.get(taskItem.id);
      if (entry && shown !== undefined && shown !== resultKeysOf(file, entry).cases) outdated.push(taskItem.id);
      taskItem.range = toRange(file.lines, spec.offset, spec.offset);
      taskItem.children.replace(
        spec.cases.map((c) => {
          const item = this.controller.createTestItem(
            `${taskItem.id}#${c.index}`,
            c.name ?? `case ${c.index + 1}: expect ${label(c.expect)}`,
            doc.uri,
          );
          item.range = toRange(file.lines, c.offset, c.offset);
          return item;
        }),
      );
      if (spec.cases.length) items.push(taskItem);
    }
    fileItem.children.replace(items);
    for (const id of outdated) this.markOutdated(fileItem.children.get(id));
  }

  /** The task changed since its cases ran: their results no longer say anything of it. */
  private markOutdated(taskItem: vscode.TestItem | undefined): void {
    if (!taskItem) return;
    this.shownKeys.delete(taskItem.id);
    this.controller.invalidateTestResults(taskItem);
    for (const item of collect(taskItem.children)) if (this.states.has(item.id)) this.states.set(item.id, 'outdated');
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    if (request.continuous) {
      // Continuous run: once now, then again whenever a task file is saved, until stopped.
      const onSave = vscode.workspace.onDidSaveTextDocument((d) => {
        if (d.languageId === 'vtask' && !token.isCancellationRequested)
          void this.runOnce(new vscode.TestRunRequest(request.include, request.exclude, request.profile), token);
      });
      token.onCancellationRequested(() => onSave.dispose());
    }
    await this.runOnce(request, token);
  }

  /** Runs the cases under the given items, as the Test Explorer would. */
  async runItems(items: readonly vscode.TestItem[]): Promise<void> {
    const source = new vscode.CancellationTokenSource();
    try {
      await this.runOnce(new vscode.TestRunRequest(items), source.token);
    } finally {
      source.dispose();
    }
  }

  private async runOnce(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    if (!request.include) await this.listFiles();
    const wanted = request.include ?? [...collect(this.controller.items)];
    // Files listed but not read yet: their tasks are read now, to be run.
    for (const item of wanted) if (item.canResolveChildren) await this.resolveFile(item);
    // Group the requested items by document and task: each task's cases run together.
    const byTask = new Map<string, { uri: vscode.Uri; taskId: string; only?: Set<string> }>();
    for (const item of wanted) {
      for (const leaf of leaves(item)) {
        const [uri, taskId] = leaf.id.split('#');
        if (!uri || !taskId) continue;
        const key = `${uri}#${taskId}`;
        const entry = byTask.get(key) ?? { uri: vscode.Uri.parse(uri), taskId, only: new Set<string>() };
        entry.only?.add(leaf.id);
        byTask.set(key, entry);
      }
    }
    try {
      for (const { uri, taskId, only } of byTask.values()) {
        if (token.isCancellationRequested) break;
        const doc = await vscode.workspace.openTextDocument(uri);
        const file = this.documents.get(doc);
        const spec = runnableTasks(file).tasks.find((t) => t.id === taskId);
        const entry = file.tasks.find((t) => t.id === taskId);
        const taskItem = this.controller.items.get(uri.toString())?.children.get(`${uri.toString()}#${taskId}`);
        if (!spec || !entry || !taskItem) continue;
        const items = [...collect(taskItem.children)].filter((i) => only?.has(i.id));
        for (const i of items) run.started(i);
        const results = await runCases([spec], {
          file: uri.fsPath,
          signal: abort.signal,
          trusted: vscode.workspace.isTrusted,
        });
        const key = `${uri.toString()}#${taskId}`;
        this.own.add(key);
        try {
          this.results.setCases(uri, taskId, resultKeysOf(file, entry).cases, results);
        } finally {
          this.own.delete(key);
        }
        this.report(run, taskItem, results, resultKeysOf(file, entry).cases, only);
      }
    } finally {
      run.end();
    }
  }

  /** Runs a task's cases as the Test Explorer would, on the task as it is now. */
  async runTask(doc: vscode.TextDocument, taskId: string): Promise<void> {
    // The tree is rebuilt after a pause in typing: a case added just now must be in it.
    this.refresh(doc);
    const item = this.controller.items.get(doc.uri.toString())?.children.get(`${doc.uri.toString()}#${taskId}`);
    if (item) await this.runItems([item]);
  }

  /** The file items, once the workspace's task files are listed: each file's path and whether its tasks are read. */
  async files(): Promise<{ file: string; read: boolean }[]> {
    await this.listFiles();
    return [...collect(this.controller.items)].map((i) => ({ file: i.label, read: !i.canResolveChildren }));
  }

  /** The state the Test Explorer shows for each case of a task, in case order. */
  statesOf(uri: vscode.Uri, taskId: string): (string | undefined)[] {
    const taskItem = this.controller.items.get(uri.toString())?.children.get(`${uri.toString()}#${taskId}`);
    return taskItem ? [...collect(taskItem.children)].map((i) => this.states.get(i.id)) : [];
  }

  /** The failure message of each case of a task at its last run (none for a pass), in case order. */
  messagesOf(uri: vscode.Uri, taskId: string): (vscode.TestMessage | undefined)[] {
    const taskItem = this.controller.items.get(uri.toString())?.children.get(`${uri.toString()}#${taskId}`);
    return taskItem ? [...collect(taskItem.children)].map((i) => this.messages.get(i.id)) : [];
  }

  /** Gives case items the verdicts of a case run that did not start in the Test Explorer. */
  private reportElsewhere(uri: vscode.Uri, taskId: string, results: readonly CaseResult[]): void {
    const taskItem = this.controller.items.get(uri.toString())?.children.get(`${uri.toString()}#${taskId}`);
    if (!taskItem) return;
    // Not persisted: the store keeps these results; the Test Explorer only mirrors them.
    const run = this.controller.createTestRun(new vscode.TestRunRequest([taskItem]), `cases of ${taskId}`, false);
    try {
      this.report(run, taskItem, results, this.results.get(uri, taskId)?.casesKey);
    } finally {
      run.end();
    }
  }

  /** Reports case results on their items (only those in `only`, when given). */
  private report(
    run: vscode.TestRun,
    taskItem: vscode.TestItem,
    results: readonly CaseResult[],
    casesKey: string | undefined,
    only?: ReadonlySet<string>,
  ): void {
    if (casesKey !== undefined) this.shownKeys.set(taskItem.id, casesKey);
    for (const r of results) {
      const item = taskItem.children.get(`${taskItem.id}#${r.case}`);
      if (!item || (only && !only.has(item.id))) continue;
      this.messages.delete(item.id);
      const outcome = caseOutcome(r);
      if (outcome === 'skipped') {
        run.skipped(item);
        this.states.set(item.id, 'skipped');
      } else if (outcome === 'undecided') {
        // No verdict (no judge model, an environment that did not start): an error, never a quiet skip.
        const message = new vscode.TestMessage(`no verdict: ${r.verdict.reason}`);
        run.errored(item, message);
        this.messages.set(item.id, message);
        this.states.set(item.id, 'failed');
      } else if (r.ok) {
        run.passed(item);
        this.states.set(item.id, 'passed');
      } else {
        const message = vscode.TestMessage.diff(
          `expected ${label(r.expected)}, got ${label(r.actual)}: ${r.verdict.reason}`,
          label(r.expected),
          label(r.actual),
        );
        run.failed(item, message);
        this.messages.set(item.id, message);
        this.states.set(item.id, 'failed');
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function* collect(items: vscode.TestItemCollection): Generator<vscode.TestItem> {
  for (const [, item] of items) yield item;
}

/** The case items under an item (a file, a task, or a case itself). */
function* leaves(item: vscode.TestItem): Generator<vscode.TestItem> {
  if (item.children.size === 0) {
    if (item.id.split('#').length === 3) yield item;
    return;
  }
  for (const [, c] of item.children) yield* leaves(c);
}

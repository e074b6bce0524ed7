import * as vscode from 'vscode';
import { runCases, type CaseResult } from '../core/run/cases';
import { runnableTasks } from '../core/taskfile/resolve';
import { toRange } from './convert';
import type { ResultStore } from './results';
import { taskHash } from './results';
import type { TaskDocuments } from './taskDocuments';

const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);

/**
 * The Test Explorer: one item per task with its cases as children, for every open task file.
 * Running an item runs its cases (no model); failures show expected vs actual verdict.
 */
export class CaseTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController('vtask', 'vtask cases');
  private readonly disposables: vscode.Disposable[] = [this.controller];

  constructor(
    private readonly documents: TaskDocuments,
    private readonly results: ResultStore,
  ) {
    this.controller.createRunProfile('Run cases', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token), true, undefined, true);
    this.controller.resolveHandler = async () => {
      const files = await vscode.workspace.findFiles('**/*.{vtask,vtask.yaml,vtask.yml}', '**/node_modules/**', 500);
      for (const uri of files) this.refresh(await vscode.workspace.openTextDocument(uri));
    };
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.refresh(d)),
      // Rebuilding the tree is not for every keystroke: wait for a pause in typing.
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      { dispose: () => this.timers.forEach((t) => clearTimeout(t)) },
    );
    for (const d of vscode.workspace.textDocuments) this.refresh(d);
  }

  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  private schedule(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'vtask') return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => this.refresh(doc), 400));
  }

  /** Rebuilds the items of one document from its parsed tasks. */
  refresh(doc: vscode.TextDocument): void {
    if (doc.languageId !== 'vtask') return;
    const file = this.documents.get(doc);
    const fileItem = this.controller.items.get(doc.uri.toString()) ?? this.controller.createTestItem(doc.uri.toString(), vscode.workspace.asRelativePath(doc.uri), doc.uri);
    this.controller.items.add(fileItem);
    const items: vscode.TestItem[] = [];
    for (const spec of runnableTasks(file).tasks) {
      const taskItem = this.controller.createTestItem(`${doc.uri.toString()}#${spec.id}`, spec.id, doc.uri);
      taskItem.range = toRange(file.lines, spec.offset, spec.offset);
      taskItem.children.replace(
        spec.cases.map((c) => {
          const item = this.controller.createTestItem(`${taskItem.id}#${c.index}`, c.name ?? `case ${c.index + 1}: expect ${label(c.expect)}`, doc.uri);
          item.range = toRange(file.lines, c.offset, c.offset);
          return item;
        }),
      );
      if (spec.cases.length) items.push(taskItem);
    }
    fileItem.children.replace(items);
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    if (request.continuous) {
      // Continuous run: once now, then again whenever a task file is saved, until stopped.
      const onSave = vscode.workspace.onDidSaveTextDocument((d) => {
        if (d.languageId === 'vtask' && !token.isCancellationRequested) void this.runOnce(new vscode.TestRunRequest(request.include, request.exclude, request.profile), token);
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
    const wanted = request.include ?? [...collect(this.controller.items)];
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
        const results = await runCases([spec], { file: uri.fsPath, signal: abort.signal, trusted: vscode.workspace.isTrusted });
        this.results.setCases(uri, taskId, taskHash(file, entry), results);
        for (const r of results) {
          const item = taskItem.children.get(`${taskItem.id}#${r.case}`);
          if (!item || !only?.has(item.id)) continue;
          if (r.skipped) run.skipped(item);
          else if (r.ok) run.passed(item);
          else {
            const message = vscode.TestMessage.diff(`expected ${label(r.expected)}, got ${label(r.actual)}: ${r.verdict.reason}`, label(r.expected), label(r.actual));
            message.location = new vscode.Location(uri, toRange(file.lines, spec.cases[r.case]?.offset ?? spec.offset, spec.cases[r.case]?.offset ?? spec.offset));
            run.failed(item, message);
          }
        }
      }
    } finally {
      run.end();
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

// The dataset at a glance in a real VS Code: the vtask view lists the workspace's task files
// (test/fixtures/workspace, overview/ among them) with their counts, a click on a task opens it
// on its id line, running cases updates the failing count, a filter keeps the tasks it asks for,
// a duplicate prompt gets an information diagnostic pointing at the other task, and the dashboard
// computes the statistics and opens a task from its page's message.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToDashboard } from '../../src/core/base/dashboardProtocol';
import type { VtaskApi } from '../../src/vscode/api';
import { filterChoices, type TreeNode } from '../../src/vscode/datasetTree';

const DUPLICATE_SOURCE = 'vtask duplicates';

function folderUri(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  return folder.uri;
}
const fileUri = (name: string): vscode.Uri => vscode.Uri.joinPath(folderUri(), 'overview', name);

/** Polls `read` until it returns something truthy (tree items are not events a test can await). */
async function until<T>(read: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asks the harness for a picture of the workbench, and gives it the time to take it. */
async function screenshot(name: string): Promise<void> {
  console.log(`[vtask-screenshot] ${name}`);
  await new Promise((r) => setTimeout(r, 2500));
}

suite('dataset overview', () => {
  let api: VtaskApi;
  suiteSetup(async () => {
    api = (await vscode.extensions.getExtension('vtask.vtask')?.activate()) as VtaskApi;
  });
  teardown(async () => {
    api.overview.tree.setFilter(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  const tree = (): VtaskApi['overview']['tree'] => api.overview.tree;
  const label = (n: TreeNode): string => String(tree().getTreeItem(n).label);
  const described = (n: TreeNode): string => String(tree().getTreeItem(n).description ?? '');
  async function overviewFolder(): Promise<TreeNode> {
    const root = await tree().getChildren();
    const folder = root.find((n) => n.kind === 'folder' && label(n) === 'overview');
    assert.ok(folder, `the overview folder is listed: ${root.map(label).join(', ')}`);
    return folder;
  }
  async function fileNode(name: string): Promise<TreeNode> {
    const files = await tree().getChildren(await overviewFolder());
    const node = files.find((n) => label(n) === name);
    assert.ok(node, `${name} is listed: ${files.map(label).join(', ')}`);
    return node;
  }

  test('the view lists folders, files and tasks with their counts; a click opens the task on its id line', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.vtask');
    await api.overview.duplicates.settled();
    const root = await tree().getChildren();
    // Folders first, then the task files at the top of the workspace (other suites may add folders).
    const firstFile = root.findIndex((n) => n.kind !== 'folder');
    assert.ok(root.slice(0, firstFile).some((n) => label(n) === 'overview'), `the overview folder comes before the files: ${root.map(label).join(', ')}`);
    for (const name of ['sample.vtask', 'panel.vtask', 'audit.vtask']) assert.ok(root.some((n) => label(n) === name), `${name} is listed`);
    assert.ok(!root.some((n) => label(n) === 'rows.jsonl'), 'only task files');
    const files = await tree().getChildren(await overviewFolder());
    assert.deepEqual(files.map(label), ['algebra.vtask', 'copies.vtask']);
    const algebra = files[0] as TreeNode;
    // Read in the background: "reading…" until the file is parsed, then its counts.
    await until(() => !described(algebra).includes('reading') && described(algebra), 'the counts of algebra.vtask');
    assert.equal(described(algebra), '3 tasks');
    const tasks = await tree().getChildren(algebra);
    assert.deepEqual(tasks.map(label), ['alg/linear', 'alg/square', 'alg/words']);
    // alg/square has the prompt of copy/square in copies.vtask.
    assert.deepEqual(tasks.map(described), ['math', 'math · 1 duplicate', 'constraints']);
    await screenshot('overview-view');

    const item = tree().getTreeItem(tasks[1] as TreeNode);
    assert.ok(item.command, 'a task item has a command');
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    const editor = await until(() => vscode.window.activeTextEditor?.document.uri.toString() === fileUri('algebra.vtask').toString() && vscode.window.activeTextEditor, 'algebra.vtask in the editor');
    assert.equal(editor.selection.start.line, 13);
    assert.equal(editor.document.getText(editor.selection), '- id: alg/square');
  });

  test('running cases counts the failing one in the file and the task; a filter keeps only those tasks', async () => {
    const uri = fileUri('algebra.vtask');
    await vscode.commands.executeCommand('vtask.runCases', uri, 'alg/linear');
    const algebra = await fileNode('algebra.vtask');
    await until(() => described(algebra) === '3 tasks · 1 failing', `"3 tasks · 1 failing" (is "${described(algebra)}")`);
    const linear = (await tree().getChildren(algebra))[0] as TreeNode;
    assert.equal(described(linear), 'math · 1 failing');

    const failing = filterChoices().find((c) => c.label === 'failing cases');
    assert.ok(failing);
    tree().setFilter(failing.filter);
    await until(async () => (await tree().getChildren(await overviewFolder())).length === 1, 'only algebra.vtask under the filter');
    const filtered = await tree().getChildren(await fileNode('algebra.vtask'));
    assert.deepEqual(filtered.map(label), ['alg/linear']);
    assert.equal(described(await fileNode('algebra.vtask')), '1 of 3 tasks · 1 failing');
    // Files without a failing case are hidden (other suites' runs may leave failing cases elsewhere).
    const shown = (await tree().getChildren()).map(label);
    assert.ok(shown.includes('overview'), `under the filter: ${shown.join(', ')}`);
  });

  test('a duplicate prompt is information on both tasks, each pointing at the other; an edit that ends it clears it', async () => {
    const copies = fileUri('copies.vtask');
    const algebra = fileUri('algebra.vtask');
    const dupOf = (uri: vscode.Uri): vscode.Diagnostic[] => vscode.languages.getDiagnostics(uri).filter((d) => d.source === DUPLICATE_SOURCE);
    const [d] = await until(() => dupOf(copies).length > 0 && dupOf(copies), 'a duplicate diagnostic in copies.vtask');
    assert.ok(d);
    assert.equal(d.message, 'duplicate of alg/square in overview/algebra.vtask');
    assert.equal(d.severity, vscode.DiagnosticSeverity.Information);
    assert.equal(d.range.start.line, 2);
    const related = d.relatedInformation?.[0];
    assert.ok(related, 'related information points at the other task');
    assert.equal(related.location.uri.toString(), algebra.toString());
    assert.equal(related.location.range.start.line, 13);
    const back = dupOf(algebra);
    assert.deepEqual(back.map((x) => [x.message, x.range.start.line, x.relatedInformation?.[0]?.location.uri.toString()]), [['duplicate of copy/square in overview/copies.vtask', 13, copies.toString()]]);
    // The tree says so too.
    const squares = await tree().getChildren(await fileNode('copies.vtask'));
    await until(() => described(squares[0] as TreeNode) === 'math · 1 duplicate', 'the duplicate in the tree');

    // Opened and edited, unsaved: the prompt is another question, and the diagnostic goes.
    const doc = await vscode.workspace.openTextDocument(copies);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.problems.focus');
    await screenshot('overview-duplicate');
    const at = doc.getText().indexOf('perimeter of 36');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(copies, new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'perimeter of 36'.length)), 'perimeter of 48');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await until(() => dupOf(copies).length === 0 && dupOf(algebra).length === 0, 'the duplicate diagnostics cleared');
    const undo = new vscode.WorkspaceEdit();
    undo.replace(copies, new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'perimeter of 48'.length)), 'perimeter of 36');
    assert.ok(await vscode.workspace.applyEdit(undo));
    await doc.save();
    await until(() => dupOf(copies).length === 1, 'the duplicate back after the edit is undone');
  });

  test('the dashboard computes the statistics of the workspace and opens a task from its page', async () => {
    await vscode.commands.executeCommand('vtask.openDashboard');
    const dashboard = await until(() => api.overview.dashboard(), 'the dashboard');
    // The page says `ready` when it loaded; the handler is the one its messages reach.
    await dashboard.handle({ type: 'ready' });
    const stats = await until(() => [...dashboard.posted].reverse().find((m): m is Extract<ToDashboard, { type: 'stats' }> => m.type === 'stats'), 'the statistics');
    const files = stats.stats.per_file.map((f) => f.file);
    assert.ok(files.includes('overview/algebra.vtask') && files.includes('overview/copies.vtask'), files.join(', '));
    const algebra = stats.stats.per_file.find((f) => f.file === 'overview/algebra.vtask');
    assert.deepEqual([algebra?.tasks, algebra?.kinds], [3, { math: 2, constraints: 1 }]);
    assert.ok(stats.stats.duplicates.some((p) => p.a.task === 'alg/square' && p.b.task === 'copy/square'), 'the duplicate pair is listed');
    await screenshot('overview-dashboard');
    await dashboard.handle({ type: 'open', file: 'overview/copies.vtask', task: 'copy/cube' });
    const editor = await until(() => vscode.window.activeTextEditor?.document.uri.path.endsWith('/copies.vtask') && vscode.window.activeTextEditor, 'copies.vtask opened');
    assert.equal(editor.selection.start.line, 8);
  });
});

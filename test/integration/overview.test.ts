// The dataset at a glance in a real VS Code: the vtask view lists the workspace's task files
// (test/fixtures/workspace, overview/ among them) with their counts (folders add up their files),
// a click on a task opens it on its id line, running cases updates the failing count, a filter
// keeps the tasks it asks for, a duplicate prompt gets an information diagnostic pointing at the
// other task, a prompt found in a benchmark gets one pointing at the benchmark's row (and its own
// label and filter), runs written to the run log as `vtask run` writes them give the bands of the
// tasks as they are now (a run of an older version does not count), and the dashboard computes
// the statistics, follows a run appended to the log, and opens a task from its page's message
// (a file deleted while it is read is left out of them);
// a task the built-in demo model ran but cannot do is marked as such, in no band.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToDashboard } from '../../src/core/base/dashboardProtocol';
import { appendRunRecords, runLogPath, type RunRecord } from '../../src/core/overview/runlog/runLog';
import { taskRunKey } from '../../src/core/run/resultKeys';
import type { Band } from '../../src/core/stats';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import type { VtaskApi } from '../../src/vscode/api';
import { filterChoices, type TreeNode } from '../../src/vscode/datasetTree';
import { cacheDirFor } from '../../src/vscode/settings';
import { writeDataset } from '../support/datasetFixture';
import { until } from './helpers';

const DUPLICATE_SOURCE = 'vtask duplicates';

function folderUri(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  return folder.uri;
}
const fileUri = (name: string): vscode.Uri => vscode.Uri.joinPath(folderUri(), 'overview', name);

/**
 * Runs of tasks of a file, written to the file's run log as `vtask run` writes them: each under
 * the run key of the task in `text` (the file as it is by default; an older text makes a stale run).
 */
function logRuns(
  uri: vscode.Uri,
  runs: readonly { task: string; model: string; passed: number; text?: string }[],
): void {
  const cacheDir = cacheDirFor(uri);
  const records = runs.map(({ task, model, passed, text }): RunRecord => {
    const parsed = parseTaskFile(text ?? fs.readFileSync(uri.fsPath, 'utf8'));
    const entry = parsed.tasks.find((t) => t.id === task);
    assert.ok(entry, task);
    const band: Band = passed === 4 ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable';
    return {
      file: runLogPath(cacheDir, uri.fsPath),
      task,
      model,
      key: taskRunKey(parsed, entry),
      at: new Date().toISOString(),
      samples: 4,
      passed,
      pass_rate: passed / 4,
      band,
      signal_share: 0.5,
    };
  });
  appendRunRecords(cacheDir, records);
}

/** A tree item's tooltip as it reads (text set in Markdown has its spaces escaped). */
const tipText = (item: vscode.TreeItem): string =>
  (item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip ?? '')).replace(
    /&nbsp;/g,
    ' ',
  );

let widened = false;

/** Asks the harness for a picture of the workbench, and gives it the time to take it. */
async function screenshot(name: string): Promise<void> {
  // The side bar wide enough for the view's descriptions (counts, band bars, models) to show
  // whole, once: the editors are made narrower (the side bar takes what they give up).
  if (!widened) {
    widened = true;
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.decreaseViewWidth');
  }
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
    assert.ok(
      root.slice(0, firstFile).some((n) => label(n) === 'overview'),
      `the overview folder comes before the files: ${root.map(label).join(', ')}`,
    );
    for (const name of ['sample.vtask', 'panel.vtask', 'audit.vtask'])
      assert.ok(
        root.some((n) => label(n) === name),
        `${name} is listed`,
      );
    assert.ok(
      root.some((n) => label(n) === 'rows.jsonl'),
      'a JSONL dataset is listed with the task files',
    );
    const files = await tree().getChildren(await overviewFolder());
    assert.deepEqual(files.map(label), ['algebra.vtask', 'copies.vtask']);
    // The folder adds up its files: 3 + 2 tasks, no failing case, no error.
    const folder = await overviewFolder();
    await until(() => described(folder) === '5 tasks', `"5 tasks" on the folder (is "${described(folder)}")`);
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
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.uri.toString() === fileUri('algebra.vtask').toString() &&
        vscode.window.activeTextEditor,
      'algebra.vtask in the editor',
    );
    assert.equal(editor.selection.start.line, 13);
    assert.equal(editor.document.getText(editor.selection), '- id: alg/square');
  });

  test('a folder never opened is redrawn as its files are read: its counts replace "reading…"', async () => {
    const dir = vscode.Uri.joinPath(folderUri(), 'unopened');
    const task = (id: string): string =>
      `  - id: ${id}\n    prompt: What is 2 + 2?\n    verify: { math: { answer: "4" } }\n`;
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(dir, 'a.vtask'),
      new TextEncoder().encode(`vtask: 1\ntasks:\n${task('u/a1')}${task('u/a2')}`),
    );
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(dir, 'deeper', 'b.vtask'),
      new TextEncoder().encode(`vtask: 1\ntasks:\n${task('u/b1')}`),
    );
    const folder = await until(
      async () => (await tree().getChildren()).find((n) => n.kind === 'folder' && label(n) === 'unopened'),
      'the new folder in the view',
    );
    // What the view does: it asks for the folder's item, then again each time it is told the folder changed.
    const redrawn = new Promise<void>((resolve) => {
      const sub = tree().onDidChangeTreeData((n) => {
        if ((n === undefined || n === folder) && !described(folder).includes('reading')) {
          sub.dispose();
          resolve();
        }
      });
    });
    assert.match(described(folder), /reading/);
    await Promise.race([
      redrawn,
      new Promise((_r, reject) =>
        setTimeout(
          () => reject(new Error(`the view was never told to redraw the folder: "${described(folder)}"`)),
          15_000,
        ),
      ),
    ]);
    // Its files are read one after another: the first redraw may count only the first file.
    await until(() => described(folder) === '3 tasks', `"3 tasks" (is "${described(folder)}")`);
  });

  test('a folder moved into the workspace with task files in it is listed with their tasks, and goes when deleted', async () => {
    // A move (an unpacked archive, a folder dragged in) reaches the file watcher as the folder
    // alone: no event names the files inside it.
    // Made beside the workspace folder, so that the move is a rename on one file system.
    const outside = fs.mkdtempSync(path.join(path.dirname(folderUri().fsPath), 'vtask-int-moved-'));
    fs.mkdirSync(path.join(outside, 'inner'));
    fs.writeFileSync(
      path.join(outside, 'inner', 'm.vtask'),
      'vtask: 1\ntasks:\n  - id: m/one\n    prompt: What is 1 + 1?\n    verify: { math: { answer: "2" } }\n',
    );
    const moved = vscode.Uri.joinPath(folderUri(), 'moved');
    fs.renameSync(outside, moved.fsPath);
    try {
      const folder = await until(
        async () => (await tree().getChildren()).find((n) => n.kind === 'folder' && label(n) === 'moved'),
        'the moved folder in the view',
      );
      await until(() => described(folder) === '1 task', `"1 task" on the moved folder (is "${described(folder)}")`);
    } finally {
      await vscode.workspace.fs.delete(moved, { recursive: true });
    }
    // Deleted, the folder is again one event: its files go with it.
    await until(
      async () => !(await tree().getChildren()).some((n) => n.kind === 'folder' && label(n) === 'moved'),
      'the deleted folder gone from the view',
    );
  });

  test('running cases counts the failing one in the file and the task; a filter keeps only those tasks', async () => {
    const uri = fileUri('algebra.vtask');
    await vscode.commands.executeCommand('vtask.runCases', uri, 'alg/linear');
    const algebra = await fileNode('algebra.vtask');
    await until(
      () => described(algebra) === '3 tasks · 1 failing',
      `"3 tasks · 1 failing" (is "${described(algebra)}")`,
    );
    const linear = (await tree().getChildren(algebra))[0] as TreeNode;
    assert.equal(described(linear), 'math · 1 failing');
    await until(
      async () => described(await overviewFolder()) === '5 tasks · 1 failing',
      'the failing case counted in the folder',
    );

    const failing = filterChoices().find((c) => c.label === 'failing cases');
    assert.ok(failing);
    tree().setFilter(failing.filter);
    await until(
      async () => (await tree().getChildren(await overviewFolder())).length === 1,
      'only algebra.vtask under the filter',
    );
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
    const dupOf = (uri: vscode.Uri): vscode.Diagnostic[] =>
      vscode.languages.getDiagnostics(uri).filter((d) => d.source === DUPLICATE_SOURCE);
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
    assert.deepEqual(
      back.map((x) => [x.message, x.range.start.line, x.relatedInformation?.[0]?.location.uri.toString()]),
      [['duplicate of copy/square in overview/copies.vtask', 13, copies.toString()]],
    );
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
    edit.replace(
      copies,
      new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'perimeter of 36'.length)),
      'perimeter of 48',
    );
    assert.ok(await vscode.workspace.applyEdit(edit));
    await until(() => dupOf(copies).length === 0 && dupOf(algebra).length === 0, 'the duplicate diagnostics cleared');
    const undo = new vscode.WorkspaceEdit();
    undo.replace(
      copies,
      new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'perimeter of 48'.length)),
      'perimeter of 36',
    );
    assert.ok(await vscode.workspace.applyEdit(undo));
    await doc.save();
    await until(() => dupOf(copies).length === 1, 'the duplicate back after the edit is undone');
  });

  test('a prompt found in a benchmark is information going to the benchmark row, with its own label and filter, apart from duplicates', async () => {
    const algebra = fileUri('algebra.vtask');
    const bench = vscode.Uri.joinPath(folderUri(), 'overview', 'bench.jsonl');
    // Row 2 (0-based line 2, line 3 to a reader) is alg/words's prompt; rows shorter than 13 words count whole.
    fs.writeFileSync(
      bench.fsPath,
      [
        '{"prompt": "What is the capital of France?"}',
        '{"prompt": "Name three prime numbers above one hundred."}',
        '{"prompt": "Describe a quadratic equation in under 40 words without commas."}',
        '',
      ].join('\n'),
    );
    const config = vscode.workspace.getConfiguration('vtask');
    await config.update('contaminationBenchmarks', ['overview/bench.jsonl'], vscode.ConfigurationTarget.Workspace);
    try {
      const hit = (): vscode.Diagnostic | undefined =>
        vscode.languages
          .getDiagnostics(algebra)
          .find((d) => d.source === DUPLICATE_SOURCE && d.code === 'contamination');
      const d = await until(hit, 'a contamination diagnostic in algebra.vtask');
      assert.equal(d.severity, vscode.DiagnosticSeverity.Information);
      assert.equal(d.range.start.line, 18, 'on the id line of alg/words');
      assert.match(d.message, /^prompt overlaps overview\/bench\.jsonl \(line 3\): "describe a quadratic equation/i);
      const related = d.relatedInformation?.[0];
      assert.ok(related, 'related information points at the benchmark row');
      assert.equal(related.location.uri.fsPath, bench.fsPath);
      assert.equal(related.location.range.start.line, 2);
      // Going there shows the benchmark's row.
      const shown = await vscode.window.showTextDocument(related.location.uri, { selection: related.location.range });
      assert.match(shown.document.lineAt(shown.selection.start.line).text, /quadratic equation/);

      // In the tree: its own label, not a duplicate; the duplicate stays one duplicate.
      const algebraNode = await fileNode('algebra.vtask');
      await until(
        async () => (await tree().getChildren(algebraNode)).map(described).includes('constraints · contaminated'),
        'alg/words labelled contaminated',
      );
      const tasks = await tree().getChildren(algebraNode);
      assert.equal(
        described(tasks[1] as TreeNode).endsWith('1 duplicate'),
        true,
        `alg/square: ${described(tasks[1] as TreeNode)}`,
      );
      assert.doesNotMatch(described(tasks[2] as TreeNode), /duplicate/);
      await tree().reveal(algebra);
      await vscode.commands.executeCommand('workbench.action.problems.focus');
      await screenshot('overview-contamination');

      // The filters keep them apart.
      const pick = (name: string): NonNullable<ReturnType<typeof filterChoices>[number]> => {
        const c = filterChoices().find((x) => x.label === name);
        assert.ok(
          c,
          `the filter menu offers "${name}": ${filterChoices()
            .map((x) => x.label)
            .join(', ')}`,
        );
        return c;
      };
      tree().setFilter(pick('contaminated').filter);
      await until(
        async () => (await tree().getChildren(await overviewFolder())).map(label).join() === 'algebra.vtask',
        'only algebra.vtask under the contaminated filter',
      );
      assert.deepEqual((await tree().getChildren(await fileNode('algebra.vtask'))).map(label), ['alg/words']);
      tree().setFilter(pick('duplicates').filter);
      await until(
        async () => (await tree().getChildren(await fileNode('algebra.vtask'))).map(label).join() === 'alg/square',
        'only alg/square under the duplicates filter',
      );
    } finally {
      tree().setFilter(undefined);
      await config.update('contaminationBenchmarks', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(bench.fsPath, { force: true });
    }
    await until(
      () => !vscode.languages.getDiagnostics(algebra).some((d) => d.code === 'contamination'),
      'the contamination diagnostic gone with the setting',
    );
  });

  test('runs in the run log give the bands of the tasks as they are now: a run of an older version does not count', async () => {
    const algebra = fileUri('algebra.vtask');
    const older = fs.readFileSync(algebra.fsPath, 'utf8').replace('in under 40 words', 'in under 30 words');
    logRuns(algebra, [
      { task: 'alg/linear', model: 'model-a', passed: 2 },
      { task: 'alg/square', model: 'model-a', passed: 0 },
      { task: 'alg/linear', model: 'model-b', passed: 4 },
      // Recorded before alg/words's prompt said 40 words: stale.
      { task: 'alg/words', model: 'model-a', passed: 4, text: older },
    ]);
    const node = await fileNode('algebra.vtask');
    // model-a has the most runs (2, one of them learnable): the bar is its, model-b is named too.
    await until(
      () => described(node).endsWith(' · ▰▰▰▱▱ model-a, model-b'),
      `the band bar and the models on algebra.vtask (is "${described(node)}")`,
    );
    const tip = tipText(tree().getTreeItem(node));
    assert.match(tip, /model-a\*\*: 0 too easy, 1 learnable, 1 too hard, 1 not run/);
    assert.match(tip, /model-b\*\*: 1 too easy, 0 learnable, 0 too hard, 2 not run/);
    const tasks = await tree().getChildren(node);
    assert.deepEqual(
      tasks.map(described).map((d) => d.replace(/ · 1 failing/, '')),
      ['math · learnable', 'math · too hard · 1 duplicate', 'constraints'],
    );
    assert.match(tipText(tree().getTreeItem(tasks[2] as TreeNode)), /model-a: run before the task changed/);
    // The band filters count fresh runs only.
    const easy = filterChoices().find((c) => c.label === 'too easy');
    assert.ok(easy);
    tree().setFilter(easy.filter);
    await until(
      async () => (await tree().getChildren(await fileNode('algebra.vtask'))).map(label).join() === 'alg/linear',
      'only alg/linear too easy (for model-b)',
    );
    tree().setFilter(undefined);
    await vscode.commands.executeCommand('workbench.view.extension.vtask');
    await tree().reveal(algebra);
    await screenshot('overview-bands');
  });

  test('the dashboard computes the statistics of the workspace, follows a run appended to the run log, and opens a task from its page', async () => {
    await vscode.commands.executeCommand('vtask.openDashboard');
    const dashboard = await until(() => api.overview.dashboard(), 'the dashboard');
    const lastStats = (): Extract<ToDashboard, { type: 'stats' }> | undefined =>
      [...dashboard.posted].reverse().find((m): m is Extract<ToDashboard, { type: 'stats' }> => m.type === 'stats');
    // The page says `ready` when it loaded; the handler is the one its messages reach.
    await dashboard.handle({ type: 'ready' });
    const stats = await until(lastStats, 'the statistics');
    const files = stats.stats.per_file.map((f) => f.file);
    assert.ok(files.includes('overview/algebra.vtask') && files.includes('overview/copies.vtask'), files.join(', '));
    const algebra = stats.stats.per_file.find((f) => f.file === 'overview/algebra.vtask');
    assert.deepEqual([algebra?.tasks, algebra?.kinds], [3, { math: 2, constraints: 1 }]);
    assert.ok(
      stats.stats.duplicates.some((p) => p.a.task === 'alg/square' && p.b.task === 'copy/square'),
      'the duplicate pair is listed (as the duplicate diagnostics found it)',
    );
    // The runs logged by the test before: alg/words's run of model-a is stale.
    assert.equal(stats.stats.models['model-a']?.stale, 1);

    // A run in a terminal appends to the run log: the dashboard follows without being asked.
    const copies = fileUri('copies.vtask');
    const posted = dashboard.posted.length;
    logRuns(copies, [
      { task: 'copy/cube', model: 'model-a', passed: 4 },
      { task: 'copy/cube', model: 'model-b', passed: 4 },
    ]);
    const after = await until(
      () =>
        dashboard.posted.slice(posted).some((m) => m.type === 'stats' && m.stats.models['model-b']?.tasks === 2) &&
        lastStats(),
      'new statistics after the run',
    );
    assert.equal(after.stats.models['model-a']?.tasks, 3);
    assert.deepEqual(after.stats.per_file.find((f) => f.file === 'overview/copies.vtask')?.bands, {
      'model-a': { too_easy: 1, learnable: 0, too_hard: 0, error: 0 },
      'model-b': { too_easy: 1, learnable: 0, too_hard: 0, error: 0 },
    });
    // And so does the tree: the file names both models (none of its run tasks is learnable).
    const copiesNode = await fileNode('copies.vtask');
    await until(
      () => described(copiesNode).endsWith(' · ▱▱▱▱▱ model-a, model-b'),
      `the models on copies.vtask (is "${described(copiesNode)}")`,
    );
    // Both models always solve copy/cube: the comparison lists it.
    // The page asks for comparisons of its own as statistics arrive: the answer looked for is the
    // one over both runs of copy/cube (two tasks run by both models), whoever asked.
    const before = dashboard.posted.length;
    await dashboard.handle({ type: 'compare', a: 'model-a', b: 'model-b', page: 0 });
    const compared = await until(
      () =>
        dashboard.posted
          .slice(before)
          .find(
            (m): m is Extract<ToDashboard, { type: 'comparison' }> =>
              m.type === 'comparison' &&
              m.comparison.a === 'model-a' &&
              m.comparison.b === 'model-b' &&
              m.comparison.tasks === 2,
          ),
      'the comparison over both runs',
    );
    assert.deepEqual(
      compared.comparison.both_solve.items.map((r) => [r.file, r.task]),
      [['overview/copies.vtask', 'copy/cube']],
    );
    assert.deepEqual([compared.comparison.tasks, compared.comparison.both_fail.total], [2, 0]);
    // The workbench draws the view's refresh a moment after the extension has it.
    await new Promise((r) => setTimeout(r, 4000));
    await screenshot('overview-dashboard');
    await dashboard.handle({ type: 'open', file: 'overview/copies.vtask', task: 'copy/cube' });
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.uri.path.endsWith('/copies.vtask') && vscode.window.activeTextEditor,
      'copies.vtask opened',
    );
    assert.equal(editor.selection.start.line, 8);
  });
  test('a task file deleted after it was listed is left out of the dashboard statistics, which are still given', async () => {
    const uri = fileUri('vanishing.vtask');
    fs.writeFileSync(
      uri.fsPath,
      'vtask: 1\ntasks:\n  - id: gone/one\n    prompt: What is 5 + 5?\n    verify: { math: { answer: "10" } }\n',
    );
    try {
      await until(
        async () => (await tree().getChildren(await overviewFolder())).some((n) => label(n) === 'vanishing.vtask'),
        'vanishing.vtask in the view',
      );
      await vscode.commands.executeCommand('vtask.openDashboard');
      const dashboard = await until(() => api.overview.dashboard(), 'the dashboard');
      await dashboard.handle({ type: 'ready' });
      await until(
        () =>
          dashboard.posted.some(
            (m) => m.type === 'stats' && m.stats.per_file.some((f) => f.file === 'overview/vanishing.vtask'),
          ),
        'statistics with vanishing.vtask',
      );
      // Changed (the dashboard will read it again), then deleted and read at once, before the
      // file watcher can tell the index (a checkout does this): the file is still listed when its
      // text is read.
      let told = false;
      const sub = api.overview.index.onDidChange((uris) => {
        told ||= uris.some((u) => u.fsPath === uri.fsPath);
      });
      fs.appendFileSync(
        uri.fsPath,
        '  - id: gone/two\n    prompt: What is 6 + 6?\n    verify: { math: { answer: "12" } }\n',
      );
      await until(() => told, 'the change of vanishing.vtask reported').finally(() => sub.dispose());
      // Loaded by VS Code (as the Test Explorer or a tree view loads a file), not edited: once the
      // file is deleted, the document VS Code still holds is not the dataset's.
      const loaded = await vscode.workspace.openTextDocument(uri);
      assert.equal(loaded.isDirty, false);
      const posted = dashboard.posted.length;
      fs.unlinkSync(uri.fsPath);
      // (A computation that starts later, on the watcher's word, may cut this one short: the
      // statistics looked for are the first ones posted after the deletion, by either.)
      await dashboard.update();
      const sent = await until(
        () => dashboard.posted.slice(posted).find((m) => m.type === 'stats'),
        'statistics after the deletion',
      );
      const errors = dashboard.posted.slice(posted).filter((m) => m.type === 'notice' && m.level === 'error');
      assert.deepEqual(errors, [], 'no error on the page');
      const files = sent.stats.per_file.map((f) => f.file);
      assert.ok(
        files.includes('overview/algebra.vtask') && !files.includes('overview/vanishing.vtask'),
        files.join(', '),
      );
    } finally {
      fs.rmSync(uri.fsPath, { force: true });
    }
  });
  test('a JSONL or Parquet dataset is listed with its rows as tasks and counted by the dashboard; other JSON lines are not', async () => {
    const rows = await until(
      async () => (await tree().getChildren()).find((n) => n.kind === 'file' && label(n) === 'rows.jsonl'),
      'rows.jsonl in the view',
    );
    // Its second row names a data source no verifier knows: an error, as `vtask stats` counts it.
    await until(
      () => described(rows) === '2 tasks · 1 error',
      `"2 tasks · 1 error" on rows.jsonl (is "${described(rows)}")`,
    );
    const tasks = await tree().getChildren(rows);
    assert.deepEqual(tasks.map(label), ['rows/six-sevens', 'rows/sea']);
    // A row opens on its line.
    const item = tree().getTreeItem(tasks[1] as TreeNode);
    assert.ok(item.command);
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    const editor = await until(
      () => vscode.window.activeTextEditor?.document.uri.path.endsWith('/rows.jsonl') && vscode.window.activeTextEditor,
      'rows.jsonl in the editor',
    );
    assert.equal(editor.selection.start.line, 2);

    // A Parquet dataset of 1,200 rows (read 500 lines a turn) and a benchmark's JSON lines, written through the editor's file service.
    const dir = vscode.Uri.joinPath(folderUri(), 'tables');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-int-parquet-'));
    await writeDataset(path.join(tmp, 'train.parquet'), 1200);
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(dir, 'train.parquet'),
      fs.readFileSync(path.join(tmp, 'train.parquet')),
    );
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(dir, 'bench.jsonl'),
      new TextEncoder().encode('{"prompt": "What is the capital of France?"}\n'),
    );
    fs.rmSync(tmp, { recursive: true, force: true });
    try {
      const tables = await until(
        async () => (await tree().getChildren()).find((n) => n.kind === 'folder' && label(n) === 'tables'),
        'the tables folder in the view',
      );
      const files = await tree().getChildren(tables);
      assert.deepEqual(files.map(label), ['train.parquet'], 'the benchmark is no dataset');
      const parquet = files[0] as TreeNode;
      await until(
        () => described(parquet) === '1,200 tasks',
        `"1,200 tasks" on train.parquet (is "${described(parquet)}")`,
      );
      const rowTasks = await tree().getChildren(parquet);
      assert.equal(new Set(rowTasks.map(label)).size, 1200, 'every row once');
      assert.match(tipText(tree().getTreeItem(parquet)), /A dataset in the verl format: each row is a task/);

      await vscode.commands.executeCommand('vtask.openDashboard');
      const dashboard = await until(() => api.overview.dashboard(), 'the dashboard');
      await dashboard.handle({ type: 'refresh' });
      const stats = await until(
        () =>
          [...dashboard.posted]
            .reverse()
            .find(
              (m): m is Extract<ToDashboard, { type: 'stats' }> =>
                m.type === 'stats' && m.stats.per_file.some((f) => f.file === 'tables/train.parquet'),
            ),
        'statistics with the Parquet dataset',
      );
      const perFile = new Map(stats.stats.per_file.map((f) => [f.file, f.tasks]));
      assert.equal(perFile.get('tables/train.parquet'), 1200);
      assert.equal(perFile.get('rows.jsonl'), 2);
      assert.equal(perFile.has('tables/bench.jsonl'), false);
      // The totals ("N files · M tasks" on the page) count them.
      assert.equal(stats.stats.files, stats.stats.per_file.length);
      assert.equal(
        stats.stats.tasks,
        stats.stats.per_file.reduce((n, f) => n + f.tasks, 0),
      );
    } finally {
      await vscode.workspace.fs.delete(dir, { recursive: true });
    }
  });

  test('a task the built-in model ran but cannot do has its own mark, not a band; one it can do has its band', async () => {
    const dir = vscode.Uri.joinPath(folderUri(), 'demo');
    const file = vscode.Uri.joinPath(dir, 'demo.vtask');
    await vscode.workspace.fs.writeFile(
      file,
      new TextEncoder().encode(
        'vtask: 1\ntasks:\n' +
          '  - id: capital\n    prompt: Name the capital of France.\n    samples: 2\n    verify:\n      match: { answer: Paris }\n' +
          // Seeded: unseeded, the demo model answers 52 about once in 400 samples.
          '  - id: add\n    prompt: What is 17 + 25?\n    samples: 2\n    seed: 7\n    verify:\n      math: { answer: "42" }\n',
      ),
    );
    try {
      // A real `vtask run` with no model configured: the built-in demo model, into the file's run log.
      const cli = path.join(vscode.extensions.getExtension('vtask.vtask')?.extensionPath ?? '', 'out', 'cli.js');
      const env: NodeJS.ProcessEnv = { ...process.env, VTASK_NO_LOCAL_DISCOVERY: '1' };
      delete env.OPENAI_BASE_URL;
      delete env.OPENAI_API_KEY;
      // Not spawnSync: the extension host goes on serving the view while the run goes.
      const ran = await promisify(execFile)(
        process.execPath,
        [cli, 'run', file.fsPath, '--cache-dir', cacheDirFor(file)],
        {
          env,
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      assert.match(ran.stdout, /capital .*the built-in demo model only does/);
      const node = await until(
        async () => (await tree().getChildren()).find((n) => n.kind === 'folder' && label(n) === 'demo'),
        'the demo folder in the view',
      );
      const demo = await until(
        async () => (await tree().getChildren(node)).find((n) => label(n) === 'demo.vtask'),
        'demo.vtask',
      );
      const items = async (): Promise<Map<string, vscode.TreeItem>> =>
        new Map((await tree().getChildren(demo)).map((n) => [label(n), tree().getTreeItem(n)]));
      await until(
        async () => String((await items()).get('capital')?.description ?? '').includes('cannot'),
        'the run in the view',
      );
      const got = await items();
      const capital = got.get('capital');
      const add = got.get('add');
      assert.equal(capital?.description, 'match · built-in model cannot do this task');
      assert.equal((capital?.iconPath as vscode.ThemeIcon | undefined)?.id, 'circle-slash');
      assert.match(tipText(capital ?? new vscode.TreeItem('')), /builtin: built-in model cannot do this task/);
      assert.equal(add?.description, 'math · too easy');
      assert.equal((add?.iconPath as vscode.ThemeIcon | undefined)?.id, 'circle-filled');
      // The band filters leave it out; its own filter keeps it alone.
      const hard = filterChoices().find((c) => c.label === 'too hard');
      const cannot = filterChoices().find((c) => c.label === 'built-in model cannot do this task');
      assert.ok(hard && cannot);
      tree().setFilter(cannot.filter);
      await until(async () => (await tree().getChildren(demo)).map(label).join() === 'capital', 'only capital');
      tree().setFilter(hard.filter);
      await until(async () => (await tree().getChildren(demo)).length === 0, 'no task too hard');
      tree().setFilter(undefined);
    } finally {
      await vscode.workspace.fs.delete(dir, { recursive: true });
    }
  });
});

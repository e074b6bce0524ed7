// The dataset workbench in a real VS Code: `vtask.openWorkbench` on a folder of a task file,
// JSONL rows and a Parquet file opens one table of all their tasks; the page itself (in the
// workbench's webview) asks for the first view and rows; a query filters, a bad one says where
// it is wrong, a range of the view is selected and labelled (on disk: the task's meta.review,
// the Parquet file's sidecar), and a row opens where its task is written.
// Messages go through the same handler the page's messages reach.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RowSet } from '../../src/core/base/rowSet';
import { writeDataset } from '../support/datasetFixture';
import { OpenAIServer } from '../support/openaiServer';
import { posted, type WorkbenchForTests } from './workbenchApi';
import { useModelServer } from './helpers';

interface Api {
  workbench(uri: vscode.Uri): WorkbenchForTests | undefined;
}

interface RunnableWorkbench extends WorkbenchForTests {
  request(r: {
    op: 'window';
    start: number;
    end: number;
  }): Promise<{ id: string; runs: ({ rate: number; band: string; samples: number } | null)[] }[]>;
}

const TASKS = `vtask: 1
tasks:
  - id: add
    prompt: What is 17 + 25?
    verify:
      math: { answer: "42" }
  - id: capital
    prompt: Name the capital of France.
    verify:
      match: { answer: Paris }
`;

suite('dataset workbench', () => {
  let api: Api;
  let dir: string;
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<Api>('vtask.vtask');
    if (!ext) throw new Error('vtask is not installed');
    api = await ext.activate();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    dir = path.join(folder.uri.fsPath, 'workbench-data');
    // Fresh each run: labels of an earlier run would be read back.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.vtask'), TASKS);
    fs.writeFileSync(
      path.join(dir, 'qa.jsonl'),
      `${JSON.stringify({ question: 'How many legs has a spider?', answer: '8', id: 'spider' })}\n`,
    );
    await writeDataset(path.join(dir, 'train.parquet'), 20);
  });

  test('a folder of a task file, JSONL and Parquet opens as one table the page reads, filters and selects in', async () => {
    const uri = vscode.Uri.file(dir);
    await vscode.commands.executeCommand('vtask.openWorkbench', uri);
    const w = api.workbench(uri);
    assert.ok(w, 'the workbench of the folder is open');
    const opened = await posted(w, 'opened');
    assert.deepEqual([opened.title, opened.rows, opened.files, opened.models], ['workbench-data', 23, 3, ['recorded']]);
    // The page itself asked for the first view and its rows.
    const view = await posted(w, 'view');
    assert.equal(view.size, 23);
    const rows = await posted(w, 'rows', (m) => m.seq === view.seq);
    assert.deepEqual(
      rows.rows.slice(0, 3).map((r) => [r.id, r.file, r.kind]),
      [
        ['add', 'workbench-data/a.vtask', 'math'],
        ['capital', 'workbench-data/a.vtask', 'match'],
        ['spider', 'workbench-data/qa.jsonl', 'math'],
      ],
    );

    await w.handle({ type: 'view', seq: 1000, query: 'kind:math spider', sort: { column: 'id' } });
    assert.deepEqual(await posted(w, 'view', (m) => m.seq === 1000), { type: 'view', seq: 1000, size: 1 });
    await w.handle({ type: 'window', seq: 1000, start: 0, end: 5 });
    const found = await posted(w, 'rows', (m) => m.seq === 1000);
    assert.deepEqual(
      found.rows.map((r) => [r.id, r.line, r.prompt]),
      [['spider', 0, 'How many legs has a spider?']],
    );

    await w.handle({ type: 'view', seq: 1001, query: 'band:hard' });
    const bad = await posted(w, 'queryError', (m) => m.seq === 1001);
    assert.deepEqual([bad.error, bad.at], ['`hard` is no band: one of too_easy, learnable, too_hard, error, none', 5]);

    await w.handle({ type: 'view', seq: 1002, query: 'model:recorded band:learnable' });
    assert.equal((await posted(w, 'view', (m) => m.seq === 1002)).size, 5);
    await w.handle({ type: 'selectRange', start: 0, end: 5 });
    const selected = await posted(w, 'select');
    assert.equal(RowSet.decode(selected.rows).size, 5);

    // Labels set on a selection are on disk: the task's meta.review, the Parquet file's sidecar.
    await w.handle({ type: 'view', seq: 1003, query: 'kind:match' });
    await posted(w, 'view', (m) => m.seq === 1003);
    await w.handle({ type: 'selectRange', start: 0, end: 3 });
    const chosen = await posted(w, 'select', (m) => RowSet.decode(m.rows).size === 3);
    await w.handle({ type: 'label', rows: chosen.rows, label: 'bad_gold' });
    assert.equal((await posted(w, 'labelled')).changed, 3);
    assert.match(
      fs.readFileSync(path.join(dir, 'a.vtask'), 'utf8'),
      /match: \{ answer: Paris \}\n    meta: \{ review: bad_gold \}\n/,
    );
    const sidecar = JSON.parse(fs.readFileSync(path.join(dir, 'train.parquet.labels.json'), 'utf8')) as unknown;
    assert.deepEqual(sidecar, { vtask_labels: 1, labels: { 'big/000002': 'bad_gold', 'big/000003': 'bad_gold' } });
    await w.handle({ type: 'view', seq: 1004, query: 'label:bad_gold' });
    assert.equal((await posted(w, 'view', (m) => m.seq === 1004)).size, 3);

    // A row opens where its task is written.
    await w.handle({ type: 'open', n: 1 });
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, path.join(dir, 'a.vtask'));
    assert.equal(editor?.selection.active.line, 6);
    // A Parquet row opens its file's table view.
    await w.handle({ type: 'view', seq: 1005, query: 'file:parquet' });
    await posted(w, 'view', (m) => m.seq === 1005);
    await w.handle({ type: 'selectRange', start: 0, end: 1 });
    const parquetRow = await posted(w, 'select', (m) => RowSet.decode(m.rows).size === 1);
    await w.handle({ type: 'open', n: [...RowSet.decode(parquetRow.rows)][0] });
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    assert.ok(
      tab instanceof vscode.TabInputCustom &&
        tab.viewType === 'vtask.dataset' &&
        tab.uri.fsPath === path.join(dir, 'train.parquet'),
      'the Parquet table view is the active tab',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

suite('dataset workbench: a run of the selection', () => {
  // The right answer to every math task here.
  const server = new OpenAIServer({ answer: () => 'so \\boxed{42}' });
  const models = useModelServer<Api>(server);

  test('runs the selected tasks with a sample budget against the model, then shows their runs', async () => {
    const api = models.api();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    const dir = path.join(folder.uri.fsPath, 'workbench-run');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.vtask'), TASKS.replace('match: { answer: Paris }', 'math: { answer: "42" }'));
    const uri = vscode.Uri.file(dir);
    await vscode.commands.executeCommand('vtask.openWorkbench', uri);
    const w = api.workbench(uri) as RunnableWorkbench;
    assert.deepEqual((await posted(w, 'opened')).models, []);
    const before = server.samplingRequests.length;
    // Two tasks, two samples each (the budget the user agreed to).
    await w.handle({ type: 'run', rows: RowSet.range(0, 2).encode(), samples: 2, confirmed: true });
    const again = await posted(w, 'opened', (m) => m.models.length > 0);
    assert.deepEqual(again.models, ['test']);
    assert.ok(server.samplingRequests.length - before >= 2, 'the model was asked for both tasks');
    const rows = await w.request({ op: 'window', start: 0, end: 2 });
    assert.deepEqual(
      rows.map((r) => [r.id, r.runs[0]?.rate, r.runs[0]?.band, r.runs[0]?.samples]),
      [
        ['add', 1, 'too_easy', 2],
        ['capital', 1, 'too_easy', 2],
      ],
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

suite('dataset workbench: a cancelled run', () => {
  // `capital` is never answered; `add` is, at once.
  const server = new OpenAIServer({
    answer: () => 'so \\boxed{42}',
    behaviour: (r) => (JSON.stringify(r.body).includes('France') ? { hang: true } : undefined),
  });
  const models = useModelServer<Api>(server);

  test('cancelling a run keeps what finished: the table shows it, and the cancelled task says error', async () => {
    const api = models.api();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    const dir = path.join(folder.uri.fsPath, 'workbench-cancel');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'a.vtask'), TASKS.replace('match: { answer: Paris }', 'math: { answer: "42" }'));
    const uri = vscode.Uri.file(dir);
    await vscode.commands.executeCommand('vtask.openWorkbench', uri);
    const w = api.workbench(uri) as RunnableWorkbench;
    await posted(w, 'opened');
    const running = w.handle({ type: 'run', rows: RowSet.range(0, 2).encode(), samples: 2, confirmed: true });
    // Once `capital` is asked of the model (and hangs), the run is cancelled, as its progress's Cancel does.
    const end = Date.now() + 30_000;
    while (!server.samplingRequests.some((r) => JSON.stringify(r.body).includes('France'))) {
      if (Date.now() > end) throw new Error('capital was never sampled');
      await new Promise((r) => setTimeout(r, 50));
    }
    await vscode.commands.executeCommand('vtask.cancelTask');
    await running;
    const again = await posted(w, 'opened', (m) => m.models.length > 0);
    assert.deepEqual(again.models, ['test']);
    const rows = await w.request({ op: 'window', start: 0, end: 2 });
    assert.deepEqual(
      rows.map((r) => [r.id, r.runs[0]?.band]),
      [
        ['add', 'too_easy'],
        ['capital', 'error'],
      ],
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

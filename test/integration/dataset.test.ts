// The dataset table view in a real VS Code: a `.parquet` file opens in the custom editor, the
// page asks for rows, a row runs through the same runner as the lens, a row opens in the task
// panel (read-only), and Convert writes a valid task file beside the dataset and opens it.
// Messages go through the same handler the page's messages reach.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToDataset } from '../../src/core/base/datasetProtocol';
import { OpenAIServer } from '../support/openaiServer';
import { rowTaskId, writeDataset } from '../support/datasetFixture';
import { useModelServer } from './helpers';

interface DatasetViewForTests {
  readonly posted: readonly ToDataset[];
  readonly onDidPost: vscode.Event<ToDataset>;
  handle(message: unknown): Promise<void>;
}

interface Api {
  datasetView(uri: vscode.Uri): DatasetViewForTests | undefined;
  parse(doc: vscode.TextDocument): { tasks: unknown[]; issues: { severity: string; message: string }[] };
}

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  readonly lastView: { file: string; readOnly?: string; messages: { content: string }[] } | undefined;
  readonly lastNotice: string | undefined;
  readonly title: string;
  refresh(): Promise<unknown>;
  handle(message: unknown): Promise<void>;
}

const ROWS = 40;

/** Resolves with the first message of the view's that `match` accepts, posted already or later. */
function posted<T extends ToDataset['type']>(
  view: DatasetViewForTests,
  type: T,
  match: (m: Extract<ToDataset, { type: T }>) => boolean = () => true,
  ms = 30_000,
): Promise<Extract<ToDataset, { type: T }>> {
  const ok = (m: ToDataset): m is Extract<ToDataset, { type: T }> =>
    m.type === type && match(m as Extract<ToDataset, { type: T }>);
  const found = view.posted.find(ok);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(
        new Error(
          `timed out waiting for a '${type}' message; posted: ${JSON.stringify(view.posted.map((m) => m.type))}`,
        ),
      );
    }, ms);
    const sub = view.onDidPost((m) => {
      if (!ok(m)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(m);
    });
  });
}

/** Opens `uri` as a user would (its default editor) and resolves with its table view. */
async function openDataset(api: Api, uri: vscode.Uri): Promise<DatasetViewForTests> {
  await vscode.commands.executeCommand('vscode.open', uri);
  const view = api.datasetView(uri);
  if (view) return view;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no dataset view opened for ${uri.fsPath}`));
    }, 30_000);
    const sub = vscode.window.tabGroups.onDidChangeTabs(() => {
      const v = api.datasetView(uri);
      if (!v) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(v);
    });
  });
}

suite('dataset table view', () => {
  // Even answers are right for the math rows (72), odd ones wrong: a pass rate of one half.
  const server = new OpenAIServer({ answer: (ctx) => (ctx.index % 2 === 0 ? 'so \\boxed{72}' : '\\boxed{71}') });
  const models = useModelServer<Api>(server);
  let api: Api;
  let dir: string;
  suiteSetup(() => {
    api = models.api();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    dir = path.join(folder.uri.fsPath, 'data');
    fs.mkdirSync(dir, { recursive: true });
  });

  test('a .parquet file opens in the table view, which reads the rows the page asks for', async () => {
    const file = path.join(dir, 'train.parquet');
    await writeDataset(file, ROWS);
    const uri = vscode.Uri.file(file);
    const view = await openDataset(api, uri);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    assert.ok(input instanceof vscode.TabInputCustom, 'the active tab is a custom editor');
    assert.equal(input.viewType, 'vtask.dataset');
    const opened = await posted(view, 'dataset');
    assert.deepEqual([opened.info.rows, opened.info.format, opened.info.banner], [ROWS, 'verl', undefined]);
    // The page itself (real Chromium, in the workbench) asked for the first rows.
    const rows = await posted(view, 'rows');
    assert.deepEqual(
      rows.rows.slice(0, 2).map((r) => r.cells[0]),
      [rowTaskId(0), rowTaskId(1)],
    );
    assert.ok(rows.rows.length <= 100, 'one window, not the whole file');
  });

  test('▶ Run verifier on a row samples the model and shows the pass rate in the row', async () => {
    const uri = vscode.Uri.file(path.join(dir, 'train.parquet'));
    const view = await openDataset(api, uri);
    const before = server.samplingRequests.length;
    await view.handle({ type: 'run', n: 4 });
    const done = await posted(view, 'run', (m) => m.n === 4 && !m.running);
    assert.equal(done.error, undefined);
    assert.deepEqual(done.result, { passRate: 0.5, band: 'learnable', samples: 8, source: 'run' });
    assert.ok(server.samplingRequests.length > before, 'the model was asked');
    assert.match(JSON.stringify(server.samplingRequests.at(-1)?.body), /Natalia sold clips .* \(#4\)/);
    // The row keeps its pass rate when the page asks for it again.
    await view.handle({ type: 'window', start: 0, end: 10 });
    const again = view.posted.at(-1);
    assert.equal(again?.type, 'rows');
    assert.deepEqual(again?.type === 'rows' && again.rows[4]?.result, done.result);
  });

  test('Open in panel shows the row as a read-only task, named by its file and row, and says so when an edit is refused', async () => {
    const uri = vscode.Uri.file(path.join(dir, 'train.parquet'));
    const view = await openDataset(api, uri);
    await view.handle({ type: 'open', n: 5 });
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel', undefined);
    await panel.refresh();
    assert.equal(panel.task?.id, rowTaskId(5));
    assert.equal(panel.task?.uri.scheme, 'vtask-row');
    assert.equal(panel.lastView?.messages.at(-1)?.content, 'Describe the sea in under 50 words without commas. (#5)');
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === panel.task?.uri.toString());
    assert.ok(doc);
    const text = doc.getText();
    // The real file and row, not the row document's made-up path.
    assert.equal(panel.lastView?.file, 'data/train.parquet, row 5');
    assert.equal(panel.title, `vtask: ${rowTaskId(5)} (train.parquet, row 5)`);
    // The form is read-only, and says why before anything is typed.
    assert.equal(
      panel.lastView?.readOnly,
      "Row 5 of data/train.parquet, read-only: Convert to .vtask (in the dataset's editor title) to edit it.",
    );
    await panel.handle({
      type: 'edit',
      task: rowTaskId(5),
      path: ['verify', 'constraints', 0, 'length_constraints:number_words', 'num_words'],
      old: 50,
      value: 60,
    });
    assert.equal(doc.getText(), text, 'a row is not edited');
    assert.match(panel.lastNotice ?? '', /^Nothing was changed: Row 5 of data\/train\.parquet, read-only/);
  });

  test('Convert to .vtask writes a valid task file beside the dataset, lists the rows it left out, and opens it', async () => {
    const uri = vscode.Uri.file(path.join(dir, 'train.parquet'));
    const done = await vscode.commands.executeCommand<{ out: string; tasks: number; bad: unknown[]; errors: number }>(
      'vtask.convertDataset',
      uri,
    );
    assert.equal(done.out, path.join(dir, 'train.vtask'));
    assert.deepEqual([done.tasks, done.bad, done.errors], [ROWS, [], 0]);
    assert.ok(fs.existsSync(done.out));
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, done.out);
    assert.equal(editor.document.languageId, 'vtask');
    // The first line names the dataset within the workspace, not by this machine's absolute path.
    assert.equal(editor.document.lineAt(0).text, '# Imported by vtask from data/train.parquet');
    const parsed = api.parse(editor.document);
    assert.equal(parsed.tasks.length, ROWS);
    assert.deepEqual(
      parsed.issues.filter((i) => i.severity === 'error'),
      [],
    );

    // Rows that cannot be mapped are named by their row number.
    const { parquetWriteFile } = await import('hyparquet-writer');
    const bad = path.join(dir, 'mixed.parquet');
    parquetWriteFile({
      filename: bad,
      columnData: [
        { name: 'prompt', data: ['What is 2 + 2?', 'What is 3 + 3?', 'What is 4 + 4?'] },
        { name: 'vtask_verifier', data: ['{"math": {"answer": "4"}}', '{not json', '{"math": {"answer": "8"}}'] },
      ],
    });
    const view = await openDataset(api, vscode.Uri.file(bad));
    await posted(view, 'dataset');
    await view.handle({ type: 'convert' });
    const notice = await posted(view, 'notice', (m) => m.text.startsWith('Wrote mixed.vtask'));
    assert.equal(notice.level, 'warning');
    assert.equal(
      notice.text,
      'Wrote mixed.vtask: 2 tasks from trl rows; 1 row not converted: row 1 (`vtask_verifier` is not valid JSON).',
    );
  });

  test('a corrupt file shows its error, a file of unknown columns a banner', async () => {
    const broken = path.join(dir, 'broken.parquet');
    fs.writeFileSync(broken, 'PAR1 but nothing else of a Parquet file');
    const view = await openDataset(api, vscode.Uri.file(broken));
    const error = await posted(view, 'error');
    assert.match(error.text, /broken\.parquet cannot be shown: not a Parquet file/);

    const { parquetWriteFile } = await import('hyparquet-writer');
    const other = path.join(dir, 'cities.parquet');
    parquetWriteFile({ filename: other, columnData: [{ name: 'city', data: ['Paris', 'Oslo'] }] });
    const table = await openDataset(api, vscode.Uri.file(other));
    const opened = await posted(table, 'dataset');
    assert.deepEqual(opened.info.columns, ['city']);
    assert.match(opened.info.banner ?? '', /Not a dataset vtask knows/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

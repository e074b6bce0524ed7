// The workbench's actions on dataset rows in a real VS Code: selected JSONL rows (verl's) are
// audited (the weak verifier in one is found, its count in the findings column, the report
// naming the row's line) and exported with a Parquet row, each row the task it stands for; Open
// in panel shows a JSONL row and a Parquet row read-only in the task panel, as the dataset does.
// Messages go through the same handler the page's messages reach.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RowSet } from '../../src/core/base/rowSet';
import { OpenAIServer } from '../support/openaiServer';
import { writeWeakRows } from '../support/weakRows';
import { useModelServer } from './helpers';
import { next, type BulkWorkbench, type Row, type WorkbenchApi as Api } from './workbenchApi';

suite('dataset workbench: actions on dataset rows', () => {
  const server = new OpenAIServer({ answer: () => 'so \\boxed{42}' });
  const models = useModelServer<Api>(server);
  let dir: string;
  let w: BulkWorkbench;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    dir = path.join(folder.uri.fsPath, 'workbench-rows');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // The rows as a lab has them: verl's Parquet, and the same rows as JSON lines.
    await writeWeakRows(path.join(dir, 'rows.parquet'), path.join(dir, 'rows.jsonl'));
    const uri = vscode.Uri.file(dir);
    await vscode.commands.executeCommand('vtask.openWorkbench', uri);
    const opened = models.api().workbench(uri);
    assert.ok(opened, 'the workbench is open');
    w = opened;
    if (!w.posted.some((m) => m.type === 'opened')) await next(w, 'opened');
  });

  suiteTeardown(async () => {
    for (const d of vscode.workspace.textDocuments.filter((x) => x.isUntitled)) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** The rows by `file:id` (file as the table shows it). */
  async function rowsOf(): Promise<Map<string, Row>> {
    const rows = await w.request({ op: 'window', start: 0, end: 10 });
    return new Map(rows.map((r) => [`${path.basename(r.file)}:${r.id}`, r]));
  }
  const selection = (rows: Map<string, Row>, ...keys: string[]): string =>
    RowSet.of(keys.map((k) => rows.get(k)?.n ?? -1)).encode();

  test("an audit of selected JSONL rows finds a row's weak verifier: the findings column and the report", async () => {
    const rows = await rowsOf();
    assert.equal(rows.size, 4);
    const done = next(w, 'bulkDone');
    await w.handle({ type: 'audit', rows: selection(rows, 'rows.jsonl:add', 'rows.jsonl:anything') });
    const outcome = await done;
    assert.equal(outcome.level, 'info', outcome.text);
    assert.match(outcome.text, /^audit of 2 tasks: \d+ findings? \(.*\) in \d of 2 tasks\.$/);
    const after = await rowsOf();
    assert.ok((after.get('rows.jsonl:anything')?.findings ?? 0) > 0, 'the weak regex has findings');
    assert.ok((after.get('rows.jsonl:add')?.findings ?? -1) >= 0, 'add was audited');
    assert.equal(after.get('rows.parquet:anything')?.findings, -1, 'not selected: not audited');
    const report = w.bulk.lastReport;
    assert.match(
      report?.markdown ?? '',
      /## anything — workbench-rows\/rows\.jsonl:2\n\n- \*\*critical\*\* probe `empty`/,
    );
  });

  test('an export of selected rows writes the tasks they stand for', async () => {
    const rows = await rowsOf();
    const out = path.join(dir, 'picked.jsonl');
    const done = next(w, 'bulkDone');
    await w.bulk.export(selection(rows, 'rows.jsonl:anything', 'rows.parquet:add'), { format: 'trl', out });
    assert.deepEqual(await done, {
      type: 'bulkDone',
      action: 'export',
      level: 'info',
      text: 'Exported 2 rows as trl to workbench-rows/picked.jsonl.',
    });
    const written = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; file: string; vtask_verifier: string });
    assert.deepEqual(
      written.map((r) => [r.file, r.task_id, JSON.parse(r.vtask_verifier) as unknown]),
      [
        ['workbench-rows/rows.jsonl', 'anything', { match: { answer: '.*', mode: 'regex' } }],
        ['workbench-rows/rows.parquet', 'add', { math: { answer: '42' } }],
      ],
    );
  });

  test('Open in panel shows a JSONL row, then a Parquet row, read-only in the task panel', async () => {
    const rows = await rowsOf();
    const stepping = next(w, 'stepping');
    await w.handle({ type: 'openPanel', rows: selection(rows, 'rows.jsonl:anything', 'rows.parquet:add') });
    assert.deepEqual(await stepping, { type: 'stepping', at: 0, count: 2, id: 'anything' });
    const panel = await vscode.commands.executeCommand<{ task: { uri: vscode.Uri; id: string } | undefined }>(
      'vtask.openPanel',
    );
    assert.equal(panel.task?.id, 'anything');
    assert.equal(path.basename(panel.task?.uri.fsPath ?? ''), 'rows.jsonl');
    const second = next(w, 'stepping');
    await w.handle({ type: 'step', by: 1 });
    assert.deepEqual(await second, { type: 'stepping', at: 1, count: 2, id: 'add' });
    assert.equal(panel.task?.id, 'add');
    assert.equal(panel.task?.uri.scheme, 'vtask-row');
    assert.match(panel.task?.uri.path ?? '', /rows\.parquet\/row-0\.vtask$/);
  });
});

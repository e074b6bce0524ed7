// The workbench's samples view in a real VS Code: a task file and a JSONL row are run from the
// workbench against the local OpenAI-compatible server (the editor's runner caches the samples),
// then the samples view reads them back through the worker, grouped by reason with counts and
// filtered by state, and a group is added as cases: on disk, the task file's task has them; the
// JSONL row's sample is said to be read-only. Messages go through the handler the page's reach.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RowSet } from '../../src/core/base/rowSet';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { OpenAIServer } from '../support/openaiServer';
import { posted, type WorkbenchForTests } from './workbenchApi';
import { until, useModelServer } from './helpers';

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  refresh(): Promise<unknown>;
  readonly lastView: { samples: { index: number; pass: boolean }[] } | undefined;
  readonly lastSelected: { id: string; index: number } | undefined;
}

interface Api {
  workbench(uri: vscode.Uri): WorkbenchForTests | undefined;
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
      match: { answer: Paris, tag: answer }
`;

suite('dataset workbench: samples view', () => {
  // A wrong number for every math task, an answer without its tag for the capital.
  const server = new OpenAIServer({
    answer: (ctx) => (ctx.prompt.includes('France') ? 'It is Paris.' : 'so \\boxed{41}'),
  });
  const models = useModelServer<Api>(server);

  test('the samples of the tasks run, grouped by reason; a group added as cases is in the file on disk', async () => {
    const api = models.api();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    const dir = path.join(folder.uri.fsPath, 'workbench-samples');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'a.vtask');
    fs.writeFileSync(file, TASKS);
    fs.writeFileSync(
      path.join(dir, 'qa.jsonl'),
      `${JSON.stringify({ question: 'How many legs has a spider?', answer: '8', id: 'spider' })}\n`,
    );
    const uri = vscode.Uri.file(dir);
    await vscode.commands.executeCommand('vtask.openWorkbench', uri);
    const w = api.workbench(uri);
    assert.ok(w, 'the workbench of the folder is open');
    assert.equal((await posted(w, 'opened')).rows, 3);
    // The editor's runner samples the three tasks (two samples each) from the model.
    await w.handle({ type: 'run', rows: RowSet.range(0, 3).encode(), samples: 2, confirmed: true });
    await posted(w, 'opened', (m) => m.models.length > 0);

    await w.handle({ type: 'samples', seq: 1, state: 'all' });
    const all = await posted(w, 'samples', (m) => m.seq === 1);
    assert.deepEqual(all.notes, []);
    assert.deepEqual(all.groups, [
      { key: 'wrong answer', count: 4 },
      { key: 'no answer tag', count: 2 },
    ]);
    assert.deepEqual(all.counts, { all: 6, failed: 6, flipped: 0, undecided: 0, errored: 0 });
    await w.handle({
      type: 'sampleWindow',
      seq: 1,
      collection: all.collection,
      group: 'wrong answer',
      start: 0,
      end: 50,
    });
    const items = await posted(w, 'sampleItems', (m) => m.seq === 1 && m.group === 'wrong answer');
    assert.deepEqual(
      items.items.map((s) => [s.file, s.task, s.index, s.model, s.reason]),
      [
        ['workbench-samples/a.vtask', 'add', 0, 'test', 'extracted 41 from \\boxed{41}, expected 42'],
        ['workbench-samples/a.vtask', 'add', 1, 'test', 'extracted 41 from \\boxed{41}, expected 42'],
        ['workbench-samples/qa.jsonl', 'spider', 0, 'test', 'extracted 41 from \\boxed{41}, expected 8'],
        ['workbench-samples/qa.jsonl', 'spider', 1, 'test', 'extracted 41 from \\boxed{41}, expected 8'],
      ],
    );

    // A sample links to its task where it is written, and to the task in the task panel.
    await w.handle({ type: 'openSample', row: 1, index: 0, where: 'task' });
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, 6);
    // (With no editor left, the panel shows what the link asked for, not the task under a cursor.)
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await w.handle({ type: 'openSample', row: 0, index: 1, where: 'panel' });
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    assert.deepEqual([panel.task?.uri.fsPath, panel.task?.id], [file, 'add']);
    // Its sample #2 selected in the panel's list, once the panel's page is there.
    await until(() => panel.lastSelected, 'the sample selected in the panel');
    assert.deepEqual(panel.lastSelected, { id: 'add', index: 1 });
    await panel.refresh();
    assert.deepEqual(
      panel.lastView?.samples.map((x) => [x.index, x.pass]),
      [
        [0, false],
        [1, false],
      ],
    );

    // The group as cases expecting fail (the verdict the user chose): the task file's two, on disk;
    // the JSONL row's two are said to be read-only.
    await w.handle({
      type: 'addCases',
      collection: all.collection,
      group: 'wrong answer',
      expect: 'fail',
      confirmed: true,
    });
    assert.equal((await posted(w, 'casesAdded')).added, 2);
    const notice = await posted(w, 'notice', (m) => m.text.startsWith('Added'));
    assert.equal(
      notice.text,
      'Added 2 cases expecting fail to 1 task in 1 file. 2 samples of JSONL or Parquet rows cannot become cases: a row is read-only (`vtask import` makes it a task file, whose tasks take cases).',
    );
    const tasks = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks;
    assert.deepEqual(
      tasks.map((t) => [t.id, t.cases.map((c) => [c.response, c.expect])]),
      [
        [
          'add',
          [
            ['so \\boxed{41}', 'fail'],
            ['so \\boxed{41}', 'fail'],
          ],
        ],
        ['capital', []],
      ],
    );
    assert.equal(
      vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file)?.isDirty,
      false,
      'the document is saved',
    );

    // Only rows picked: nothing is added, and the page is told why.
    await w.handle({ type: 'samples', seq: 2, state: 'failed', rows: RowSet.range(2, 3).encode() });
    const rows = await posted(w, 'samples', (m) => m.seq === 2);
    await w.handle({
      type: 'addCases',
      collection: rows.collection,
      group: 'wrong answer',
      expect: 'pass',
      confirmed: true,
    });
    const warned = await posted(w, 'notice', (m) => m.text.startsWith('Nothing was added'));
    assert.equal(warned.level, 'warning');
    assert.match(warned.text, /2 samples of JSONL or Parquet rows cannot become cases/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

// Compare Runs in a real VS Code: a task file in a git repository is run by the editor against
// the project's OpenAI-compatible server, its verifier is edited (unsaved), and
// `vtask.diffRuns` with the sides `git:HEAD` and `worktree` shows the samples and the task that
// flipped, without a request; the page's link opens the task on its id line. A JSONL dataset's
// rows, run in the editor with two models, are compared by model, by date and at git:HEAD.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToDiff } from '../../src/core/base/diffProtocol';
import type { VtaskApi } from '../../src/vscode/api';
import type { DiffView } from '../../src/vscode/diffView';
import { OpenAIServer } from '../support/openaiServer';
import { until, useModelServer } from './helpers';
import { gitIn } from '../support/git';

suite('compare runs', () => {
  const server = new OpenAIServer({ answer: () => 'So \\boxed{72}.' });
  const models = useModelServer<VtaskApi>(server);
  let dir: string;
  const text = (pens: string): string => `vtask: 1
models:
  m: { base_url: "${server.url}", model: test-model }
tasks:
  - id: clips
    prompt: How many clips?
    samples: 3
    model: m
    verify: { math: { answer: "72" } }
  - id: pens
    prompt: How many pens?
    samples: 2
    model: m
    verify: { math: { answer: "${pens}" } }
`;
  const git = (...args: string[]): string => gitIn(dir)(...args);

  suiteSetup(() => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    dir = path.join(folder.uri.fsPath, 'compare');
    fs.mkdirSync(dir, { recursive: true });
  });
  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('after a verifier edit, git:HEAD against the working tree lists the flipped samples and tasks, and opens them', async () => {
    const file = path.join(dir, 'sums.vtask');
    const uri = vscode.Uri.file(file);
    // Written through the editor's file service, whose watchers hear of it at once.
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text('72')));
    git('init', '-q');
    git('add', 'sums.vtask');
    git('commit', '-qm', 'pens is 72');
    await until(
      async () => (await models.api().overview.index.files()).some((u) => u.fsPath === file),
      'the new file in the index',
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('vtask.runAll', uri);
    const asked = server.samplingRequests.length;
    assert.ok(asked > 0, 'the model was asked');
    // The verifier now wants 71 for pens, in the editor only: the comparison reads what it shows.
    const at = doc.getText().lastIndexOf('"72"');
    await editor.edit((e) => e.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 4)), '"71"'));
    assert.ok(doc.isDirty);

    const view = await vscode.commands.executeCommand<DiffView>('vtask.diffRuns', 'git:HEAD', 'worktree');
    // The command resolves once the comparison is shown.
    const shown = view.posted.find((m): m is Extract<ToDiff, { type: 'diff' }> => m.type === 'diff');
    assert.ok(shown, `the comparison is shown (posted: ${JSON.stringify(view.posted)})`);
    assert.equal(server.samplingRequests.length, asked, 'no request: the samples come from the cache');
    const d = shown.diff;
    assert.deepEqual([d.a, d.b, d.tasks, d.flips, shown.samples], ['HEAD', 'working tree', 2, 1, true]);
    assert.deepEqual(
      d.sample_flips.map((f) => [f.file, f.task, f.sample, f.from, f.to]),
      [0, 1].map((i) => ['compare/sums.vtask', 'pens', i, 'pass', 'fail']),
    );
    assert.deepEqual(
      d.band_flips.map((f) => [f.task, f.from, f.to]),
      [['pens', 'too_easy', 'too_hard']],
    );
    assert.deepEqual(d.kinds.math, { tasks: 2, band_flips: 1, sample_flips: 2 });
    // The workspace's other task files are in no repository: said, not taken for unchanged.
    assert.deepEqual(
      d.unread?.find((u) => u.file === 'overview/algebra.vtask'),
      { side: 'a', file: 'overview/algebra.vtask', reason: 'not in a git repository' },
    );

    // The page's link to the task opens it on its id line.
    await vscode.commands.executeCommand('workbench.action.focusFirstEditorGroup');
    await view.handle({ type: 'open', file: 'compare/sums.vtask', task: 'pens' });
    const opened = await until(
      () =>
        vscode.window.activeTextEditor?.document.uri.fsPath === file &&
        vscode.window.activeTextEditor.selection.start.line === 9 &&
        vscode.window.activeTextEditor,
      'sums.vtask opened at pens',
    );
    assert.match(opened.document.lineAt(9).text, /id: pens/);

    // A revision the repository lacks is said on the page, not shown as no flips.
    await vscode.commands.executeCommand('vtask.diffRuns', 'git:no-such-rev', 'worktree');
    const notice = await until(
      () => view.posted.find((m): m is Extract<ToDiff, { type: 'notice' }> => m.type === 'notice'),
      'the notice',
    );
    assert.match(notice.text, /git revision no-such-rev: not a revision of the repository at .*compare/);
    // The edit is dropped: the folder is removed after the suite, and nothing is to be saved there.
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(!doc.isDirty);
  });
});

suite('compare runs of dataset rows', () => {
  // `test-model` answers 72, `other-model` 71: right and wrong for `clips`, whose row wants 72.
  const server = new OpenAIServer({
    models: ['test-model', 'other-model'],
    answer: (ctx) => (ctx.body.model === 'other-model' ? 'I get \\boxed{71}.' : 'So \\boxed{72}.'),
  });
  const models = useModelServer<VtaskApi>(server);
  let dir: string;
  const row = (id: string, prompt: string, answer: string): string =>
    JSON.stringify({
      messages: [{ role: 'user', content: prompt }],
      ground_truth: answer,
      dataset: 'math',
      task_id: id,
    });
  const rows = (clips: string): string =>
    `${row('clips', 'How many clips?', clips)}\n${row('pens', 'How many pens?', '7')}\n`;

  suiteSetup(() => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('no workspace folder');
    dir = path.join(folder.uri.fsPath, 'compare-rows');
    fs.mkdirSync(dir, { recursive: true });
  });
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('vtask').update('model', 'test', vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('two models and one model at two dates over JSONL rows; then the rows at git:HEAD against the editor', async () => {
    const file = path.join(dir, 'rows.jsonl');
    const uri = vscode.Uri.file(file);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(rows('72')));
    await until(
      async () => (await models.api().overview.index.files()).some((u) => u.fsPath === file),
      'the rows in the index',
    );
    const config = vscode.workspace.getConfiguration('vtask');
    await config.update(
      'models',
      { test: { base_url: server.url, model: 'test-model' }, other: { base_url: server.url, model: 'other-model' } },
      vscode.ConfigurationTarget.Global,
    );
    // Each row run by the editor with each model in turn, into the run log.
    for (const model of ['test', 'other']) {
      await config.update('model', model, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('vtask.runAll', uri);
    }
    const shown = async (a: string, b: string): Promise<Extract<ToDiff, { type: 'diff' }>['diff']> => {
      const view = await vscode.commands.executeCommand<DiffView>('vtask.diffRuns', a, b);
      const last = view.posted.at(-1);
      assert.ok(last?.type === 'diff', `the comparison is shown (posted: ${JSON.stringify(view.posted.at(-1))})`);
      return last.diff;
    };
    const byModel = await shown('model:test', 'model:other');
    const here = (d: { file: string }): boolean => d.file === 'compare-rows/rows.jsonl';
    assert.deepEqual(
      byModel.band_flips.filter(here).map((f) => [f.task, f.kind, f.from, f.to]),
      [['clips', 'math', 'too_easy', 'too_hard']],
    );
    const byDate = await shown('model:test@2000-01-01', 'model:test');
    assert.equal(byDate.a, 'model:test@2000-01-01');
    assert.ok(byDate.only_b >= 2, 'in 2000 the rows had no run: every run is of B only');
    assert.deepEqual(byDate.band_flips.filter(here), []);

    // The rows in git; clips's row now wants 71 in the editor (unsaved): test-model's samples flip.
    const git = gitIn(dir);
    git('init', '-q');
    git('add', 'rows.jsonl');
    git('commit', '-qm', 'rows');
    await config.update('model', 'test', vscode.ConfigurationTarget.Global);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const at = doc.getText().indexOf('"72"');
    await editor.edit((e) => e.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 4)), '"71"'));
    const asked = server.samplingRequests.length;
    const byRev = await shown('git:HEAD', 'worktree');
    assert.equal(server.samplingRequests.length, asked, 'no request: the samples come from the cache');
    const flipped = byRev.sample_flips.filter(here);
    assert.ok(flipped.length > 0, JSON.stringify(byRev));
    assert.ok(flipped.every((f) => f.task === 'clips' && f.from === 'pass' && f.to === 'fail'));
    assert.deepEqual(
      byRev.band_flips.filter(here).map((f) => [f.task, f.from, f.to]),
      [['clips', 'too_easy', 'too_hard']],
    );
    // The edit is dropped: the folder is removed after the suite, and nothing is to be saved there.
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(!doc.isDirty);
  });
});

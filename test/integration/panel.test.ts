// The task panel in a real VS Code: it follows the cursor, its form writes back into the file as
// undoable edits, a verifier change re-verifies cached samples and reports what flipped, and a
// sample becomes a case. Messages go through the same handler the webview's messages reach.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { open, positionOf, useModelServer } from './helpers';

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  readonly lastView:
    | {
        run?: { stats: { passed: number; samples: number }; flips?: { gained: number; lost: number } };
        samples: { index: number; pass: boolean; flip?: string }[];
        cases: { ok?: boolean; expected: string }[];
        form: { type: string; path: (string | number)[] }[];
      }
    | undefined;
  runCases(): Promise<{ ok: boolean; verdict: { reason: string } }[] | undefined>;
  follow(editor: vscode.TextEditor | undefined): void;
  refresh(): Promise<unknown>;
  handle(message: unknown): Promise<void>;
}

interface Api {
  results(uri: vscode.Uri, taskId: string): { run?: { stats: { passed: number } } } | undefined;
}

// 4, 7, 8 and 2 words: under the limit of 6, two of every four pass.
const ANSWERS = [
  'The sea is calm.',
  'The sea is wide and grey today.',
  'The sea is calm and very grey now.',
  'Calm sea.',
];
const TASK = 'panel/short-sea';
const NUM_WORDS = ['verify', 'constraints', 0, 'length_constraints:number_words', 'num_words'];

suite('task panel', () => {
  const server = new OpenAIServer({ answer: (ctx) => ANSWERS[ctx.index % ANSWERS.length] ?? '' });
  const models = useModelServer<Api>(server);
  let api: Api;
  suiteSetup(() => {
    api = models.api();
  });

  test('follows the task under the cursor and runs its cases', async () => {
    const editor = await open('panel.vtask');
    const at = positionOf(editor.document, 'Describe the sea', true);
    editor.selection = new vscode.Selection(at, at);
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    assert.equal(panel.task?.id, TASK);
    const results = await panel.runCases();
    assert.deepEqual(
      results?.map((r) => r.ok),
      [true],
    );
    const other = positionOf(editor.document, 'What is 6 * 7?', true);
    editor.selection = new vscode.Selection(other, other);
    panel.follow(editor);
    assert.equal(panel.task?.id, 'panel/after');
  });

  test('a form edit writes one node back, re-verifies the cached samples and shows the flips', async () => {
    const editor = await open('panel.vtask');
    const doc = editor.document;
    const at = positionOf(doc, 'Describe the sea', true);
    editor.selection = new vscode.Selection(at, at);
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, TASK);
    const requests = server.samplingRequests.length;
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    panel.follow(editor);
    await panel.refresh();
    assert.equal(panel.task?.id, TASK);
    assert.deepEqual([panel.lastView?.run?.stats.passed, panel.lastView?.run?.stats.samples], [4, 8]);
    assert.ok(
      panel.lastView?.form.some((r) => r.type === 'field' && JSON.stringify(r.path) === JSON.stringify(NUM_WORDS)),
    );

    const before = doc.getText();
    await panel.handle({ type: 'edit', task: TASK, path: NUM_WORDS, old: 6, value: 8 });
    assert.equal(
      doc.getText(),
      before.replace('num_words: 6 }', 'num_words: 8 }'),
      'only the number changed; the comment and layout are kept',
    );
    await panel.refresh();
    // The 7-word answers (samples 1 and 5) now pass; no model was asked.
    assert.deepEqual(panel.lastView?.run?.flips, { gained: 2, lost: 0 });
    assert.deepEqual(
      panel.lastView?.samples.filter((s) => s.flip).map((s) => [s.index, s.flip]),
      [
        [1, 'gained'],
        [5, 'gained'],
      ],
    );
    assert.equal(api.results(doc.uri, TASK)?.run?.stats.passed, 6, 'the lenses and decorations see the new verdicts');
    assert.deepEqual(
      panel.lastView?.cases.map((c) => c.ok),
      [true],
      'the cases ran again with the new verifier',
    );
    assert.equal(server.samplingRequests.length, requests);

    // A value that changed underneath is never overwritten.
    await panel.handle({ type: 'edit', task: TASK, path: NUM_WORDS, old: 6, value: 3 });
    assert.ok(doc.getText().includes('num_words: 8 }'));

    // The edit is undoable like typing.
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before);
  });

  test('a sample becomes a case; constraints are removed and added from the form', async () => {
    const editor = await open('panel.vtask');
    const doc = editor.document;
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    panel.follow(editor);
    await panel.refresh();
    await panel.handle({ type: 'addCase', task: TASK, sample: 1, expect: 'fail' });
    const text = doc.getText();
    assert.match(text, /- response: The sea is wide and grey today\.\n\s+expect: fail\n/);
    assert.ok(text.indexOf('expect: fail') < text.indexOf('panel/after'), 'the case is added to its own task');
    assert.deepEqual(
      panel.lastView?.cases.map((c) => [c.expected, c.ok]),
      [
        ['pass', true],
        ['fail', true],
      ],
    );

    // A removal names what the panel showed: a row that changed in the file is kept.
    await panel.handle({
      type: 'removeItem',
      task: TASK,
      path: ['verify', 'constraints', 1],
      shown: 'length_constraints:number_words',
    });
    assert.ok(doc.getText().includes('- punctuation:no_comma'));
    await panel.handle({
      type: 'removeItem',
      task: TASK,
      path: ['verify', 'constraints', 1],
      shown: 'punctuation:no_comma',
    });
    assert.ok(!doc.getText().includes('- punctuation:no_comma'));
    await panel.handle({ type: 'addItem', task: TASK, path: ['verify', 'constraints'], item: 'punctuation:no_comma' });
    assert.ok(doc.getText().includes('- punctuation:no_comma'));
    // An option the verifier does not have yet is added with its example, and removed again.
    const math = positionOf(doc, 'What is 6 * 7?', true);
    editor.selection = new vscode.Selection(math, math);
    panel.follow(editor);
    await panel.refresh();
    assert.equal(panel.task?.id, 'panel/after');
    await panel.handle({ type: 'addItem', task: 'panel/after', path: ['verify', 'math'], item: 'tolerance' });
    assert.match(doc.getText(), /math: \{ answer: "42", tolerance: [\d.e-]+ \}/);
    await panel.refresh();
    const row = panel.lastView?.form.find((r) => r.type === 'field' && r.path.join('.') === 'verify.math.tolerance') as
      { label: string; value: unknown } | undefined;
    assert.ok(row);
    await panel.handle({
      type: 'removeItem',
      task: 'panel/after',
      path: ['verify', 'math', 'tolerance'],
      shown: `${row.label}=${JSON.stringify(row.value)}`,
    });
    assert.ok(doc.getText().includes('math: { answer: "42" }'));
    const sea = positionOf(doc, 'Describe the sea', true);
    editor.selection = new vscode.Selection(sea, sea);
    panel.follow(editor);
    await panel.refresh();

    // More samples: as many again, only the new ones requested (one at a time, so they stream
    // in); Resample: all fresh.
    const requests = server.samplingRequests.length;
    await panel.handle({ type: 'sample', task: TASK, mode: 'more' });
    await panel.refresh();
    assert.equal(panel.lastView?.samples.length, 16);
    assert.equal(server.samplingRequests.length, requests + 8);
    await panel.handle({ type: 'sample', task: TASK, mode: 'resample' });
    await panel.refresh();
    assert.equal(panel.lastView?.samples.length, 16);
    assert.equal(server.samplingRequests.length, requests + 8 + 16);
    // A malformed message is ignored: it would replace the whole verifier if it were not.
    const kept = doc.getText();
    await panel.handle({ type: 'edit', task: TASK, path: 'verify', value: {} });
    await panel.handle({ type: 'edit', task: TASK, path: ['verify'], old: null, value: { constraints: [] } });
    // Only the host's check of the message refuses this one: the core would write the case,
    // `expect: maybe` and all.
    await panel.handle({ type: 'addCase', task: TASK, sample: 0, expect: 'maybe' });
    assert.equal(doc.getText(), kept);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});

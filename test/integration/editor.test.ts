// Faults found by using the editor, each checked in a real VS Code: results that stay fresh
// when only cases change, the result icon beside the Testing icon, the Test Explorer following
// case runs from anywhere, lenses that stay while a task is invalid, settings that apply, a run
// that fails to start, background failures that stay visible, and a quiet activation.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { until, useModelServer } from './helpers';

interface Api {
  results(
    uri: vscode.Uri,
    taskId: string,
  ): { run?: { stats: { samples: number } }; cases?: { ok: boolean }[] } | undefined;
  decorations(doc: vscode.TextDocument): {
    gutters: Record<string, vscode.Range[]>;
    inline: Record<string, vscode.Range[]>;
    summaries: { hoverMessage?: vscode.MarkdownString; renderOptions?: { after?: { contentText?: string } } }[];
    stale: unknown[];
    caseOk: { range: vscode.Range }[];
    caseBad: { range: vscode.Range }[];
  };
  caseStates(uri: vscode.Uri, taskId: string): (string | undefined)[];
  caseMessages(uri: vscode.Uri, taskId: string): (vscode.TestMessage | undefined)[];
  testFiles(): Promise<{ file: string; read: boolean }[]>;
  isRunning(uri: vscode.Uri, taskId: string): boolean;
  failureStatus(): string | undefined;
  readonly logUri: vscode.Uri;
}

interface Panel {
  show(uri: vscode.Uri, taskId: string): void;
  refresh(): Promise<unknown>;
  runCases(): Promise<unknown>;
}

// Prompts of their own: samples are cached by content, and other suites must not find these.
const FAULTS = `vtask: 1
tasks:
  - id: f/math
    prompt: What is 6 * 7? Answer in a box.
    verify:
      math: { answer: "42" }
    cases:
      - response: "\\\\boxed{42}"
        expect: pass
  - id: f/words
    prompt: Write about a lake without commas.
    verify:
      constraints:
        - punctuation:no_comma
`;

const folder = (): vscode.Uri => {
  const f = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!f) throw new Error('no workspace folder is open');
  return f;
};

/** A fresh task file of the workspace, opened in an editor. */
async function openFresh(name: string, text = FAULTS): Promise<vscode.TextEditor> {
  const uri = vscode.Uri.joinPath(folder(), name);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
  return vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
}

const lensTitles = async (uri: vscode.Uri): Promise<string[]> =>
  (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)).map(
    (l) => l.command?.title ?? '',
  );

async function setting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('vtask').update(key, value, vscode.ConfigurationTarget.Global);
}

suite('editor faults', () => {
  const server = new OpenAIServer({ answer: (ctx) => (ctx.index % 2 === 0 ? 'so \\boxed{42}' : '\\boxed{41}') });
  const models = useModelServer<Api>(server);
  let api: Api;
  suiteSetup(() => {
    api = models.api();
  });

  test('a case edit and a case run keep the run fresh', async () => {
    const editor = await openFresh('fresh.vtask');
    const doc = editor.document;
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'f/math');
    assert.equal(api.decorations(doc).summaries.length, 1);
    const end = doc.positionAt(doc.getText().indexOf('  - id: f/words'));
    await editor.edit((b) => b.insert(end, '      - response: "\\\\boxed{41}"\n        expect: fail\n'));
    assert.equal(api.decorations(doc).stale.length, 0, 'adding a case does not make the samples stale');
    assert.equal(api.decorations(doc).summaries.length, 1);
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 'f/math');
    assert.deepEqual(
      api.results(doc.uri, 'f/math')?.cases?.map((c) => c.ok),
      [true, true],
    );
    assert.equal(api.decorations(doc).summaries.length, 1, 'running the cases keeps the run');
    // What is sampled changed: now the samples are stale.
    await editor.edit((b) =>
      b.replace(
        new vscode.Range(
          doc.positionAt(doc.getText().indexOf('6 * 7')),
          doc.positionAt(doc.getText().indexOf('6 * 7') + 5),
        ),
        '6 * 8',
      ),
    );
    assert.equal(api.decorations(doc).stale.length, 1);
  });

  test('Run Verifier from the palette runs the task under the cursor; a malformed probe case is refused', async () => {
    // Prompts no other test samples, so neither task has cached results before this run.
    const editor = await openFresh('palette.vtask', FAULTS.replace(/6 \* 7/, '5 * 9').replace(/a lake/, 'a river'));
    const doc = editor.document;
    const inWords = doc.positionAt(doc.getText().indexOf('Write about a river'));
    editor.selection = new vscode.Selection(inWords, inWords);
    await vscode.commands.executeCommand('vtask.runTask');
    assert.ok(api.results(doc.uri, 'f/words')?.run, 'the task under the cursor ran');
    assert.equal(api.results(doc.uri, 'f/math')?.run, undefined, 'the other task did not');
    const before = doc.getText();
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('vtask.addProbeCase', doc.uri, 'f/math', 42, 'maybe')),
      /a response and whether it should pass or fail/,
    );
    assert.equal(doc.getText(), before, 'nothing was written');
  });

  test('a task with cases shows its result icon inline (the Testing icon has the gutter)', async () => {
    const { document: doc } = await openFresh('icons.vtask');
    await vscode.commands.executeCommand('vtask.runAll', doc.uri);
    const d = api.decorations(doc);
    const lines = (r: Record<string, vscode.Range[]>): number[] =>
      Object.values(r)
        .flat()
        .map((x) => x.start.line);
    assert.deepEqual(
      lines(d.inline),
      [FAULTS.split('\n').findIndex((l) => l.includes('f/math'))],
      'f/math (with cases): inline',
    );
    assert.deepEqual(
      lines(d.gutters),
      [FAULTS.split('\n').findIndex((l) => l.includes('f/words'))],
      'f/words (no cases): gutter',
    );
  });

  test("a case's ✓ stays on its case when a probe case is added to a task above it", async () => {
    const editor = await openFresh(
      'moved.vtask',
      `vtask: 1
tasks:
  - id: m/above
    prompt: Name the capital of France.
    verify: { match: { answer: "Paris", mode: contains } }
  - id: m/below
    prompt: What is 6 * 7? Answer in a box.
    verify:
      math: { answer: "42" }
    cases:
      - response: "\\\\boxed{42}"
        expect: pass
`,
    );
    const doc = editor.document;
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 'm/below');
    const caseLine = (): number => doc.positionAt(doc.getText().indexOf('- response: "\\\\boxed{42}"')).line;
    assert.deepEqual(
      api.decorations(doc).caseOk.map((d) => d.range.start.line),
      [caseLine()],
    );
    await vscode.commands.executeCommand('vtask.addProbeCase', doc.uri, 'm/above', 'Paris or Lyon', 'fail');
    assert.match(doc.getText(), /m\/above[\s\S]*cases:[\s\S]*Paris or Lyon[\s\S]*m\/below/);
    const d = api.decorations(doc);
    assert.deepEqual(
      d.caseOk.map((x) => x.range.start.line),
      [caseLine()],
      'the ✓ of m/below moved down with its case',
    );
    const probeLine = doc.positionAt(doc.getText().indexOf('Paris or Lyon')).line;
    assert.deepEqual(
      d.caseBad.map((x) => x.range.start.line),
      [probeLine],
      'the probe case (a weak verifier passes it) has its ✗ on its own line',
    );
  });

  test('the Test Explorer follows case runs started from the lens and from the panel', async () => {
    const editor = await openFresh('explorer.vtask');
    const doc = editor.document;
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 'f/math');
    assert.deepEqual(api.caseStates(doc.uri, 'f/math'), ['passed']);
    // The case now expects the wrong verdict: run from the panel, the item turns failed.
    const at = doc.getText().indexOf('expect: pass') + 'expect: '.length;
    await editor.edit((b) => b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 4)), 'fail'));
    const panel = await vscode.commands.executeCommand<Panel>('vtask.openPanel', doc.uri, 'f/math');
    await panel.refresh();
    await panel.runCases();
    assert.deepEqual(
      api.results(doc.uri, 'f/math')?.cases?.map((c) => c.ok),
      [false],
    );
    assert.deepEqual(api.caseStates(doc.uri, 'f/math'), ['failed']);
    await editor.edit((b) => b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 4)), 'pass'));
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 'f/math');
    assert.deepEqual(api.caseStates(doc.uri, 'f/math'), ['passed']);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('the Test Explorer lists every task file of the workspace from the start, and reads one when it is opened', async () => {
    const files = await api.testFiles();
    assert.deepEqual(
      files.find((f) => f.file === 'overview/algebra.vtask'),
      { file: 'overview/algebra.vtask', read: false },
      'listed, never opened, not read',
    );
    for (const name of ['mistakes.vtask', 'sample.vtask', 'rubric.vtask'])
      assert.ok(
        files.some((f) => f.file === name),
        `${name} is listed`,
      );
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'overview', 'algebra.vtask'));
    await until(
      async () => (await api.testFiles()).find((f) => f.file === 'overview/algebra.vtask')?.read,
      'the opened file read',
    );
    assert.deepEqual(
      api.caseStates(vscode.Uri.joinPath(folder, 'overview', 'algebra.vtask'), 'alg/linear'),
      [undefined, undefined],
      'its task and cases are items, not run yet',
    );
  });

  test("the Test Explorer's failure is not drawn over vtask's ✗, and goes outdated once the verifier is fixed", async () => {
    const editor = await openFresh(
      'fixed.vtask',
      `vtask: 1
tasks:
  - id: t/capital
    prompt: Name the capital of France, in one word.
    verify: { match: { answer: "Paris", mode: contains } }
    cases:
      - response: "Paris or Lyon"
        expect: fail
`,
    );
    const doc = editor.document;
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 't/capital');
    assert.deepEqual(api.caseStates(doc.uri, 't/capital'), ['failed']);
    const [message] = api.caseMessages(doc.uri, 't/capital');
    assert.match(String(message?.message), /expected fail, got pass/);
    assert.equal(
      message?.location,
      undefined,
      "no place in the file: VS Code would draw it over vtask's own ✗ and reason",
    );
    assert.equal(api.decorations(doc).caseBad.length, 1, "vtask's ✗ is on the case line");
    const at = doc.getText().indexOf('contains');
    await editor.edit((b) =>
      b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'contains'.length)), 'normalized'),
    );
    await until(() => api.caseStates(doc.uri, 't/capital')[0] === 'outdated', 'the red case to go outdated');
    assert.equal(api.decorations(doc).caseBad.length, 0);
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 't/capital');
    assert.deepEqual(api.caseStates(doc.uri, 't/capital'), ['passed']);
    assert.deepEqual(api.caseMessages(doc.uri, 't/capital'), [undefined]);
  });

  test('a hover shows a reason that quotes markup (`<answer>`) as written', async () => {
    const { document: doc } = await openFresh(
      'tagged.vtask',
      `vtask: 1
tasks:
  - id: t/tagged
    prompt: What is 6 * 7? Reply with <answer>...</answer> around the number.
    samples: 2
    verify: { match: { answer: "42", tag: answer } }
`,
    );
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 't/tagged');
    const hover = api.decorations(doc).summaries[0]?.hoverMessage?.value ?? '';
    // Escaped, the renderer shows the tag; raw, it would take it for HTML and drop it.
    assert.match(hover, /✗ no \\<answer\\>\.\.\.\\<\/answer\\> in the response/);
    assert.doesNotMatch(hover, /(^|[^\\])<answer>/);
  });

  test('lenses stay in place, greyed, while a task is invalid', async () => {
    const editor = await openFresh('invalid.vtask');
    const doc = editor.document;
    const lenses = async (): Promise<vscode.CodeLens[]> =>
      vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const before = (await lenses()).filter((l) => l.range.start.line > 0).map((l) => l.range.start.line);
    const at = doc.getText().lastIndexOf('verify:');
    await editor.edit((b) =>
      b.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 'verify:'.length)), 'verfy:'),
    );
    const after = await lenses();
    const greyed = after.filter((l) => l.command?.title === 'Run verifier (fix errors first)');
    assert.equal(greyed.length, 1);
    assert.equal(greyed[0]?.command?.command, '', 'the greyed lens does nothing');
    assert.deepEqual(
      [...new Set(after.filter((l) => l.range.start.line > 0).map((l) => l.range.start.line))],
      [...new Set(before)],
      'every task keeps a lens on its line',
    );
  });

  test('vtask.samples applies to lenses and runs; the hover says how many samples it lists', async () => {
    const { document: doc } = await openFresh('hover.vtask');
    await setting('samples', 16);
    try {
      assert.ok((await lensTitles(doc.uri)).includes('▶ Run verifier (16)'));
      await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'f/words');
      assert.equal(api.results(doc.uri, 'f/words')?.run?.stats.samples, 16);
      const hover =
        api
          .decorations(doc)
          .summaries.map((s) => s.hoverMessage?.value ?? '')
          .find((h) => h.includes('f/words')) ?? '';
      assert.match(hover, /8 of 16 samples shown/);
    } finally {
      await setting('samples', undefined);
    }
  });

  test('a run that fails before sampling does not leave its lens saying "sampling…"', async () => {
    const { document: doc } = await openFresh('stuck.vtask');
    const profiles = vscode.workspace.getConfiguration('vtask', null).get<Record<string, unknown>>('models');
    // A hand-edited settings.json: a profile that is not an object fails loading the keys.
    await setting('models', { ...profiles, broken: null });
    try {
      await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'f/words');
      assert.equal(api.isRunning(doc.uri, 'f/words'), false);
      const titles = await lensTitles(doc.uri);
      assert.ok(!titles.some((t) => t.includes('sampling…')), titles.join(' | '));
    } finally {
      await setting('models', profiles);
    }
  });

  test('a relative vtask.cacheDir is relative to the workspace folder', async () => {
    const { document: doc } = await openFresh('relcache.vtask');
    const old = vscode.workspace.getConfiguration('vtask', null).get<string>('cacheDir');
    const name = `rel-cache-${process.pid}`;
    await setting('cacheDir', name);
    try {
      await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'f/words');
      assert.ok(fs.existsSync(path.join(folder().fsPath, name)), 'the cache is in the workspace folder');
    } finally {
      await setting('cacheDir', old);
    }
  });

  test('a background failure stays in the status bar until its output is seen', async () => {
    const file = path.join(folder().fsPath, 'not-a-folder.txt');
    fs.writeFileSync(file, 'a file where the cache folder should be\n');
    const old = vscode.workspace.getConfiguration('vtask', null).get<string>('cacheDir');
    await setting('cacheDir', path.join(file, 'cache'));
    try {
      // Opening a task file restores its results in the background: that fails here.
      await openFresh('background.vtask');
      const text = await until(() => api.failureStatus(), 'the failure status item');
      assert.match(text, /restoring the results of .*background\.vtask failed/);
      await vscode.commands.executeCommand('vtask.showOutput');
      assert.equal(api.failureStatus(), undefined);
    } finally {
      await setting('cacheDir', old);
    }
  });

  test('the model picker lists each model once, the built-in one without a saved profile', async () => {
    const profiles = vscode.workspace.getConfiguration('vtask', null).get<Record<string, unknown>>('models');
    await setting('models', { ...profiles, builtin: { base_url: 'builtin:arith-tiny', model: 'arith-tiny' } });
    try {
      const labels = (await vscode.commands.executeCommand<{ label: string }[]>('vtask.listModels')).map(
        (c) => c.label,
      );
      assert.equal(labels.filter((l) => l === 'builtin').length, 1, labels.join(', '));
      assert.equal(new Set(labels).size, labels.length, labels.join(', '));
    } finally {
      await setting('models', profiles);
    }
  });

  test('Cancel Sampling is in the command palette only while something runs', () => {
    const pkg = vscode.extensions.getExtension('vtask.vtask')?.packageJSON as {
      contributes: { menus: { commandPalette?: { command: string; when?: string }[] } };
    };
    assert.equal(
      pkg.contributes.menus.commandPalette?.find((m) => m.command === 'vtask.cancelTask')?.when,
      'vtask.sampling',
    );
  });

  test('activation logs no error from zod probing `navigator`, and settings are read with their scope', async () => {
    // The extension host's own log sits above the extension's log folder.
    const root = path.dirname(path.dirname(api.logUri.fsPath));
    const logs: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
        if (e.isDirectory()) walk(path.join(dir, e.name));
        else if (e.name.endsWith('.log')) logs.push(path.join(dir, e.name));
      }
    };
    walk(root);
    assert.ok(
      logs.some((l) => /exthost/i.test(path.basename(l))),
      `the extension host's log is under ${root}: ${logs.join(', ')}`,
    );
    for (const l of logs) {
      const text = fs.readFileSync(l, 'utf8');
      assert.ok(!text.includes('navigator is now a global'), `${l} reports zod's navigator probe`);
      assert.ok(
        !/resource scoped configuration without providing a resource[^\n]*'vtask\./.test(text),
        `${l} reports a vtask setting read without its scope`,
      );
    }
  });
});

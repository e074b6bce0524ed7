// Dataset rows (JSONL) in a real VS Code: each row of a dataset gets the lenses of a task, a
// run decorates its line, the panel opens on it read-only, results go stale when the row
// changes and come back from the sample cache when the file is opened again; a row that cannot
// be a task gets a diagnostic on its line; a JSONL file that is no dataset gets nothing.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { open, useModelServer, waitFor } from './helpers';

interface Api {
  restore(doc: vscode.TextDocument): Promise<number>;
  results(uri: vscode.Uri, taskId: string): { run?: { stats: { passRate: number; samples: number } } } | undefined;
  decorations(doc: vscode.TextDocument): {
    summaries: {
      range: vscode.Range;
      renderOptions?: { before?: { contentText?: string }; after?: { contentText?: string } };
      hoverMessage?: vscode.MarkdownString;
    }[];
    stale: unknown[];
  };
}

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  readonly lastView:
    | {
        id: string;
        readOnly?: string;
        messages: { content: string }[];
        run?: { stats: { passed: number; samples: number } };
        samples: unknown[];
      }
    | undefined;
  readonly lastNotice: string | undefined;
  refresh(): Promise<unknown>;
  handle(message: unknown): Promise<void>;
}

const ROW = 'rows/six-sevens';
const lensesOf = async (uri: vscode.Uri): Promise<vscode.CodeLens[]> =>
  (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];

suite('dataset rows (JSONL)', () => {
  // Even answers are right, odd ones wrong: a pass rate of one half.
  const server = new OpenAIServer({ answer: (ctx) => (ctx.index % 2 === 0 ? 'so \\boxed{42}' : '\\boxed{41}') });
  const models = useModelServer<Api>(server);
  let api: Api;
  suiteSetup(() => {
    api = models.api();
  });

  test('each row that is a task has ▶ Run verifier and Open panel over its line; a row that is not gets a diagnostic saying why', async () => {
    const { document: doc } = await open('rows.jsonl');
    const lenses = await lensesOf(doc.uri);
    const byLine = new Map<number, string[]>();
    for (const l of lenses)
      byLine.set(l.range.start.line, [...(byLine.get(l.range.start.line) ?? []), l.command?.title ?? '']);
    assert.deepEqual([...byLine.keys()].sort(), [0, 2]);
    // The lens line names the row: the row itself is one long line of JSON.
    assert.deepEqual(byLine.get(0), [ROW, '▶ Run verifier (8)', 'Open panel']);
    const run = lenses.find((l) => l.command?.title.startsWith('▶ Run verifier') && l.range.start.line === 0);
    assert.deepEqual([run?.command?.command, run?.command?.arguments?.[1]], ['vtask.runTask', ROW]);
    assert.ok(
      !lenses.some((l) => l.command?.title.startsWith('▶ Run all')),
      'Run all would run only the rows read around the view',
    );
    const diagnostics = await waitFor(
      () => vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask'),
      'the diagnostic of the colour row',
    );
    assert.deepEqual(
      diagnostics.map((d) => [d.range.start.line, d.severity]),
      [[1, vscode.DiagnosticSeverity.Error]],
    );
    assert.match(
      diagnostics[0]?.message ?? '',
      /cannot be read as a open-instruct task: open-instruct's `colour_matcher` verifier has no vtask counterpart/,
    );
  });

  test('running a row samples the model and shows the pass rate before the row, where a long row cannot push it off-screen, and in a hover over the row', async () => {
    const { document: doc } = await open('rows.jsonl');
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, ROW);
    assert.equal(api.results(doc.uri, ROW)?.run?.stats.passRate, 0.5);
    const [summary, ...more] = api.decorations(doc).summaries;
    assert.equal(more.length, 0);
    assert.equal(summary?.renderOptions?.before?.contentText, 'test: 4/8 pass · pass@1 0.50 · learnable');
    assert.equal(summary?.renderOptions?.after, undefined, 'nothing after the row, past the minimap');
    assert.deepEqual([summary?.range.start.line, summary?.range.start.character], [0, 0]);
    // The hover of details, anywhere over the row: the row's id, the model, the interval and the samples' verdicts.
    const middle = new vscode.Position(0, Math.floor(doc.lineAt(0).text.length / 2));
    const hovers =
      (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, middle)) ?? [];
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /\*\*rows\/six-sevens\*\* on [^\n]*test-model[\s\S]*95%[\s\S]*✓/);
  });

  test('the panel opens on the row, read-only, with its samples; form edits are refused', async () => {
    const { document: doc } = await open('rows.jsonl');
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, ROW);
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel', doc.uri, ROW);
    await panel.refresh();
    assert.equal(panel.task?.id, ROW);
    const view = panel.lastView;
    assert.equal(view?.id, ROW);
    assert.equal(view?.messages.at(-1)?.content, 'What is 6 * 7?');
    assert.match(view?.readOnly ?? '', /row of a dataset/);
    assert.deepEqual([view?.run?.stats.passed, view?.run?.stats.samples, view?.samples.length], [4, 8, 8]);
    const before = doc.getText();
    for (const message of [
      { type: 'edit', task: ROW, path: ['verify', 'math', 'answer'], old: '42', value: '41' },
      { type: 'addCase', task: ROW, sample: 0, expect: 'pass' },
    ]) {
      await panel.handle(message);
      assert.equal(panel.lastNotice, 'A dataset row cannot be changed from the panel: edit its JSON in the editor.');
      assert.equal(doc.getText(), before, 'the row was not changed');
    }
  });

  test('results go stale when the row changes, come back when it does, and survive reopening', async () => {
    const editor = await open('rows.jsonl');
    const doc = editor.document;
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, ROW);
    const at = doc.positionAt(doc.getText().indexOf('What is 6 * 7?') + 'What is 6 * 7'.length);
    await editor.edit((b) => b.insert(at, ' really'));
    assert.deepEqual([api.decorations(doc).summaries.length, api.decorations(doc).stale.length], [0, 1]);
    await vscode.commands.executeCommand('undo');
    assert.equal(api.decorations(doc).summaries.length, 1);
    // The same rows under another name: samples are keyed by content, not by path.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const copy = vscode.Uri.joinPath(folder, 'reopened-rows.jsonl');
    await vscode.workspace.fs.writeFile(copy, new TextEncoder().encode(doc.getText()));
    const requests = server.samplingRequests.length;
    const reopened = await vscode.workspace.openTextDocument(copy);
    assert.equal(await api.restore(reopened), 1, 'the row that ran had all its samples cached');
    assert.equal(api.results(copy, ROW)?.run?.stats.passRate, 0.5);
    assert.equal(server.samplingRequests.length, requests);
  });

  test('a 100,000-row file is read around what is shown: lenses over the rows in view, and a far row runs once scrolled to', async function () {
    // Opening 3.5 MB in code-server moves it to the extension host first: far slower than the rest.
    this.timeout(180_000);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const big = vscode.Uri.joinPath(folder, 'big.jsonl');
    const rows = Array.from({ length: 100_000 }, (_, i) =>
      JSON.stringify({ id: `big/${i}`, question: `What is ${i} + 1?`, answer: `#### ${i + 1}` }),
    );
    await vscode.workspace.fs.writeFile(big, new TextEncoder().encode(rows.join('\n') + '\n'));
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(big));
    const first = await lensesOf(big);
    const lines = (ls: vscode.CodeLens[]): number[] => [...new Set(ls.map((l) => l.range.start.line))];
    assert.ok(first.length > 0 && lines(first).length <= 1000, `${lines(first).length} rows with lenses`);
    assert.ok(
      lines(first).every((l) => l < 1200),
      'only rows near the top have lenses',
    );
    const far = 60_000;
    const moved = new Promise<void>((resolve) => {
      const sub = vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
        if (e.textEditor === editor && e.visibleRanges.some((r) => r.contains(new vscode.Position(far, 0)))) {
          sub.dispose();
          resolve();
        }
      });
    });
    editor.revealRange(new vscode.Range(far, 0, far, 0), vscode.TextEditorRevealType.AtTop);
    await moved;
    const there = await lensesOf(big);
    assert.ok(
      there.some(
        (l) =>
          l.range.start.line === far &&
          l.command?.command === 'vtask.runTask' &&
          l.command.arguments?.[1] === `big/${far}`,
      ),
      'a lens over the row scrolled to',
    );
    assert.ok(lines(there).length <= 1000);
    await vscode.commands.executeCommand('vtask.runTask', big, `big/${far}`);
    assert.equal(api.results(big, `big/${far}`)?.run?.stats.samples, 8);
    const summaries = api.decorations(editor.document).summaries;
    assert.deepEqual(
      summaries.map((s) => s.range.start.line),
      [far],
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('a JSONL file that is no dataset gets no lenses and no diagnostics', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const logs = vscode.Uri.joinPath(folder, 'server-log.jsonl');
    await vscode.workspace.fs.writeFile(
      logs,
      new TextEncoder().encode('{"level":"info","msg":"started"}\nnot json\n{"level":"warn","msg":"slow"}\n'),
    );
    const { document: doc } = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(logs));
    assert.deepEqual(await lensesOf(doc.uri), []);
    assert.deepEqual(
      vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask'),
      [],
    );
  });
});

// Run verifier in a real VS Code against the project's OpenAI-compatible server: lenses, the
// pass rate the decorations show, cases through the Test Explorer, cancellation, and trust.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { open, useModelServer, waitFor } from './helpers';

interface Api {
  restore(doc: vscode.TextDocument): Promise<number>;
  results(
    uri: vscode.Uri,
    taskId: string,
  ): { run?: { stats: { passRate: number; band: string; samples: number } }; cases?: { ok: boolean }[] } | undefined;
  decorations(doc: vscode.TextDocument): {
    summaries: { renderOptions?: { after?: { contentText?: string } } }[];
    stale: unknown[];
  };
}

suite('run verifier', () => {
  // Even answers are right, odd ones wrong: a pass rate of one half.
  const server = new OpenAIServer({ answer: (ctx) => (ctx.index % 2 === 0 ? 'so \\boxed{42}' : '\\boxed{41}') });
  const models = useModelServer<Api>(server);
  let api: Api;
  suiteSetup(() => {
    api = models.api();
  });

  test('lenses over every task and at the top', async () => {
    const { document: doc } = await open('editing.vtask');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.equal(titles.filter((t) => t.startsWith('▶ Run verifier')).length, 3);
    assert.ok(titles.some((t) => t.startsWith('▶ Run all (3 tasks')));
    assert.ok(titles.includes('Run cases (1)'));
    assert.equal(titles.filter((t) => t === 'Open panel').length, 3);
  });

  test('running a task samples the model, verifies, and decorates the task', async () => {
    const { document: doc } = await open('editing.vtask');
    const before = server.samplingRequests.length;
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'edit/math');
    const r = api.results(doc.uri, 'edit/math');
    assert.equal(r?.run?.stats.samples, 8);
    assert.equal(r?.run?.stats.passRate, 0.5);
    assert.equal(r?.run?.stats.band, 'learnable');
    assert.ok(server.samplingRequests.length > before);
    const summary = api.decorations(doc).summaries.map((s) => s.renderOptions?.after?.contentText);
    assert.deepEqual(summary, ['test: 4/8 pass · pass@1 0.50 · learnable'], 'the summary names the model');
    // Again: every sample comes from the cache.
    const again = server.samplingRequests.length;
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'edit/math');
    assert.equal(server.samplingRequests.length, again);
  });

  test('results survive reopening: restored from the sample cache without requests', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    // The same tasks under another name: samples are keyed by content, not by path.
    const copy = vscode.Uri.joinPath(folder, 'reopened.vtask');
    const original = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, 'editing.vtask'));
    await vscode.workspace.fs.writeFile(copy, original);
    const requests = server.samplingRequests.length;
    const doc = await vscode.workspace.openTextDocument(copy);
    assert.equal(await api.restore(doc), 1, 'one task (edit/math) had all its samples cached');
    assert.equal(api.results(copy, 'edit/math')?.run?.stats.passRate, 0.5);
    assert.equal(server.samplingRequests.length, requests);
  });

  test('results go stale when the task changes and come back when it does', async () => {
    const editor = await open('editing.vtask');
    const doc = editor.document;
    const at = doc.positionAt(doc.getText().indexOf('What is 6 * 7?') + 'What is 6 * 7'.length);
    await editor.edit((b) => b.insert(at, ' really'));
    assert.equal(api.decorations(doc).summaries.length, 0);
    assert.equal(api.decorations(doc).stale.length, 1);
    await vscode.commands.executeCommand('undo');
    assert.equal(api.decorations(doc).summaries.length, 1);
  });

  test('cases run through the Test Explorer', async () => {
    const { document: doc } = await open('editing.vtask');
    await vscode.commands.executeCommand('vtask.runCases', doc.uri, 'edit/math');
    assert.deepEqual(
      api.results(doc.uri, 'edit/math')?.cases?.map((c) => c.ok),
      [true],
    );
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    assert.ok(lenses.some((l) => l.command?.title === 'Cases 1/1 ✓'));
  });

  test('cancelling stops the requests in flight', async () => {
    const { document: doc } = await open('editing.vtask');
    // One request (n = 8, no seed) that never answers.
    server.script({ hang: true });
    await vscode.workspace
      .getConfiguration('vtask')
      .update(
        'cacheDir',
        fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-int-cache2-')),
        vscode.ConfigurationTarget.Global,
      );
    const disconnects = server.disconnects;
    const running = vscode.commands.executeCommand('vtask.runTask', doc.uri, 'edit/constraints');
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (server.inFlight > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    await vscode.commands.executeCommand('vtask.cancelTask', doc.uri, 'edit/constraints');
    await running;
    // The server learns of the closed connection a moment later: wait for it, with a bound.
    const t0 = Date.now();
    while (server.disconnects === disconnects && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
    assert.ok(server.disconnects > disconnects, 'the server saw the client go away');
    assert.equal(server.inFlight, 0);
  });

  test('an agent task whose environment is missing: a problem at `run`, and a run of band error, never too_hard', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, 'missing-env.vtask');
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'vtask: 1\ntasks:\n  - id: kv/missing\n    prompt: Which capital is stored under fr?\n    environment: { run: ./envs/missing.mjs }\n    samples: 2\n    verify: { match: { answer: Paris } }\n',
      ),
    );
    const { document: doc } = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const problem = await waitFor(
      () =>
        vscode.languages
          .getDiagnostics(uri)
          .find((d) => /environment \.\/envs\/missing\.mjs was not found/.test(d.message)),
      'the missing environment as a problem',
    );
    assert.equal(problem.severity, vscode.DiagnosticSeverity.Error);
    assert.deepEqual([problem.range.start.line, problem.range.start.character], [4, 24]);
    if (!vscode.workspace.isTrusted) return;
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'kv/missing');
    const r = api.results(doc.uri, 'kv/missing');
    assert.equal(r?.run?.stats.band, 'error');
    const summary = api.decorations(doc).summaries.map((s) => s.renderOptions?.after?.contentText);
    assert.deepEqual(summary, ['test: 0/0 pass · 2 undecided · pass@1 - · error']);
  });

  test('code verifiers run only in a trusted workspace', async () => {
    const { document: doc } = await open('editing.vtask');
    server.script({ answers: ['```python\na, b = map(int, input().split())\nprint(a + b)\n```'] });
    await vscode.commands.executeCommand('vtask.runTask', doc.uri, 'edit/code');
    const run = api.results(doc.uri, 'edit/code')?.run as unknown as {
      samples: { verdict: { pass: boolean; error?: string; reason: string } }[];
    };
    const first = run.samples[0]?.verdict;
    if (vscode.workspace.isTrusted) assert.equal(first?.pass, true, first?.reason);
    else {
      assert.equal(first?.error, 'refused');
      assert.match(first?.reason ?? '', /untrusted workspace/);
    }
  });
});

suite('models', () => {
  test('the model picker offers settings profiles and the built-in model', async () => {
    const choices = await vscode.commands.executeCommand<{ label: string; description: string }[]>('vtask.listModels');
    const labels = choices.map((c) => c.label);
    assert.ok(labels.includes('test'), labels.join(', '));
    assert.ok(labels.includes('builtin'));
    assert.match(
      choices.find((c) => c.label === 'test')?.description ?? '',
      /test-model at http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
  });
});

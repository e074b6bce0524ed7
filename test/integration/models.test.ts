// Several models in a real VS Code: `vtask: Run Verifier with Models…` runs a task with each,
// the summary after the task names the model of the run it shows (the task's own model first,
// else the latest), its hover lists every model's run, and the run log the CLI's `vtask stats`
// reads gets one record per model. A run of `vtask run` in a terminal shows on its task too.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { until, useModelServer } from './helpers';

interface Api {
  decorations(doc: vscode.TextDocument): {
    summaries: { hoverMessage?: vscode.MarkdownString; renderOptions?: { after?: { contentText?: string } } }[];
  };
}

suite('several models', () => {
  // `model-a` is always right, `model-b` always wrong.
  const server = new OpenAIServer({
    models: ['test-model', 'model-a', 'model-b'],
    answer: (ctx) => (ctx.body.model === 'model-a' ? 'so \\boxed{42}' : '\\boxed{41}'),
  });
  const models = useModelServer<Api>(server);
  let api: Api;
  suiteSetup(async () => {
    api = models.api();
    const config = vscode.workspace.getConfiguration('vtask');
    await config.update(
      'models',
      {
        test: { base_url: server.url, model: 'test-model' },
        good: { base_url: server.url, model: 'model-a' },
        bad: { base_url: server.url, model: 'model-b' },
      },
      vscode.ConfigurationTarget.Global,
    );
  });
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('vtask').update('model', 'test', vscode.ConfigurationTarget.Global);
  });

  test('runs a task with each model; the summary names its model, the hover lists both; the run log has both', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, 'models.vtask');
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'vtask: 1\ntasks:\n  - id: m/sum\n    prompt: What is 6 * 7?\n    samples: 4\n    verify:\n      math: { answer: "42" }\n',
      ),
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const before = server.samplingRequests.length;
    await vscode.commands.executeCommand('vtask.runWithModels', uri, 'm/sum', ['good', 'bad']);
    assert.deepEqual(
      server.samplingRequests.slice(before).map((r) => (r.body as { model: string }).model),
      ['model-a', 'model-b'],
    );

    // The task names no model and the selected one (`test`) has no run: the latest run shows.
    const [summary] = api.decorations(doc).summaries;
    assert.equal(summary?.renderOptions?.after?.contentText, 'bad: 0/4 pass · pass@1 0.00 · too_hard');
    const hover = summary?.hoverMessage?.value ?? '';
    assert.match(hover, /\| good \| 1\.00 \| too_easy \| 4 \| [^|]+ \|/);
    assert.match(hover, /\| bad \| 0\.00 \| too_hard \| 4 \| [^|]+ \|/);

    // With `good` selected as the model tasks sample, its run is the one shown.
    await vscode.workspace.getConfiguration('vtask').update('model', 'good', vscode.ConfigurationTarget.Global);
    assert.equal(
      api.decorations(doc).summaries[0]?.renderOptions?.after?.contentText,
      'good: 4/4 pass · pass@1 1.00 · too_easy',
    );

    // The run log of the cache folder the CLI would use: one record per model.
    const cacheDir = vscode.workspace.getConfiguration('vtask').get<string>('cacheDir') ?? '';
    const records = fs
      .readFileSync(path.join(cacheDir, 'runs.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { task: string; model: string; pass_rate: number; band: string; samples: number });
    assert.deepEqual(
      records.filter((r) => r.task === 'm/sum').map((r) => [r.model, r.pass_rate, r.band, r.samples]),
      [
        ['good', 1, 'too_easy', 4],
        ['bad', 0, 'too_hard', 4],
      ],
    );
  });

  test("the summary shows the run of the task's own model (the file's defaults), not the latest", async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, 'own-model.vtask');
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        'vtask: 1\ndefaults:\n  model: good\ntasks:\n  - id: m/own\n    prompt: What is 40 + 2?\n    samples: 4\n    verify:\n      math: { answer: "42" }\n',
      ),
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await vscode.workspace.getConfiguration('vtask').update('model', 'test', vscode.ConfigurationTarget.Global);
    // `bad` runs last: the latest run is not the task's own.
    await vscode.commands.executeCommand('vtask.runWithModels', uri, 'm/own', ['good', 'bad']);
    assert.equal(
      api.decorations(doc).summaries[0]?.renderOptions?.after?.contentText,
      'good: 4/4 pass · pass@1 1.00 · too_easy',
    );
  });

  test('a run of vtask run in a terminal shows on its task, named by its model, until the task changes', async function () {
    this.timeout(60_000);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, 'models-cli.vtask');
    // The file's own profile names the model: a label no other suite's runs use.
    await vscode.workspace.fs.writeFile(
      uri,
      Buffer.from(
        `vtask: 1\nmodels:\n  terminal: { base_url: "${server.url}", model: model-a }\ntasks:\n  - id: m/cli\n    model: terminal\n    prompt: What is 7 * 6?\n    samples: 4\n    verify:\n      math: { answer: "42" }\n`,
      ),
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    assert.deepEqual(api.decorations(doc).summaries, [], 'no run yet');
    // The CLI as a user runs it, on the cache folder the editor uses.
    const cacheDir = vscode.workspace.getConfiguration('vtask').get<string>('cacheDir') ?? '';
    const cli = path.resolve(__dirname, '../../cli.js');
    // Not spawnSync: the model server answers from this process, which must stay free to.
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'run', uri.fsPath, '--cache-dir', cacheDir], {
        env: { ...process.env, VTASK_NO_LOCAL_DISCOVERY: '1' },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    });
    assert.equal(r.code, 0, r.out);
    const summaryText = (): string | undefined => api.decorations(doc).summaries[0]?.renderOptions?.after?.contentText;
    await until(
      () => summaryText() === 'terminal: 4/4 pass · too_easy (run log)',
      `the logged run on the task (is ${summaryText()})`,
    );
    assert.match(
      api.decorations(doc).summaries[0]?.hoverMessage?.value ?? '',
      /\| terminal \(run log\) \| 1\.00 \| too_easy \| 4 \| [^|]+ \|/,
    );
    // An edit of the prompt: the logged run no longer describes the task.
    const edit = new vscode.WorkspaceEdit();
    edit.replace(
      uri,
      new vscode.Range(
        doc.positionAt(doc.getText().indexOf('7 * 6')),
        doc.positionAt(doc.getText().indexOf('7 * 6') + 5),
      ),
      '6 * 7',
    );
    await vscode.workspace.applyEdit(edit);
    await until(() => summaryText() === undefined, 'no summary for the edited task');
    await vscode.commands.executeCommand('undo');
    await until(() => summaryText() === 'terminal: 4/4 pass · too_easy (run log)', 'the logged run back after undo');
  });
});

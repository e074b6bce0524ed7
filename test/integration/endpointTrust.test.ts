// A task file's model profile in a real VS Code: it names a key (`api_key_env`) and a
// `${env:…}` header for a server that records what it receives. The editor warns at the
// profile and its run sends neither; once the endpoint is in the user's
// `vtask.trustedEndpoints`, the warning goes and the secrets arrive.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { until, useModelServer, waitFor } from './helpers';

suite('endpoints a task file may send secrets to', () => {
  const server = new OpenAIServer({ answer: () => 'so \\boxed{42}' });
  useModelServer(server);
  const KEY = 'it-secret-key-0123456789';
  const TOKEN = 'it-secret-token-0123456789';
  suiteSetup(() => {
    process.env.VTASK_IT_KEY = KEY;
    process.env.VTASK_IT_TOKEN = TOKEN;
  });
  suiteTeardown(async () => {
    delete process.env.VTASK_IT_KEY;
    delete process.env.VTASK_IT_TOKEN;
    await vscode.workspace
      .getConfiguration('vtask')
      .update('trustedEndpoints', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Writes a task file whose profile names both secrets and opens it. */
  async function openTheirs(name: string): Promise<vscode.TextDocument> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, name);
    const text = `vtask: 1\nmodels:\n  theirs:\n    base_url: "${server.url}"\n    model: test-model\n    api_key_env: VTASK_IT_KEY\n    headers: { X-Token: "\${env:VTASK_IT_TOKEN}" }\ntasks:\n  - id: t/sum\n    model: theirs\n    prompt: Multiply six by seven, please.\n    samples: 1\n    verify:\n      math: { answer: "42" }\n  - id: t/again\n    model: theirs\n    prompt: Seven sixes make how many?\n    samples: 1\n    verify:\n      math: { answer: "42" }\n`;
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    return doc;
  }

  // Each run samples a task of its own: the second is not answered from the cache.
  const sent = async (uri: vscode.Uri, task: string): Promise<string> => {
    const before = server.samplingRequests.length;
    await vscode.commands.executeCommand('vtask.runTask', uri, task);
    const req = await until(() => server.samplingRequests[before], 'a request at the server');
    return JSON.stringify(req.headers);
  };

  test('a file profile warns at its name and sends no secret until the user allows its endpoint', async function () {
    if (!vscode.workspace.isTrusted) this.skip();
    const doc = await openTheirs('theirs.vtask');
    const uri = doc.uri;
    const warning = await waitFor(
      () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'withheld-secret'),
      'the warning at the profile',
    );
    assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
    assert.equal(warning.range.start.line, 2);
    assert.equal(doc.getText(warning.range), 'theirs');
    assert.match(
      warning.message,
      /\$VTASK_IT_KEY, \$VTASK_IT_TOKEN are not sent to http:\/\/127\.0\.0\.1:\d+\/v1 unless you allow that endpoint/,
    );

    const withoutAllowance = await sent(uri, 't/sum');
    assert.ok(!withoutAllowance.includes(KEY) && !withoutAllowance.includes(TOKEN), withoutAllowance);

    await vscode.workspace
      .getConfiguration('vtask')
      .update('trustedEndpoints', [server.url], vscode.ConfigurationTarget.Global);
    await until(
      () => !vscode.languages.getDiagnostics(uri).some((d) => d.code === 'withheld-secret'),
      'the warning to go',
    );
    const allowed = await sent(uri, 't/again');
    assert.ok(allowed.includes(`Bearer ${KEY}`) && allowed.includes(TOKEN), allowed);
  });

  test('in an untrusted workspace a file profile sends no secret, even to an allowed endpoint', async function () {
    if (vscode.workspace.isTrusted) this.skip();
    await vscode.workspace
      .getConfiguration('vtask')
      .update('trustedEndpoints', [server.url], vscode.ConfigurationTarget.Global);
    const doc = await openTheirs('untrusted-theirs.vtask');
    const warning = await waitFor(
      () => vscode.languages.getDiagnostics(doc.uri).find((d) => d.code === 'withheld-secret'),
      'the warning at the profile',
    );
    assert.match(warning.message, /the workspace is not trusted: \$VTASK_IT_KEY, \$VTASK_IT_TOKEN are not sent/);
    const headers = await sent(doc.uri, 't/sum');
    assert.ok(!headers.includes(KEY) && !headers.includes(TOKEN), headers);
  });
});

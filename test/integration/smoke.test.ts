// The extension is installed, activates, and owns .vtask files in a real VS Code.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

suite('smoke', () => {
  test('the extension is present and activates', async () => {
    const ext = vscode.extensions.getExtension('vtask.vtask');
    assert.ok(ext, 'extension vtask.vtask is not loaded');
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  test('a .vtask document gets the vtask language', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, 'sample.vtask'));
    assert.equal(doc.languageId, 'vtask');
  });

  test('workspace trust is what the runner asked for', () => {
    // The runners set VTASK_TEST_WORKSPACE_TRUST: `untrusted` opens the folder in Restricted Mode.
    const expected = process.env.VTASK_TEST_WORKSPACE_TRUST !== 'untrusted';
    assert.equal(vscode.workspace.isTrusted, expected);
  });
});

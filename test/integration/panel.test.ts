// The task panel in a real VS Code: it follows the cursor and runs the task's cases.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { open, positionOf } from './helpers';

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  runCases(): Promise<{ ok: boolean; verdict: { reason: string } }[] | undefined>;
  follow(editor: vscode.TextEditor | undefined): void;
}

suite('task panel', () => {
  test('follows the task under the cursor and runs its cases', async () => {
    const editor = await open('editing.vtask');
    const at = positionOf(editor.document, 'What is 6 * 7?', true);
    editor.selection = new vscode.Selection(at, at);
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    assert.equal(panel.task?.id, 'edit/math');
    const results = await panel.runCases();
    assert.deepEqual(results?.map((r) => r.ok), [true]);
    const other = positionOf(editor.document, 'Add two numbers', true);
    editor.selection = new vscode.Selection(other, other);
    panel.follow(editor);
    assert.equal(panel.task?.id, 'edit/code');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});

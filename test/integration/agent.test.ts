// Agent tasks in a real VS Code: the task's Run lens runs it against the test server, whose
// scripted turns call the environment's tools (one call its schema refuses, one that reads the
// store), and the task panel shows the trajectory; Add as case writes the calls. In Restricted
// Mode the run is refused, and says why.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrajectoryView } from '../../src/core/base/panelProtocol';
import { OpenAIServer } from '../support/openaiServer';
import { open, positionOf, useModelServer } from './helpers';

interface PanelForTests {
  readonly task: { uri: vscode.Uri; id: string } | undefined;
  readonly lastView: { samples: { index: number; pass: boolean; trajectory?: TrajectoryView }[] } | undefined;
  follow(editor: vscode.TextEditor | undefined): void;
  refresh(): Promise<unknown>;
  handle(message: unknown): Promise<void>;
}

interface Api {
  results(
    uri: vscode.Uri,
    taskId: string,
  ):
    | {
        run?: {
          error?: string;
          samples: { verdict: { pass: boolean; reason: string }; trajectory?: { stop: string; steps: unknown[] } }[];
        };
        cases?: {
          ok: boolean;
          verdict: { reason: string };
          trajectory?: { turns: number; steps: { turn: number; call: { name: string }; outcome: object }[] };
        }[];
      }
    | undefined;
}

const TASK = 'agent/kv';

interface PanelView {
  readonly lastView: { run?: { note?: string; stats: { band: string } } } | undefined;
  refresh(): Promise<unknown>;
}

suite('agent tasks', () => {
  const server = new OpenAIServer({ answer: () => 'no script' });
  const models = useModelServer<Api>(server);
  suiteSetup(() => {
    // Run as root, the sandbox drops the environment to `nobody`, who must be able to reach
    // the workspace: the runner's temporary parent folder is private (0700) to root.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (folder && process.getuid?.() === 0) fs.chmodSync(path.dirname(folder), 0o755);
  });

  test('the Run lens runs an agent task and the panel shows its trajectory', async function () {
    this.timeout(120_000);
    const editor = await open('agent.vtask');
    const doc = editor.document;
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const run = lenses.find((l) => l.command?.command === 'vtask.runTask' && l.command.arguments?.[1] === TASK);
    assert.ok(run?.command, `a Run lens for ${TASK}: ${lenses.map((l) => l.command?.title).join(', ')}`);
    assert.match(run.command.title, /Run verifier \(2\)/);
    await vscode.commands.executeCommand(run.command.command, ...(run.command.arguments ?? []));
    const result = models.api().results(doc.uri, TASK)?.run;
    if (!vscode.workspace.isTrusted) {
      assert.match(result?.error ?? '', /environments do not run in an untrusted workspace/);
      assert.equal(result?.samples.length, 0);
      return;
    }
    assert.equal(result?.error, undefined);
    assert.deepEqual(
      result?.samples.map((s) => [s.verdict.pass, s.trajectory?.stop, s.trajectory?.steps.length]),
      [
        [true, 'final', 2],
        [true, 'final', 2],
      ],
      result?.samples.map((s) => s.verdict.reason).join('; '),
    );

    const at = positionOf(doc, 'Which capital', true);
    editor.selection = new vscode.Selection(at, at);
    const panel = await vscode.commands.executeCommand<PanelForTests>('vtask.openPanel');
    panel.follow(editor);
    await panel.refresh();
    assert.equal(panel.task?.id, TASK);
    const t = panel.lastView?.samples[0]?.trajectory;
    assert.ok(t, 'the panel got the trajectory');
    assert.equal(t.stop, 'final');
    assert.equal(t.calls, 2);
    const [first, second] = t.turns[0]?.calls ?? [];
    assert.equal(first?.tool, 'get');
    assert.match(first?.error ?? '', /key/, 'the call its schema refuses has an error result');
    assert.equal(second?.result, '"Paris"');
    assert.equal(t.turns.at(-1)?.text, '<answer>Paris</answer>');
    assert.match(t.state ?? '', /"lookups": 1/);

    // Add as case: the calls first (the two of turn 1 as one turn), then the answer and the verdict.
    await panel.handle({ type: 'addCase', task: TASK, sample: 0, expect: 'pass' });
    assert.match(
      doc.getText(),
      / {4}cases:\n {6}- calls: \[\[\{ get: \{ country: fr \} \}, \{ get: \{ key: fr \} \}\]\]\n {8}response: <answer>Paris<\/answer>\n {8}expect: pass\n$/,
    );
    // The panel ran the new case: it replays the sample's two turns, the refused call included, and passes.
    const added = models.api().results(doc.uri, TASK)?.cases?.at(-1);
    assert.equal(added?.ok, true, added?.verdict.reason);
    assert.deepEqual(
      added?.trajectory?.steps.map((s) => [s.turn, s.call.name, 'error' in s.outcome]),
      [
        [1, 'get', true],
        [1, 'get', false],
      ],
    );
    assert.equal(added?.trajectory?.turns, 2);
    await vscode.commands.executeCommand('undo');
  });

  test('the built-in demo model on an agent task it cannot do: the note in the summary, its hover and the panel, never a band', async function () {
    this.timeout(120_000);
    if (!vscode.workspace.isTrusted) this.skip();
    const config = vscode.workspace.getConfiguration('vtask');
    await config.update('model', 'builtin', vscode.ConfigurationTarget.Global);
    try {
      const { document: doc } = await open('agent.vtask');
      await vscode.commands.executeCommand('vtask.runTask', doc.uri, TASK);
      const api = models.api() as Api & {
        decorations(doc: vscode.TextDocument): {
          summaries: { renderOptions?: { after?: { contentText?: string } }; hoverMessage?: vscode.MarkdownString }[];
        };
      };
      const [summary] = api.decorations(doc).summaries;
      assert.match(
        summary?.renderOptions?.after?.contentText ?? '',
        /^builtin: \d+\/2 pass · pass@1 [\d.]+ · demo model: cannot do this task$/,
      );
      assert.match(
        summary?.hoverMessage?.value ?? '',
        /⚠ with tools, the built-in demo model only calls add, sub or mul/,
      );
      const panel = await vscode.commands.executeCommand<PanelView>('vtask.openPanel', doc.uri, TASK);
      await panel.refresh();
      assert.match(panel.lastView?.run?.note ?? '', /its results say nothing about this task/);
    } finally {
      await config.update('model', 'test', vscode.ConfigurationTarget.Global);
    }
  });
});

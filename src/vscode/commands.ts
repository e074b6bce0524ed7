import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import type { Diagnostics } from './diagnostics';
import type { TaskDocuments } from './taskDocuments';
import { TaskPanel } from './taskPanel';
import type { TaskRunner } from './taskRunner';
import type { ResultStore } from './results';
import type { ModelPicker } from './modelPicker';
import type { CaseTests } from './testing';
import type { AuditFindings } from './audit';
import { draftRubric } from './rubric';
import { clearBackgroundFailures } from './backgroundFailure';
import { taskAt } from '../core/taskfile/taskAt';
import { isList, isStringArray } from '../core/base/record';
import type { ModelProfile } from '../core/sampling/types';

/** The services every command may use, built once in `activate`. */
export interface Context {
  readonly extensionUri: vscode.Uri;
  readonly documents: TaskDocuments;
  readonly runner: TaskRunner;
  readonly tests: CaseTests;
  readonly results: ResultStore;
  readonly models: ModelPicker;
  readonly diagnostics: Diagnostics;
  readonly audit: AuditFindings;
  readonly log: vscode.LogOutputChannel;
}

type Factory = (ctx: Context) => (...args: unknown[]) => unknown;

const NEW_TASK = `
  - id: \${1:task-id}
    prompt: |
      \${2:What is 6 * 7?}
    verify:
      \${3|math,match,constraints,code|}: \${4:{ answer: "42" \\}}
    cases:
      - response: "\${5:\\\\boxed{42\\}}"
        expect: pass
      - response: "\${6:\\\\boxed{41\\}}"
        expect: fail
`;

/** Command id → factory. package.json's `contributes.commands` lists the same ids. */
export const COMMANDS: Readonly<Record<string, Factory>> = {
  'vtask.checkFile': (ctx) => () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'vtask') {
      void vscode.window.showInformationMessage('Open a .vtask file to check it.');
      return;
    }
    ctx.diagnostics.validateNow(editor.document);
    const file = ctx.documents.get(editor.document);
    const errors = file.issues.filter((i) => i.severity === 'error').length;
    const summary = `${file.tasks.length} task${file.tasks.length === 1 ? '' : 's'}, ${errors} error${errors === 1 ? '' : 's'}`;
    if (errors) void vscode.commands.executeCommand('workbench.actions.view.problems');
    void vscode.window.showInformationMessage(`vtask: ${summary}`);
    return { tasks: file.tasks.length, errors };
  },
  'vtask.newTask': () => async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'vtask') return;
    const doc = editor.document;
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const lead = doc.getText().endsWith('\n') ? '' : '\n';
    await editor.insertSnippet(new vscode.SnippetString(lead + NEW_TASK.slice(1)), end);
  },
  'vtask.showOutput': (ctx) => () => {
    ctx.log.show();
    clearBackgroundFailures();
  },
  // From a lens: that task; from the palette: the task under the cursor.
  'vtask.runTask': (ctx) => (uri, taskId) =>
    runSafely(ctx, uri, async (doc) => {
      const id = typeof taskId === 'string' ? taskId : taskUnderCursor(ctx, doc, 'run its verifier');
      return id === undefined ? [] : ctx.runner.run(doc, [id]);
    }),
  'vtask.runAll': (ctx) => (uri) => runSafely(ctx, uri, (doc) => ctx.runner.run(doc)),
  // From a lens: that task; from the command palette: every run.
  'vtask.cancelTask': (ctx) => (uri, taskId) =>
    uri instanceof vscode.Uri
      ? ctx.runner.cancel(uri, typeof taskId === 'string' ? taskId : undefined)
      : ctx.runner.cancelAll(),
  'vtask.runCases': (ctx) => async (uri, taskId) => {
    // Through the Test Explorer, so results show there, in the gutter and in the lenses alike.
    const task = taskArg(uri, taskId);
    await ctx.tests.runTask(await vscode.workspace.openTextDocument(task.uri), task.id);
    return ctx.results.get(task.uri, task.id)?.cases;
  },
  // From the palette or a lens: the task under the cursor with each model picked; tests pass the names.
  'vtask.runWithModels': (ctx) => (uri, taskId, names) =>
    runSafely(ctx, uri, async (doc) => {
      const id = typeof taskId === 'string' ? taskId : taskUnderCursor(ctx, doc, 'run it with several models');
      if (id === undefined) return undefined;
      const picked = isStringArray(names) ? names.map((name) => ({ name })) : await pickModels(ctx);
      const runs = [];
      // One model after another: each has its own request limit, and the lens follows along.
      for (const model of picked ?? []) runs.push(...(await ctx.runner.run(doc, [id], { model })));
      return runs;
    }),
  'vtask.selectModel': (ctx) => () => ctx.models.select(),
  'vtask.addModelEndpoint': (ctx) => () => ctx.models.addEndpoint(),
  // Internal (no palette entry): what Select Model offers, for tests.
  'vtask.listModels': (ctx) => () => ctx.models.choices(),
  // From a lens: that task; from the palette: the whole file.
  'vtask.auditTask': (ctx) => (uri, taskId) => runSafely(ctx, uri, (doc) => ctx.audit.audit(doc, [idArg(taskId)])),
  'vtask.auditFile': (ctx) => (uri) => runSafely(ctx, uri, (doc) => ctx.audit.audit(doc)),
  // From the audit's quick fix: the probe becomes a case, and the task's cases run at once.
  'vtask.addProbeCase': (ctx) => async (uri, taskId, response, expect, calls) => {
    const task = taskArg(uri, taskId);
    if (typeof response !== 'string' || (expect !== 'pass' && expect !== 'fail'))
      throw new TypeError('vtask.addProbeCase takes a response and whether it should pass or fail');
    if (!(await ctx.audit.addCase(task.uri, task.id, response, expect, isList(calls) ? calls : undefined)))
      return undefined;
    await ctx.tests.runTask(await vscode.workspace.openTextDocument(task.uri), task.id);
    return ctx.results.get(task.uri, task.id)?.cases;
  },
  // With arguments (tests): that task; from the palette: the task under the cursor.
  'vtask.draftRubric': (ctx) => (uri, taskId) =>
    runSafely(ctx, uri, async (doc) => {
      const id = typeof taskId === 'string' ? taskId : taskUnderCursor(ctx, doc);
      return id === undefined ? undefined : draftRubric(doc, id, ctx.documents, ctx.runner);
    }),
  // From a lens: that task; from the palette or the editor title: the task under the cursor.
  'vtask.openPanel': (ctx) => (uri, taskId, sample) => {
    const panel = TaskPanel.createOrShow(ctx.extensionUri, {
      documents: ctx.documents,
      results: ctx.results,
      runner: ctx.runner,
      log: ctx.log,
    });
    // From the workbench's samples view: that sample selected.
    if (uri instanceof vscode.Uri && typeof taskId === 'string' && typeof sample === 'number')
      return panel.showSample(uri, taskId, sample).then(() => panel);
    if (uri instanceof vscode.Uri && typeof taskId === 'string') panel.show(uri, taskId);
    else panel.follow(vscode.window.activeTextEditor);
    return panel;
  },
};

/** A user's click: one message with "Open Output" on failure, the detail in the log. */
async function runSafely<T>(
  ctx: Context,
  uri: unknown,
  fn: (doc: vscode.TextDocument) => Promise<T>,
): Promise<T | undefined> {
  const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
  if (!target) return undefined;
  try {
    return await fn(await vscode.workspace.openTextDocument(target));
  } catch (e) {
    ctx.log.error(e instanceof Error ? e : String(e));
    void vscode.window.showErrorMessage(`vtask: ${errorMessage(e)}`, 'Open Output').then((choice) => {
      if (choice) ctx.log.show();
    });
    return undefined;
  }
}

/** A task id passed by a lens, a quick fix or a test; anything else is a caller's mistake, said as such. */
function idArg(taskId: unknown): string {
  if (typeof taskId !== 'string') throw new TypeError('expected a task id');
  return taskId;
}

/** A task named by its file and id, as lenses, quick fixes and tests pass them. */
function taskArg(uri: unknown, taskId: unknown): { uri: vscode.Uri; id: string } {
  if (!(uri instanceof vscode.Uri)) throw new TypeError('expected the task file');
  return { uri, id: idArg(taskId) };
}

export function registerCommands(ctx: Context): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, factory]) => vscode.commands.registerCommand(id, factory(ctx)));
}

function taskUnderCursor(ctx: Context, doc: vscode.TextDocument, what = 'draft its rubric'): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document !== doc) return undefined;
  const entry = taskAt(ctx.documents.get(doc), doc.offsetAt(editor.selection.active));
  if (entry?.id === undefined) void vscode.window.showInformationMessage(`vtask: put the cursor in a task to ${what}.`);
  return entry?.id;
}

/** The models to run with: profiles of the file and the settings, local servers, the built-in model. */
async function pickModels(ctx: Context): Promise<{ name: string; profile?: ModelProfile }[] | undefined> {
  const choices = (await ctx.models.choices()).filter((c) => !c.description.startsWith('invalid'));
  const picked = await vscode.window.showQuickPick(
    choices.map((c) => ({ label: c.label, description: c.description, choice: c })),
    {
      canPickMany: true,
      title: 'vtask: Run Verifier with Models',
      placeHolder: 'Each model samples the task; the hover of its result compares them',
    },
  );
  return picked?.map((p) =>
    p.choice.profile
      ? { name: p.choice.label, profile: p.choice.profile }
      : { name: p.choice.settingName ?? p.choice.label },
  );
}

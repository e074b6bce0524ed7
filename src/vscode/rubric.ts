import * as vscode from 'vscode';
import { calibrateJudge, type Calibration } from '../core/audit/calibrate';
import { parseRubric, rubricPrompt } from '../core/audit/rubric';
import { replaceKey } from '../core/edit/replaceKey';
import { runnableTasks } from '../core/taskfile/resolve';
import { workspaceEdit } from './convert';
import type { TaskDocuments } from './taskDocuments';
import type { TaskRunner } from './taskRunner';

export interface DraftedRubric {
  readonly rubric: readonly string[];
  readonly calibration?: Calibration;
}

/**
 * Draft rubric: asks the task's model what a good answer looks like, writes its criteria as the
 * task's `judge` verifier (one edit, undoable), then calibrates that judge on the task's cases
 * with the same model and says how far it can be trusted.
 */
export async function draftRubric(doc: vscode.TextDocument, taskId: string, documents: TaskDocuments, runner: TaskRunner): Promise<DraftedRubric | undefined> {
  const task = runnableTasks(documents.get(doc)).tasks.find((t) => t.id === taskId);
  if (!task) {
    void vscode.window.showWarningMessage(`vtask: task ${taskId} has errors or is gone; fix it first.`);
    return undefined;
  }
  const { provider, profile } = runner.providerForTask(doc, task);
  // Which model drafted (and judged) is said every time: it may be the built-in demo model.
  const model = `${profile.model} (${profile.name})`;
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `vtask: ${model} drafts a rubric for ${taskId}`, cancellable: true }, async (_p, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const [reply] = await provider.sample({ messages: rubricPrompt(task), temperature: 0.2, maxTokens: 800 }, 1, abort.signal);
    const rubric = parseRubric(reply?.text ?? '');
    if ('error' in rubric) {
      void vscode.window.showWarningMessage(`vtask: no rubric drafted: ${rubric.error} (asked ${model}).`);
      return undefined;
    }
    // The file as it is now: it may have changed while the model answered.
    const file = documents.get(doc);
    const entry = file.tasks.find((e) => e.id === taskId);
    const current = runnableTasks(file).tasks.find((t) => t.id === taskId);
    if (!entry || !current) return undefined;
    const edit = replaceKey(file, entry.index, 'verify', current.verify, { judge: { rubric } });
    if ('error' in edit) {
      void vscode.window.showWarningMessage(`vtask: cannot write the rubric: ${edit.error}`);
      return undefined;
    }
    if (!(await vscode.workspace.applyEdit(workspaceEdit(doc, edit.edit)))) return undefined;
    const judged = runnableTasks(documents.get(doc)).tasks.find((t) => t.id === taskId);
    if (!judged?.cases.length) {
      void vscode.window.showInformationMessage(`vtask: ${model} drafted ${rubric.length} criteria for ${taskId}. Add cases to calibrate the judge on.`);
      return { rubric };
    }
    const calibration = await calibrateJudge(judged, doc.uri.fsPath, { judge: () => provider, signal: abort.signal });
    if (calibration) {
      const verdict = calibration.findings.length ? `check it: ${calibration.findings.map((f) => f.reason).join('; ')}` : 'it agrees with the cases';
      void vscode.window.showInformationMessage(`vtask: ${model} drafted ${rubric.length} criteria for ${taskId}; as the judge it agreed with ${Math.round(calibration.agreement * 100)}% of the case verdicts, ${verdict}.`);
    }
    return { rubric, ...(calibration ? { calibration } : {}) };
  });
}

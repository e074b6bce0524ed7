import * as vscode from 'vscode';
import { calibrateJudge, type Calibration } from '../core/audit/calibrate';
import { parseRubric, rubricPrompt } from '../core/audit/rubric';
import { replaceKey } from '../core/edit/replaceKey';
import { runnableTasks } from '../core/taskfile/resolve';
import { isList, isRecord, recordOr } from '../core/base/record';
import { workspaceEdit } from './convert';
import type { TaskDocuments } from './taskDocuments';
import type { TaskRunner } from './taskRunner';

export interface DraftedRubric {
  readonly rubric: readonly string[];
  readonly calibration?: Calibration;
}

/** Where a drafted judge goes: beside the task's verifier (`all`: both must pass), or in its place. */
type Placement = 'beside' | 'replace';

/**
 * Asks where the judge goes when the task already checks something else (a gold answer, say):
 * replacing it unasked would drop a check the author wrote. A judge replaces a judge unasked.
 * Undefined when the author cancels.
 */
async function askPlacement(taskId: string, current: unknown): Promise<Placement | undefined> {
  const kind = Object.keys(recordOr(current))[0] ?? 'verifier';
  if (kind === 'judge') return 'replace';
  const picked = await vscode.window.showQuickPick(
    [
      { label: `Add the judge beside \`${kind}\``, description: 'all: both must pass', placement: 'beside' as const },
      {
        label: `Replace \`${kind}\` with the judge`,
        description: `the ${kind} check is removed`,
        placement: 'replace' as const,
      },
    ],
    {
      title: `Draft Rubric: ${taskId} already has a ${kind} verifier`,
      placeHolder: 'Where should the drafted judge go? (Escape cancels)',
      ignoreFocusOut: true,
    },
  );
  return picked?.placement;
}

/** The task's verifier with the judge beside it: one more child of an `all`, or an `all` of both. */
function beside(current: unknown, judge: Record<string, unknown>): Record<string, unknown> {
  return isRecord(current) && isList(current.all) ? { all: [...current.all, judge] } : { all: [current, judge] };
}

/**
 * Draft rubric: asks the author where the judge goes when the task already has another verifier,
 * asks the task's model what a good answer looks like, writes its criteria as a `judge`
 * verifier (one edit, undoable, in block style: a criterion a line), then calibrates that judge
 * on the task's cases with the same model and says how far it can be trusted.
 */
export async function draftRubric(
  doc: vscode.TextDocument,
  taskId: string,
  documents: TaskDocuments,
  runner: TaskRunner,
): Promise<DraftedRubric | undefined> {
  const task = runnableTasks(documents.get(doc)).tasks.find((t) => t.id === taskId);
  if (!task) {
    void vscode.window.showWarningMessage(`vtask: task ${taskId} has errors or is gone; fix it first.`);
    return undefined;
  }
  const placement = await askPlacement(taskId, task.verify);
  if (!placement) return undefined;
  const { provider, profile } = runner.providerForTask(doc, task);
  // Which model drafted (and judged) is said every time: it may be the built-in demo model.
  const model = `${profile.model} (${profile.name})`;
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `vtask: ${model} drafts a rubric for ${taskId}`,
      cancellable: true,
    },
    async (_p, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const [reply] = await provider.sample(
        { messages: rubricPrompt(task), temperature: 0.2, maxTokens: 800 },
        1,
        abort.signal,
      );
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
      const judge = { judge: { rubric } };
      const edit = replaceKey(
        file,
        entry.index,
        'verify',
        current.verify,
        placement === 'beside' ? beside(current.verify, judge) : judge,
      );
      if ('error' in edit) {
        void vscode.window.showWarningMessage(`vtask: cannot write the rubric: ${edit.error}`);
        return undefined;
      }
      if (!(await vscode.workspace.applyEdit(workspaceEdit(doc, edit.edit)))) return undefined;
      const judged = runnableTasks(documents.get(doc)).tasks.find((t) => t.id === taskId);
      if (!judged?.cases.length) {
        void vscode.window.showInformationMessage(
          `vtask: ${model} drafted ${rubric.length} criteria for ${taskId}. Add cases to calibrate the judge on.`,
        );
        return { rubric };
      }
      // The judge alone is calibrated, also when it stands beside another check.
      const calibration = await calibrateJudge({ ...judged, verify: judge }, doc.uri.fsPath, {
        judge: () => provider,
        signal: abort.signal,
      });
      if (calibration) {
        const verdict = calibration.findings.length
          ? `check it: ${calibration.findings.map((f) => f.reason).join('; ')}`
          : 'it agrees with the cases';
        void vscode.window.showInformationMessage(
          `vtask: ${model} drafted ${rubric.length} criteria for ${taskId}; as the judge it agreed with ${Math.round(calibration.agreement * 100)}% of the case verdicts, ${verdict}.`,
        );
      }
      return { rubric, ...(calibration ? { calibration } : {}) };
    },
  );
}

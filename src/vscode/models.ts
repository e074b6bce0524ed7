import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { editorProfile, type EditorModels } from '../core/run/editorProfile';
import type { ModelProfile } from '../core/sampling/types';
import type { TaskFile } from '../core/taskfile/parse';
import type { TaskSpec } from '../core/taskfile/resolve';
import { LM_PREFIX } from './lmProvider';
import { settingsFor } from './settings';

const plainObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The model a task samples in the editor: the task's `model:` (a profile of the file or of
 * the `vtask.models` setting), else the `vtask.model` setting; OPENAI_BASE_URL as a last
 * resort. `builtin` is the built-in demo model unless a profile takes the name. Throws a
 * message a person can act on when nothing is configured.
 */
export function profileForTask(file: TaskFile, task: TaskSpec, uri?: vscode.Uri): ModelProfile {
  const models = editorModels(uri);
  const name = task.sampling.model ?? models.model;
  // A model of VS Code's Language Model API: sampled one request at a time.
  if (name?.startsWith(LM_PREFIX))
    return {
      name,
      baseUrl: name,
      model: name.slice(LM_PREFIX.length),
      endpoint: 'chat',
      concurrency: 1,
      timeoutMs: 300_000,
    };
  try {
    return editorProfile(file, task, models);
  } catch (e) {
    throw new Error(
      `no model to sample: ${errorMessage(e)}. Set \`model:\` in the task file, or the vtask.model and vtask.models settings.`,
    );
  }
}

/** The model settings of a file's folder, as plain tables (the workbench's worker gets them too). */
export function editorModels(uri?: vscode.Uri): EditorModels {
  const settings = settingsFor(uri);
  // Only the user's own settings define the user's profiles: a workspace's settings.json comes
  // with the repository, so its profiles get secrets as a task file's do (see trust.ts).
  const inspected = vscode.workspace.getConfiguration('vtask', uri ?? null).inspect<unknown>('models');
  return {
    userModels: plainObject(inspected?.globalValue),
    workspaceModels: { ...plainObject(inspected?.workspaceValue), ...plainObject(inspected?.workspaceFolderValue) },
    ...(settings.model ? { model: settings.model } : {}),
  };
}

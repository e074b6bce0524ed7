// The model a task samples with in the editor, from plain tables: the extension passes its
// settings (the user's and the workspace's `vtask.models`, `vtask.model`), and the workbench's
// worker thread, which has no settings of its own, is handed the same ones. One rule for both,
// so the samples the workbench looks up are the ones the editor's runs cached.
import { getPair, toJS } from '../base/ynode';
import { BUILTIN_PROFILE } from '../sampling/localModels';
import { resolveProfile } from '../sampling/profiles';
import type { ModelProfile } from '../sampling/types';
import type { TaskFile } from '../taskfile/parse';
import type { TaskSpec } from '../taskfile/resolve';

/** The editor's model settings. */
export interface EditorModels {
  /** `vtask.models` of the user's own settings: only these profiles may hold secrets' names freely. */
  readonly userModels: Readonly<Record<string, unknown>>;
  /** `vtask.models` of the workspace (and folder): treated as a task file's own profiles. */
  readonly workspaceModels: Readonly<Record<string, unknown>>;
  /** `vtask.model`: the profile of tasks that name none. */
  readonly model?: string;
}

const plainObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...v } : {};

/** The `models:` table of a task file, or an empty one. */
export function fileModelTable(file: TaskFile): Record<string, unknown> {
  const models = file.parts
    .map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined))
    .find((m) => m?.type === 'map');
  return plainObject(toJS(models));
}

/**
 * The profile of `task`: its `model:` (a profile of the file, the workspace or the user), else
 * the `vtask.model` setting; OPENAI_BASE_URL as a last resort. `builtin` is the built-in demo
 * model unless a profile takes the name. Throws when nothing is configured.
 */
export function editorProfile(file: TaskFile, task: TaskSpec, m: EditorModels): ModelProfile {
  const fileModels = { ...m.workspaceModels, ...fileModelTable(file) };
  const name = task.sampling.model ?? m.model;
  const table = { ...m.userModels, ...fileModels };
  if (name === BUILTIN_PROFILE.name && !Object.prototype.hasOwnProperty.call(table, name)) return BUILTIN_PROFILE;
  return resolveProfile({ name: name || undefined, models: fileModels, userModels: m.userModels });
}

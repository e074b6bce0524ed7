import { errorMessage } from '../core/base/errorMessage';
import * as vscode from 'vscode';
import { resolveProfile } from '../core/sampling/profiles';
import type { ModelProfile } from '../core/sampling/types';
import type { TaskFile } from '../core/taskfile/parse';
import type { TaskSpec } from '../core/taskfile/resolve';
import { getPair, toJS } from '../core/base/ynode';
import { LM_PREFIX } from './lmProvider';

/**
 * The model a task samples in the editor: the task's `model:` (a profile of the file or of
 * the `vtask.models` setting), else the `vtask.model` setting; OPENAI_BASE_URL as a last
 * resort. Throws a message a person can act on when nothing is configured.
 */
export function profileForTask(file: TaskFile, task: TaskSpec): ModelProfile {
  const config = vscode.workspace.getConfiguration('vtask');
  const fromSettings = config.get<Record<string, unknown>>('models') ?? {};
  const models = file.parts.map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined)).find((m) => m?.type === 'map');
  const table = { ...fromSettings, ...((toJS(models) as Record<string, unknown>) ?? {}) };
  const name = task.sampling.model ?? config.get<string>('model') ?? undefined;
  // A model of VS Code's Language Model API: sampled one request at a time.
  if (name?.startsWith(LM_PREFIX)) return { name, baseUrl: name, model: name.slice(LM_PREFIX.length), endpoint: 'chat', concurrency: 1, timeoutMs: 300_000 };
  try {
    return resolveProfile({ name: name || undefined, models: table });
  } catch (e) {
    throw new Error(`no model to sample: ${errorMessage(e)}. Set \`model:\` in the task file, or the vtask.model and vtask.models settings.`);
  }
}

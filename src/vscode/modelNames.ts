import type * as vscode from 'vscode';
import type { TaskFile } from '../core/taskfile/parse';
import { getPair, keyName } from '../core/base/ynode';
import { settingsFor } from './settings';

/** Model profile names usable in `model:`: those of the file and those of the settings. */
export function modelNames(file: TaskFile, uri?: vscode.Uri): string[] {
  const names = new Set<string>();
  for (const part of file.parts) {
    const models = part.node ? getPair(part.node, 'models')?.value : undefined;
    if (models?.type === 'map') for (const p of models.items) names.add(keyName(p));
  }
  for (const n of Object.keys(settingsFor(uri).models)) names.add(n);
  return [...names];
}

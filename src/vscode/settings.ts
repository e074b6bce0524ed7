import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveCacheDir } from '../core/sampling/cacheDir';
import { readSettings, type EditorSettings } from './settingsSchema';

export type { EditorSettings } from './settingsSchema';

/**
 * The `vtask.*` settings that apply to a document (or, without one, to the window). Always read
 * with the document's URI: resource-scoped settings may differ per workspace folder.
 */
export function settingsFor(uri?: vscode.Uri): EditorSettings {
  // `null`, not undefined, without a document: VS Code warns when resource-scoped settings
  // are read with no scope at all.
  const config = vscode.workspace.getConfiguration('vtask', uri ?? null);
  return readSettings((key) => config.get(key));
}

/** Calls `listener` whenever a `vtask.*` setting changes (lenses, decorations and runs follow). */
export function onDidChangeSettings(listener: (e: vscode.ConfigurationChangeEvent) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('vtask')) listener(e);
  });
}

/**
 * The sample cache folder of a task file. A relative `vtask.cacheDir` is relative to the file's
 * workspace folder (the extension host's working directory means nothing to a user), or to the
 * file's own folder when it is in none.
 */
export function cacheDirFor(uri: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
  return resolveCacheDir(uri.fsPath, { cacheDir: settingsFor(uri).cacheDir || undefined, cwd: folder });
}

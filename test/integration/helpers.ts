import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Opens a file of the test workspace in an editor. */
export async function open(name: string): Promise<vscode.TextEditor> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, name));
  return vscode.window.showTextDocument(doc);
}

/** Resolves when `read` returns something truthy, checking on every diagnostics change. */
export function waitFor<T>(read: () => T | undefined | null | false, what: string, ms = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = read();
    if (first) return resolve(first);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const sub = vscode.languages.onDidChangeDiagnostics(() => {
      const v = read();
      if (v) {
        clearTimeout(timer);
        sub.dispose();
        resolve(v);
      }
    });
  });
}

/** The position just after the first occurrence of `marker` (or at its start with `before`). */
export function positionOf(doc: vscode.TextDocument, marker: string, before = false): vscode.Position {
  const i = doc.getText().indexOf(marker);
  if (i === -1) throw new Error(`marker not found: ${marker}`);
  return doc.positionAt(before ? i : i + marker.length);
}

/**
 * Starts a model server for a suite and makes it the active model, with a fresh cache folder;
 * resolves to the extension's API. The server closes when the suite ends.
 */
export function useModelServer<Api>(server: {
  listen(): Promise<unknown>;
  close(): Promise<unknown>;
  readonly url: string;
}): { api: () => Api } {
  let api: Api | undefined;
  suiteSetup(async () => {
    await server.listen();
    const config = vscode.workspace.getConfiguration('vtask');
    await config.update(
      'models',
      { test: { base_url: server.url, model: 'test-model' } },
      vscode.ConfigurationTarget.Global,
    );
    await config.update('model', 'test', vscode.ConfigurationTarget.Global);
    await config.update(
      'cacheDir',
      fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-int-cache-')),
      vscode.ConfigurationTarget.Global,
    );
    api = (await vscode.extensions.getExtension('vtask.vtask')?.activate()) as Api;
  });
  suiteTeardown(async () => {
    await server.close();
  });
  return { api: () => api as Api };
}

/** Resolves when `read` gives something truthy, polling every 50 ms for at most `ms`: what a test waits for has no event. */
export async function until<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

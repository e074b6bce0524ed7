// What the user allows outside any file, applied in the editor: the endpoints a task file's
// model profiles may send secrets to (the `vtask.trustedEndpoints` user setting, and none at all
// in an untrusted workspace), and the folders scripts and environments may read (the
// workspace folders). Held-back secrets are said in the output channel as requests go.
import * as vscode from 'vscode';
import { setProjectRoots } from '../core/sandbox';
import { onSecretsWithheld, parseEndpointRule, setSecretTrust, type EndpointRule } from '../core/sampling/trust';
import { errorMessage } from '../core/base/errorMessage';
import { onDidChangeSettings } from './settings';

/** The user-level value of a `vtask.*` setting: what a workspace's settings say does not count. */
export function userSetting<T>(key: string): T | undefined {
  return vscode.workspace.getConfiguration('vtask').inspect<T>(key)?.globalValue;
}

export function trustWiring(log: vscode.LogOutputChannel): vscode.Disposable[] {
  const apply = (): void => {
    const rules: EndpointRule[] = [];
    const entries = userSetting<unknown>('trustedEndpoints');
    for (const e of Array.isArray(entries) ? entries : []) {
      try {
        rules.push(parseEndpointRule(String(e)));
      } catch (err) {
        log.warn(`vtask.trustedEndpoints: ${errorMessage(err)}`);
      }
    }
    setSecretTrust({ rules, workspaceTrusted: vscode.workspace.isTrusted });
    setProjectRoots((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
  };
  apply();
  const stop = onSecretsWithheld((message) => log.warn(message));
  return [
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('vtask.trustedEndpoints')) apply();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(apply),
    vscode.workspace.onDidChangeWorkspaceFolders(apply),
    { dispose: stop },
  ];
}

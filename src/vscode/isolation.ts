import * as vscode from 'vscode';
import { onSandboxUse, setAllowWeakIsolation } from '../core/sandbox';
import { onDidChangeSettings, settingsFor } from './settings';

/**
 * Applies the `vtask.allowWeakIsolation` setting and says in the output channel which isolation
 * code runs under: when code first runs, and again whenever that line would change.
 */
export function isolationWiring(log: vscode.LogOutputChannel): vscode.Disposable[] {
  const apply = (): void => setAllowWeakIsolation(settingsFor().allowWeakIsolation);
  apply();
  let last = '';
  const stop = onSandboxUse((sb) => {
    const line = sb.notice();
    if (line === last) return;
    last = line;
    if (sb.level === 'full') log.info(line);
    else log.warn(line);
  });
  return [
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('vtask.allowWeakIsolation')) apply();
    }),
    { dispose: stop },
  ];
}

import * as vscode from 'vscode';

const SHOWN = 'vtask.walkthroughShown';

/**
 * Opens the getting-started walkthrough on the first activation after install, once: a new user
 * sees what to try before anything else. Never over a file the user already has open (it would
 * take the focus from it), and not in extension tests, whose editors it would cover.
 */
export function showWalkthroughOnce(context: vscode.ExtensionContext): void {
  if (context.extensionMode === vscode.ExtensionMode.Test || context.globalState.get<boolean>(SHOWN)) return;
  // A custom editor (a .parquet table activates the extension) is a file open too.
  const customTab = vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputCustom));
  if (vscode.window.visibleTextEditors.length > 0 || customTab) return;
  void context.globalState.update(SHOWN, true);
  void vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#vtask.start`, false);
}

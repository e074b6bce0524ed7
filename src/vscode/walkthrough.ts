import * as vscode from 'vscode';

const SHOWN = 'vtask.walkthroughShown';
/** How long the walkthrough waits for the editor that activated the extension. */
const CUSTOM_EDITOR_WAIT_MS = 1000;

/**
 * Opens the getting-started walkthrough on the first activation after install, once: a new user
 * sees what to try before anything else. Never over a file the user already has open (it would
 * take the focus from it), and not in extension tests, whose editors it would cover.
 */
export function showWalkthroughOnce(context: vscode.ExtensionContext): void {
  if (context.extensionMode === vscode.ExtensionMode.Test || context.globalState.get<boolean>(SHOWN)) return;
  // A custom editor (a .parquet table) that activated the extension opens just after
  // activation: the walkthrough waits for it a moment, and would otherwise replace it.
  const customTab = (): boolean =>
    vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputCustom));
  let decided = false;
  const decide = (): void => {
    if (decided) return;
    decided = true;
    clearTimeout(timer);
    sub.dispose();
    if (vscode.window.visibleTextEditors.length > 0 || customTab()) return;
    void context.globalState.update(SHOWN, true);
    void vscode.commands.executeCommand(
      'workbench.action.openWalkthrough',
      `${context.extension.id}#vtask.start`,
      false,
    );
  };
  const sub = vscode.window.tabGroups.onDidChangeTabs(() => {
    if (customTab()) decide();
  });
  const timer = setTimeout(decide, CUSTOM_EDITOR_WAIT_MS);
  context.subscriptions.push({
    dispose: () => {
      decided = true;
      clearTimeout(timer);
      sub.dispose();
    },
  });
}

// The getting-started walkthrough, offered once: on the first activation after install, as a
// walkthrough tab in an empty window, or as a prompt beside the files the user opened first.
import * as vscode from 'vscode';

const SHOWN = 'vtask.walkthroughShown';
/** How long the walkthrough waits for the editor that activated the extension. */
const CUSTOM_EDITOR_WAIT_MS = 1000;
/** The prompt's button, and its text. */
export const OPEN_WALKTHROUGH = 'Open Walkthrough';
export const WALKTHROUGH_PROMPT = 'Get started with vtask: a short walkthrough of writing and checking tasks.';

/**
 * Offers the getting-started walkthrough once, on the first activation after install: a new user
 * sees what to try before anything else. In an empty window the walkthrough opens; when a file is
 * open (the user opened it first, or the window restored it) a notification offers it instead,
 * since an editor opened now would take the focus, or the place of the file's preview tab. Either
 * way it is never offered again. Not in extension tests, whose editors it would cover.
 */
export function showWalkthroughOnce(context: vscode.ExtensionContext): void {
  if (context.extensionMode === vscode.ExtensionMode.Test || context.globalState.get<boolean>(SHOWN)) return;
  // A custom editor (a .parquet table) that activated the extension opens just after
  // activation: the walkthrough waits for it a moment, and would otherwise replace it.
  const customTab = (): boolean =>
    vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputCustom));
  // A tab of a file; VS Code's own Welcome page does not count.
  const fileTab = (): boolean =>
    vscode.window.tabGroups.all.some((g) =>
      g.tabs.some(
        (t) =>
          t.input instanceof vscode.TabInputText ||
          t.input instanceof vscode.TabInputTextDiff ||
          t.input instanceof vscode.TabInputCustom ||
          t.input instanceof vscode.TabInputNotebook,
      ),
    );
  let decided = false;
  const decide = (): void => {
    if (decided) return;
    decided = true;
    clearTimeout(timer);
    sub.dispose();
    void context.globalState.update(SHOWN, true);
    const open = (): Thenable<unknown> =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#vtask.start`, false);
    if (!fileTab() && vscode.window.visibleTextEditors.length === 0) {
      void open();
      return;
    }
    void vscode.window.showInformationMessage(WALKTHROUGH_PROMPT, OPEN_WALKTHROUGH).then((pick) => {
      if (pick === OPEN_WALKTHROUGH) void open();
    });
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

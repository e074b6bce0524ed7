import * as vscode from 'vscode';

let item: vscode.StatusBarItem | undefined;
let count = 0;

/**
 * A failure nobody clicked for: it goes to the output channel and to a status bar item that
 * stays until clicked (it opens the output), never to a pop-up. A message that vanished after
 * a few seconds was missed by anyone looking elsewhere.
 */
export function backgroundFailure(log: vscode.LogOutputChannel, what: string, error: unknown): void {
  log.error(`${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  if (!item) {
    item = vscode.window.createStatusBarItem('vtask.failures', vscode.StatusBarAlignment.Left, 0);
    item.name = 'vtask background failures';
    item.command = 'vtask.showOutput';
    item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }
  count++;
  item.text = `$(warning) vtask: ${count === 1 ? `${what} failed` : `${count} failures`}`;
  item.tooltip = `${what} failed. Click to see the details in Output › vtask.`;
  item.show();
}

/** What the failure item says while it shows (for tests), else undefined. */
export function backgroundFailureStatus(): string | undefined {
  return count > 0 ? item?.text : undefined;
}

/** Hides the item once the failures were seen in the output. */
export function clearBackgroundFailures(): void {
  count = 0;
  item?.hide();
}

export function disposeBackgroundFailures(): void {
  count = 0;
  item?.dispose();
  item = undefined;
}

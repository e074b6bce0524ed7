import * as vscode from 'vscode';

/**
 * A failure nobody clicked for: it goes to the output channel and, briefly, to the status bar,
 * never to a pop-up.
 */
export function backgroundFailure(log: vscode.LogOutputChannel, what: string, error: unknown): void {
  log.error(`${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  vscode.window.setStatusBarMessage(`$(warning) vtask: ${what} failed (see Output › vtask)`, 8000);
}

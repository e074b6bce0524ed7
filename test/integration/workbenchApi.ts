// The workbench as the integration tests drive it: through the extension's test API, with the
// messages its page would get.
import * as vscode from 'vscode';
import type { ToWorkbench } from '../../src/core/base/workbenchProtocol';

export interface Row {
  readonly n: number;
  readonly id: string;
  readonly file: string;
  readonly findings: number;
}

/** What every workbench suite needs: the page's messages (posted so far and as they come) and its handler. */
export interface WorkbenchForTests {
  readonly posted: readonly ToWorkbench[];
  readonly onDidPost: vscode.Event<ToWorkbench>;
  handle(message: unknown): Promise<void>;
}

export interface BulkWorkbench extends WorkbenchForTests {
  request(r: { op: 'window'; start: number; end: number }): Promise<Row[]>;
  request(r: { op: 'view'; query: string }): Promise<unknown>;
  request(r: { op: 'reload' }): Promise<unknown>;
  readonly bulk: {
    export(rows: string, choice: { format: string; out: string }): Promise<void>;
    readonly lastReport: { markdown: string; json: string } | undefined;
  };
}

export interface WorkbenchApi {
  workbench(uri: vscode.Uri): BulkWorkbench | undefined;
}

/** Resolves with the first message from now on that `match` accepts. */
export function next<T extends ToWorkbench['type']>(
  w: WorkbenchForTests,
  type: T,
  match: (m: Extract<ToWorkbench, { type: T }>) => boolean = () => true,
  ms = 60_000,
): Promise<Extract<ToWorkbench, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for '${type}'; posted: ${JSON.stringify(w.posted.map((m) => m.type))}`));
    }, ms);
    const sub = w.onDidPost((m) => {
      if (m.type !== type || !match(m as Extract<ToWorkbench, { type: T }>)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(m as Extract<ToWorkbench, { type: T }>);
    });
  });
}

/** Resolves with the first message that `match` accepts, posted already or later. */
export function posted<T extends ToWorkbench['type']>(
  w: WorkbenchForTests,
  type: T,
  match: (m: Extract<ToWorkbench, { type: T }>) => boolean = () => true,
  ms = 60_000,
): Promise<Extract<ToWorkbench, { type: T }>> {
  const found = w.posted.find((m) => m.type === type && match(m as Extract<ToWorkbench, { type: T }>));
  if (found) return Promise.resolve(found as Extract<ToWorkbench, { type: T }>);
  return next(w, type, match, ms);
}

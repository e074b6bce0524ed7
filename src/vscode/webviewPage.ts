// What every vtask webview needs from VS Code: scripts on, resources only from the extension's
// `out` and `media` folders, and its page built with a fresh nonce and asset URIs of this webview.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { PageOptions } from '../webview/page';

/** The webview options of every vtask page. */
export function pageWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'out'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** The page options for `webview`: its CSP source, a fresh nonce, its URIs of the extension's files. */
export function pageOptions(webview: vscode.Webview, extensionUri: vscode.Uri): PageOptions {
  return {
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    asset: (p) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p.split('/'))).toString(),
  };
}

/** Sets `panel` up for a vtask page and shows the page `html` builds. */
export function showPage(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, html: (o: PageOptions) => string): void {
  panel.webview.options = pageWebviewOptions(extensionUri);
  panel.webview.html = html(pageOptions(panel.webview, extensionUri));
}

/**
 * What a page's host posts: each message is kept (the last `keep`, for tests to read) and
 * announced (tests wait on `onDidPost`) before it goes to the webview; once the page is closed
 * messages are still kept but no longer sent.
 */
export class PageOutbox<T> implements vscode.Disposable {
  readonly posted: T[] = [];
  private readonly emitter = new vscode.EventEmitter<T>();
  readonly onDidPost = this.emitter.event;
  private closed = false;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly keep: number,
  ) {}

  post(message: T): Thenable<boolean> {
    this.posted.push(message);
    if (this.posted.length > this.keep) this.posted.shift();
    if (this.closed) return Promise.resolve(false);
    this.emitter.fire(message);
    return this.webview.postMessage(message);
  }

  dispose(): void {
    this.closed = true;
    this.emitter.dispose();
  }
}

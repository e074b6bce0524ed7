import type * as vscode from 'vscode';
import type { TaskFile } from '../core/taskfile/parse';

/** What `activate` returns: read-only views for integration tests and other extensions. */
export interface VtaskApi {
  readonly version: string;
  /** The parsed file as the extension sees it now. */
  parse(doc: vscode.TextDocument): TaskFile;
  /** Milliseconds the last (incremental) parse of the document took. */
  lastParseMs(doc: vscode.TextDocument): number | undefined;
}

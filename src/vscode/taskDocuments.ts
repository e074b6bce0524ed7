import * as vscode from 'vscode';
import { TaskFileParser, type TaskFile } from '../core/taskfile/parse';

export const VTASK_SELECTOR: vscode.DocumentSelector = { language: 'vtask' };

/**
 * Parses open task documents, once per version, with a parser per document so an edit only
 * re-parses the tasks it touched. Every feature asks here instead of parsing on its own.
 */
export class TaskDocuments implements vscode.Disposable {
  private readonly parsers = new Map<string, TaskFileParser>();
  private readonly latest = new Map<string, { version: number; file: TaskFile; ms: number }>();
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.workspace.onDidCloseTextDocument((d) => {
      this.parsers.delete(d.uri.toString());
      this.latest.delete(d.uri.toString());
    });
  }

  get(doc: vscode.TextDocument): TaskFile {
    const key = doc.uri.toString();
    const cached = this.latest.get(key);
    if (cached && cached.version === doc.version) return cached.file;
    let parser = this.parsers.get(key);
    if (!parser) this.parsers.set(key, (parser = new TaskFileParser()));
    const t0 = performance.now();
    const file = parser.parse(doc.getText());
    this.latest.set(key, { version: doc.version, file, ms: performance.now() - t0 });
    return file;
  }

  /** How long the last parse of a document took, in milliseconds (for the status and tests). */
  lastParseMs(doc: vscode.TextDocument): number | undefined {
    return this.latest.get(doc.uri.toString())?.ms;
  }

  dispose(): void {
    this.subscription.dispose();
    this.parsers.clear();
    this.latest.clear();
  }
}

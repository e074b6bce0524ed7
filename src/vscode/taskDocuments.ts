import * as vscode from 'vscode';
import type { Span } from '../core/base/ynode';
import { rowFileType } from '../core/datasets/rowFiles';
import { isRowTaskFile, MAX_ROW_TASKS, RowTaskParser } from '../core/datasets/rowTasks';
import { TaskFileParser, type TaskFile } from '../core/taskfile/parse';

export const VTASK_SELECTOR: vscode.DocumentSelector = { language: 'vtask' };

/**
 * Dataset rows, by pattern: VS Code 1.90 names `.jsonl` files `jsonl` but not `.ndjson`
 * ones, and a user's file association may name them otherwise.
 */
export const ROWS_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: '**/*.jsonl' },
  { scheme: 'file', pattern: '**/*.ndjson' },
];

/** A JSONL file, whose rows are read as tasks when they are in a dataset format. */
export function isRowDocument(doc: { readonly uri: vscode.Uri }): boolean {
  return rowFileType(doc.uri.path) === 'jsonl';
}

/** A document the editor features work on: a task file, or dataset rows. */
export function isTaskDocument(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'vtask' || isRowDocument(doc);
}

/** Lines read beyond what an editor shows, so a little scrolling finds its rows already read. */
const WINDOW_MARGIN = 100;

/**
 * Parses open task documents, once per version, with a parser per document so an edit only
 * re-parses the tasks it touched. Every feature asks here instead of parsing on its own.
 * Dataset rows are read around what the editors show (all of them in a small file), so a
 * large file costs what its visible rows cost; `onDidChangeWindow` says when that moved.
 */
export class TaskDocuments implements vscode.Disposable {
  private readonly parsers = new Map<string, TaskFileParser | RowTaskParser>();
  private readonly latest = new Map<string, { version: number; window: string; file: TaskFile; ms: number }>();
  /** The lines last shown of each row document, kept while no editor shows it (the panel has the focus). */
  private readonly windows = new Map<string, Span[]>();
  private readonly emitter = new vscode.EventEmitter<vscode.TextDocument>();
  /** Fires when the rows read of a large row document change with scrolling. */
  readonly onDidChangeWindow = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      this.emitter,
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.parsers.delete(d.uri.toString());
        this.latest.delete(d.uri.toString());
        this.windows.delete(d.uri.toString());
      }),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => this.moved(e.textEditor.document)),
      vscode.window.onDidChangeVisibleTextEditors((editors) =>
        new Set(editors.map((e) => e.document)).forEach((d) => this.moved(d)),
      ),
    ];
  }

  get(doc: vscode.TextDocument): TaskFile {
    const key = doc.uri.toString();
    const rows = isRowDocument(doc);
    const window = rows ? this.windowOf(doc) : [];
    const windowKey = JSON.stringify(window);
    const cached = this.latest.get(key);
    // A small row file is read whole, whatever is shown.
    const whole = cached && isRowTaskFile(cached.file) && cached.file.rows <= MAX_ROW_TASKS;
    if (cached && cached.version === doc.version && (cached.window === windowKey || whole)) return cached.file;
    let parser = this.parsers.get(key);
    if (!parser) this.parsers.set(key, (parser = rows ? new RowTaskParser() : new TaskFileParser()));
    const t0 = performance.now();
    const file =
      parser instanceof RowTaskParser ? parser.parse(doc.getText(), { ranges: window }) : parser.parse(doc.getText());
    this.latest.set(key, { version: doc.version, window: windowKey, file, ms: performance.now() - t0 });
    return file;
  }

  /** How long the last parse of a document took, in milliseconds (for the status and tests). */
  lastParseMs(doc: vscode.TextDocument): number | undefined {
    return this.latest.get(doc.uri.toString())?.ms;
  }

  /**
   * The lines the editors of a row document show, with a margin; the last ones shown when none
   * does; the top of the file before any editor showed it (a file being opened).
   */
  private windowOf(doc: vscode.TextDocument): Span[] {
    const key = doc.uri.toString();
    const shown = vscode.window.visibleTextEditors
      .filter((e) => e.document.uri.toString() === key)
      .flatMap((e) =>
        e.visibleRanges.map((r): Span => [Math.max(0, r.start.line - WINDOW_MARGIN), r.end.line + 1 + WINDOW_MARGIN]),
      );
    if (shown.length) this.windows.set(key, shown);
    return this.windows.get(key) ?? [[0, 2 * WINDOW_MARGIN]];
  }

  /** Tells the features to read a large row document again when its editors scrolled past what was read. */
  private moved(doc: vscode.TextDocument): void {
    if (!isRowDocument(doc)) return;
    const last = this.latest.get(doc.uri.toString())?.file;
    if (!last || !isRowTaskFile(last)) return;
    const read = last.window;
    const inside = vscode.window.visibleTextEditors
      .filter((e) => e.document === doc)
      .every((e) => e.visibleRanges.every((r) => read.some(([a, b]) => r.start.line >= a && r.end.line < b)));
    if (!inside) this.emitter.fire(doc);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.parsers.clear();
    this.latest.clear();
  }
}

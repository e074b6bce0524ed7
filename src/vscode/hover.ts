import * as vscode from 'vscode';
import { hoverAt } from '../core/language/hover';
import { isRowTaskFile } from '../core/datasets/rowTasks';
import { toRange } from './convert';
import type { Decorations } from './decorations';
import type { TaskDocuments } from './taskDocuments';

/** Documentation of keys, verifier kinds and instruction ids, from the registry. */
export class HoverProvider implements vscode.HoverProvider {
  constructor(private readonly documents: TaskDocuments) {}

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const h = hoverAt(doc.getText(), doc.offsetAt(position));
    if (!h) return undefined;
    return new vscode.Hover(
      new vscode.MarkdownString(h.markdown),
      toRange(this.documents.get(doc).lines, h.start, h.end),
    );
  }
}

/**
 * The result of a dataset row (JSONL), over the whole row: its summary before the row may be
 * narrow, and a row is too long to hover its end.
 */
export class RowHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly documents: TaskDocuments,
    private readonly decorations: Decorations,
  ) {}

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const file = this.documents.get(doc);
    if (!isRowTaskFile(file)) return undefined;
    const shown = this.decorations.compute(doc.uri, file).summaries.find((s) => s.range.start.line === position.line);
    const md = shown?.hoverMessage;
    return md instanceof vscode.MarkdownString ? new vscode.Hover(md, doc.lineAt(position.line).range) : undefined;
  }
}

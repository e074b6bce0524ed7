import * as vscode from 'vscode';
import { hoverAt } from '../core/language/hover';
import { toRange } from './convert';
import type { TaskDocuments } from './taskDocuments';

/** Documentation of keys, verifier kinds and instruction ids, from the registry. */
export class HoverProvider implements vscode.HoverProvider {
  constructor(private readonly documents: TaskDocuments) {}

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const h = hoverAt(doc.getText(), doc.offsetAt(position));
    if (!h) return undefined;
    return new vscode.Hover(new vscode.MarkdownString(h.markdown), toRange(this.documents.get(doc).lines, h.start, h.end));
  }
}

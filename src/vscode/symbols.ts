import * as vscode from 'vscode';
import { outline, type OutlineItem } from '../core/language/outline';
import { toRange } from './convert';
import type { TaskDocuments } from './taskDocuments';

const KIND: Record<OutlineItem['kind'], vscode.SymbolKind> = {
  task: vscode.SymbolKind.Function,
  verifier: vscode.SymbolKind.Class,
  cases: vscode.SymbolKind.Array,
  section: vscode.SymbolKind.Namespace,
};

/** The outline: one symbol per task, with its verifier and cases inside. */
export class SymbolProvider implements vscode.DocumentSymbolProvider {
  constructor(private readonly documents: TaskDocuments) {}

  provideDocumentSymbols(doc: vscode.TextDocument): vscode.DocumentSymbol[] {
    const file = this.documents.get(doc);
    const convert = (o: OutlineItem): vscode.DocumentSymbol => {
      const range = toRange(file.lines, o.start, o.end);
      const sel =
        range.intersection(toRange(file.lines, o.selectionStart, o.selectionEnd)) ??
        range.with(range.start, range.start);
      const s = new vscode.DocumentSymbol(o.name, o.detail, KIND[o.kind], range, sel);
      s.children = o.children.map(convert);
      return s;
    };
    return outline(file).map(convert);
  }
}

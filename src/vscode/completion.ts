import * as vscode from 'vscode';
import { completeAt, type CompletionKind } from '../core/language/completion';
import type { TaskDocuments } from './taskDocuments';
import { modelNames } from './modelNames';
import { toRange } from './convert';

const KIND: Record<CompletionKind, vscode.CompletionItemKind> = {
  key: vscode.CompletionItemKind.Property,
  verifier: vscode.CompletionItemKind.Class,
  instruction: vscode.CompletionItemKind.Function,
  value: vscode.CompletionItemKind.Value,
};

/** Keys, verifier kinds, instruction ids with their kwargs, and values, from the registry. */
export class CompletionProvider implements vscode.CompletionItemProvider {
  constructor(private readonly documents: TaskDocuments) {}

  provideCompletionItems(doc: vscode.TextDocument, position: vscode.Position): vscode.CompletionItem[] {
    const file = this.documents.get(doc);
    const offset = doc.offsetAt(position);
    return completeAt(doc.getText(), offset, modelNames(file, doc.uri)).map((c) => {
      const item = new vscode.CompletionItem(c.label, KIND[c.kind]);
      item.detail = c.detail;
      item.documentation = new vscode.MarkdownString(c.documentation);
      item.insertText = new vscode.SnippetString(c.insert);
      item.range = toRange(file.lines, c.start, c.end);
      if (c.sort) item.sortText = c.sort;
      return item;
    });
  }
}

// The language features through the real VS Code API: problems, completion, hover, outline, fixes.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { open, positionOf, waitFor } from './helpers';

function diagnosticsOf(doc: vscode.TextDocument): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask');
}

async function completionLabels(doc: vscode.TextDocument, pos: vscode.Position): Promise<string[]> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>(
    'vscode.executeCompletionItemProvider',
    doc.uri,
    pos,
  );
  return list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
}

suite('language features', () => {
  test('one problem per mistake, at the exact range, with a suggestion', async () => {
    const { document: doc } = await open('mistakes.vtask');
    const diags = await waitFor(
      () => (diagnosticsOf(doc).length >= 5 ? diagnosticsOf(doc) : undefined),
      'five problems',
    );
    const got = diags
      .map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.character + 1} ${d.message}`)
      .sort();
    assert.deepEqual(got, [
      '14:7-12 unknown verifier kind `maths` (did you mean `math`?)',
      '16:9-16 duplicate task id `dw/typo`: it is already used on line 6',
      '25:11-42 `length_constraints:number_words` needs `relation` (one of `less than`, `at least`)',
      '33:17-23 `expect` must be `pass`, `fail` or `{ score: 0.5 }`, not the text "passed" (did you mean `pass`?)',
      '7:5-10 unknown key `promt` in a task (did you mean `prompt`?)',
    ]);
    assert.ok(diags.every((d) => d.severity === vscode.DiagnosticSeverity.Error));
  });

  test('quick fix applies the suggestion', async () => {
    const editor = await open('mistakes.vtask');
    const doc = editor.document;
    const diag = await waitFor(
      () => diagnosticsOf(doc).find((d) => d.message.includes('`maths`')),
      'the maths problem',
    );
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      diag.range,
    );
    const fix = actions.find((a) => a.title === 'Change to `math`');
    assert.ok(fix?.edit, `no quick fix among ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.equal(doc.lineAt(diag.range.start.line).text.trim(), 'math: { answer: "6" }');
    await waitFor(() => !diagnosticsOf(doc).some((d) => d.message.includes('`maths`')), 'the problem to go away');
    await vscode.commands.executeCommand('undo');
  });

  test('problems follow edits (debounced re-validation)', async () => {
    const editor = await open('editing.vtask');
    const doc = editor.document;
    await waitFor(() => diagnosticsOf(doc).length === 0 || undefined, 'a clean file');
    const pos = positionOf(doc, 'relation: less than', true);
    await editor.edit((b) => b.replace(new vscode.Range(pos, pos.translate(0, 'relation'.length)), 'relaton'));
    const d = await waitFor(
      () => diagnosticsOf(doc).find((x) => x.message.includes('`relaton`')),
      'the typo to be reported',
    );
    assert.equal(d.range.start.line, pos.line);
    assert.equal(d.range.start.character, pos.character);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => diagnosticsOf(doc).length === 0 || undefined, 'the problem to clear after undo');
  });

  test('completion offers verifier kinds, instruction ids with kwargs, keys and expect values', async () => {
    const editor = await open('editing.vtask');
    const doc = editor.document;
    // Kinds, where a verifier goes.
    const kindPos = positionOf(doc, 'math: { answer: "42" }', true);
    const kinds = await completionLabels(doc, kindPos);
    for (const k of ['math', 'constraints', 'code', 'judge', 'all', 'weighted'])
      assert.ok(kinds.includes(k), `missing kind ${k}`);
    // Instruction ids, in a constraints list.
    const idPos = positionOf(doc, '- punctuation:no_comma');
    const ids = await completionLabels(doc, idPos);
    assert.ok(ids.includes('length_constraints:number_words'));
    assert.ok(ids.includes('vtask:words_start_with'));
    assert.ok(ids.includes('count:word_count_range'));
    const list = await vscode.commands.executeCommand<vscode.CompletionList>(
      'vscode.executeCompletionItemProvider',
      doc.uri,
      idPos,
    );
    const nw = list.items.find((i) => i.label === 'length_constraints:number_words');
    const snippet = nw?.insertText instanceof vscode.SnippetString ? nw.insertText.value : String(nw?.insertText);
    assert.match(snippet, /relation: \$\{\d\|less than,at least\|\}/);
    assert.match(snippet, /num_words: \$\{\d:/);
    // Task keys.
    const keyPos = positionOf(doc, '    prompt: Add two numbers', true).translate(0, 4);
    const keys = await completionLabels(doc, keyPos);
    for (const k of ['prompt', 'verify', 'cases', 'samples', 'messages'])
      assert.ok(keys.includes(k), `missing key ${k}`);
    // Expect values.
    const expectPos = positionOf(doc, 'expect: ');
    const values = await completionLabels(doc, expectPos);
    assert.ok(values.includes('pass') && values.includes('fail'));
  });

  test('hover documents verifier kinds, instruction ids and keys', async () => {
    const { document: doc } = await open('editing.vtask');
    const hoverText = async (marker: string): Promise<string> => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        positionOf(doc, marker, true).translate(0, 2),
      );
      return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    };
    assert.match(await hoverText('math: { answer'), /mathematically equivalent/);
    assert.match(await hoverText('length_constraints:number_words'), /num_words/);
    assert.match(await hoverText('length_constraints:number_words'), /IFEval/);
    assert.match(await hoverText('language: python'), /python/);
  });

  test('the outline has one symbol per task', async () => {
    const { document: doc } = await open('editing.vtask');
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>(
      'vscode.executeDocumentSymbolProvider',
      doc.uri,
    );
    const tasks = symbols.filter((s) => s.kind === vscode.SymbolKind.Function);
    assert.deepEqual(
      tasks.map((s) => s.name),
      ['edit/math', 'edit/constraints', 'edit/code'],
    );
    assert.equal(tasks[0]?.range.start.line, 4);
    assert.deepEqual(
      tasks[0]?.children.map((c) => c.name),
      ['math', 'cases'],
    );
  });
});

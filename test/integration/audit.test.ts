// The verifier audit in a real VS Code: the Audit lens, findings as warnings at `verify:`, and
// the quick fix that writes the probe as a case, which fails while the verifier is weak and
// passes once it is tightened; for an agent task, the probe's calls go into the case too.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { OpenAIServer } from '../support/openaiServer';
import { open, positionOf, until, useModelServer } from './helpers';

suite('audit', () => {
  test('Audit lens → warning at the verifier → quick fix adds the probe as a case: ✗ while weak, ✓ once the offered fix tightens it', async () => {
    const { document: doc } = await open('audit.vtask');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const lens = lenses.find((l) => l.command?.title === 'Audit');
    assert.ok(lens?.command, `lenses: ${lenses.map((l) => l.command?.title).join(', ')}`);
    await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));

    const audit = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask audit');
    const hedge = audit.find((d) => d.code === 'audit:hedge-gold-first');
    assert.ok(hedge, audit.map((d) => d.message).join('\n'));
    assert.equal(hedge.severity, vscode.DiagnosticSeverity.Warning);
    assert.equal(hedge.range.start.line, positionOf(doc, 'verify:', true).line, 'at the verify key');
    assert.match(hedge.message, /^audit \(high\): probe hedge-gold-first passed but should fail/);

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      hedge.range,
    );
    const fix = actions.find((a) => a.title === 'Add probe "hedge-gold-first" as a case (expect fail)');
    assert.ok(fix?.command, actions.map((a) => a.title).join(', '));
    const cases = await vscode.commands.executeCommand<{ ok: boolean }[]>(
      fix.command.command,
      ...(fix.command.arguments ?? []),
    );
    assert.match(doc.getText(), /cases:\n\s+- response: "?The answer is Paris or Lyon\."?\n\s+expect: fail/);
    assert.deepEqual(
      cases?.map((c) => c.ok),
      [false],
      'the weak verifier passes the hedge, so the case fails',
    );
    assert.equal(
      vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask audit').length,
      0,
      'findings are cleared by the edit',
    );

    // Audit again, and take the fix it offers: a normalized match needs the whole answer to be Paris.
    await vscode.commands.executeCommand('vtask.auditTask', doc.uri, 'audit/capital');
    const again = vscode.languages.getDiagnostics(doc.uri).find((d) => d.code === 'audit:hedge-gold-first');
    assert.ok(again);
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      again.range,
    );
    assert.ok(
      !fixes.some((a) => a.title.startsWith('Add probe "hedge-gold-first"')),
      'the probe is a case already: not offered again',
    );
    const tighten = fixes.find((a) => a.title === 'Match the whole answer (`mode: normalized`) instead of `contains`');
    assert.ok(tighten?.edit, fixes.map((a) => a.title).join(', '));
    assert.ok(await vscode.workspace.applyEdit(tighten.edit));
    assert.match(doc.getText(), /verify:\n?\s*(?:\{ )?match:.*mode: normalized/s);
    const after = await vscode.commands.executeCommand<{ ok: boolean }[]>('vtask.runCases', doc.uri, 'audit/capital');
    assert.deepEqual(
      after?.map((c) => c.ok),
      [true],
    );
  });
});

suite('audit fixes', () => {
  test('"Use a `math` verifier" keeps `verify:` where it was, before the cases, in block style', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const uri = vscode.Uri.joinPath(folder, 'numeric.vtask');
    await vscode.workspace.fs.writeFile(
      uri,
      new TextEncoder().encode(`vtask: 1
tasks:
  - id: audit/clips
    prompt: "Natalia sold 48 clips in April and half as many in May. How many in all?"
    verify:
      match: { answer: "72", mode: contains }
    cases:
      - response: "72"
        expect: pass
`),
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('vtask.auditTask', doc.uri, 'audit/clips');
    const finding = vscode.languages.getDiagnostics(doc.uri).find((d) => d.source === 'vtask audit');
    assert.ok(finding, 'the audit found the contains-match weak');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      finding.range,
    );
    const fix = actions.find((a) => a.title === 'Use a `math` verifier for this numeric answer');
    assert.ok(fix?.edit, actions.map((a) => a.title).join(', '));
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(
      doc.getText(),
      /    prompt: .*\n    verify:\n      math:\n        answer: "72"\n    cases:\n      - response: "72"\n/,
    );
  });
});

suite('audit of an agent task', () => {
  suiteSetup(() => {
    // Run as root, the sandbox drops the environment to `nobody`, who must be able to reach
    // the workspace: the runner's temporary parent folder is private (0700) to root.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (folder && process.getuid?.() === 0) fs.chmodSync(path.dirname(folder), 0o755);
  });

  test('probes replay in the environment; the quick fix writes the probe with its calls, and the case replays them', async function () {
    this.timeout(120_000);
    const { document: doc } = await open('agentAudit.vtask');
    const audited = await vscode.commands.executeCommand<
      { task: string; findings: { probe: string }[]; skipped: number }[]
    >('vtask.auditTask', doc.uri, 'agent/audit');
    const audit = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'vtask audit');
    if (!vscode.workspace.isTrusted) {
      // Restricted Mode: no environment starts, and the probes are skipped, not passed.
      assert.deepEqual(audit, []);
      assert.ok(audited?.[0]?.skipped, JSON.stringify(audited));
      return;
    }
    const wrong = audit.find((d) => d.code === 'audit:agent-wrong-args-case0-1');
    assert.ok(wrong, audit.map((d) => d.message).join('\n'));
    assert.equal(wrong.severity, vscode.DiagnosticSeverity.Information);
    assert.equal(wrong.range.start.line, positionOf(doc, 'verify:', true).line, 'at the verify key');
    assert.match(wrong.message, /\ncalls: \[\{"get":\{"key":"Lyon"\}\}\]$/);

    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      wrong.range,
    );
    const fix = actions.find((a) => a.title === 'Add probe "agent-wrong-args-case0-1" as a case (expect fail)');
    assert.ok(fix?.command, actions.map((a) => a.title).join(', '));
    const cases = await vscode.commands.executeCommand<
      { ok: boolean; trajectory?: { steps: { call: { name: string; arguments: string } }[] } }[]
    >(fix.command.command, ...(fix.command.arguments ?? []));
    assert.match(doc.getText(), /- calls: \[\{ get: \{ key: Lyon \} \}\]\n\s+response: Paris\n\s+expect: fail\n$/);
    const added = cases?.at(-1);
    assert.deepEqual(
      cases?.map((c) => c.ok),
      [true, false],
      'the weak verifier passes the call for show, so the new case fails',
    );
    assert.deepEqual(
      added?.trajectory?.steps.map((s) => [s.call.name, s.call.arguments]),
      [['get', '{"key":"Lyon"}']],
      "the case replayed the probe's call",
    );
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
  });
});

suite('draft rubric', () => {
  // The model drafts two criteria when asked for a rubric, and judges by them when asked to grade.
  const server = new OpenAIServer({
    answer: (ctx) => {
      const system = ctx.messages?.[0]?.content ?? '';
      if (system.includes('grading rubrics'))
        return '```json\n["Names Paris as the capital of France", "Answers in one sentence"]\n```';
      const criteria = [...ctx.prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1] ?? '');
      const { response } = JSON.parse(ctx.prompt.slice(ctx.prompt.indexOf('{'))) as { response: string };
      return JSON.stringify({
        criteria: criteria.map((c, i) => ({
          id: i + 1,
          met: c.includes('Paris') ? response.includes('Paris') : true,
          why: 'read',
        })),
      });
    },
  });
  useModelServer(server);
  type Drafted = { rubric: string[]; calibration?: { agreement: number; findings: unknown[] } };

  /** Runs Draft Rubric and answers its question with `choose` (the quick pick's commands), resolving to what it drafted. */
  async function draft(doc: vscode.TextDocument, choose: readonly string[]): Promise<Drafted | undefined> {
    let settled = false;
    const done = Promise.resolve(
      vscode.commands.executeCommand<Drafted | undefined>('vtask.draftRubric', doc.uri, 'rubric/capital'),
    ).finally(() => (settled = true));
    // The question is a quick pick of the workbench: it is answered as a user would, once shown.
    await until(async () => {
      if (settled) return true;
      await new Promise((r) => setTimeout(r, 300));
      for (const command of choose) await vscode.commands.executeCommand(command);
      return settled;
    }, 'Draft Rubric to settle once its question is answered');
    return done;
  }

  test('Draft Rubric asks before touching a gold-answer check; Cancel leaves the task as it was', async () => {
    const { document: doc } = await open('rubric.vtask');
    const before = doc.getText();
    const requests = server.samplingRequests.length;
    assert.equal(await draft(doc, ['workbench.action.closeQuickOpen']), undefined);
    assert.equal(doc.getText(), before);
    assert.equal(server.samplingRequests.length, requests, 'the model was not asked');
  });

  test('Draft Rubric, Replace: a judge verifier in place of the old one, a criterion a line, in one undoable edit, calibrated on the cases', async () => {
    const { document: doc } = await open('rubric.vtask');
    const before = doc.getText();
    const drafted = await draft(doc, [
      'workbench.action.quickOpenSelectNext',
      'workbench.action.acceptSelectedQuickOpenItem',
    ]);
    assert.deepEqual(drafted?.rubric, ['Names Paris as the capital of France', 'Answers in one sentence']);
    assert.match(
      doc.getText(),
      /prompt: .*\n    verify:\n      judge:\n        rubric:\n          - Names Paris as the capital of France\n          - Answers in one sentence\n    cases:/,
    );
    assert.doesNotMatch(doc.getText(), /mode: contains/);
    assert.match(doc.getText(), /expect: fail \}/, 'the cases are kept');
    assert.equal(drafted?.calibration?.agreement, 1, 'the judge agrees with both cases, each judged 3 times');
    assert.deepEqual(drafted?.calibration?.findings, []);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before, 'one Undo takes the rubric back');
  });

  test('Draft Rubric, Add beside: the gold-answer check stays, and the judge joins it under `all`', async () => {
    const { document: doc } = await open('rubric.vtask');
    const before = doc.getText();
    const drafted = await draft(doc, ['workbench.action.acceptSelectedQuickOpenItem']);
    assert.equal(drafted?.calibration?.agreement, 1, 'the judge itself is calibrated');
    assert.match(
      doc.getText(),
      /    verify:\n      all:\n        - match:\n            answer: Paris\n            mode: contains\n        - judge:\n            rubric:\n              - Names Paris as the capital of France\n              - Answers in one sentence\n    cases:/,
    );
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.equal(doc.getText(), before);
  });

  test('the panel audits the task it shows, and a finding becomes a case from there', async () => {
    const editor = await open('rubric.vtask');
    const at = positionOf(editor.document, 'What is the capital', true);
    editor.selection = new vscode.Selection(at, at);
    const panel = await vscode.commands.executeCommand<{
      follow(e: vscode.TextEditor): void;
      handle(m: unknown): Promise<void>;
      lastView?: {
        audit?: { findings: { probe: string; severity: string; isCase?: boolean }[]; fixes?: string[] };
        cases: { expected: string; ok?: boolean }[];
      };
    }>('vtask.openPanel');
    panel.follow(editor);
    await panel.handle({ type: 'audit', task: 'rubric/capital' });
    const findings = panel.lastView?.audit?.findings ?? [];
    assert.ok(
      findings.some((f) => f.probe === 'hedge-gold-first' && f.severity === 'high'),
      JSON.stringify(findings),
    );
    await panel.handle({ type: 'addProbeCase', task: 'rubric/capital', probe: 'hedge-gold-first' });
    assert.match(editor.document.getText(), /- \{ response: "?The answer is Paris or Lyon\."?, expect: fail \}/);
    assert.deepEqual(
      panel.lastView?.cases.map((c) => [c.expected, c.ok]).at(-1),
      ['fail', false],
      'the weak verifier passes the hedge, so the new case fails',
    );
    assert.equal(panel.lastView?.audit, undefined, 'the audit described the task before the edit');
    // Audited again: the probe is a case now, so it is not offered again; the verifier fix is offered, as in the editor.
    await panel.handle({ type: 'audit', task: 'rubric/capital' });
    // Read through a function: the assertion above narrowed `lastView.audit` to undefined.
    const audit = (): { findings: { probe: string; isCase?: boolean }[]; fixes?: string[] } | undefined =>
      panel.lastView?.audit;
    assert.equal(audit()?.findings.find((f) => f.probe === 'hedge-gold-first')?.isCase, true);
    const fix = 'Match the whole answer (`mode: normalized`) instead of `contains`';
    assert.deepEqual(audit()?.fixes, [fix]);
    await panel.handle({ type: 'applyFix', task: 'rubric/capital', title: fix });
    assert.match(
      editor.document.getText(),
      /    verify:\n      match:\n        answer: Paris\n        mode: normalized\n    cases:/,
    );
    const cases = await vscode.commands.executeCommand<{ ok: boolean }[]>(
      'vtask.runCases',
      editor.document.uri,
      'rubric/capital',
    );
    assert.equal(cases?.at(-1)?.ok, true, 'the hedge case passes with the fixed verifier');
  });
});

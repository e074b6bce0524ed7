// The workbench's samples view, host side: passes the page's requests to the worker (which reads
// and verifies the samples), opens a sample's task, and adds samples as cases of their tasks with
// the task panel's Add as case edit, in the open documents, then saves them.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RowSet } from '../core/base/rowSet';
import type { FromWorkbench, ToWorkbench } from '../core/base/workbenchProtocol';
import { rowFileType } from '../core/datasets/rowFiles';
import { cut } from '../core/util/cut';
import { plural } from '../core/util/plural';
import type { WorkbenchClient } from '../core/workbench/client';
import { editorModels } from './models';

type SamplesMessage = Extract<FromWorkbench, { type: 'samples' | 'sampleWindow' | 'addCases' | 'openSample' }>;

export interface SamplesHost {
  readonly target: vscode.Uri;
  readonly root: string;
  readonly log: vscode.LogOutputChannel;
  client(): Promise<WorkbenchClient>;
  post(m: ToWorkbench): Thenable<boolean>;
  /** Opens row `n`'s task where it is written. */
  open(n: number): Promise<void>;
}

/** Characters of a note the page is sent. */
const NOTE_CHARS = 2000;

/** Whether a message is the samples view's. */
export function isSamplesMessage(m: FromWorkbench): m is SamplesMessage {
  return m.type === 'samples' || m.type === 'sampleWindow' || m.type === 'addCases' || m.type === 'openSample';
}

/** Acts on a message of the samples view. */
export async function actOnSamples(h: SamplesHost, msg: SamplesMessage): Promise<void> {
  const client = await h.client();
  switch (msg.type) {
    case 'samples': {
      const r = await client.request({
        op: 'samples',
        state: msg.state,
        ...(msg.rows ? { rows: msg.rows } : {}),
        ...(msg.fresh ? { fresh: true } : {}),
        models: editorModels(h.target),
        trusted: vscode.workspace.isTrusted,
      });
      await h.post({
        type: 'samples',
        seq: msg.seq,
        collection: r.collection,
        total: r.total,
        counts: r.counts,
        groups: [...r.groups.slice(0, 10_000)],
        notes: r.notes.slice(0, 100).map((n) => cut(n, NOTE_CHARS)),
      });
      return;
    }
    case 'sampleWindow': {
      const items = await client.request({
        op: 'sampleWindow',
        collection: msg.collection,
        group: msg.group,
        start: msg.start,
        end: msg.end,
      });
      await h.post({ type: 'sampleItems', seq: msg.seq, group: msg.group, start: msg.start, items });
      return;
    }
    case 'openSample': {
      if (msg.where === 'task') return h.open(msg.row);
      const [row] = await client.request({ op: 'rowsByNumber', rows: RowSet.range(msg.row, msg.row + 1).encode() });
      if (!row) return;
      if (rowFileType(row.file)) {
        await h.open(msg.row);
        return;
      }
      const uri = vscode.Uri.file(path.resolve(h.root, row.file));
      // The panel shows the samples of the task's open document (restored from the cache).
      await vscode.workspace.openTextDocument(uri);
      await vscode.commands.executeCommand('vtask.openPanel', uri, row.id, msg.index);
      return;
    }
    case 'addCases':
      await addCases(h, client, msg);
      return;
  }
}

/**
 * Adds the samples picked as cases expecting the verdict the user chose, file by file: each
 * file's cases are added to its text one after the other (in the worker, to the text this
 * editor holds), the document changed by one edit (so one undo takes them back) and saved.
 * Rows of JSONL and Parquet files are read-only: said so.
 */
async function addCases(
  h: SamplesHost,
  client: WorkbenchClient,
  msg: Extract<SamplesMessage, { type: 'addCases' }>,
): Promise<void> {
  const pick = {
    collection: msg.collection,
    ...(msg.group !== undefined ? { group: msg.group } : {}),
    ...(msg.ids ? { ids: msg.ids } : {}),
  };
  // The worker picks the samples and edits the texts; the host only asks, and applies the edits.
  const picked = await client.request({ op: 'casesSummary', ...pick });
  const readOnly = picked.readOnly
    ? `${plural(picked.readOnly, 'sample')} of JSONL or Parquet rows cannot become cases: a row is read-only (\`vtask import\` makes it a task file, whose tasks take cases).`
    : '';
  if (!picked.cases) {
    await h.post({
      type: 'notice',
      level: 'warning',
      text: `Nothing was added. ${readOnly || 'No sample is picked.'}`,
    });
    return;
  }
  let expect = msg.expect;
  const what = `${plural(picked.cases, 'sample')} as cases of ${plural(picked.tasks, 'task')}`;
  if (!expect) {
    const choice = await vscode.window.showWarningMessage(
      `Add ${what}? Each case expects the verdict you choose.${readOnly ? ` ${readOnly}` : ''}`,
      { modal: true },
      'Expect pass',
      'Expect fail',
    );
    if (!choice) return;
    expect = choice === 'Expect pass' ? 'pass' : 'fail';
  } else if (
    !msg.confirmed &&
    (await vscode.window.showWarningMessage(`Add ${what}, each expecting ${expect}?`, { modal: true }, 'Add')) !== 'Add'
  )
    return;
  const docs = new Map<string, vscode.TextDocument>();
  for (const file of picked.files)
    docs.set(file, await vscode.workspace.openTextDocument(vscode.Uri.file(path.resolve(h.root, file))));
  const versions = new Map([...docs].map(([file, doc]) => [file, doc.version]));
  const edits = await client.request({
    op: 'casesEdits',
    ...pick,
    expect,
    texts: [...docs].map(([file, doc]) => [file, doc.getText()] as const),
  });
  let added = 0;
  const errors: string[] = [];
  for (const e of edits) {
    errors.push(...e.errors.map((x) => `${e.file}: ${x}`));
    const doc = docs.get(e.file);
    if (!e.added || !doc) continue;
    // Edited meanwhile: the span is of the text the worker was given, no longer of this one.
    if (doc.version !== versions.get(e.file)) {
      errors.push(`${e.file}: the file changed while its cases were made; add them again`);
      continue;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.start), doc.positionAt(e.end)), e.text);
    if (!(await vscode.workspace.applyEdit(edit))) {
      errors.push(`${e.file}: VS Code refused the edit (is the file read-only?)`);
      continue;
    }
    await doc.save();
    added += e.added;
  }
  for (const e of errors) h.log.warn(`case not added: ${e}`);
  const files = picked.files.length;
  await h.post({
    type: 'notice',
    level: errors.length || readOnly ? 'warning' : 'info',
    text: cut(
      `Added ${plural(added, 'case')} expecting ${expect} to ${plural(picked.tasks, 'task')} in ${plural(files, 'file')}.${errors.length ? ` ${plural(errors.length, 'case')} could not be added: ${errors[0]}` : ''}${readOnly ? ` ${readOnly}` : ''}`,
      NOTE_CHARS,
    ),
  });
  await h.post({ type: 'casesAdded', added });
}

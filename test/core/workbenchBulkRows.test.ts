// The workbench's bulk actions on dataset rows: JSONL rows (verl and open-instruct) and Parquet
// rows are the tasks they stand for. The audit finds a weak verifier in a row, as `vtask audit`
// of the file does, and its counts are read back with the table; the export, in its worker, is
// byte for byte what `vtask export` writes for the same rows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { WEAK_TASKS, writeWeakRows } from '../support/weakRows';
import { auditSelection, selectionFiles, packSelection } from '../../src/core/workbench/bulk';
import { startBulkJob } from '../../src/core/workbench/bulkJob';
import { collectWorkbench } from '../../src/core/workbench/collect';
import { rememberFindings } from '../../src/core/workbench/findingsStore';
import type { WorkbenchIndex, WorkbenchRowView } from '../../src/core/workbench/index';

const CLI = path.resolve('out/cli.js');
const WORKER = path.resolve(__dirname, '../../workbenchWorker.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-workbench-rows-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** In the table's order (by path), which the bulk actions follow. */
const FILES = ['data/oi.jsonl', 'data/rows.parquet', 'data/verl.jsonl'];

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8' });
}

let index: WorkbenchIndex;
const rowsOf = (i: WorkbenchIndex): WorkbenchRowView[] => Array.from({ length: i.size }, (_, n) => i.row(n));

before(async () => {
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'data'));
  fs.writeFileSync(path.join(root, 'src/w.vtask'), WEAK_TASKS);
  // The rows as a lab has them: verl's Parquet, the same rows as JSON lines, open-instruct's JSONL.
  await writeWeakRows(path.join(root, 'data/rows.parquet'), path.join(root, 'data/verl.jsonl'));
  const r = cli('export', 'src/w.vtask', '-f', 'open-instruct', '--lossy', '-o', 'data/oi.jsonl');
  assert.equal(r.status, 0, r.stderr);
  index = (await collectWorkbench([path.join(root, 'data')], { root })).index;
});

test("the audit of selected rows finds a row's weak verifier, as vtask audit of its file does, and keeps it", async () => {
  const s = selectionFiles(rowsOf(index));
  assert.deepEqual([[...s.files.keys()], s.tasks, s.invalidRows], [FILES, 5, 0]);
  const audits = await auditSelection(s, { root, trusted: false });
  assert.equal(audits.length, 5);
  for (const file of ['data/rows.parquet', 'data/verl.jsonl']) {
    const weak = audits.find((a) => a.file === file && a.audit.task === 'anything');
    assert.ok(weak, file);
    assert.equal(weak.line, 2);
    assert.equal(weak.n, index.rowOf(file, 'anything'));
    assert.ok(
      weak.audit.findings.some((f) => f.probe === 'empty' && f.severity === 'critical'),
      `${file}: a regex accepting anything passes an empty answer`,
    );
  }
  // The findings of `vtask audit` of the same files, probe for probe.
  const r = cli('audit', ...FILES, '--json');
  assert.equal(r.status, 1, r.stderr);
  const byCli = (JSON.parse(r.stdout) as { tasks: { file: string; task: string; findings: { probe: string }[] }[] })
    .tasks;
  assert.deepEqual(
    byCli.map((t) => `${t.file}:${t.task}:${t.findings.map((f) => f.probe).join(',')}`).sort(),
    audits.map((a) => `${a.file}:${a.audit.task}:${a.audit.findings.map((f) => f.probe).join(',')}`).sort(),
  );

  // Kept with the cache, keyed by the row's task: the table read again shows the counts.
  rememberFindings(
    audits.map((a) => ({ file: a.file, id: a.audit.task, key: a.key, findings: a.audit.findings.length })),
    { root },
  );
  const again = (await collectWorkbench([path.join(root, 'data')], { root })).index;
  for (const a of audits)
    assert.equal(
      again.row(again.rowOf(a.file, a.audit.task) as number).findings,
      a.audit.findings.length,
      `${a.file}:${a.audit.task}`,
    );

  // The row changed (its verifier now exact): its findings are stale, not shown.
  const jsonl = path.join(root, 'data/verl.jsonl');
  fs.writeFileSync(jsonl, fs.readFileSync(jsonl, 'utf8').replace(/\.\*/g, '[0-9]+'));
  const changed = (await collectWorkbench([path.join(root, 'data')], { root })).index;
  assert.equal(changed.row(changed.rowOf('data/verl.jsonl', 'anything') as number).findings, -1);
  assert.ok(changed.row(changed.rowOf('data/rows.parquet', 'anything') as number).findings > 0);
});

test("the export of selected rows, in the bulk worker, is vtask export's bytes for those rows", async () => {
  const selection = packSelection(selectionFiles(rowsOf(index)));
  for (const [format, name] of [
    ['trl', 'rows.jsonl'],
    ['verl', 'rows.parquet'],
    ['openai-rft', 'rows.jsonl'],
  ] as const) {
    const r = cli('export', ...FILES, '-f', format, '-o', `cli-${format}-${name}`);
    assert.equal(r.status, 0, r.stderr);
    const done: number[] = [];
    const out = path.join(root, `bulk-${format}-${name}`);
    const result = await startBulkJob(
      WORKER,
      { action: 'export', root, selection, format, out, shown: path.basename(out) },
      { signal: new AbortController().signal, onDone: (d) => done.push(d) },
    );
    assert.notEqual(result.level, 'error', result.text);
    assert.equal(done.at(-1), 5);
    assert.ok(
      fs.readFileSync(out).equals(fs.readFileSync(path.join(root, `cli-${format}-${name}`))),
      `${format}: the bulk export's bytes are the CLI's`,
    );
  }
});

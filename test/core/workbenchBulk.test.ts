// The workbench's actions on a selection, without the editor: a run's estimate of tokens and
// cost (from the run log's token counts, through the index, priced per profile), the export of
// a selection (the file `vtask export` writes for those tasks, row for row), and the audit of a
// selection (the probes of `vtask audit`, its findings per row, its report), both stoppable, and
// both run in their worker thread on a selection of runs (select all matching, less one row).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { exportFiles } from '../../src/core/datasets/exportFiles';
import { readRows } from '../../src/core/datasets/rowFiles';
import { appendRunRecords } from '../../src/core/overview/runlog/runLog';
import { taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { RowSet } from '../../src/core/base/rowSet';
import { auditJson, auditMarkdown, auditSelection, leftOutText, selectionFiles } from '../../src/core/workbench/bulk';
import { startBulkJob, type Found } from '../../src/core/workbench/bulkJob';
import { WorkbenchClient } from '../../src/core/workbench/client';
import { collectWorkbench } from '../../src/core/workbench/collect';
import { actualText, estimateRun, estimateText } from '../../src/core/workbench/estimate';
import {
  COMPACT_LINES,
  FINDINGS_FILE,
  readFindings,
  recordFindings,
  rememberFindings,
} from '../../src/core/workbench/findingsStore';
import { parseQuery } from '../../src/core/workbench/query';
import { latestRunName } from '../../src/core/overview/runlog/latestRuns';
import type { WorkbenchIndex, WorkbenchRowView } from '../../src/core/workbench/index';

const CLI = path.resolve('out/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-workbench-bulk-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const TASKS = `vtask: 1
tasks:
  - id: add
    prompt: What is 17 + 25?
    verify:
      math: { answer: "42" }
  - id: capital
    prompt: Name the capital of France.
    verify:
      match: { answer: Paris }
  - id: prime
    prompt: Name a prime number.
    verify: { match: { answer: ".*", mode: regex } }
  - id: double
    prompt: What is 2 * 21?
    verify:
      math: { answer: "42" }
`;

let index: WorkbenchIndex;
const rowsOf = (ids: readonly string[]) =>
  ids.map((id) =>
    index.row(index.rowOf(id.includes('.jsonl') ? 'data/qa.jsonl' : 'data/a.vtask', id.replace(/^.*:/, '')) as number),
  );

before(async () => {
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'data'));
  fs.writeFileSync(path.join(root, 'data/a.vtask'), TASKS);
  fs.writeFileSync(
    path.join(root, 'data/qa.jsonl'),
    `${JSON.stringify({ question: 'How many legs has a spider?', answer: '8', id: 'spider' })}\n`,
  );
  const parsed = parseTaskFile(TASKS);
  const key = (id: string): string =>
    taskRunKey(parsed, parsed.tasks.find((t) => t.id === id) as (typeof parsed.tasks)[number]);
  const run = (task: string, model: string, samples: number, prompt: number, completion: number) => ({
    file: 'data/a.vtask',
    task,
    model,
    key: key(task),
    at: '2026-01-01T00:00:00.000Z',
    samples,
    passed: samples,
    pass_rate: 1,
    band: 'too_easy' as const,
    signal_share: 0,
    tokens: { prompt, completion },
  });
  // `add` ran with `strong`: 100 prompt + 300 completion tokens a sample; `capital` with `weak`.
  appendRunRecords(path.join(root, '.vtask-cache'), [
    run('add', 'strong', 4, 400, 1200),
    run('capital', 'weak', 2, 60, 40),
  ]);
  index = (await collectWorkbench([path.join(root, 'data')], { root })).index;
});

test("a run's estimate: tokens from earlier runs per task and model, priced by each task's profile", () => {
  assert.deepEqual(index.models, ['strong', 'weak']);
  const [add, capital, double] = rowsOf(['add', 'capital', 'double']) as [
    WorkbenchRowView,
    WorkbenchRowView,
    WorkbenchRowView,
  ];
  const price = { prompt: 2, completion: 10 };
  const priced = estimateRun(index.models, [
    { row: add, samples: 8, model: 'strong', price },
    // Never ran with `strong`: its tokens are the mean of the selection's `strong` runs.
    { row: double, samples: 2, model: 'strong', price },
  ]);
  assert.deepEqual(priced, {
    tasks: 2,
    samples: 10,
    tokens: { prompt: 1000, completion: 3000 },
    borrowed: 1,
    cost: (1000 * 2 + 3000 * 10) / 1e6,
    unpriced: [],
  });
  assert.equal(
    estimateText(priced),
    'Run 2 tasks: 10 samples. About 4,000 tokens (1,000 prompt + 3,000 completion), about $0.03. 1 task never ran with its model with token counts: estimated from the other runs.',
  );
  const unpriced = estimateRun(index.models, [{ row: capital, samples: 4, model: 'weak' }]);
  assert.equal(
    estimateText(unpriced),
    "Run 1 task: 4 samples. About 200 tokens (120 prompt + 80 completion), cost: no price configured. No price configured for weak: a profile's price is { prompt, completion } in dollars per million tokens.",
  );
  const none = estimateRun(['other'], [{ row: { ...double, runs: [] }, samples: 3, model: 'other', price }]);
  assert.equal(
    estimateText(none),
    'Run 1 task: 3 samples. Tokens and cost: no earlier run of these tasks reported tokens to estimate them from.',
  );
  assert.equal(
    actualText([
      { samples: 8, tokens: { prompt: 800, completion: 2000 }, price },
      { samples: 2, tokens: { prompt: 200, completion: 500 }, price },
    ]),
    'Ran 2 tasks: 10 samples, 1,000 prompt + 2,500 completion tokens, $0.03.',
  );
  assert.equal(actualText([{ samples: 4 }]), 'Ran 1 task: 4 samples; the endpoint reported no tokens.');
});

/** The rows of a JSONL file. */
async function rowsIn(file: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const r of readRows(file, 'jsonl')) out.push(r.row);
  return out;
}

test('the export of a selection is the file `vtask export` writes for those tasks', async () => {
  // A JSONL row is the task it stands for: exported with the task file's tasks, as the CLI does.
  const cli = spawnSync(
    process.execPath,
    [CLI, 'export', 'data/a.vtask', 'data/qa.jsonl', '--format', 'trl', '-o', 'cli.jsonl'],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(cli.status, 0, cli.stderr);
  const all = selectionFiles(rowsOf(['add', 'capital', 'prime', 'double', 'qa.jsonl:spider']));
  assert.deepEqual([all.tasks, all.invalidRows], [5, 0]);
  assert.equal(leftOutText(all), '');
  assert.equal(leftOutText({ invalidRows: 2 }), ' Left out: 2 rows with errors.');
  const select = (s: typeof all) => (file: string, id: string | undefined) =>
    id !== undefined && s.files.get(file)?.has(id) === true;
  let seen = 0;
  const whole = await exportFiles({
    cwd: root,
    files: [...all.files.keys()],
    format: 'trl',
    out: path.join(root, 'whole.jsonl'),
    type: 'jsonl',
    select: select(all),
    onTask: () => seen++,
  });
  assert.equal(seen, 5);
  assert.deepEqual(whole.report.outputs, [{ split: '', file: path.join(root, 'whole.jsonl'), rows: 5 }]);
  const cliRows = await rowsIn(path.join(root, 'cli.jsonl'));
  assert.deepEqual(await rowsIn(path.join(root, 'whole.jsonl')), cliRows);
  assert.equal(
    fs.readFileSync(path.join(root, 'whole.jsonl'), 'utf8'),
    fs.readFileSync(path.join(root, 'cli.jsonl'), 'utf8'),
  );

  // Two of the four: the CLI's rows of those tasks, in the file's order.
  const some = selectionFiles(rowsOf(['double', 'add']));
  await exportFiles({
    cwd: root,
    files: [...some.files.keys()],
    format: 'trl',
    out: path.join(root, 'some.jsonl'),
    type: 'jsonl',
    select: select(some),
  });
  const ids = (rows: unknown[]) => rows.map((r) => (r as { task_id: string }).task_id);
  const picked = await rowsIn(path.join(root, 'some.jsonl'));
  assert.deepEqual(ids(picked), ['add', 'double']);
  assert.deepEqual(
    picked,
    cliRows.filter((r) => ['add', 'double'].includes((r as { task_id: string }).task_id)),
  );

  // Stopped: nothing is written, not even part of the file.
  const stop = new AbortController();
  await assert.rejects(
    exportFiles({
      cwd: root,
      files: [...all.files.keys()],
      format: 'trl',
      out: path.join(root, 'stopped.jsonl'),
      type: 'jsonl',
      select: select(all),
      signal: stop.signal,
      onTask: () => stop.abort(new Error('cancelled')),
    }),
    /cancelled/,
  );
  assert.deepEqual(
    fs.readdirSync(root).filter((f) => f.startsWith('stopped')),
    [],
  );
});

test("the audit of a selection: each task's findings by row, a report, and a stop between batches", async () => {
  const s = selectionFiles(rowsOf(['add', 'prime', 'qa.jsonl:spider']));
  const progress: [number, number][] = [];
  const audits = await auditSelection(s, { root, trusted: false, onProgress: (d, t) => progress.push([d, t]) });
  assert.deepEqual(progress, [
    [0, 3],
    [2, 3],
    [3, 3],
  ]);
  const prime = audits.find((a) => a.audit.task === 'prime');
  assert.equal(prime?.n, index.rowOf('data/a.vtask', 'prime'));
  assert.equal(prime?.line, 11);
  assert.ok(
    prime && prime.audit.findings.some((f) => f.probe === 'empty'),
    'a regex accepting anything passes an empty answer',
  );
  // The same findings as `vtask audit` of the file gives for that task.
  const cli = spawnSync(process.execPath, [CLI, 'audit', 'data/a.vtask', 'data/qa.jsonl', '--json'], {
    cwd: root,
    encoding: 'utf8',
  });
  const byCli = (JSON.parse(cli.stdout) as { tasks: { task: string; findings: { probe: string }[] }[] }).tasks;
  for (const a of audits)
    assert.deepEqual(
      a.audit.findings.map((f) => f.probe),
      byCli.find((t) => t.task === a.audit.task)?.findings.map((f) => f.probe),
    );
  const md = auditMarkdown(audits, leftOutText(s));
  assert.match(md, /^# vtask audit of 3 tasks\n\n\d+ findings? \(.*\) in [23] of 3 tasks\.\n/);
  assert.match(md, /## prime — data\/a\.vtask:11\n\n- \*\*\w+\*\* probe `empty` \(expected fail, got pass\)/);
  const json = JSON.parse(auditJson(audits)) as {
    tasks: { task: string; findings: { probe: string }[] }[];
    findings: number;
  };
  assert.deepEqual(
    json.tasks.map((t) => t.task),
    ['add', 'prime', 'spider'],
  );
  assert.equal(
    json.findings,
    audits.reduce((k, a) => k + a.audit.findings.length, 0),
  );
  const stop = new AbortController();
  stop.abort(new Error('cancelled'));
  await assert.rejects(auditSelection(s, { root, trusted: false, signal: stop.signal }), /cancelled/);
});

test('select all matching, less one: the export and the audit in their worker act on exactly the rows left', async () => {
  const worker = path.resolve(__dirname, '../../workbenchWorker.js');
  const client = new WorkbenchClient(worker, { paths: [path.join(root, 'data')], options: { root } });
  try {
    await client.opened;
    assert.deepEqual(await client.request({ op: 'view', query: '', sort: { column: 'id' } }), { size: 5 });
    // "Select all matching", as the page gets it, then a ctrl-click takes `prime` out.
    const all = RowSet.decode(await client.request({ op: 'rows', start: 0, end: 5 }));
    assert.deepEqual([all.size, all.runCount], [5, 1]);
    const prime = index.rowOf('data/a.vtask', 'prime') as number;
    all.delete(prime);
    const rows = all.encode();
    const s = await client.request({ op: 'selection', rows });
    assert.deepEqual([s.tasks, s.invalidRows], [4, 0]);
    const picked = (await client.request({ op: 'rowsByNumber', rows })).map((r) => r.id);
    assert.deepEqual(picked.sort(), ['add', 'capital', 'double', 'spider']);
    // The task panel steps through the selection's tasks, the JSONL row's included, in the table's
    // order (here, by id), one asked for at a time; a run takes them too.
    const step = (start: number) => client.request({ op: 'tasksOf', rows, kinds: 'any', start, end: start + 1 });
    const first = await step(0);
    assert.deepEqual([first.rows.map((r) => r.id), first.count, first.skipped], [['add'], 4, 0]);
    assert.deepEqual(
      (await step(3)).rows.map((r) => r.id),
      ['spider'],
    );
    assert.deepEqual((await step(4)).rows, []);
    const runnable = await client.request({ op: 'tasksOf', rows, kinds: 'runnable', start: 0, end: 10 });
    assert.deepEqual([runnable.rows.map((r) => r.id), runnable.skipped], [['add', 'capital', 'double', 'spider'], 0]);

    const done: number[] = [];
    const exported = await startBulkJob(
      worker,
      { action: 'export', root, selection: s, format: 'trl', out: path.join(root, 'less.jsonl'), shown: 'less.jsonl' },
      { signal: new AbortController().signal, onDone: (d) => done.push(d) },
    );
    assert.deepEqual(exported, {
      level: 'info',
      text: 'Exported 4 rows as trl to less.jsonl.',
    });
    assert.equal(done.at(-1), 4);
    // Byte for byte the CLI's rows of those tasks (the previous test wrote cli.jsonl).
    const cliLines = fs.readFileSync(path.join(root, 'cli.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.deepEqual(
      fs.readFileSync(path.join(root, 'less.jsonl'), 'utf8').split('\n').filter(Boolean),
      cliLines.filter((l) => !l.includes('"task_id":"prime"')),
    );

    const found: Found[] = [];
    const audited = await startBulkJob(
      worker,
      { action: 'audit', root, selection: s, trusted: false },
      { signal: new AbortController().signal, onDone: () => undefined, onFound: (c) => found.push(...c) },
    );
    assert.match(audited.text, /in \d of 4 tasks\.$/);
    assert.deepEqual(
      found.map(([n]) => index.row(n).id).sort(),
      ['add', 'capital', 'double', 'spider'],
      'findings are counted for the rows selected, and only those',
    );
    const report = JSON.parse(audited.report?.json ?? '{}') as { tasks: { task: string }[] };
    assert.deepEqual(
      report.tasks.map((t) => t.task),
      ['add', 'capital', 'double', 'spider'],
    );

    // Cancelled before it starts: nothing runs.
    const stop = new AbortController();
    stop.abort(new Error('cancelled'));
    await assert.rejects(
      startBulkJob(
        worker,
        { action: 'audit', root, selection: s, trusted: false },
        { signal: stop.signal, onDone: () => undefined },
      ),
      /cancelled/,
    );
  } finally {
    await client.close();
  }
});

test('audit findings are kept with the cache: read again with the table, stale once the verifier changes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-workbench-findings-'));
  try {
    fs.mkdirSync(path.join(dir, '.git'));
    const file = path.join(dir, 'a.vtask');
    fs.writeFileSync(file, TASKS);
    const first = (await collectWorkbench([dir], { root: dir })).index;
    const row = (i: WorkbenchIndex, id: string): WorkbenchRowView => i.row(i.rowOf('a.vtask', id) as number);
    const audits = await auditSelection(selectionFiles([row(first, 'add'), row(first, 'prime')]), {
      root: dir,
      trusted: false,
    });
    const prime = audits.find((a) => a.audit.task === 'prime');
    assert.ok(prime && prime.audit.findings.length > 0);
    rememberFindings(
      audits.map((a) => ({ file: a.file, id: a.audit.task, key: a.key, findings: a.audit.findings.length })),
      { root: dir },
    );
    assert.ok(fs.existsSync(path.join(dir, '.vtask-cache', FINDINGS_FILE)));

    // The table read again: the counts are in the column, and `findings>0` keeps the task that has some.
    const again = (await collectWorkbench([dir], { root: dir })).index;
    assert.equal(row(again, 'prime').findings, prime.audit.findings.length);
    assert.equal(row(again, 'add').findings, audits.find((a) => a.audit.task === 'add')?.audit.findings.length);
    assert.equal(row(again, 'double').findings, -1, 'never audited');
    const q = parseQuery('findings>0');
    assert.ok(!('error' in q));
    const flagged = audits.filter((a) => a.audit.findings.length).map((a) => a.audit.task);
    assert.ok(flagged.includes('prime'));
    assert.deepEqual(
      [...again.filter(q.query)].map((n) => again.row(n).id),
      flagged,
    );

    // prime's verifier edited: its count is of another verifier, so it is not shown; add's stays.
    fs.writeFileSync(file, TASKS.replace('{ answer: ".*", mode: regex }', '{ answer: "[0-9]+", mode: regex }'));
    const edited = (await collectWorkbench([dir], { root: dir })).index;
    assert.equal(row(edited, 'prime').findings, -1);
    assert.equal(row(edited, 'add').findings, row(again, 'add').findings);
    assert.deepEqual(
      [...edited.filter(q.query)].map((n) => edited.row(n).id),
      flagged.filter((id) => id !== 'prime'),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the findings file: the latest line of a task wins, a cut line is passed over and spoils nothing after it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-findings-file-'));
  try {
    const cache = path.join(dir, '.vtask-cache');
    const file = path.join(dir, 'a.vtask');
    recordFindings(cache, [{ file, task: 'x', key: 'k1', findings: 3 }]);
    recordFindings(cache, [{ file, task: 'x', key: 'k2', findings: 0 }]);
    fs.appendFileSync(path.join(cache, FINDINGS_FILE), '{"file":"a.vtask","task":"y"');
    const counts = (): [string, string, number][] =>
      [...readFindings(cache)].map(([name, f]) => [name, f.key, f.findings]);
    assert.deepEqual(counts(), [[latestRunName('a.vtask', 'x'), 'k2', 0]]);
    // The next count after a cut line is read: the cut line is ended before it.
    recordFindings(cache, [{ file, task: 'z', key: 'k3', findings: 1 }]);
    assert.deepEqual(counts(), [
      [latestRunName('a.vtask', 'x'), 'k2', 0],
      [latestRunName('a.vtask', 'z'), 'k3', 1],
    ]);
    // A file of mostly superseded lines is rewritten with the latest of each task when read.
    recordFindings(
      cache,
      Array.from({ length: COMPACT_LINES }, (_, i) => ({ file, task: 'x', key: `k${i}`, findings: i })),
    );
    const latest: [string, string, number][] = [
      [latestRunName('a.vtask', 'x'), `k${COMPACT_LINES - 1}`, COMPACT_LINES - 1],
      [latestRunName('a.vtask', 'z'), 'k3', 1],
    ];
    assert.deepEqual(counts(), latest);
    assert.equal(fs.readFileSync(path.join(cache, FINDINGS_FILE), 'utf8').trim().split('\n').length, 2);
    assert.deepEqual(counts(), latest, 'the rewritten file reads the same');
    assert.deepEqual(readFindings(path.join(dir, 'none')), new Map());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

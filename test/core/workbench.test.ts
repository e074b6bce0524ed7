// The workbench read from a real folder: a task file (cases run, runs from the run log, a stale
// run left out), JSONL rows (one that is no task), a Parquet file written by the exporter (its
// recorded pass rates), all in one index; and the same answers from its worker thread
// (out/workbenchWorker.js, as the extension host runs it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { appendRunRecords, type RunRecord } from '../../src/core/overview/runlog/runLog';
import { taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { WorkbenchClient } from '../../src/core/workbench/client';
import { collectWorkbench, RECORDED_MODEL } from '../../src/core/workbench/collect';
import { parseQuery } from '../../src/core/workbench/query';
import { writeDataset } from '../support/datasetFixture';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-workbench-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const worker = path.resolve(__dirname, '../../workbenchWorker.js');

const TASKS = `vtask: 1
tasks:
  - id: add
    prompt: What is 17 + 25?
    verify:
      math: { answer: "42" }
    cases:
      - { response: "42", expect: pass }
      - { response: "41", expect: pass }
  - id: capital
    prompt: Name the capital of France.
    verify:
      match: { answer: Paris }
  - id: broken
    prompt: Nothing verifies this.
`;

before(async () => {
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'data'));
  fs.writeFileSync(path.join(root, 'data/a.vtask'), TASKS);
  fs.writeFileSync(
    path.join(root, 'data/qa.jsonl'),
    [
      JSON.stringify({ question: 'How many legs has a spider?', answer: '8' }),
      '{"question": 1',
      JSON.stringify({ question: 'Carry the one: 99 + 1?', answer: '100', id: 'carry' }),
    ].join('\n') + '\n',
  );
  await writeDataset(path.join(root, 'data/big.parquet'), 40);
  const parsed = parseTaskFile(TASKS);
  const key = (id: string): string =>
    taskRunKey(parsed, parsed.tasks.find((t) => t.id === id) as (typeof parsed.tasks)[number]);
  const rec = (task: string, model: string, passed: number, k: string, at: string, extra: object = {}): RunRecord => ({
    file: 'data/a.vtask',
    task,
    model,
    key: k,
    at,
    samples: 4,
    passed,
    pass_rate: passed / 4,
    band: passed === 0 ? 'too_hard' : passed === 4 ? 'too_easy' : 'learnable',
    signal_share: 0.5,
    ...extra,
  });
  appendRunRecords(path.join(root, '.vtask-cache'), [
    rec('add', 'strong', 4, key('add'), '2026-01-01T00:00:00.000Z'),
    rec('add', 'weak', 1, key('add'), '2026-01-01T00:00:00.000Z'),
    // A run of an older version of the task: stale, not shown.
    rec('capital', 'strong', 0, 'old-key', '2026-01-01T00:00:00.000Z'),
    {
      file: 'data/qa.jsonl',
      task: 'carry',
      model: 'weak',
      key: 'k',
      at: '2026-01-01T00:00:00.000Z',
      samples: 2,
      passed: 0,
      pass_rate: 0,
      band: 'too_hard',
      signal_share: 0,
    },
  ]);
});

test('a folder of a task file, JSONL and Parquet is one index, with runs and cases', async () => {
  const { index, files, notes } = await collectWorkbench([path.join(root, 'data')], { root });
  assert.deepEqual(files, ['data/a.vtask', 'data/big.parquet', 'data/qa.jsonl']);
  assert.deepEqual(notes, []);
  assert.equal(index.size, 3 + 40 + 3);
  assert.deepEqual(index.models, ['strong', 'weak', RECORDED_MODEL]);
  const add = index.row(index.rowOf('data/a.vtask', 'add') as number);
  assert.deepEqual(
    [add.kind, add.cases, add.casesPassed, add.casesFailed, add.prompt],
    ['math', 2, 1, 1, 'What is 17 + 25?'],
  );
  assert.deepEqual(
    add.runs.map((r) => r && [r.rate, r.band]),
    [[1, 'too_easy'], [0.25, 'learnable'], null],
  );
  // The stale run is left out; the task with errors has no kind.
  assert.deepEqual(index.row(index.rowOf('data/a.vtask', 'capital') as number).runs, [null, null, null]);
  assert.equal(index.row(index.rowOf('data/a.vtask', 'broken') as number).kind, null);
  const carry = index.row(index.rowOf('data/qa.jsonl', 'carry') as number);
  assert.deepEqual([carry.line, carry.kind, carry.runs[1]?.band], [2, 'math', 'too_hard']);
  const bad = index.window(0, index.size).find((r) => r.error);
  assert.equal(bad?.file, 'data/qa.jsonl');
  assert.match(bad?.error ?? '', /not JSON/);
  const q = (text: string): number => {
    const p = parseQuery(text);
    assert.ok('query' in p);
    return index.filter(p.query).length;
  };
  // Every fourth Parquet row carries a recorded run (learnable, 50%).
  assert.equal(q('model:recorded band:learnable'), 10);
  assert.equal(q('failing>0'), 1);
  assert.equal(q('spider'), 1);
  assert.equal(q('file:parquet clips'), 10);
});

test('the worker thread answers what the index answers, and says why a query cannot be read', async () => {
  assert.ok(fs.existsSync(worker), `${worker} is built`);
  const client = new WorkbenchClient(worker, { paths: [path.join(root, 'data')], options: { root } });
  try {
    const opened = await client.opened;
    assert.equal(opened.rows, 46);
    assert.deepEqual(opened.files, ['data/a.vtask', 'data/big.parquet', 'data/qa.jsonl']);
    assert.deepEqual(
      await client.request({ op: 'view', query: 'kind:math', sort: { column: 'rate:weak', descending: true } }),
      { size: 13 },
    );
    const first = await client.request({ op: 'window', start: 0, end: 2 });
    assert.deepEqual(
      first.map((r) => r.id),
      ['add', 'carry'],
    );
    assert.deepEqual(await client.request({ op: 'view', query: 'rate<<1' }), {
      error: '`rate<` needs a number after it, not `<1`',
      at: 5,
    });
    await client.request({ op: 'view', query: 'label:bad_gold' });
    const rows = await client.request({ op: 'rows', start: 0, end: 0 });
    assert.equal(rows, '', 'no rows: the empty selection');
    await client.request({ op: 'view', query: 'kind:match' });
    const some = await client.request({ op: 'rows', start: 0, end: 3 });
    assert.deepEqual(
      await client.request({ op: 'label', rows: some, label: 'bad_gold' }),
      { size: 21, changed: 3, errors: [] },
      'the view, refreshed: the 21 match tasks',
    );
    // On disk: the task file's task has `meta.review`, the Parquet rows are in its sidecar.
    assert.match(
      fs.readFileSync(path.join(root, 'data/a.vtask'), 'utf8'),
      /  - id: capital\n    prompt: Name the capital of France\.\n    verify:\n      match: \{ answer: Paris \}\n    meta: \{ review: bad_gold \}\n/,
    );
    const sidecar = JSON.parse(fs.readFileSync(path.join(root, 'data/big.parquet.labels.json'), 'utf8')) as {
      labels: Record<string, string>;
    };
    assert.deepEqual(Object.values(sidecar.labels), ['bad_gold', 'bad_gold']);
    assert.deepEqual(await client.request({ op: 'view', query: 'label:bad_gold' }), { size: 3 });
    assert.ok((await client.request({ op: 'window', start: 0, end: 3 })).every((r) => r.label === 'bad_gold'));
  } finally {
    await client.close();
  }
  // Read again, the labels are the disk's.
  const again = await collectWorkbench([path.join(root, 'data')], { root });
  const p = parseQuery('label:bad_gold');
  assert.ok('query' in p);
  assert.deepEqual(
    Array.from(again.index.filter(p.query))
      .map((n) => again.index.row(n).id)
      .sort(),
    ['big/000002', 'big/000003', 'capital'],
  );
  const missing = new WorkbenchClient(worker, { paths: [path.join(root, 'nowhere')], options: { root } });
  await assert.rejects(missing.opened, /no such file or folder/);
  await missing.close();
});

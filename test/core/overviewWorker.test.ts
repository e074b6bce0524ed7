// The overview's long reads in their worker thread (out/overviewWorker.js, as the extension host
// runs them) must give what they give in this thread: a run log by file and task, and the
// duplicates and benchmark overlaps of a set of prompts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { findFindings, findFindingsInThread } from '../../src/core/overview/prompts/findings';
import {
  appendRunRecords,
  appendRunRecordsAsync,
  readRunLog,
  runLogFile,
  runLogKey,
  type RunRecord,
} from '../../src/core/overview/runlog/runLog';
import { compactRunLogInWorker, readRunLogIndex } from '../../src/core/overview/runlog/runLogIndex';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-overview-worker-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const worker = path.resolve(__dirname, '../../overviewWorker.js');

test('the run log read in its worker thread is the log read in this thread', async () => {
  assert.ok(fs.existsSync(worker), `${worker} is built`);
  const cacheDir = path.join(root, '.vtask-cache');
  const record = (task: string, model: string, passed: number, at: string): RunRecord => ({
    file: 'data/a.vtask',
    task,
    model,
    key: 'k',
    at,
    samples: 4,
    passed,
    pass_rate: passed / 4,
    band: passed === 4 ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable',
    signal_share: 0.5,
  });
  // More than a batch of the worker's, with a previous run of some.
  const records: RunRecord[] = [];
  for (let i = 0; i < 2500; i++) records.push(record(`t${i}`, i % 2 ? 'A' : 'B', i % 5, '2026-01-01T00:00:00.000Z'));
  for (let i = 0; i < 100; i++) records.push(record(`t${i}`, i % 2 ? 'A' : 'B', 4, '2026-01-02T00:00:00.000Z'));
  appendRunRecords(cacheDir, records);
  const here = await readRunLogIndex(cacheDir);
  const there = await readRunLogIndex(cacheDir, { worker });
  const plain = (ix: Awaited<ReturnType<typeof readRunLogIndex>>): unknown =>
    [...ix].map(([f, tasks]) => [
      f,
      [...tasks].map(([t, models]) => [
        t,
        [...models].map(([m, e]) => [m, { ...e.latest }, e.previous && { ...e.previous }]),
      ]),
    ]);
  assert.deepEqual(plain(there), plain(here));
  assert.equal(here.get('data/a.vtask')?.size, 2500);
  assert.equal(there.get('data/a.vtask')?.get('t1')?.get('A')?.previous?.passed, 1);
  await assert.rejects(readRunLogIndex(path.join(root, 'missing'), { worker: path.join(root, 'no-such-worker.js') }));
});

test('the duplicate search in its worker thread finds what it finds in this thread, and stops when aborted', async () => {
  const bench = path.join(root, 'bench.txt');
  fs.writeFileSync(bench, 'Name the three primary colours of light and say why mixing them gives white light.\n');
  const prompts = [
    { ref: { file: 'a.vtask', task: 'a1', line: 2 }, text: 'What is 17 + 25? Answer with a number.' },
    { ref: { file: 'a.vtask', task: 'a2', line: 6 }, text: 'what is 17 + 25?  answer with a number' },
    {
      ref: { file: 'b.vtask', task: 'b1', line: 2 },
      text: 'Please name the three primary colours of light and say why mixing them gives white light.',
    },
  ];
  const job = {
    prompts,
    threshold: 0.8,
    benchmarks: [
      { file: bench, name: 'bench.txt' },
      { file: path.join(root, 'missing.jsonl'), name: 'missing.jsonl' },
    ],
  };
  const here = await findFindings(job);
  const there = await findFindingsInThread(job, { worker });
  assert.deepEqual(there, here);
  assert.deepEqual(
    here.duplicates.map((d) => [d.a.task, d.b.task, d.exact]),
    [['a1', 'a2', true]],
  );
  assert.deepEqual(
    here.contamination.map((h) => [h.task, h.benchmark, h.benchmark_row]),
    [['b1', 'bench.txt', 0]],
  );
  assert.deepEqual(
    here.unread.map((u) => u.name),
    ['missing.jsonl'],
  );
  const abort = new AbortController();
  const stopped = findFindingsInThread(job, { worker, signal: abort.signal });
  abort.abort();
  await assert.rejects(stopped);
});

test("the editor's append compacts the run log in the worker thread when it grew past the threshold", async () => {
  const cacheDir = path.join(root, 'compact', '.vtask-cache');
  const record = (task: number, run: number): RunRecord => ({
    file: 'a.vtask',
    task: `t${task}`,
    model: 'm',
    key: 'k',
    at: new Date(Date.UTC(2026, 0, 1 + run)).toISOString(),
    samples: 4,
    passed: run % 5,
    pass_rate: (run % 5) / 4,
    band: 'learnable',
    signal_share: 0.5,
  });
  for (let run = 0; run < 4; run++)
    appendRunRecords(
      cacheDir,
      Array.from({ length: 50 }, (_, t) => record(t, run)),
      { compactBytes: Infinity },
    );
  const lines = (): number => fs.readFileSync(runLogFile(cacheDir), 'utf8').split('\n').filter(Boolean).length;
  assert.equal(lines(), 200);
  const before = readRunLog(cacheDir);
  let compacted = 0;
  await appendRunRecordsAsync(cacheDir, [record(0, 4)], {
    compactBytes: fs.statSync(runLogFile(cacheDir)).size + 1,
    compact: (dir) => (compacted++, compactRunLogInWorker(worker, dir)),
  });
  assert.equal(compacted, 1, 'compacted once, past the threshold');
  assert.equal(lines(), 100, 'the latest two runs of each task are kept');
  const after = readRunLog(cacheDir);
  for (const [key, e] of before)
    if (key !== runLogKey('a.vtask', 't0', 'm'))
      assert.deepEqual(
        [after.get(key)?.latest, after.get(key)?.previous],
        [e.latest, e.previous],
        'what is read is the same',
      );
  assert.equal(after.get(runLogKey('a.vtask', 't0', 'm'))?.latest.passed, 4, 'the appended record is there');
});

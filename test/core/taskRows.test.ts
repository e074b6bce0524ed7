// A summary's rows held in typed arrays (overview/dataset/taskRows.ts) read back as the objects
// they were given as, field for field and in the same key order (the remembered summary is their
// JSON): ids of any alphabet and length, null kinds, run keys that are not SHA-1s, outcomes. And
// its prompts line read back a string at a time (jsonStrings.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { jsonStrings } from '../../src/core/overview/dataset/jsonStrings';
import { ROWS_IN_MEMORY } from '../../src/core/overview/dataset/rowSpill';
import { TaskRows, type TaskRow } from '../../src/core/overview/dataset/taskRows';

test('rows read back as given, and as JSON.stringify writes them', () => {
  const given: TaskRow[] = [];
  for (let i = 0; i < 5000; i++)
    given.push({
      id: i % 1000 === 7 ? `tâche-日本-\u{1f600}-${'x'.repeat(i)}` : `t${i}`,
      line: i * 3 + 4,
      kind: i % 11 === 0 ? null : (['math', 'match', 'all'][i % 3] ?? null),
      cases: i % 10 === 0 ? 2 : 0,
      runKey: i % 499 === 0 ? `key ${i}` : (i * 2654435761).toString(16).padStart(40, '0').slice(-40),
      ...(i % 10 === 0 ? { outcome: { total: 2, passed: i % 3, failed: 2 - (i % 3), skipped: 0 } } : {}),
    });
  const rows = TaskRows.of(given);
  assert.equal(rows.length, given.length);
  assert.deepEqual([...rows], given);
  assert.equal(`[${[...rows.jsonElements()].join('')}]`, JSON.stringify(given));
  assert.equal(rows.at(-1), undefined);
  assert.equal(rows.at(given.length), undefined);
  rows.setOutcome(1, { total: 0, passed: 0, failed: 0, skipped: 0 });
  assert.deepEqual(rows.at(1), { ...given[1], outcome: { total: 0, passed: 0, failed: 0, skipped: 0 } });
});

/** The scratch folders of rows of this process. */
const rowFolders = (): string[] =>
  fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`vtask-rows-${process.pid}-`));

test('rows past the first 16,384 go to a scratch folder and read back the same, outcomes set late included; close removes it', () => {
  const before = rowFolders().length;
  const given: TaskRow[] = [];
  for (let i = 0; i < 50_000; i++)
    given.push({
      id: i % 1000 === 7 ? `tâche-日本-\u{1f600}-${'x'.repeat(i % 5000)}` : `t${i}`,
      line: i * 3 + 4,
      kind: i % 11 === 0 ? null : (['math', 'match', 'all'][i % 3] ?? null),
      cases: i % 10 === 0 ? 2 : 0,
      runKey: i % 499 === 0 ? `key ${i}` : (i * 2654435761).toString(16).padStart(40, '0').slice(-40),
      ...(i % 20 === 0 ? { outcome: { total: 2, passed: i % 3, failed: 2 - (i % 3), skipped: 0 } } : {}),
    });
  const rows = new TaskRows();
  const late = new Map<number, NonNullable<TaskRow['outcome']>>();
  for (const [i, row] of given.entries()) {
    rows.push(row);
    // Outcomes found a batch later, as a summary's are: some still in the write buffer, some on disk.
    if (i % 20 === 10 && i >= 500) {
      const outcome = { total: 2, passed: 1, failed: 0, skipped: i % 7 };
      rows.setOutcome(i - 500, outcome);
      late.set(i - 500, outcome);
    }
  }
  rows.setOutcome(49_990, { total: 9, passed: 9, failed: 0, skipped: 0 });
  late.set(49_990, { total: 9, passed: 9, failed: 0, skipped: 0 });
  const want = given.map((r, i) => (late.has(i) ? { ...r, outcome: late.get(i) } : r));
  assert.equal(rowFolders().length, before + 1);
  assert.equal(rows.length, want.length);
  assert.deepEqual([...rows], want);
  assert.equal(`[${[...rows.jsonElements()].join('')}]`, JSON.stringify(want));
  // Out of order, as the dashboard and the run log look rows up.
  for (const i of [49_999, 3, 16_384, 16_383, 30_007, 0, 49_990]) assert.deepEqual(rows.at(i), want[i], `row ${i}`);
  assert.deepEqual(rows.outcome(49_990), late.get(49_990));
  assert.equal(rows.at(50_000), undefined);
  rows.close();
  assert.equal(rowFolders().length, before);
  // Not another summary's rows from the shared store.
  assert.throws(() => rows.at(30_007), /the rows were closed/);
});

test('each row past the first 100,000 holds under 20 bytes of memory, in or out of the heap (in typed arrays rows held about 85)', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const rows = new TaskRows();
  const push = (n: number): void => {
    for (let i = rows.length, end = rows.length + n; i < end; i++)
      rows.push({ id: `task-${i}`, line: i + 4, kind: 'math', cases: 2, runKey: 'ab'.repeat(20) });
  };
  const used = (): number => {
    gc();
    const u = process.memoryUsage();
    return u.heapUsed + u.arrayBuffers;
  };
  try {
    // The first rows, the scratch files' buffers and the code are there before the measure.
    push(100_000);
    const before = used();
    push(200_000);
    const held = used() - before;
    assert.ok(held < 200_000 * 20, `200,000 rows held ${held} bytes`);
    assert.deepEqual(rows.at(299_999), {
      id: 'task-299999',
      line: 300_003,
      kind: 'math',
      cases: 2,
      runKey: 'ab'.repeat(20),
    });
  } finally {
    rows.close();
  }
});

/** Task `i` of a file of the tests below. */
const fileRow = (i: number): TaskRow => ({
  id: `t${100_000 + i}`,
  line: i + 4,
  kind: 'math',
  cases: 2,
  runKey: 'ab'.repeat(20),
  ...(i % 10 === 0 ? { outcome: { total: 2, passed: 1, failed: 1, skipped: 0 } } : {}),
});

/** A file's rows, pushed and trimmed as a summary's are. */
const fileRows = (n: number): TaskRows => {
  const rows = new TaskRows();
  for (let i = 0; i < n; i++) rows.push(fileRow(i));
  rows.trim();
  return rows;
};

/**
 * Memory after a full collection, once the memory of buffers it freed is given back (that is done
 * on another thread, and counted in arrayBuffers until then).
 */
async function settled(): Promise<NodeJS.MemoryUsage> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  gc();
  return process.memoryUsage();
}

test('the rows of files of 10,000 tasks kept in memory hold what they need, not the room their arrays grew to; rows still push and read after', async () => {
  const used = async (): Promise<number> => (await settled()).arrayBuffers;
  const kept: TaskRows[] = [fileRows(10)];
  try {
    const before = await used();
    // Within the process's budget of rows in memory: nothing spills.
    for (let f = 0; f < 3; f++) kept.push(fileRows(10_000));
    assert.ok(ROWS_IN_MEMORY >= 40_000);
    // A row needs 63 bytes here (a 7-character id, its end, line, cases, kind, run key, outcome);
    // the arrays as grown had room for 16,384 rows, over 90 bytes a row.
    const perRow = ((await used()) - before) / 30_000;
    assert.ok(perRow < 70, `${perRow.toFixed(1)} bytes a row`);
    const last = kept.at(-1) as TaskRows;
    assert.deepEqual([...last].slice(9_998), [fileRow(9_998), fileRow(9_999)]);
    for (let i = 10_000; i < 10_300; i++) last.push(fileRow(i));
    last.setOutcome(10_299, { total: 2, passed: 2, failed: 0, skipped: 0 });
    assert.deepEqual(last.at(10_100), fileRow(10_100));
    assert.deepEqual(last.at(10_299), { ...fileRow(10_299), outcome: { total: 2, passed: 2, failed: 0, skipped: 0 } });
    assert.equal(last.length, 10_300);
    const empty = fileRows(0);
    empty.push(fileRow(1));
    assert.deepEqual([...empty], [fileRow(1)]);
    kept.push(empty);
  } finally {
    for (const rows of kept) rows.close();
  }
});

test('past the budget of rows in memory, the rows of many files go to one scratch folder and hold no memory each; once a folder holds 1,048,576 rows of closed summaries a new one follows, and each goes with the last of its rows', async () => {
  const used = async (): Promise<number> => {
    const u = await settled();
    return u.heapUsed + u.arrayBuffers;
  };
  const before = rowFolders().length;
  const files: TaskRows[] = [];
  try {
    // The budget is spent, and the scratch store's buffers made, before the measure.
    while (files.length * 10_000 < ROWS_IN_MEMORY + 10_000) files.push(fileRows(10_000));
    assert.equal(rowFolders().length, before + 1);
    const start = await used();
    const first = files.length;
    for (let f = 0; f < 60; f++) files.push(fileRows(10_000));
    // In typed arrays these 600,000 rows held 63 bytes each.
    const perRow = ((await used()) - start) / 600_000;
    assert.ok(perRow < 4, `${perRow.toFixed(2)} bytes a row`);
    assert.equal(rowFolders().length, before + 1, 'one scratch folder for the rows of every file');
    // Read back in any order, an outcome set late included.
    const some = files[first + 7] as TaskRows;
    some.setOutcome(5, { total: 9, passed: 9, failed: 0, skipped: 0 });
    assert.deepEqual(
      [...(files[first + 30] as TaskRows)],
      Array.from({ length: 10_000 }, (_, i) => fileRow(i)),
    );
    assert.deepEqual(some.at(5), { ...fileRow(5), outcome: { total: 9, passed: 9, failed: 0, skipped: 0 } });
    assert.deepEqual(some.at(9_999), fileRow(9_999));
    // Rows of closed summaries stay in their folder: past 1,048,576 of them, the next summary to
    // spill starts another, and the first goes with the last of its rows.
    while ((files.length - first) * 10_000 < (1 << 20) + 10_000) files.push(fileRows(10_000));
    assert.equal(rowFolders().length, before + 1, 'no new folder while no summary is closed');
    for (const rows of files.slice(first)) rows.close();
    const next = fileRows(10_000);
    files.push(next);
    assert.equal(rowFolders().length, before + 2, 'a new folder once the first holds that many closed rows');
    for (const rows of files.slice(0, first)) rows.close();
    assert.equal(rowFolders().length, before + 1, 'the first folder goes with the last of its rows');
    assert.deepEqual(next.at(9_999), fileRow(9_999));
  } finally {
    for (const rows of files) rows.close();
  }
  assert.equal(rowFolders().length, before);
});

test('the strings of a remembered prompts line are read back one by one, across blocks, or found not to be one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-json-strings-'));
  try {
    const strings = Array.from({ length: 20_000 }, (_, i) => (i % 5 ? `Task ${i}: "é日本\u{1f600}" \\ ${i}` : ''));
    const file = path.join(dir, 'summary.jsonl');
    fs.writeFileSync(file, `{"tasks":[]}\n${JSON.stringify(strings)}\n`);
    const start = '{"tasks":[]}\n'.length;
    assert.deepEqual([...jsonStrings(file, start)], strings);
    assert.equal([...jsonStrings(file, start, false)].length, strings.length);
    fs.writeFileSync(file, '[]');
    assert.deepEqual([...jsonStrings(file, 0)], []);
    for (const torn of ['["a","b"', '["a" "b"]', '["a",1]', '{"a":1}', '["a",]'])
      assert.throws(() => [...jsonStrings((fs.writeFileSync(file, torn), file), 0)], Error, torn);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The run log's readers take lines written as `formatRunRecord` writes them without parsing
// them until asked, and pass over the lines of tasks not asked for: here they give the same
// records as reading every line as JSON does (`forEachRunRecord`, then the latest two distinct
// lines of each file, task and model), over a log that mixes such lines with every other kind:
// names with escapes and non-ASCII text, fields in another order, a torn line with a record
// after it, a record copied twice by a compaction, a count too large to be safe, an unknown
// band, extra fields, blank lines and a line cut short at the end.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { latestRunName, readLatestRuns } from '../../src/core/overview/runlog/latestRuns';
import {
  forEachRunRecord,
  formatRunRecord,
  readRunLog,
  readRunLogEntries,
  runLogFile,
  runLogKey,
  type RunRecord,
} from '../../src/core/overview/runlog/runLog';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-runlog-lines-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const record = (
  file: string,
  task: string,
  model: string,
  passed: number,
  extra: Partial<RunRecord> = {},
): RunRecord => ({
  file,
  task,
  model,
  key: `k${passed}`,
  at: `2026-01-0${1 + (passed % 9)}T00:00:00.000Z`,
  samples: 8,
  passed,
  pass_rate: passed / 8,
  band: passed === 0 ? 'too_hard' : passed === 8 ? 'too_easy' : 'learnable',
  signal_share: 0.5,
  ...extra,
});

/** A log of every kind of line, in an order where each matters. */
function mixedLog(): string {
  const lines: string[] = [];
  const add = (r: RunRecord): number => lines.push(formatRunRecord(r).trimEnd());
  for (let t = 0; t < 30; t++) add(record('data/a.vtask', `t${t}`, 'm1', t % 9));
  // Names with escapes and non-ASCII text.
  add(record('data/"quoted".vtask', 'q\\1', 'm1', 3));
  add(record('données/é.vtask', 'ü/1', 'mödel', 4, { tokens: { prompt: 10, completion: 20 }, cost: 0.5 }));
  // Fields in another order: the same task as a canonical line.
  lines.push(
    JSON.stringify(
      Object.fromEntries(Object.entries(record('data/a.vtask', 't1', 'm1', 7)).sort(([a], [b]) => (a < b ? 1 : -1))),
    ),
  );
  // A torn fragment with a whole record after it, on one line.
  lines.push(
    `{"file":"data/a.vtask","task":"t2","mo${formatRunRecord(record('data/a.vtask', 't2', 'm2', 5)).trimEnd()}`,
  );
  // B, A, C, A: the second A is a compaction's copy, not a later run.
  const a = record('data/a.vtask', 't3', 'm1', 1);
  add(record('data/a.vtask', 't3', 'm1', 2));
  add(a);
  add(record('data/a.vtask', 't3', 'm1', 6));
  add(a);
  // Not records: a count past the safe integers, an unknown band, a negative cost.
  lines.push(
    formatRunRecord(record('data/a.vtask', 'bad1', 'm1', 1))
      .trimEnd()
      .replace('"samples":8', '"samples":12345678901234567890'),
  );
  lines.push(
    formatRunRecord(record('data/a.vtask', 'bad2', 'm1', 1))
      .trimEnd()
      .replace('"learnable"', '"medium"'),
  );
  lines.push(
    formatRunRecord(record('data/a.vtask', 'bad3', 'm1', 1, { cost: 1 }))
      .trimEnd()
      .replace('"cost":1', '"cost":-1'),
  );
  // A field this version does not know, and one with an escape in a value.
  lines.push(
    formatRunRecord(record('data/a.vtask', 't7', 'm2', 2))
      .trimEnd()
      .replace('}', ',"later":true}'),
  );
  lines.push(
    formatRunRecord(record('data/a.vtask', 't8', 'm2', 2, { at: 'aA' }))
      .trimEnd()
      .replace('"aA"', '"a\\u0041"'),
  );
  lines.push('', '   ', 'not json');
  for (let t = 0; t < 30; t += 3) add(record('data/a.vtask', `t${t}`, 'm2', (t + 1) % 9));
  // A write in progress: no newline yet.
  return `${lines.join('\n')}\n${formatRunRecord(record('data/a.vtask', 'cut', 'm1', 8)).slice(0, 40)}`;
}

/** The latest two distinct records of each key, reading every line as JSON. */
function reference(text: string): Map<string, { latest: RunRecord; previous?: RunRecord }> {
  const out = new Map<string, { latest: RunRecord; previous?: RunRecord; lines: string[] }>();
  forEachRunRecord(text, (r, line) => {
    const key = runLogKey(r.file, r.task, r.model);
    const e = out.get(key);
    if (!e) out.set(key, { latest: r, lines: [line] });
    else if (!e.lines.slice(0, 2).includes(line)) {
      e.previous = e.latest;
      e.latest = r;
      e.lines.unshift(line);
    }
  });
  return new Map(
    [...out].map(([k, e]) => [k, e.previous ? { latest: e.latest, previous: e.previous } : { latest: e.latest }]),
  );
}

test('the run log read without parsing every line holds the records reading every line does', () => {
  const dir = path.join(root, 'mixed', '.vtask-cache');
  fs.mkdirSync(dir, { recursive: true });
  const text = mixedLog();
  fs.writeFileSync(runLogFile(dir), text);
  const want = reference(text);
  const got = readRunLog(dir);
  assert.deepStrictEqual(
    [...got].map(([k, e]) => [k, { latest: e.latest, ...(e.previous ? { previous: e.previous } : {}) }]),
    [...want],
  );
  assert.equal(readRunLogEntries(dir).length, want.size);
  // What that means, said plainly for a few keys.
  assert.equal(got.get(runLogKey('data/a.vtask', 't3', 'm1'))?.latest.passed, 6);
  assert.equal(got.get(runLogKey('data/a.vtask', 't3', 'm1'))?.previous?.passed, 1);
  assert.equal(got.get(runLogKey('data/a.vtask', 't1', 'm1'))?.latest.passed, 7);
  assert.equal(got.get(runLogKey('data/a.vtask', 't2', 'm2'))?.latest.passed, 5);
  assert.equal(got.get(runLogKey('données/é.vtask', 'ü/1', 'mödel'))?.latest.cost, 0.5);
  assert.equal(got.get(runLogKey('data/"quoted".vtask', 'q\\1', 'm1'))?.latest.passed, 3);
  assert.equal(got.has(runLogKey('data/a.vtask', 'bad1', 'm1')), false);
  assert.equal(got.has(runLogKey('data/a.vtask', 'bad2', 'm1')), false);
  assert.equal(got.has(runLogKey('data/a.vtask', 'bad3', 'm1')), false);
  assert.equal(got.get(runLogKey('data/a.vtask', 't8', 'm2'))?.latest.at, 'aA');
  assert.equal(got.has(runLogKey('data/a.vtask', 'cut', 'm1')), false);

  // readLatestRuns: the tasks asked for, by the models kept, as the reference has them.
  const asked = ['t0', 't1', 't2', 't3', 't7', 't8', 't12', 't21', 'bad1', 'cut'];
  const tasks = new Map(asked.map((t, i) => [latestRunName('data/a.vtask', t), i]));
  tasks.set(latestRunName('data/"quoted".vtask', 'q\\1'), asked.length);
  tasks.set(latestRunName('données/é.vtask', 'ü/1'), asked.length + 1);
  for (const wanted of [undefined, (m: string): boolean => m !== 'm2']) {
    const runs = readLatestRuns(dir, tasks, wanted);
    const expected = [...want.values()].flatMap((e) => {
      const task = tasks.get(latestRunName(e.latest.file, e.latest.task));
      if (task === undefined || (wanted && !wanted(e.latest.model))) return [];
      return [{ task, model: e.latest.model, latest: e.latest, previousBand: e.previous?.band }];
    });
    assert.deepStrictEqual(runs, expected);
    assert.ok(runs.length >= (wanted ? 8 : 12));
  }
});

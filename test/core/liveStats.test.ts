// The dashboard's statistics kept up to date (src/core/overview/dataset/liveStats.ts) must say what
// `vtask stats` says (collectDatasetStats) over the same files and run log, after each change:
// a file edited (its runs become stale), a run appended, a file added. Only what changed is read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { collectDatasetStats } from '../../src/core/overview/dataset/collect';
import { LiveDatasetStats, type LiveSources } from '../../src/core/overview/dataset/liveStats';
import { appendRunRecords, readRunLog, runLogPath, type RunRecord } from '../../src/core/overview/runlog/runLog';
import { indexRunLog } from '../../src/core/overview/runlog/runLogIndex';
import type { DatasetStats } from '../../src/core/overview/dataset/types';
import { taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { TimeSlices } from '../../src/core/util/slices';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-live-stats-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
fs.writeFileSync(path.join(root, 'package.json'), '{}');
const cacheDir = path.join(root, '.vtask-cache');

const task = (id: string, prompt: string, extra = ''): string =>
  `  - id: ${id}\n    prompt: ${JSON.stringify(prompt)}\n    verify: { math: { answer: "4" } }\n${extra}`;
const CASES =
  '    cases:\n      - { response: "\\\\boxed{4}", expect: pass }\n      - { response: "\\\\boxed{5}", expect: pass }\n';
const A = `vtask: 1\ntasks:\n${task('a1', 'What is 2 + 2?', CASES)}${task('a2', 'What is 1 + 3?')}${task('a3', 'What is 8 - 4?')}  - id: broken\n    prompt: x\n    verify: { math: {} }\n`;
const B = `vtask: 1\ntasks:\n${task('b1', 'What is 16 / 4?')}${task('b1', 'What is 2 * 2?')}${task('b2', 'What is 3 + 1?')}`;

const files = [path.join(root, 'data', 'a.vtask'), path.join(root, 'data', 'b.vtask')];
fs.mkdirSync(path.join(root, 'data'));
fs.writeFileSync(files[0]!, A);
fs.writeFileSync(files[1]!, B);

/** What `vtask run` records for a task (the last with its id) as its file is now. */
function record(
  file: string,
  taskId: string,
  model: string,
  passed: number,
  o: { key?: string; at?: string; tokens?: RunRecord['tokens']; cost?: number } = {},
): RunRecord {
  const parsed = parseTaskFile(fs.readFileSync(file, 'utf8'));
  const entry = parsed.tasks.filter((t) => t.id === taskId).at(-1);
  assert.ok(entry, taskId);
  const band = passed === 8 ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable';
  return {
    file: runLogPath(cacheDir, file),
    task: taskId,
    model,
    key: o.key ?? taskRunKey(parsed, entry),
    at: o.at ?? '2026-01-02T00:00:00.000Z',
    samples: 8,
    passed,
    pass_rate: passed / 8,
    band,
    signal_share: passed / 10,
    ...(o.tokens ? { tokens: o.tokens } : {}),
    ...(o.cost !== undefined ? { cost: o.cost } : {}),
  };
}

const reads: string[] = [];
const sources: LiveSources = {
  read: (f) => {
    reads.push(path.basename(f));
    return fs.readFileSync(f, 'utf8');
  },
  runLog: (dir) => indexRunLog(readRunLog(dir).values()),
  duplicates: [],
  contamination: [],
};

/** The live statistics and `vtask stats`'s, side by side (the latter without what the live ones leave out). */
async function both(live: LiveDatasetStats, list: readonly string[]): Promise<[DatasetStats, DatasetStats]> {
  const got = await live.compute(
    list.map((file) => ({ file, cacheDir })),
    sources,
    { slices: new TimeSlices(1) },
  );
  const { comparisons: _c, ...want } = await collectDatasetStats(list, { duplicates: false });
  return [got, want];
}

/** Equal, but for the mean signal share (sums made in another order differ in the last bits). */
function assertSameStats(got: DatasetStats, want: DatasetStats, what: string): void {
  const signal = (s: DatasetStats): Record<string, number> =>
    Object.fromEntries(Object.entries(s.models).map(([m, x]) => [m, x.signal_share]));
  const without = (s: DatasetStats): unknown => ({
    ...s,
    models: Object.fromEntries(Object.entries(s.models).map(([m, x]) => [m, { ...x, signal_share: 0 }])),
  });
  assert.deepEqual(without(got), without(want), what);
  for (const [m, x] of Object.entries(signal(want)))
    assert.ok(Math.abs((signal(got)[m] ?? NaN) - x) < 1e-9, `${what}: signal share of ${m}`);
}

test('the live statistics agree with vtask stats after each change, reading only the files that changed', async () => {
  appendRunRecords(cacheDir, [record(files[0]!, 'a1', 'model-a', 0, { at: '2026-01-01T00:00:00.000Z' })]);
  appendRunRecords(cacheDir, [
    record(files[0]!, 'a1', 'model-a', 4),
    record(files[0]!, 'a2', 'model-a', 8, { tokens: { prompt: 100, completion: 300 }, cost: 0.25 }),
    record(files[0]!, 'a1', 'model-b', 1),
    record(files[0]!, 'a3', 'model-b', 0, { key: 'an older run key' }),
    record(files[1]!, 'b1', 'model-a', 8),
    record(files[1]!, 'b2', 'model-b', 3),
    { ...record(files[1]!, 'b2', 'model-b', 3), file: 'data/gone.vtask' },
  ]);
  const live = new LiveDatasetStats();
  let [got, want] = await both(live, files);
  assertSameStats(got, want, 'the first reading');
  assert.equal(got.models['model-b']?.stale, 1);
  assert.deepEqual(
    [got.models['model-a']?.tokens, got.models['model-a']?.cost],
    [{ prompt: 100, completion: 300 }, 0.25],
    'tokens and cost of the runs that recorded them',
  );
  assert.equal(got.models['model-b']?.tokens, undefined, 'no run recorded tokens: none, not zero');
  assert.deepEqual(
    got.models['model-a']?.changed.map((c) => [c.task, c.from, c.to]),
    [['a1', 'too_hard', 'learnable']],
  );
  assert.deepEqual(got.per_file[0]?.cases, { total: 2, passed: 1, failed: 1, skipped: 0 }, 'the cases were run');
  assert.deepEqual(reads.splice(0).sort(), ['a.vtask', 'b.vtask']);

  // A run appended: joined again from the new log, no file read.
  appendRunRecords(cacheDir, [record(files[1]!, 'b2', 'model-a', 2)]);
  [got, want] = await both(live, files);
  assertSameStats(got, want, 'after a run');
  // a1, a2 and b2: b1 is written twice, an error that leaves it out.
  assert.equal(got.models['model-a']?.tasks, 3);
  assert.deepEqual(reads.splice(0), []);

  // An edited prompt: that file is read again, and its runs of the old prompt are stale.
  fs.writeFileSync(files[0]!, A.replace('What is 2 + 2?', 'What is 2 + 2, again?'));
  live.changed([files[0]!]);
  [got, want] = await both(live, files);
  assertSameStats(got, want, 'after an edit');
  assert.equal(got.models['model-a']?.stale, 1);
  assert.deepEqual(reads.splice(0), ['a.vtask']);

  // A file added, and one marked changed whose text is the same (kept as it was).
  const c = path.join(root, 'data', 'c.vtask');
  fs.writeFileSync(c, `vtask: 1\ntasks:\n${task('c1', 'What is 5 - 1?')}`);
  live.changed([files[1]!]);
  [got, want] = await both(live, [...files, c]);
  assertSameStats(got, want, 'after a file was added');
  assert.deepEqual(reads.splice(0), ['b.vtask', 'c.vtask']);

  // A file gone from the list is gone from the statistics.
  [got, want] = await both(live, [files[1]!, c]);
  assertSameStats(got, want, 'after a file was removed');
});

test('an aborted computation reads what it did not read the next time', async () => {
  const live = new LiveDatasetStats();
  const abort = new AbortController();
  abort.abort();
  await assert.rejects(
    live.compute(
      files.map((file) => ({ file, cacheDir })),
      sources,
      { slices: new TimeSlices(0, abort.signal) },
    ),
  );
  const [got, want] = await both(live, files);
  assertSameStats(got, want, 'after the abort');
});

test('the dashboard editing a file keeps the summary of its text, not one per state it had', async () => {
  const dir = path.join(root, 'edited');
  fs.mkdirSync(dir);
  const file = path.join(dir, 'e.vtask');
  const cache = path.join(dir, '.vtask-cache');
  const live = new LiveDatasetStats();
  const quiet: LiveSources = { ...sources, read: (f) => fs.readFileSync(f, 'utf8') };
  const compute = (): Promise<DatasetStats> =>
    live.compute([{ file, cacheDir: cache }], quiet, { slices: new TimeSlices(1) });
  /** The remembered summaries, each made over a minute ago (as if the edits were that far apart). */
  const summaries = (): string[] => {
    const [version] = fs.readdirSync(path.join(cache, 'stats'));
    const files = path.join(cache, 'stats', version!, 'files');
    const then = Date.now() / 1000 - 120;
    for (const name of fs.readdirSync(files)) fs.utimesSync(path.join(files, name), then, then);
    return fs.readdirSync(files);
  };
  for (let k = 1; k <= 4; k++) {
    fs.writeFileSync(file, `vtask: 1\ntasks:\n${task('e1', `What is ${k} + ${4 - k}?`, CASES)}`);
    live.changed([file]);
    assert.equal((await compute()).per_file[0]?.tasks, 1);
    assert.ok(summaries().length <= k);
  }
  // Tidied at most once a minute while it is open (a dashboard opened now tidies at once), and when it closes.
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${task('e1', 'What is 0 + 4?', CASES)}`);
  const opened = new LiveDatasetStats();
  await opened.compute([{ file, cacheDir: cache }], quiet, { slices: new TimeSlices(1) });
  assert.equal(summaries().length, 1);
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${task('e1', 'What is 5 - 1?', CASES)}`);
  live.changed([file]);
  await compute();
  assert.equal(summaries().length, 2, 'within the minute: kept');
  live.flush();
  assert.equal(summaries().length, 1);
  // An editor's unsaved text is summarised, but the file's pointer stays on the disk's text.
  const [version] = fs.readdirSync(path.join(cache, 'stats'));
  const pointers = path.join(cache, 'stats', version!, 'current');
  const pointed = (): string[] => fs.readdirSync(pointers).map((f) => fs.readFileSync(path.join(pointers, f), 'utf8'));
  const before = pointed();
  live.changed([file]);
  const unsaved = `vtask: 1\ntasks:\n${task('e1', 'What is 2 + 2, unsaved?', CASES)}`;
  await live.compute(
    [{ file, cacheDir: cache }],
    { ...quiet, read: () => unsaved, unsaved: () => true },
    {
      slices: new TimeSlices(1),
    },
  );
  live.flush();
  assert.equal(before.length, 1);
  assert.deepEqual(pointed(), before);
});

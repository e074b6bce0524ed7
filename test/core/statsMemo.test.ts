// What `vtask stats` remembers between runs must never outlive what it describes: a file edited
// in place with the same size and its modification time set back, or replaced by a copy with
// the same times; runs appended to the log or the log compacted by another process; another
// threshold; a benchmark edited; memo files deleted, damaged or forged. Every check compares a
// run that used the memo with what is true. The files are written, then left alone for
// RACY_MS, so that the stat index trusts them from the first run on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectDatasetStats } from '../../src/core/overview/dataset/collect';
import { appendRunRecords, compactRunLog, type RunRecord } from '../../src/core/overview/runlog/runLog';
import { RACY_MS, StatIndex } from '../../src/core/overview/dataset/statIndex';
import { OTHER_VERSIONS_KEPT_MS, StatsMemo, UNPOINTED_KEPT_MS } from '../../src/core/overview/dataset/statsMemo';
import { CaseOutcomes } from '../../src/core/overview/dataset/caseOutcomes';
import { TaskRows } from '../../src/core/overview/dataset/taskRows';
import { textHash } from '../../src/core/overview/dataset/summary';
import { version } from '../../src/core/version';
import { taskRunKey } from '../../src/core/run/resultKeys';
import { parseTaskFile } from '../../src/core/taskfile/parse';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-memo-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

// `sum` has a case that expects the wrong verdict; `sea` and `sea2` are near duplicates (6 of 7
// shingles), `sum` and `sum-again` exact ones.
const A = `vtask: 1
tasks:
  - id: sum
    prompt: Natalia sold 48 clips in April and half as many in May. How many clips did she sell?
    verify:
      math: { answer: "72" }
    cases:
      - { response: "\\\\boxed{72}", expect: pass }
      - { response: "\\\\boxed{71}", expect: pass }
  - id: sea
    prompt: Describe the sea in under 50 words.
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 50 }
`;
const B = `vtask: 1
tasks:
  - id: sum-again
    prompt: Natalia sold 48 clips in April and half as many in May. How many clips did she sell?
    verify:
      match: { answer: "72" }
  - id: sea2
    prompt: Describe the sea in under 50 words, please.
    verify:
      match: { answer: "blue" }
`;
/** The same size as A, with the wrong case fixed. */
const A_FIXED = A.replace('{ response: "\\\\boxed{71}", expect: pass }', '{ response: "\\\\boxed{71}", expect: fail }');
assert.equal(A_FIXED.length, A.length);

interface Workspace {
  readonly dir: string;
  readonly cacheDir: string;
  readonly files: readonly [string, string];
}

/** When the files were last modified, as far as their times say (seconds since the epoch). */
const MTIME = Math.floor(Date.now() / 1000) - 3600;
const NAMES = [
  'edit',
  'replace',
  'unsaved',
  'log',
  'threshold',
  'bench',
  'deleted',
  'forged',
  'shapes',
  'tidy',
] as const;
const ws = {} as Record<(typeof NAMES)[number], Workspace>;

before(async () => {
  for (const name of NAMES) {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{}');
    const files = [path.join(dir, 'a.vtask'), path.join(dir, 'b.vtask')] as const;
    fs.writeFileSync(files[0], A);
    fs.writeFileSync(files[1], B);
    // Whole seconds, which setting the time back restores exactly (times have more precision than utimes takes).
    for (const f of files) fs.utimesSync(f, MTIME, MTIME);
    ws[name] = { dir, cacheDir: path.join(dir, '.vtask-cache'), files };
  }
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
});

/** Writes `text` over `file` in place, then sets its times back. */
function editKeepingTimes(file: string, text: string): void {
  fs.writeFileSync(file, text);
  fs.utimesSync(file, MTIME, MTIME);
}

/** The memo folder of a workspace (one vtask version). */
function memoDir(w: Workspace): string {
  const [version] = fs.readdirSync(path.join(w.cacheDir, 'stats'));
  return path.join(w.cacheDir, 'stats', version!);
}

function record(w: Workspace, task: string, model: string, passed: number, at: string): RunRecord {
  const parsed = parseTaskFile(fs.readFileSync(w.files[0], 'utf8'));
  const entry = parsed.tasks.find((t) => t.id === task)!;
  return {
    file: 'a.vtask',
    task,
    model,
    key: taskRunKey(parsed, entry),
    at,
    samples: 8,
    passed,
    pass_rate: passed / 8,
    band: passed === 8 ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable',
    signal_share: 0.5,
  };
}

test('the stat index trusts a file only while its stat is the one read, and only when it was read long enough after its last change', () => {
  const st = (o: Partial<fs.Stats> = {}): fs.Stats =>
    ({ size: 100, mtimeMs: 1_000_000.5, ctimeMs: 1_000_000.5, ino: 7, dev: 1, ...o }) as fs.Stats;
  const index = new StatIndex(undefined);
  index.set('/d/a.vtask', st(), 1_000_000.5 + RACY_MS, 'h1');
  assert.equal(index.hashOf('/d/a.vtask', st()), 'h1');
  for (const changed of [{ size: 101 }, { mtimeMs: 1_000_000.6 }, { ctimeMs: 1_000_900 }, { ino: 8 }, { dev: 2 }])
    assert.equal(index.hashOf('/d/a.vtask', st(changed)), undefined, JSON.stringify(changed));
  // Read within RACY_MS of its last change: a write in the same clock tick would keep its stat.
  index.set('/d/b.vtask', st(), 1_000_000.5 + RACY_MS - 1, 'h2');
  assert.equal(index.hashOf('/d/b.vtask', st()), undefined);
  index.set('/d/c.vtask', st({ ctimeMs: 1_000_500 }), 1_000_000.5 + RACY_MS, 'h3');
  assert.equal(index.hashOf('/d/c.vtask', st({ ctimeMs: 1_000_500 })), undefined, 'the change time counts as a change');
  // Written and read back; files that are gone are dropped then; a damaged index is empty.
  const text = index.changes((f) => f !== '/d/c.vtask');
  assert.ok(text);
  assert.equal(new StatIndex(text).hashOf('/d/a.vtask', st()), 'h1');
  assert.doesNotMatch(text, /c\.vtask/);
  assert.equal(
    index.changes(() => true),
    undefined,
    'nothing new to write',
  );
  assert.equal(new StatIndex('{"/d/a.vtask": [100, 1]}').hashOf('/d/a.vtask', st()), undefined);
  assert.equal(new StatIndex('{"/d/a.vtask": ').hashOf('/d/a.vtask', st()), undefined);
});

test('a file edited in place with the same size and its modification time set back is read again', async () => {
  const w = ws.edit;
  const before = await collectDatasetStats(w.files);
  assert.deepEqual(before.per_file[0]?.cases, { total: 2, passed: 1, failed: 1, skipped: 0 });
  assert.deepEqual(
    (await collectDatasetStats(w.files)).per_file[0]?.cases,
    before.per_file[0]?.cases,
    'unchanged: the same',
  );
  const was = fs.statSync(w.files[0]);
  editKeepingTimes(w.files[0], A_FIXED);
  const now = fs.statSync(w.files[0]);
  assert.deepEqual([now.size, now.mtimeMs, now.ino], [was.size, was.mtimeMs, was.ino], 'only the change time tells');
  assert.deepEqual((await collectDatasetStats(w.files)).per_file[0]?.cases, {
    total: 2,
    passed: 2,
    failed: 0,
    skipped: 0,
  });
});

test('a file replaced by a copy of the same size and times (another inode) is read again', async () => {
  const w = ws.replace;
  assert.equal((await collectDatasetStats(w.files)).per_file[0]?.cases.failed, 1);
  const tmp = `${w.files[0]}.new`;
  fs.writeFileSync(tmp, A_FIXED);
  fs.utimesSync(tmp, MTIME, MTIME);
  fs.renameSync(tmp, w.files[0]);
  assert.equal((await collectDatasetStats(w.files)).per_file[0]?.cases.failed, 0);
});

test('a file open in an editor is counted as the editor has it, whatever its stat', async () => {
  const w = ws.unsaved;
  await collectDatasetStats(w.files);
  const s = await collectDatasetStats(w.files, {
    unsaved: (f) => f === w.files[0],
    read: (f) => ({ text: f === w.files[0] ? A_FIXED : fs.readFileSync(f, 'utf8'), onDisk: f !== w.files[0] }),
  });
  assert.equal(s.per_file[0]?.cases.failed, 0);
  // The disk's text again once it is closed.
  assert.equal((await collectDatasetStats(w.files)).per_file[0]?.cases.failed, 1);
});

test('runs appended to the log, and the log compacted by another process, are read as they are', async () => {
  const w = ws.log;
  appendRunRecords(w.cacheDir, [record(w, 'sum', 'model-a', 0, '2026-01-01T00:00:00.000Z')]);
  const first = await collectDatasetStats(w.files);
  assert.equal(first.models['model-a']?.tasks, 1);
  assert.equal(first.models['model-a']?.bands.too_hard, 1);
  // Another process appends: a run of another task, a newer run of `sum`.
  appendRunRecords(w.cacheDir, [
    record(w, 'sea', 'model-a', 8, '2026-01-02T00:00:00.000Z'),
    record(w, 'sum', 'model-a', 4, '2026-01-02T00:00:00.000Z'),
  ]);
  const appended = await collectDatasetStats(w.files);
  assert.equal(appended.models['model-a']?.tasks, 2);
  assert.deepEqual(appended.models['model-a']?.bands, { too_easy: 1, learnable: 1, too_hard: 0, error: 0 });
  assert.deepEqual(
    appended.models['model-a']?.changed.map((c) => [c.task, c.from, c.to]),
    [['sum', 'too_hard', 'learnable']],
  );
  // A third run of `sum`, then a compaction down to the latest two: the same statistics.
  appendRunRecords(w.cacheDir, [record(w, 'sum', 'model-a', 8, '2026-01-03T00:00:00.000Z')]);
  const grown = await collectDatasetStats(w.files);
  assert.deepEqual(
    grown.models['model-a']?.changed.map((c) => [c.task, c.from, c.to]),
    [['sum', 'learnable', 'too_easy']],
  );
  assert.deepEqual(compactRunLog(w.cacheDir), { before: 4, after: 3 });
  assert.deepEqual(await collectDatasetStats(w.files), grown);
});

test('duplicates are remembered per threshold and per state of the dataset', async () => {
  const w = ws.threshold;
  const pairs = async (threshold?: number): Promise<string[]> =>
    (await collectDatasetStats(w.files, { duplicateThreshold: threshold })).duplicates.map(
      (d) => `${d.a.task}~${d.b.task}${d.exact ? ' exact' : ''}`,
    );
  assert.deepEqual(await pairs(), ['sum~sum-again exact', 'sea~sea2']);
  assert.deepEqual(await pairs(0.9), ['sum~sum-again exact'], 'another threshold');
  assert.deepEqual(await pairs(), ['sum~sum-again exact', 'sea~sea2'], 'the first threshold again');
  assert.equal(fs.readdirSync(path.join(memoDir(w), 'checks')).length, 2);
  // One letter of a prompt, in place, the times set back: no longer an exact copy.
  editKeepingTimes(w.files[1], B.replace('Natalia', 'Natalie'));
  assert.deepEqual(await pairs(), ['sum~sum-again', 'sea~sea2']);
  // A file more, or one less.
  assert.deepEqual((await collectDatasetStats([w.files[0]])).duplicates, []);
});

test('overlaps with a benchmark are remembered by its content, with what reading it noted', async () => {
  const w = ws.bench;
  const bench = path.join(w.dir, 'bench.jsonl');
  const long = JSON.stringify({ prompt: 'x '.repeat(600_000) });
  fs.writeFileSync(
    bench,
    `${JSON.stringify({ prompt: 'Natalia sold 48 clips in April and half as many in May.' })}\n${long}\n`,
  );
  const hits = async (): Promise<{ hits: string[]; notes: string[] }> => {
    const notes: string[] = [];
    const s = await collectDatasetStats(w.files, { benchmarks: [bench], onNote: (n) => notes.push(n) });
    return { hits: s.contamination.map((c) => `${c.task}:${c.benchmark_row}`), notes };
  };
  const first = await hits();
  assert.deepEqual(first.hits, ['sum:0', 'sum-again:0']);
  assert.equal(first.notes.length, 1, 'the long row is skipped with a note');
  assert.deepEqual(await hits(), first, 'remembered, the note too');
  // The benchmark edited: another row.
  fs.writeFileSync(bench, `${JSON.stringify({ prompt: 'Describe the sea in under 50 words, please.' })}\n`);
  assert.deepEqual(await hits(), { hits: ['sea2:0'], notes: [] });
});

test('deleting or damaging memo files costs only time', async () => {
  const w = ws.deleted;
  appendRunRecords(w.cacheDir, [record(w, 'sum', 'model-a', 4, '2026-01-01T00:00:00.000Z')]);
  const truth = await collectDatasetStats(w.files);
  const memo = memoDir(w);
  assert.deepEqual(fs.readdirSync(memo).sort(), ['cases.json', 'checks', 'current', 'files', 'index.json']);
  // The prompts line of every summary damaged, and the duplicates forgotten: read from the files again.
  for (const f of fs.readdirSync(path.join(memo, 'files'))) {
    const p = path.join(memo, 'files', f);
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').split('\n')[0] + '\n["torn');
  }
  fs.rmSync(path.join(memo, 'checks'), { recursive: true });
  assert.deepEqual(await collectDatasetStats(w.files), truth);
  for (const name of ['index.json', 'cases.json', 'files', 'checks', 'current']) {
    fs.rmSync(path.join(memo, name), { recursive: true, force: true });
    assert.deepEqual(await collectDatasetStats(w.files), truth, name);
  }
  fs.rmSync(path.join(w.cacheDir, 'stats'), { recursive: true });
  assert.deepEqual(await collectDatasetStats(w.files), truth, 'stats/');
});

/** The summaries remembered in a workspace's memo, each made over a minute ago (as if by an earlier session). */
function summariesAged(w: Workspace): string[] {
  const dir = path.join(memoDir(w), 'files');
  const names = fs.readdirSync(dir).sort();
  const then = Date.now() / 1000 - UNPOINTED_KEPT_MS / 1000 - 60;
  for (const name of names) fs.utimesSync(path.join(dir, name), then, then);
  return names;
}

test('a summary is kept while a task file has its text: editing a file leaves one summary, not one per state', async () => {
  const w = ws.tidy;
  const truth = await collectDatasetStats(w.files);
  const twoFiles = summariesAged(w);
  assert.equal(twoFiles.length, 2);
  // Four states of a.vtask, a run over each: the summary of the last only.
  for (let k = 1; k <= 4; k++) {
    fs.writeFileSync(w.files[0], A.replace('Describe the sea', `Describe the sea ${k} times`));
    const s = await collectDatasetStats(w.files);
    assert.equal(s.per_file[0]?.tasks, 2);
    const names = summariesAged(w);
    assert.equal(names.length, 2, `state ${k}: ${names.join(', ')}`);
    assert.ok(names.includes(twoFiles[0]!) || names.includes(twoFiles[1]!), "b.vtask's summary stays");
  }
  // Back to the first text: the same statistics, its summary made again.
  fs.writeFileSync(w.files[0], A);
  assert.deepEqual(await collectDatasetStats(w.files), truth);
  assert.deepEqual(summariesAged(w), twoFiles);

  // A copy of b.vtask shares its summary; editing b.vtask keeps it for the copy.
  const copy = path.join(w.dir, 'c.vtask');
  fs.writeFileSync(copy, B);
  await collectDatasetStats([...w.files, copy]);
  assert.equal(summariesAged(w).length, 2);
  fs.writeFileSync(w.files[1], B.replace('please', 'kindly'));
  await collectDatasetStats([...w.files, copy]);
  assert.equal(summariesAged(w).length, 3, "a.vtask's, b.vtask's new one, and the copy's");
  // The copy deleted: its pointer and summary go with the next run that moves a pointer.
  fs.rmSync(copy);
  fs.writeFileSync(w.files[1], B);
  assert.deepEqual(await collectDatasetStats(w.files), truth);
  assert.deepEqual(summariesAged(w), twoFiles);
  assert.equal(fs.readdirSync(path.join(memoDir(w), 'current')).length, 2, 'a pointer per task file');

  // A run over a.vtask alone keeps b.vtask's summary: b.vtask still points at it.
  fs.writeFileSync(w.files[0], A_FIXED);
  await collectDatasetStats([w.files[0]]);
  assert.deepEqual(summariesAged(w), [`${textHash(A_FIXED)}.jsonl`, `${textHash(B)}.jsonl`].sort());
  fs.writeFileSync(w.files[0], A);
  await collectDatasetStats([w.files[0]]);
  assert.deepEqual(summariesAged(w), twoFiles);
  // Text an editor has (not on disk) is pointed at by that process only: the disk's stays.
  const pointers = (): string[] =>
    fs
      .readdirSync(path.join(memoDir(w), 'current'))
      .map((f) => fs.readFileSync(path.join(memoDir(w), 'current', f), 'utf8'))
      .sort();
  const onDisk = pointers();
  await collectDatasetStats(w.files, {
    unsaved: (f) => f === w.files[0],
    read: (f) => ({ text: f === w.files[0] ? A_FIXED : fs.readFileSync(f, 'utf8'), onDisk: f !== w.files[0] }),
  });
  assert.deepEqual(pointers(), onDisk);
  assert.deepEqual(
    summariesAged(w).filter((f) => twoFiles.includes(f)),
    twoFiles,
  );
  // A memo from before pointers: the summaries a run finds by the files' stats are pointed at, and kept.
  await sleep(RACY_MS + 200);
  await collectDatasetStats(w.files); // a.vtask is still now: its stat is trusted from here on
  fs.rmSync(path.join(memoDir(w), 'current'), { recursive: true });
  for (const f of fs.readdirSync(path.join(memoDir(w), 'files')))
    if (!twoFiles.includes(f)) fs.rmSync(path.join(memoDir(w), 'files', f));
  fs.writeFileSync(w.files[1], B.replace('please', 'kindly'));
  await collectDatasetStats(w.files);
  assert.equal(summariesAged(w).length, 2, "a.vtask's, found by its stat, and b.vtask's new one");
  fs.writeFileSync(w.files[1], B);
  assert.deepEqual(await collectDatasetStats(w.files), truth);
  assert.deepEqual(summariesAged(w), twoFiles);

  // A summary no file points at is kept while it is young (another process may be about to point
  // at it), and so is one that a pointer names.
  const young = path.join(memoDir(w), 'files', 'f00d.jsonl');
  fs.writeFileSync(young, '{}\n');
  fs.writeFileSync(w.files[0], A_FIXED);
  await collectDatasetStats(w.files);
  assert.ok(fs.existsSync(young));
  assert.equal(summariesAged(w).length, 3);
  fs.writeFileSync(w.files[0], A);
  await collectDatasetStats(w.files);
  assert.deepEqual(summariesAged(w), twoFiles);
});

test('the memo of another vtask version goes once no run used it for two weeks; a run marks its own as used', async () => {
  const cacheDir = path.join(root, 'versions');
  const stats = path.join(cacheDir, 'stats');
  const own = path.join(stats, version.replace(/[^\w.-]/g, '_'));
  const daysAgo = (d: number): number => Date.now() / 1000 - d * 24 * 3600;
  for (const [name, age] of [
    ['0.0.1', 15],
    ['0.0.2', 13],
  ] as const) {
    fs.mkdirSync(path.join(stats, name, 'files'), { recursive: true });
    fs.writeFileSync(path.join(stats, name, 'cases.json'), '{}');
    fs.utimesSync(path.join(stats, name), daysAgo(age), daysAgo(age));
  }
  const memo = new StatsMemo(cacheDir);
  memo.putCheck('dups-1', [0, 1]);
  fs.utimesSync(own, daysAgo(20), daysAgo(20));
  memo.save();
  assert.ok(Date.now() - fs.statSync(own).mtimeMs < 60_000, 'a run that changed nothing still marks it used');
  // Removed in the background.
  for (let waited = 0; fs.existsSync(path.join(stats, '0.0.1')) && waited < 10_000; waited += 50) await sleep(50);
  assert.deepEqual(fs.readdirSync(stats).sort(), ['0.0.2', path.basename(own)].sort());
  assert.ok(OTHER_VERSIONS_KEPT_MS < 15 * 24 * 3600_000 && OTHER_VERSIONS_KEPT_MS > 13 * 24 * 3600_000);
});

test('case outcomes are bounded: those used are kept, then the newest of the others', () => {
  const table = new CaseOutcomes(10);
  const key = (i: number): string => String(i).padStart(40, '0');
  const counts = (i: number) => ({ total: i, passed: i, failed: 0, skipped: 0 });
  for (let i = 0; i < 10; i++) table.restore(key(i), counts(i));
  table.set(key(10), counts(10));
  assert.equal(table.size, 10);
  assert.equal(table.get(key(10)), undefined, 'past the bound: not remembered');
  assert.deepEqual(table.get(key(2)), counts(2));
  table.set(key(5), counts(50));
  // Used: 2 and 5; of the others the newest, up to 6 in all: 7, 8, 9 and 6. In their order.
  assert.deepEqual(
    [...table.kept(6)].map(([k, c]) => [Number(k), c.total]),
    [
      [2, 2],
      [5, 50],
      [6, 6],
      [7, 7],
      [8, 8],
      [9, 9],
    ],
  );
  assert.deepEqual(
    [...table.kept(1)].map(([k]) => Number(k)),
    [2, 5],
    'the used ones all, past the bound',
  );
});

test('a remembered check that names tasks the dataset does not have is not used', async () => {
  const w = ws.forged;
  const truth = await collectDatasetStats(w.files);
  const checks = path.join(memoDir(w), 'checks');
  const [file] = fs.readdirSync(checks);
  for (const forged of [[0, 99, 1, 1], [0, 1, 1], [0, 1, 'x', 1], { pairs: [] }]) {
    fs.writeFileSync(path.join(checks, file!), JSON.stringify(forged));
    assert.deepEqual((await collectDatasetStats(w.files)).duplicates, truth.duplicates, JSON.stringify(forged));
  }
});

test('a summary and the case outcomes, written a piece at a time, are the text JSON.stringify gives', () => {
  const cacheDir = path.join(root, 'pieces');
  const memo = new StatsMemo(cacheDir);
  const tasks = Array.from({ length: 30_000 }, (_, i) => ({
    id: `t${i}`,
    line: i + 4,
    kind: i % 7 ? 'math' : null,
    cases: i % 10 ? 0 : 2,
    runKey: `${i}`.padStart(40, 'a'),
    ...(i % 10 ? {} : { outcome: { total: 2, passed: 1, failed: 1, skipped: 0 } }),
  }));
  const summary = { tasks: TaskRows.of(tasks), errors: 3, casesRun: true };
  const prompts = tasks.map((t) => `Task "${t.id}": 2+2?\u2028é`);
  memo.putFileSummary('f00d', summary, prompts);
  for (const t of tasks.slice(0, 5000)) memo.set(t.runKey, { total: 2, passed: 2, failed: 0, skipped: 0 });
  memo.save();
  const dir = path.join(cacheDir, 'stats', version.replace(/[^\w.-]/g, '_'));
  assert.equal(
    fs.readFileSync(path.join(dir, 'files', 'f00d.jsonl'), 'utf8'),
    `${JSON.stringify({ ...summary, tasks })}\n${JSON.stringify(prompts)}\n`,
  );
  assert.deepEqual([...(new StatsMemo(cacheDir).prompts('f00d', tasks.length) ?? [])], prompts);
  assert.equal(
    fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'),
    JSON.stringify(
      Object.fromEntries(tasks.slice(0, 5000).map((t) => [t.runKey, { total: 2, passed: 2, failed: 0, skipped: 0 }])),
    ),
  );
});

test('remembered case outcomes are read back as written; entries that are not counts are not remembered', () => {
  const cacheDir = path.join(root, 'outcomes');
  const memo = new StatsMemo(cacheDir);
  const good = { total: 2, passed: 1, failed: 1, skipped: 0 };
  memo.set('a'.repeat(40), good);
  memo.set('odd key', good);
  memo.save();
  const file = path.join(cacheDir, 'stats', version.replace(/[^\w.-]/g, '_'), 'cases.json');
  const written = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const [i, bad] of [{ total: -1, passed: 0, failed: 0, skipped: 0 }, { total: 1 }, 'x', null].entries())
    written['b'.repeat(39) + i] = bad;
  fs.writeFileSync(file, JSON.stringify(written));
  const again = new StatsMemo(cacheDir);
  assert.deepEqual(again.get('a'.repeat(40)), good);
  assert.deepEqual(again.get('odd key'), good);
  for (let i = 0; i < 4; i++) assert.equal(again.get('b'.repeat(39) + i), undefined);
});

/** Scratch folders of spilled rows this process has open. */
const rowScratch = (): number =>
  fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`vtask-rows-${process.pid}-`)).length;

/** Summary lines damaged or not as the memo writes them: each is no remembered summary. */
function damaged(line: string): Record<string, string> {
  const escape = line.indexOf('\\"', line.length >> 1);
  return {
    'cut mid-row': line.slice(0, line.length >> 1),
    'cut after the backslash of an escaped quote': line.slice(0, escape + 1),
    'cut in the tail': line.slice(0, -5),
    'a row that is a number': line.replace('{"tasks":[{', '{"tasks":[1,{'),
    'a row that is an array': line.replace('{"tasks":[{', '{"tasks":[[],{'),
    'a row that is null': line.replace('{"tasks":[{', '{"tasks":[null,{'),
    'a row without its id': line.replace(/\{"id":"[^"]*",/, '{'),
    'a row with a negative line': line.replace(/"line":\d+/, '"line":-1'),
    'a row with counts that are not counts': line.replace(/"outcome":\{"total":\d+/, '"outcome":{"total":"2"'),
    'a row left unclosed': line.replace(/\},\{"id"/, ',{"id"'),
    'two commas': line.replace('},{', '},,{'),
    'tasks not an array': line.replace('{"tasks":[', '{"tasks":{').replace('],"errors"', '},"errors"'),
    'no errors': line.replace(/,"errors":\d+/, ''),
    'errors not a number': line.replace(/"errors":(\d+)/, '"errors":"$1"'),
    'no casesRun': line.replace(/,"casesRun":\w+/, ''),
    'something after the summary': line.replace(/\}$/, ',"more":[]} x'),
    'another key first': line.replace('{"tasks":', '{"errors":0,"tasks":'),
  };
}

test('a remembered summary is read a row at a time as written; one cut short, damaged or of another shape is no summary, and leaves no scratch folder', () => {
  const cacheDir = path.join(root, 'shapes-memo');
  const memo = new StatsMemo(cacheDir);
  // Past the rows kept in memory, with ids whose escapes and braces the scanner must step over.
  const tasks = Array.from({ length: 20_000 }, (_, i) => ({
    id: i % 101 ? `t${i}` : `q"{[\\${i}]}\n\u00e9\u{1F600}`,
    line: i + 4,
    kind: i % 7 ? 'math' : null,
    cases: i % 10 ? 0 : 2,
    runKey: i % 5000 ? `${i}`.padStart(40, 'a') : `odd key ${i}`,
    ...(i % 10 ? {} : { outcome: { total: 2, passed: 1, failed: 1, skipped: 0 } }),
  }));
  const rows = TaskRows.of(tasks);
  memo.putFileSummary(
    'feed',
    { tasks: rows, errors: 3, casesRun: true },
    tasks.map((t) => `prompt of ${t.id}`),
  );
  rows.close();
  const before = rowScratch();
  const read = memo.fileSummary('feed');
  assert.ok(read);
  assert.deepEqual([...read.summary.tasks], tasks);
  assert.deepEqual([read.summary.errors, read.summary.casesRun], [3, true]);
  assert.deepEqual(
    [...(read.prompts() ?? [])],
    tasks.map((t) => `prompt of ${t.id}`),
  );
  read.summary.tasks.close();

  const file = path.join(cacheDir, 'stats', version.replace(/[^\w.-]/g, '_'), 'files', 'feed.jsonl');
  const [line, prompts] = fs.readFileSync(file, 'utf8').split('\n');
  for (const [what, bad] of Object.entries(damaged(line!))) {
    assert.notEqual(bad, line, what);
    fs.writeFileSync(file, `${bad}\n${prompts}\n`);
    assert.equal(memo.fileSummary('feed'), undefined, what);
    assert.equal(rowScratch(), before, `${what}: the spilled rows are removed`);
  }
  // No newline at all: the line may have been cut anywhere.
  fs.writeFileSync(file, line!);
  assert.equal(memo.fileSummary('feed'), undefined, 'no newline');
});

test('a damaged remembered summary costs only time: the statistics are those of the files', async () => {
  const w = ws.shapes;
  const truth = await collectDatasetStats(w.files);
  const files = path.join(memoDir(w), 'files');
  const written = fs
    .readdirSync(files)
    .map((f) => ({ file: path.join(files, f), text: fs.readFileSync(path.join(files, f), 'utf8') }));
  assert.equal(written.length, 2);
  for (const what of Object.keys(damaged(written[0]?.text.split('\n')[0] ?? ''))) {
    for (const { file, text } of written) {
      const [line, prompts] = text.split('\n');
      fs.writeFileSync(file, `${damaged(line ?? '')[what]}\n${prompts}\n`);
    }
    // The case outcomes are remembered apart: forgotten too, so that nothing but the files answers.
    fs.rmSync(path.join(memoDir(w), 'cases.json'), { force: true });
    assert.deepEqual(await collectDatasetStats(w.files), truth, what);
    for (const { file, text } of written) assert.equal(fs.readFileSync(file, 'utf8'), text, `${what}: written again`);
  }
});

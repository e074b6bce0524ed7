// The run log: records read back as written, torn and damaged lines skipped, compaction to the
// latest two records of each task and model, processes appending (and compacting) at once, and a
// log of 200,000 records read correctly. Children are this same file, started with
// VTASK_RUNLOG_CHILD set: they run the code under test, not a copy.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  appendRunRecords,
  appendRunRecordsAsync,
  compactRunLog,
  modelLabel,
  readRunLog,
  runLogFile,
  runLogKey,
  runLogPath,
  runRecordOf,
  type RunRecord,
} from '../../src/core/overview/runlog/runLog';
import { taskStats } from '../../src/core/stats';
import type { TaskRunResult } from '../../src/core/run/sampleTasks';
import type { ModelProfile } from '../../src/core/sampling/types';
import { tryLock } from '../../src/core/util/lock';

interface ChildArgs {
  dir: string;
  model: string;
  count: number;
  tasks: number;
  batch: number;
  compactBytes: number;
}

/** Record `i` of a writer: its task is i mod `tasks`, and `passed` says which i it was. */
function recordOf(model: string, i: number, tasks: number): RunRecord {
  return {
    file: 'data/a.vtask',
    task: `t${i % tasks}`,
    model,
    key: `k${i}`,
    at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    samples: 8,
    passed: i,
    pass_rate: 0.5,
    band: 'learnable',
    signal_share: 0.25,
  };
}

function runChild(a: ChildArgs): void {
  for (let i = 0; i < a.count; i += a.batch) {
    const batch: RunRecord[] = [];
    for (let j = i; j < Math.min(a.count, i + a.batch); j++) batch.push(recordOf(a.model, j, a.tasks));
    appendRunRecords(a.dir, batch, { compactBytes: a.compactBytes });
  }
}

if (process.env.VTASK_RUNLOG_CHILD) runChild(JSON.parse(process.env.VTASK_RUNLOG_CHILD) as ChildArgs);
else defineTests();

function child(a: ChildArgs): Promise<{ code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, VTASK_RUNLOG_CHILD: JSON.stringify(a) };
  delete env.NODE_TEST_CONTEXT;
  const p = spawn(process.execPath, [__filename], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, stderr })));
}

const made: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-runlog-'));
  made.push(d);
  return path.join(d, '.vtask-cache');
}

/** The last record of `model` for each task, and the one before it, as `recordOf` made them. */
function assertLatestTwo(log: ReturnType<typeof readRunLog>, model: string, count: number, tasks: number): void {
  for (let t = 0; t < tasks; t++) {
    const last = count - 1 - ((count - 1 - t) % tasks);
    const e = log.get(runLogKey('data/a.vtask', `t${t}`, model));
    assert.ok(e, `${model} t${t} missing`);
    assert.deepEqual(e.latest, recordOf(model, last, tasks), `${model} t${t} latest`);
    if (last - tasks >= 0)
      assert.deepEqual(e.previous, recordOf(model, last - tasks, tasks), `${model} t${t} previous`);
    else assert.equal(e.previous, undefined);
  }
}

function defineTests(): void {
  after(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  test('records read back as the latest and previous run of each file, task and model', () => {
    const dir = tmpDir();
    assert.equal(readRunLog(dir).size, 0, 'no log yet: nothing, no error');
    appendRunRecords(dir, [recordOf('a', 0, 2), recordOf('a', 1, 2), recordOf('b', 0, 2)]);
    appendRunRecords(dir, [recordOf('a', 2, 2)]);
    appendRunRecords(dir, [recordOf('a', 4, 2)]);
    const log = readRunLog(dir);
    assert.deepEqual(
      [...log.keys()].sort(),
      [
        runLogKey('data/a.vtask', 't0', 'a'),
        runLogKey('data/a.vtask', 't0', 'b'),
        runLogKey('data/a.vtask', 't1', 'a'),
      ].sort(),
    );
    const t0 = log.get(runLogKey('data/a.vtask', 't0', 'a'))!;
    assert.deepEqual(t0.latest, recordOf('a', 4, 2));
    assert.deepEqual(t0.previous, recordOf('a', 2, 2));
    assert.equal(log.get(runLogKey('data/a.vtask', 't0', 'b'))!.previous, undefined);
    // Names that need escaping key the same way they were written.
    appendRunRecords(dir, [{ ...recordOf('m "q",\\', 0, 1), file: 'dir/é "x".vtask', task: 'a,"task":"b' }]);
    assert.equal(
      readRunLog(dir).get(runLogKey('dir/é "x".vtask', 'a,"task":"b', 'm "q",\\'))?.latest.task,
      'a,"task":"b',
    );
    // The cache folder is marked as one, like the sample cache's.
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\*/);
  });

  test('a record is made only of a whole run, named by the label and the path the log uses', () => {
    const dir = tmpDir();
    const verdicts = [true, false, true, true].map((pass) => ({ pass, score: pass ? 1 : 0 }));
    const run = {
      task: { id: 'x' },
      model: 'p (m)',
      samples: verdicts.map((verdict) => ({ verdict })),
      stats: taskStats(verdicts),
      requests: 1,
    } as unknown as TaskRunResult;
    const o = {
      cacheDir: dir,
      file: path.join(path.dirname(dir), 'sub', 'f.vtask'),
      key: 'K',
      model: 'p',
      samples: 4,
      at: new Date(0),
    };
    assert.deepEqual(runRecordOf(run, o), {
      file: 'sub/f.vtask',
      task: 'x',
      model: 'p',
      key: 'K',
      at: '1970-01-01T00:00:00.000Z',
      samples: 4,
      passed: 3,
      pass_rate: 0.75,
      band: 'learnable',
      signal_share: run.stats.signalShare,
    });
    const failed = { ...run, error: 'nothing listens', stats: taskStats([], 8, true), samples: [] };
    assert.deepEqual(
      runRecordOf(failed, o),
      {
        file: 'sub/f.vtask',
        task: 'x',
        model: 'p',
        key: 'K',
        at: '1970-01-01T00:00:00.000Z',
        samples: 0,
        passed: 0,
        pass_rate: 0,
        band: 'error',
        signal_share: 0,
      },
      'a failed run is recorded as an error',
    );
    const cancelled = {
      ...run,
      error: 'cancelled',
      stats: taskStats(verdicts.slice(0, 2), 8, true),
      samples: run.samples.slice(0, 2),
    };
    assert.equal(
      runRecordOf(cancelled, o)?.band,
      'error',
      'a cancelled run is recorded as an error, not by the samples it got',
    );
    assert.equal(runRecordOf(run, { ...o, samples: 8 }), undefined, 'a run cut short is no record');
    assert.equal(runLogPath(dir, path.join(path.dirname(dir), 'a.vtask')), 'a.vtask');
    const profile = {
      name: 'local',
      baseUrl: 'http://h/v1',
      model: 'qwen',
      endpoint: 'chat',
      concurrency: 1,
      timeoutMs: 1,
    } as ModelProfile;
    assert.equal(modelLabel(profile), 'local');
    assert.equal(modelLabel({ ...profile, name: '--base-url' }), 'qwen');
    assert.equal(modelLabel({ ...profile, name: 'OPENAI_BASE_URL' }), 'qwen');
  });

  test('a record of band error reads back, and so do lines an earlier version wrote', () => {
    const dir = tmpDir();
    // A line exactly as versions without the `error` band wrote it.
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      runLogFile(dir),
      '{"file":"data/a.vtask","task":"t0","model":"a","key":"k0","at":"2026-01-01T00:00:00.000Z","samples":8,"passed":0,"pass_rate":0,"band":"too_hard","signal_share":0}\n',
    );
    appendRunRecords(dir, [
      { ...recordOf('a', 1, 1), samples: 0, passed: 0, pass_rate: 0, band: 'error', signal_share: 0 },
    ]);
    const e = readRunLog(dir).get(runLogKey('data/a.vtask', 't0', 'a'))!;
    assert.equal(e.latest.band, 'error');
    assert.equal(e.previous?.band, 'too_hard');
  });

  test("tokens and cost: summed from the samples' usage, priced by the profile, written and read back", () => {
    const dir = tmpDir();
    const verdicts = [true, false, true].map((pass) => ({ pass, score: pass ? 1 : 0 }));
    const usage = [{ promptTokens: 12, completionTokens: 30 }, { promptTokens: 12, completionTokens: 50 }, undefined];
    const run = {
      task: { id: 'x' },
      model: 'p',
      samples: verdicts.map((verdict, i) => ({ verdict, ...(usage[i] ? { usage: usage[i] } : {}) })),
      stats: taskStats(verdicts),
      requests: 1,
    } as unknown as TaskRunResult;
    const o = {
      cacheDir: dir,
      file: path.join(path.dirname(dir), 'f.vtask'),
      key: 'K',
      model: 'p',
      samples: 3,
      at: new Date(0),
    };
    const plain = runRecordOf(run, o)!;
    assert.deepEqual(plain.tokens, { prompt: 24, completion: 80 });
    assert.equal(plain.cost, undefined, 'no price: no cost');
    const priced = runRecordOf(run, { ...o, price: { prompt: 1, completion: 10 } })!;
    assert.equal(priced.cost, (24 * 1 + 80 * 10) / 1e6);
    const silent = { ...run, samples: verdicts.map((verdict) => ({ verdict })) } as unknown as TaskRunResult;
    assert.equal(
      runRecordOf(silent, { ...o, price: { prompt: 1, completion: 1 } })!.tokens,
      undefined,
      'an endpoint without usage gives no tokens (not zero)',
    );
    appendRunRecords(dir, [priced]);
    const line = fs.readFileSync(runLogFile(dir), 'utf8');
    assert.match(line, /"signal_share":[^,]+,"tokens":\{"prompt":24,"completion":80\},"cost":0\.000824\}\n$/);
    assert.deepEqual(readRunLog(dir).get(runLogKey('f.vtask', 'x', 'p'))!.latest, priced);
  });

  test('lines of the positional format, of a later version, and of the wrong type', () => {
    const dir = tmpDir();
    fs.mkdirSync(dir, { recursive: true });
    const old = (task: string, passed: number): string =>
      `{"file":"data/a.vtask","task":"${task}","model":"a","key":"k","at":"2026-01-01T00:00:00.000Z","samples":8,"passed":${passed},"pass_rate":${passed / 8},"band":"learnable","signal_share":0.5}`;
    fs.writeFileSync(
      runLogFile(dir),
      [
        old('t0', 2),
        old('t1', 3),
        // Fields in another order, and one this version does not know: still a record.
        '{"task":"t2","file":"data/a.vtask","model":"a","key":"k","at":"2026-01-02T00:00:00.000Z","samples":8,"passed":4,"pass_rate":0.5,"band":"learnable","signal_share":0.5,"tokens":{"prompt":1,"completion":2},"latency_ms":900}',
        old('t3', 1).replace('"signal_share":0.5', '"signal_share":0.5,"tokens":{"prompt":-1,"completion":2}'), // not a token count
        old('t4', 1).replace('"signal_share":0.5', '"signal_share":0.5,"cost":"free"'), // not an amount
        '',
      ].join('\n'),
    );
    const log = readRunLog(dir);
    assert.deepEqual(
      [...log.keys()],
      ['t0', 't1', 't2'].map((t) => runLogKey('data/a.vtask', t, 'a')),
    );
    assert.equal(log.get(runLogKey('data/a.vtask', 't1', 'a'))!.latest.passed, 3);
    const t2 = log.get(runLogKey('data/a.vtask', 't2', 'a'))!.latest;
    assert.deepEqual(t2.tokens, { prompt: 1, completion: 2 });
    assert.equal('latency_ms' in t2, false, 'fields this version does not know are left out');
  });

  test("the editor's appends wait for a compaction without blocking its thread", async () => {
    const dir = tmpDir();
    appendRunRecords(dir, [recordOf('a', 0, 1)]);
    // A compaction in progress holds the lock.
    const release = tryLock(path.join(dir, 'runs.lock'))!;
    assert.ok(release);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      const t0 = performance.now();
      const appended = appendRunRecordsAsync(dir, [recordOf('a', 1, 1)]);
      // A lock waited for on this thread would hold it here for the whole wait (2 s).
      assert.ok(performance.now() - t0 < 1000, `the call returned at once (${Math.round(performance.now() - t0)} ms)`);
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(ticks >= 1, `the event loop kept turning while the append waited (${ticks} ticks)`);
      assert.equal(
        readRunLog(dir).get(runLogKey('data/a.vtask', 't0', 'a'))!.latest.passed,
        0,
        'the append waits for the lock',
      );
      release();
      await appended;
    } finally {
      clearInterval(timer);
      release();
    }
    assert.equal(readRunLog(dir).get(runLogKey('data/a.vtask', 't0', 'a'))!.latest.passed, 1);
    // Many at once, with sync appends between: every line whole.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0
          ? Promise.resolve(appendRunRecords(dir, [recordOf('b', i, 40)]))
          : appendRunRecordsAsync(dir, [recordOf('b', i, 40)]),
      ),
    );
    assertLatestTwo(readRunLog(dir), 'b', 40, 40);
  });

  test('torn and damaged lines are skipped; a record appended after a torn one is kept', () => {
    const dir = tmpDir();
    appendRunRecords(dir, [recordOf('a', 0, 1)]);
    const line = (r: RunRecord): string => JSON.stringify(r);
    const whole = line(recordOf('a', 1, 1));
    fs.appendFileSync(
      runLogFile(dir),
      [
        whole.slice(0, 60) + line(recordOf('a', 2, 1)), // a crash cut a line; another writer's record followed
        line(recordOf('b', 0, 1)).replace('"learnable"', '"easyish"'), // not a band
        line(recordOf('c', 0, 1)).replace('"samples":8', '"samples":"8"'), // a damaged number
        '\u0000\u0001 binary junk {"file":',
        '',
        line(recordOf('a', 3, 1)).slice(0, -1), // torn just before its last brace
        line(recordOf('d', 0, 1)).slice(0, 80), // torn last line, no newline
      ].join('\n'),
    );
    const log = readRunLog(dir);
    assert.deepEqual([...log.keys()], [runLogKey('data/a.vtask', 't0', 'a')]);
    assert.deepEqual(log.get(runLogKey('data/a.vtask', 't0', 'a'))!.latest, recordOf('a', 2, 1));
    assert.deepEqual(log.get(runLogKey('data/a.vtask', 't0', 'a'))!.previous, recordOf('a', 0, 1));
    // The next append lands right after the torn tail, on its line: its record is still read.
    appendRunRecords(dir, [recordOf('a', 5, 1)]);
    assert.deepEqual(readRunLog(dir).get(runLogKey('data/a.vtask', 't0', 'a'))!.latest, recordOf('a', 5, 1));
  });

  test('compaction keeps the latest and the previous record of each key, and drops torn lines', () => {
    const dir = tmpDir();
    const tasks = 7;
    for (let i = 0; i < 100; i++)
      appendRunRecords(dir, [recordOf('a', i, tasks), recordOf('b', i, tasks)], { compactBytes: Infinity });
    fs.appendFileSync(runLogFile(dir), 'torn {"file":"x\n');
    const before = readRunLog(dir);
    const r = compactRunLog(dir);
    assert.deepEqual(r, { before: 200, after: 2 * 2 * tasks });
    const lines = fs.readFileSync(runLogFile(dir), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 2 * 2 * tasks);
    const after = readRunLog(dir);
    assert.equal(after.size, before.size);
    for (const model of ['a', 'b']) assertLatestTwo(after, model, 100, tasks);
    assert.equal(compactRunLog(dir), undefined, 'nothing left to drop');
    // Appends compact on their own once the log passes the size.
    for (let i = 100; i < 400; i++) appendRunRecords(dir, [recordOf('a', i, tasks)], { compactBytes: 16 << 10 });
    assert.ok(fs.statSync(runLogFile(dir)).size < 48 << 10, 'the log stayed bounded');
    assertLatestTwo(readRunLog(dir), 'a', 400, tasks);
    assertLatestTwo(readRunLog(dir), 'b', 100, tasks);
  });

  test('two processes appending at once, compacting as they go: every latest and previous record is there', async () => {
    const dir = tmpDir();
    const count = 3000;
    const tasks = 40;
    // A small compaction size, so both compact many times while the other appends.
    const results = await Promise.all(
      ['a', 'b'].map((model) => child({ dir, model, count, tasks, batch: 3, compactBytes: 32 << 10 })),
    );
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const log = readRunLog(dir);
    assert.equal(log.size, 2 * tasks);
    for (const model of ['a', 'b']) assertLatestTwo(log, model, count, tasks);
    assert.ok(fs.statSync(runLogFile(dir)).size < 128 << 10, 'compaction ran');
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock')),
      [],
      'no temp file or lock left behind',
    );
  });

  test('a log of 200,000 records is read whole and right', () => {
    const dir = tmpDir();
    const models = ['m1', 'm2'];
    const tasks = 50_000;
    // Two runs of each of 50,000 tasks by two models.
    for (let run = 0; run < 2; run++) {
      for (const model of models) {
        const batch: RunRecord[] = [];
        for (let t = 0; t < tasks; t++) batch.push(recordOf(model, run * tasks + t, tasks));
        appendRunRecords(dir, batch, { compactBytes: Infinity });
      }
    }
    const log = readRunLog(dir);
    assert.equal(log.size, 2 * tasks);
    for (const model of models) assertLatestTwo(log, model, 2 * tasks, tasks);
  });
}

// The sample cache across processes: kill -9 mid-run, concurrent writers on one cache, and
// compaction while another process writes. Children are this same file, started with
// VTASK_CACHE_CHILD set: they run the bundled cache code the tests check, not a copy.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SampleCache } from '../../src/core/sampling/cache';
import { listSegments } from '../../src/core/sampling/cacheLog';
import type { Sample } from '../../src/core/sampling/types';

interface ChildArgs {
  dir: string;
  id: string;
  count: number;
  /** Records per batch: the child flushes after each. */
  batch: number;
  textBytes: number;
  /** Sleep between batches, ms. */
  pauseMs: number;
  /** Keys every child writes (the same key from two writers). */
  shared: number;
  /** End with process.exit() instead of close(), as a CLI that forgets to close would. */
  noClose?: boolean;
}

function key(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** A text whose every byte is predictable from its first line, so a damaged record shows. */
function textOf(id: string, i: number, bytes: number): string {
  const head = `${id}:${i}\n`;
  const body = createHash('sha256').update(head).digest('hex');
  return head + body.repeat(Math.ceil(bytes / 64)).slice(0, Math.max(0, bytes - head.length));
}

function sampleOf(id: string, i: number, bytes: number): Sample {
  return {
    text: textOf(id, i, bytes),
    finishReason: 'stop',
    model: `model-${id}`,
    takenAt: new Date().toISOString(),
    usage: { completionTokens: i },
  };
}

/** Checks a record is exactly what a child wrote; returns its id and index. */
function checkWhole(s: Sample, bytes: number): { id: string; i: number } {
  const m = /^([^:]+):(\d+)\n/.exec(s.text);
  assert.ok(m, `unexpected text ${s.text.slice(0, 40)}`);
  const id = m[1]!;
  const i = Number(m[2]);
  assert.equal(s.text, textOf(id, i, bytes));
  assert.equal(s.model, `model-${id}`);
  assert.equal(s.usage?.completionTokens, i);
  return { id, i };
}

function runChild(args: ChildArgs): void {
  const cache = SampleCache.open(args.dir, { flushRecords: args.batch, flushIntervalMs: 5 });
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; args.count < 0 || i < args.count; i++) {
    cache.put(key(`${args.id}:${i}`), sampleOf(args.id, i, args.textBytes));
    if (i < args.shared) cache.put(key(`shared:${i}`), sampleOf(args.id, i, args.textBytes));
    if ((i + 1) % args.batch === 0 && args.pauseMs > 0) Atomics.wait(sleeper, 0, 0, args.pauseMs);
  }
  if (args.noClose) process.exit(0);
  cache.close();
}

const childArgs = process.env.VTASK_CACHE_CHILD;
if (childArgs) {
  runChild(JSON.parse(childArgs) as ChildArgs);
} else {
  defineTests();
}

function startChild(args: ChildArgs): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, VTASK_CACHE_CHILD: JSON.stringify(args) };
  // The test runner's protocol variable would make the child talk to a parent that is not listening.
  delete env.NODE_TEST_CONTEXT;
  return spawn(process.execPath, [__filename], { env, stdio: ['ignore', 'ignore', 'pipe'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

function segmentBytes(dir: string): number {
  const seg = path.join(dir, 'samples');
  return listSegments(seg).reduce((n, s) => {
    try {
      return n + fs.statSync(path.join(seg, s)).size;
    } catch {
      return n;
    }
  }, 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const made: string[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cache-proc-'));
  made.push(d);
  return d;
}

function defineTests(): void {
  after(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  test('kill -9 mid-run: every readable record is whole, the cache keeps working', async () => {
    // Repeated with growing record sizes, so kills land inside large writes (a 4 MB batch is
    // often cut part-way: whole records before the cut survive, the torn one is skipped).
    for (const textBytes of [300, 20_000, 200_000]) {
      const dir = tmpDir();
      const child = startChild({ dir, id: 'k', count: 1_000_000, batch: 20, textBytes, pauseMs: 1, shared: 0 });
      const done = exited(child);
      // Generous: on a loaded machine the child may take seconds to start.
      const deadline = Date.now() + 120_000;
      while (segmentBytes(dir) < 3 << 20 && Date.now() < deadline) await sleep(5);
      const bytesAtKill = segmentBytes(dir);
      child.kill('SIGKILL');
      const { signal, stderr } = await done;
      assert.equal(signal, 'SIGKILL', stderr);
      assert.ok(bytesAtKill > 0, 'the child wrote nothing before the deadline');

      const c = SampleCache.open(dir);
      c.load();
      const st = c.stats();
      assert.ok(st.entries >= 1, 'nothing survived');
      // Records are in order: the survivors are exactly 0..n-1, whole; at most the last line is torn.
      const seen = new Set<number>();
      for (let i = 0; i < st.entries; i++) {
        const s = c.get(key(`k:${i}`));
        assert.ok(s, `record ${i} of ${st.entries} missing`);
        seen.add(checkWhole(s, textBytes).i);
      }
      assert.equal(c.get(key(`k:${st.entries}`)), undefined);
      assert.equal(st.skippedLines, 0);
      // The cache works after the crash: new writes and reads, and a compaction over the dead segment.
      c.put(key('after'), sampleOf('after', 0, 10));
      c.close();
      assert.equal(c.compact()?.inputs, 2);
      const d = SampleCache.open(dir);
      assert.equal(d.get(key('after'))?.text, textOf('after', 0, 10));
      assert.equal(d.stats().entries, st.entries + 1);
      assert.equal(d.stats().tornBytes, 0, 'compaction dropped the torn tail');
      d.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('records still buffered when the process exits normally are written', async () => {
    const dir = tmpDir();
    const { code, stderr } = await exited(
      startChild({ dir, id: 'e', count: 10, batch: 1000, textBytes: 100, pauseMs: 0, shared: 0, noClose: true }),
    );
    assert.equal(code, 0, stderr);
    const c = SampleCache.open(dir);
    for (let i = 0; i < 10; i++) checkWhole(c.get(key(`e:${i}`))!, 100);
    c.close();
  });

  test('two processes writing one cache at once: every record is there', async () => {
    const dir = tmpDir();
    const n = 5000;
    const kids = ['a', 'b'].map((id) =>
      startChild({ dir, id, count: n, batch: 50, textBytes: 500, pauseMs: 0, shared: 200 }),
    );
    const results = await Promise.all(kids.map(exited));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    assert.equal(listSegments(path.join(dir, 'samples')).length, 2, 'one segment per process');

    const c = SampleCache.open(dir);
    for (const id of ['a', 'b']) {
      for (let i = 0; i < n; i++) {
        const s = c.get(key(`${id}:${i}`));
        assert.ok(s, `${id}:${i} missing`);
        checkWhole(s, 500);
      }
    }
    // A key both wrote: one whole record wins, and every reader agrees on which.
    const other = SampleCache.open(dir);
    for (let i = 0; i < 200; i++) {
      const s = c.get(key(`shared:${i}`));
      assert.ok(s);
      assert.equal(checkWhole(s, 500).i, i);
      assert.deepEqual(other.get(key(`shared:${i}`)), s);
    }
    assert.equal(c.stats().entries, 2 * n + 200);
    assert.equal(c.stats().skippedLines, 0);
    c.close();
    other.close();
  });

  test('compaction while another process writes loses nothing', async () => {
    const dir = tmpDir();
    // Finished segments to compact, from this process.
    for (let round = 0; round < 4; round++) {
      const c = SampleCache.open(dir, { autoCompactSegments: 0 });
      for (let i = 0; i < 100; i++) c.put(key(`old:${round * 100 + i}`), sampleOf('old', round * 100 + i, 200));
      c.close();
    }
    const child = startChild({ dir, id: 'w', count: 3000, batch: 30, textBytes: 400, pauseMs: 5, shared: 0 });
    const done = exited(child);
    const compactor = SampleCache.open(dir, { autoCompactSegments: 0 });
    const reader = SampleCache.open(dir);
    let compactions = 0;
    let exitedYet = false;
    void done.then(() => (exitedYet = true));
    while (!exitedYet) {
      const r = compactor.compact();
      if (r && r.inputs > 0) compactions++;
      // A reader racing the compaction still sees every old record.
      reader.refresh();
      for (let i = 0; i < 400; i += 37) assert.ok(reader.get(key(`old:${i}`)), `old:${i} lost during compaction`);
      await sleep(20);
    }
    const { code, stderr } = await done;
    assert.equal(code, 0, stderr);
    assert.ok(compactions >= 1);
    // Now the writer is gone: its segment is compacted too.
    assert.ok((compactor.compact()?.inputs ?? 0) >= 2);
    compactor.close();
    reader.close();
    assert.equal(listSegments(path.join(dir, 'samples')).length, 1);
    const d = SampleCache.open(dir);
    for (let i = 0; i < 400; i++) checkWhole(d.get(key(`old:${i}`))!, 200);
    for (let i = 0; i < 3000; i++) {
      const s = d.get(key(`w:${i}`));
      assert.ok(s, `w:${i} missing`);
      checkWhole(s, 400);
    }
    assert.equal(d.stats().entries, 3400);
    d.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

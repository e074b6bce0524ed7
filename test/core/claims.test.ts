// Task claims on one cache: a run claims the tasks it starts next with one file, another run
// waits for a task claimed that way, claims of dead processes are void, and processes that
// claim the same tasks at once in batches never both sample one. Children are this same file,
// started with VTASK_CLAIMS_CHILD set: they run the claims code the tests check, not a copy.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { TaskClaims } from '../../src/core/run/claims';
import { SampleCache } from '../../src/core/sampling/cache';
import type { Sample } from '../../src/core/sampling/types';
import { HOST_ID } from '../../src/core/util/lock';
import { mapLimit } from '../../src/core/util/limit';

const key = (s: string): string => createHash('sha256').update(s).digest('hex');
const sample = (text: string): Sample => ({
  text,
  finishReason: 'stop',
  model: 'm',
  takenAt: new Date().toISOString(),
});
const never = new AbortController().signal;
const claimFiles = (dir: string): string[] => {
  try {
    return fs.readdirSync(path.join(dir, 'claims'));
  } catch {
    return [];
  }
};

interface ChildArgs {
  dir: string;
  id: string;
  keys: string[];
}

/**
 * What a run does with each task: claim it (with the tasks it starts next), take its sample from
 * the cache if another run wrote it, else "sample" it (a short pause) and write it. Prints the
 * keys it sampled itself.
 */
async function runChild({ dir, id, keys }: ChildArgs): Promise<void> {
  const cache = SampleCache.open(dir, { flushIntervalMs: 5 });
  const claims = new TaskClaims(cache);
  const sampled: string[] = [];
  const slots = 8;
  await mapLimit(keys, slots, async (k, i) => {
    const claim = await claims.claim(k, () => keys.slice(i + 1, i + 1 + slots), never, { maxWaitMs: 60_000 });
    try {
      if (cache.get(k)) return;
      await new Promise((r) => setTimeout(r, 1 + (i % 3)));
      cache.put(k, sample(id));
      sampled.push(k);
    } finally {
      claim.release();
    }
  });
  claims.close();
  cache.close();
  process.stdout.write(JSON.stringify(sampled));
}

const childArgs = process.env.VTASK_CLAIMS_CHILD;
if (childArgs) void runChild(JSON.parse(childArgs) as ChildArgs);
else defineTests();

function startChild(args: ChildArgs): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, VTASK_CLAIMS_CHILD: JSON.stringify(args) };
  // The test runner's protocol variable would make the child talk to a parent that is not listening.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [__filename], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

function defineTests(): void {
  const made: string[] = [];
  const tmpDir = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-claims-'));
    made.push(d);
    return d;
  };
  after(() => {
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  test('a run claims the tasks it starts next in one file; another run waits for one of them and reads its samples', async () => {
    const dir = tmpDir();
    const [k0, k1, k2] = ['a', 'b', 'c'].map(key) as [string, string, string];
    const first = SampleCache.open(dir, { flushIntervalMs: 20 });
    const mine = new TaskClaims(first);
    const c0 = await mine.claim(k0, () => [k1, k2], never, { maxWaitMs: 1000 });
    const files = claimFiles(dir).filter((f) => f.endsWith('.claims'));
    assert.equal(files.length, 1, `one claim file: ${claimFiles(dir).join(', ')}`);
    const listed = JSON.parse(fs.readFileSync(path.join(dir, 'claims', files[0] ?? ''), 'utf8')) as { keys: string[] };
    assert.deepEqual(listed.keys, [k0, k1, k2]);

    // The second run wants k1, which the first claimed ahead: it waits.
    const second = SampleCache.open(dir);
    const theirs = new TaskClaims(second);
    let waits = 0;
    const waiting = theirs.claim(k1, () => [], never, { maxWaitMs: 60_000, onWait: () => waits++ });
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(waits, 1, 'the second run says it waits');
    const c1 = await mine.claim(k1, () => [], never, { maxWaitMs: 1000 });
    first.put(k1, sample('from the first run'));
    c1.release();
    const got = await waiting;
    assert.equal(second.get(k1)?.text, 'from the first run', 'written before the claim was let go');
    got.release();
    c0.release();
    mine.close();
    theirs.close();
    first.close();
    second.close();
    assert.deepEqual(claimFiles(dir), [], 'no claim is left behind');
  });

  test('a second task of one run with the same key waits for the first', async () => {
    const dir = tmpDir();
    const cache = SampleCache.open(dir, { flushIntervalMs: 5 });
    const claims = new TaskClaims(cache);
    const k = key('same');
    const a = await claims.claim(k, () => [], never, { maxWaitMs: 1000 });
    let waits = 0;
    const b = claims.claim(k, () => [], never, { maxWaitMs: 60_000, onWait: () => waits++ });
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(waits, 1);
    cache.put(k, sample('once'));
    a.release();
    (await b).release();
    claims.close();
    cache.close();
    assert.deepEqual(claimFiles(dir), []);
  });

  test('the claim of a process that died is void at once; an earlier version’s one-task claim is honoured', async () => {
    const dir = tmpDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(dead.stdout);
    fs.mkdirSync(path.join(dir, 'claims'), { recursive: true });
    const k = key('orphan');
    const orphan = path.join(dir, 'claims', `${HOST_ID}-${deadPid}-000000000000.claims`);
    fs.writeFileSync(orphan, JSON.stringify({ pid: deadPid, host: HOST_ID, at: Date.now(), token: 't', keys: [k] }));
    const old = key('old');
    const live = { pid: process.pid, host: HOST_ID, at: Date.now(), token: 'old' };
    fs.writeFileSync(path.join(dir, 'claims', `${old}.claim`), JSON.stringify(live));

    const cache = SampleCache.open(dir);
    const claims = new TaskClaims(cache);
    let waits = 0;
    const c = await claims.claim(k, () => [old], never, { maxWaitMs: 60_000, onWait: () => waits++ });
    assert.equal(waits, 0, 'no wait for a dead holder');
    assert.ok(!fs.existsSync(orphan), 'its file is removed');
    const mine = claimFiles(dir).filter((f) => f.endsWith('.claims'));
    assert.equal(mine.length, 1);
    const listed = JSON.parse(fs.readFileSync(path.join(dir, 'claims', mine[0] ?? ''), 'utf8')) as { keys: string[] };
    assert.deepEqual(listed.keys, [k], 'a task another run holds is not claimed ahead');
    // The old-style claim is held by a live process: waited for, up to the bound, then sampled anyway.
    const o = await claims.claim(old, () => [], never, { maxWaitMs: 300, onWait: () => waits++ });
    assert.equal(waits, 1);
    o.release();
    c.release();
    claims.close();
    cache.close();
    assert.deepEqual(claimFiles(dir), [`${old}.claim`], 'only the other holder’s claim is left');
  });

  test('a claim file caught half-written holds every task until it reads whole', async () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'claims'), { recursive: true });
    const k = key('torn');
    const other = key('other');
    const sum = (keys: string[]): string => createHash('sha256').update(keys.join(',')).digest('hex').slice(0, 16);
    const holder = { pid: process.pid, host: HOST_ID, at: Date.now(), token: 'torn' };
    const file = path.join(dir, 'claims', `${HOST_ID}-${process.pid}-aaaaaaaaaaaa.claims`);
    // The new text's start over the old text's end: the list reads, the sum does not match it.
    fs.writeFileSync(file, JSON.stringify({ ...holder, keys: [other, k], sum: sum([other]) }));
    const cache = SampleCache.open(dir);
    const claims = new TaskClaims(cache);
    let waits = 0;
    const waiting = claims.claim(k, () => [], never, { maxWaitMs: 60_000, onWait: () => waits++ });
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(waits, 1, 'a task it may hold is waited for');
    fs.writeFileSync(file, JSON.stringify({ ...holder, keys: [other], sum: sum([other]) }));
    (await waiting).release();
    claims.close();
    cache.close();
    assert.deepEqual(claimFiles(dir), [path.basename(file)]);
  });

  test('a run that stops early lets go of the tasks it claimed ahead', async () => {
    const dir = tmpDir();
    const cache = SampleCache.open(dir);
    const claims = new TaskClaims(cache);
    const keys = Array.from({ length: 5 }, (_, i) => key(`early ${i}`));
    const c = await claims.claim(keys[0] ?? '', () => keys.slice(1), never, { maxWaitMs: 1000 });
    c.release();
    claims.close();
    assert.deepEqual(claimFiles(dir), []);
    cache.close();
  });

  test('three processes claiming the same tasks in batches sample each once in all', async () => {
    const dir = tmpDir();
    const keys = Array.from({ length: 300 }, (_, i) => key(`task ${i}`));
    // Two in the same order (they meet on every batch), one in the reverse order.
    const runs = await Promise.all([
      startChild({ dir, id: 'a', keys }),
      startChild({ dir, id: 'b', keys }),
      startChild({ dir, id: 'c', keys: [...keys].reverse() }),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const sampled = runs.flatMap((r) => JSON.parse(r.stdout) as string[]);
    assert.equal(
      sampled.length,
      keys.length,
      `sampled ${runs.map((r) => (JSON.parse(r.stdout) as string[]).length).join(' + ')}`,
    );
    assert.deepEqual([...sampled].sort(), [...keys].sort());
    assert.deepEqual(claimFiles(dir), [], 'no claim is left behind');
  });
}

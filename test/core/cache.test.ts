// The sample cache in one process: round trips, replacement (--fresh), torn lines, segments
// larger than a read chunk, compaction, the maintenance lock and verdict stamps.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SampleCache, verdictStamp } from '../../src/core/sampling/cache';
import { tryLock, HOST_ID } from '../../src/core/util/lock';
import { listSegments } from '../../src/core/sampling/cacheLog';
import type { Sample } from '../../src/core/sampling/types';
import { version } from '../../src/core/version';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cache-'));
  made.push(d);
  return d;
}

function key(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

function sample(text: string, extra: Partial<Sample> = {}): Sample {
  return { text, finishReason: 'stop', model: 'm', takenAt: '2025-01-01T00:00:00.000Z', ...extra };
}

function segmentFiles(dir: string): string[] {
  return listSegments(path.join(dir, 'samples')).map((n) => path.join(dir, 'samples', n));
}

test('round trip: put, read back before and after reopening, with parameters and times', () => {
  const dir = path.join(tmpDir(), '.vtask-cache');
  const c = SampleCache.open(dir);
  assert.equal(c.get(key('a')), undefined);
  assert.ok(!fs.existsSync(dir), 'opening and reading create nothing');
  const s = sample('four', { reasoning: '2+2', usage: { promptTokens: 10, completionTokens: 3 }, latencyMs: 42 });
  const params = { baseUrl: 'http://x/v1', model: 'm', endpoint: 'chat' as const, temperature: 0.7, index: 0 };
  c.put(key('a'), s, params);
  c.put(key('b'), sample('five'));
  assert.deepEqual(c.get(key('a')), s, 'readable while still buffered');
  c.close();
  assert.equal(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8').split('\n')[0], '*');
  assert.ok(fs.existsSync(path.join(dir, 'CACHEDIR.TAG')));

  const d = SampleCache.open(dir);
  assert.deepEqual(d.get(key('a')), s);
  const e = d.getEntry(key('a'));
  assert.deepEqual(e?.params, params);
  assert.ok(e && Math.abs(e.writtenAt - Date.now()) < 60_000);
  assert.deepEqual(
    d.getMany([key('b'), key('zzz'), key('a')]).map((x) => x?.text),
    ['five', undefined, 'four'],
  );
  assert.equal(d.has(key('b')), true);
  const st = d.stats();
  assert.equal(st.entries, 2);
  assert.equal(st.hits, 4);
  assert.equal(st.misses, 1);
  assert.equal(st.skippedLines, 0);
  d.close();
  assert.throws(() => d.put(key('c'), sample('x')), /closed/);
});

test('writes go out in batches: by count, by size, by time, and on flush', (t) => {
  const dir = tmpDir();
  // The flush timer runs on a mocked clock: the test moves time, it does not wait for it.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const c = SampleCache.open(dir, { flushRecords: 10, flushBytes: 1 << 30, flushIntervalMs: 30 });
  for (let i = 0; i < 25; i++) c.put(key(`k${i}`), sample(`t${i}`));
  assert.equal(c.stats().flushes, 2);
  assert.equal(c.stats().pending, 5);
  t.mock.timers.tick(29);
  assert.equal(c.stats().pending, 5, 'nothing is written before the interval');
  t.mock.timers.tick(1);
  assert.equal(c.stats().pending, 0, 'the timer flushed the rest');
  assert.equal(c.stats().flushes, 3);
  t.mock.timers.reset();
  const big = SampleCache.open(dir, { flushBytes: 1000, flushRecords: 1 << 30 });
  for (let i = 0; i < 5; i++) big.put(key(`big${i}`), sample('x'.repeat(600)));
  assert.equal(big.stats().flushes, 2);
  big.flush();
  assert.equal(big.stats().pending, 0);
  c.close();
  big.close();
  const r = SampleCache.open(dir);
  assert.equal(r.stats().entries, 0);
  r.load();
  assert.equal(r.stats().entries, 30);
  r.close();
  // One segment per cache: no writer ever appends to another's file.
  assert.equal(segmentFiles(dir).length, 2);
});

test('a put replaces an existing sample (--fresh), for later readers too', () => {
  const dir = tmpDir();
  const a = SampleCache.open(dir);
  a.put(key('k'), sample('old'));
  a.close();
  const b = SampleCache.open(dir);
  assert.equal(b.get(key('k'))?.text, 'old');
  b.put(key('k'), sample('new'));
  b.put(key('k'), sample('newer'));
  assert.equal(b.get(key('k'))?.text, 'newer');
  b.close();
  const c = SampleCache.open(dir);
  assert.equal(c.get(key('k'))?.text, 'newer');
  assert.equal(c.stats().entries, 1);
  c.close();
});

test('a replacement wins over a record stamped in the future (clock skew between machines)', () => {
  const dir = tmpDir();
  const t = Date.now() + 60_000;
  // A record "from the future" (clock skew between machines) must still be replaced by a later put.
  fs.mkdirSync(path.join(dir, 'samples'), { recursive: true });
  const line = JSON.stringify({ k: key('k'), t, s: sample('skewed') });
  fs.writeFileSync(path.join(dir, 'samples', `seg-zzzzzzzzz-${HOST_ID}-1-00000000.jsonl`), `${line}\n`);
  const c = SampleCache.open(dir);
  assert.equal(c.get(key('k'))?.text, 'skewed');
  c.put(key('k'), sample('fresh'));
  c.close();
  const d = SampleCache.open(dir);
  assert.equal(d.get(key('k'))?.text, 'fresh');
  d.close();
});

test('a torn last line is skipped; records before it stay, appends after it are readable', () => {
  const dir = tmpDir();
  const c = SampleCache.open(dir);
  for (let i = 0; i < 100; i++) c.put(key(`k${i}`), sample(`text ${i} ✓ 数学`));
  c.close();
  const [seg] = segmentFiles(dir);
  assert.ok(seg);
  // A crash mid-write: half of a record, no newline.
  const whole = JSON.stringify({ k: key('torn'), t: Date.now(), s: sample('never complete') });
  fs.appendFileSync(seg, whole.slice(0, Math.floor(whole.length / 2)));

  const d = SampleCache.open(dir);
  assert.equal(d.get(key('torn')), undefined);
  for (let i = 0; i < 100; i++) assert.equal(d.get(key(`k${i}`))?.text, `text ${i} ✓ 数学`);
  assert.ok(d.stats().tornBytes > 0);
  d.put(key('after'), sample('after the tear'));
  d.close();

  // A torn line in the middle (a crash, then the file grew): only that line is lost.
  fs.appendFileSync(
    seg,
    `\n${whole.slice(0, 50)}\n${JSON.stringify({ k: key('next'), t: Date.now(), s: sample('next') })}\n{"k":"x"}\nnot json\n`,
  );
  const e = SampleCache.open(dir);
  assert.equal(e.get(key('after'))?.text, 'after the tear');
  assert.equal(e.get(key('next'))?.text, 'next');
  assert.equal(e.get(key('k99'))?.text, 'text 99 ✓ 数学');
  assert.equal(e.stats().entries, 102);
  assert.ok(e.stats().skippedLines >= 3);
  e.close();
});

test('a whole record missing only its newline is kept', () => {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, 'samples'), { recursive: true });
  const line = JSON.stringify({ k: key('k'), t: 1, s: sample('whole') });
  fs.writeFileSync(path.join(dir, 'samples', `seg-000000001-${HOST_ID}-1-00000000.jsonl`), line);
  const c = SampleCache.open(dir);
  assert.equal(c.get(key('k'))?.text, 'whole');
  c.close();
});

test('segments larger than a read chunk, with multi-byte text across chunk edges', () => {
  const dir = tmpDir();
  const c = SampleCache.open(dir, { maxSegmentBytes: 6 << 20 });
  const text = (i: number) => `${i}:` + '数学🙂é'.repeat(400 + (i % 7));
  for (let i = 0; i < 4000; i++) c.put(key(`m${i}`), sample(text(i)));
  c.close();
  const segs = segmentFiles(dir);
  assert.ok(segs.length >= 2, 'rotated past maxSegmentBytes');
  assert.ok(
    segs.some((s) => fs.statSync(s).size > 4 << 20),
    'a segment spans more than one 4 MiB chunk',
  );
  const d = SampleCache.open(dir);
  for (let i = 0; i < 4000; i++) assert.equal(d.get(key(`m${i}`))?.text, text(i));
  assert.equal(d.stats().skippedLines, 0);
  d.close();
});

test('each record is written as the JSON line of {k, t, s, p}, byte for byte, whatever its characters and size', () => {
  const dir = tmpDir();
  // One flush at the end: the batch starts at 64 KiB and grows past it.
  const c = SampleCache.open(dir, { flushBytes: Infinity, flushRecords: Infinity, flushIntervalMs: 60_000 });
  const params = { baseUrl: 'http://x/v1', model: 'm', endpoint: 'chat' as const, seed: 3, index: 1 };
  const texts = [
    'plain',
    'é数学🙂 "quoted" \\ back\nslash\ttab',
    // A lone surrogate: written as U+FFFD (3 bytes), as the whole line's UTF-8 would be.
    'broken \ud800 half',
    '🙂'.repeat(40_000),
    'x'.repeat(200_000),
    '',
  ];
  const before = Date.now();
  texts.forEach((t, i) =>
    c.put(key(`b${i}`), sample(t, { usage: { completionTokens: i } }), i % 2 ? params : undefined),
  );
  c.close();
  const written = segmentFiles(dir)
    .map((f) => fs.readFileSync(f))
    .reduce((a, b) => Buffer.concat([a, b]));
  const lines = written.toString('utf8').split('\n').slice(0, -1);
  assert.equal(lines.length, texts.length);
  const expected = lines.map((line, i) => {
    const { t } = JSON.parse(line) as { t: number };
    assert.ok(t >= before && t <= Date.now());
    const s = sample(texts[i] ?? '', { usage: { completionTokens: i } });
    return `${JSON.stringify(i % 2 ? { k: key(`b${i}`), t, s, p: params } : { k: key(`b${i}`), t, s })}\n`;
  });
  assert.ok(written.equals(Buffer.from(expected.join(''), 'utf8')));
});

test('refresh reads what another writer appended since', () => {
  const dir = tmpDir();
  const reader = SampleCache.open(dir);
  assert.equal(reader.get(key('x')), undefined);
  const writer = SampleCache.open(dir);
  writer.put(key('x'), sample('one'));
  writer.flush();
  assert.equal(reader.refresh(), 1);
  assert.equal(reader.get(key('x'))?.text, 'one');
  writer.put(key('y'), sample('two'));
  writer.close();
  assert.equal(reader.refresh(), 1, 'only the new tail is read');
  assert.equal(reader.get(key('y'))?.text, 'two');
  reader.close();
});

test('compaction merges finished segments into one and keeps the latest of each key', () => {
  const dir = tmpDir();
  for (let round = 0; round < 5; round++) {
    const c = SampleCache.open(dir, { autoCompactSegments: 0 });
    for (let i = 0; i < 50; i++) c.put(key(`k${i}`), sample(`r${round}-${i}`));
    c.put(key(`only${round}`), sample(`only ${round}`));
    c.close();
  }
  const live = SampleCache.open(dir);
  live.put(key('live'), sample('still being written'));
  live.flush();
  assert.equal(segmentFiles(dir).length, 6);
  const r = live.compact();
  assert.equal(r?.inputs, 5, 'the open segment is left alone');
  assert.equal(r?.records, 55);
  assert.equal(segmentFiles(dir).length, 2);
  live.put(key('live2'), sample('after compaction'));
  live.close();
  const d = SampleCache.open(dir);
  for (let i = 0; i < 50; i++) assert.equal(d.get(key(`k${i}`))?.text, `r4-${i}`);
  for (let round = 0; round < 5; round++) assert.equal(d.get(key(`only${round}`))?.text, `only ${round}`);
  assert.equal(d.get(key('live'))?.text, 'still being written');
  assert.equal(d.get(key('live2'))?.text, 'after compaction');
  assert.equal(d.stats().recordsRead, 57, 'superseded records are gone');
  d.close();
});

test('closing compacts automatically once segments pile up', () => {
  const dir = tmpDir();
  for (let round = 0; round < 6; round++) {
    const c = SampleCache.open(dir, { autoCompactSegments: 4 });
    c.put(key(`k${round}`), sample(`v${round}`));
    c.close();
  }
  assert.ok(segmentFiles(dir).length <= 4);
  const d = SampleCache.open(dir);
  for (let round = 0; round < 6; round++) assert.equal(d.get(key(`k${round}`))?.text, `v${round}`);
  d.close();
});

test('the maintenance lock: exclusive, stale locks of dead processes are broken, release removes only our own', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'compact.lock');
  const release = tryLock(file);
  assert.ok(release);
  assert.equal(tryLock(file), undefined, 'held');
  release();
  assert.ok(!fs.existsSync(file));

  // A lock left by a process that no longer exists.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const deadPid = Number(dead.stdout.toString());
  fs.writeFileSync(file, JSON.stringify({ pid: deadPid, host: HOST_ID, at: Date.now(), token: 'old' }));
  const again = tryLock(file);
  assert.ok(again, 'stale lock broken');
  // Someone broke ours meanwhile and took it: our release must not remove theirs.
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, host: HOST_ID, at: Date.now(), token: 'theirs' }));
  again();
  assert.ok(fs.existsSync(file));
  // A live holder's lock is respected; an old one from another machine is broken.
  assert.equal(tryLock(file), undefined);
  fs.writeFileSync(file, JSON.stringify({ pid: 1, host: 'ffffffff', at: Date.now() - 3600_000, token: 'far' }));
  const third = tryLock(file, { staleMs: 60_000 });
  assert.ok(third);
  third();
  assert.equal(fs.readdirSync(dir).length, 0, 'no leftovers');
});

test('afterFlush: called once the records buffered before it are on disk, one write for many callers', async () => {
  const dir = tmpDir();
  const c = SampleCache.open(dir, { flushIntervalMs: 30 });
  let early = 0;
  c.afterFlush(() => early++);
  assert.equal(early, 1, 'nothing buffered: called at once');
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    c.put(key(`t${i}`), sample(`answer ${i}`));
    // What a waiting run would read when this caller lets go of its claim.
    c.afterFlush(() => seen.push(SampleCache.open(dir).has(key(`t${i}`)) ? i : -1));
  }
  assert.deepEqual(seen, [], 'not before the write');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(seen, [0, 1, 2]);
  assert.equal(c.stats().flushes, 1, 'one write for the three');
  c.close();
});

test('a quickly released lock is removed without being read back; a long-held one is checked first', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'task.claim');
  const release = tryLock(file, { quickRelease: true });
  assert.ok(release);
  assert.equal(tryLock(file), undefined, 'held');
  release();
  assert.ok(!fs.existsSync(file));
  // Older than half its stale age, someone may have broken it and taken it: theirs stays.
  const old = tryLock(file, { quickRelease: true, staleMs: 0 });
  assert.ok(old);
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, host: HOST_ID, at: Date.now(), token: 'theirs' }));
  old();
  assert.ok(fs.existsSync(file));
});

test('verdict stamps carry the vtask version and the time', () => {
  const s = verdictStamp(new Date('2025-03-01T12:00:00Z'));
  assert.deepEqual(s, { vtaskVersion: version, at: '2025-03-01T12:00:00.000Z' });
  assert.match(verdictStamp().at, /^\d{4}-\d\d-\d\dT/);
});

test('a folder named like a segment is not one: the cache around it still reads, compacts and counts', () => {
  const dir = path.join(tmpDir(), '.vtask-cache');
  const c = SampleCache.open(dir, { autoCompactSegments: 0 });
  c.put(key('a'), sample('kept'));
  c.close();
  const d = SampleCache.open(dir, { autoCompactSegments: 0 });
  d.put(key('b'), sample('also kept'));
  d.close();
  const impostor = path.join(dir, 'samples', `seg-000000000-${HOST_ID}-1-00000000.jsonl`);
  fs.mkdirSync(impostor);
  fs.writeFileSync(path.join(impostor, 'x'), 'not a segment\n');
  assert.equal(listSegments(path.join(dir, 'samples')).length, 2);
  const e = SampleCache.open(dir);
  assert.equal(e.get(key('a'))?.text, 'kept');
  assert.equal(e.get(key('b'))?.text, 'also kept');
  assert.equal(e.compact()?.inputs, 2);
  assert.equal(e.get(key('a'))?.text, 'kept');
  e.close();
  assert.ok(fs.statSync(impostor).isDirectory(), 'the folder is left alone');
});

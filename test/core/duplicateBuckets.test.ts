// The bounded-memory parts of the duplicate search: grouping items by key a chunk at a time
// (sorted runs in a scratch folder, merged) gives the buckets an in-memory grouping gives, in
// the same order; the scratch folder is removed when the search ends, also when it fails, and
// one left by a process that is gone is removed by the next search.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { forEachBucket } from '../../src/core/overview/prompts/buckets';
import { findDuplicates } from '../../src/core/overview/prompts/duplicates';
import { ScratchDir } from '../../src/core/util/scratchDir';

/** Deterministic pseudo-random 32-bit keys, `distinct` values among them. */
function keys(n: number, distinct: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.imul(s % distinct, 0x9e3779b1) >>> 0;
  });
}

/** The buckets of two or more items, by key, each in index order: what the search must see. */
function expected(list: readonly number[]): number[][] {
  const by = new Map<number, number[]>();
  for (const [i, k] of list.entries()) by.set(k, [...(by.get(k) ?? []), i]);
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, items]) => items)
    .filter((items) => items.length > 1);
}

function buckets(list: readonly number[], chunk?: number): number[][] {
  const dir = new ScratchDir('test-buckets');
  try {
    const out: number[][] = [];
    forEachBucket(
      dir,
      list.length,
      (i) => list[i] ?? -1,
      (items) => out.push([...items]),
      chunk,
    );
    return out;
  } finally {
    dir.remove();
  }
}

test('buckets merged from sorted runs on disk are the buckets of an in-memory grouping', () => {
  for (const [n, distinct, chunk] of [
    [5000, 700, 256],
    [5000, 4000, 64],
    [3000, 3, 512],
    [1000, 1000, 128],
    [777, 50, 1],
  ] as const) {
    const list = keys(n, distinct, n + distinct);
    const want = expected(list);
    assert.deepEqual(buckets(list, chunk), want, `${n} items, ${distinct} keys, chunks of ${chunk}`);
    assert.deepEqual(buckets(list), want, `${n} items in one chunk`);
  }
  // The largest key, and keys equal across the chunk boundary.
  assert.deepEqual(buckets([0xffffffff, 7, 0xffffffff, 7, 7], 2), [
    [1, 3, 4],
    [0, 2],
  ]);
});

test('a chunk size outside 1..2^20 is refused', () => {
  const dir = new ScratchDir('test-buckets');
  try {
    assert.throws(
      () =>
        forEachBucket(
          dir,
          1,
          () => 0,
          () => undefined,
          0,
        ),
      /outside 1\.\./,
    );
  } finally {
    dir.remove();
  }
});

test('the duplicate search leaves nothing in the temporary folder, when done and when its input fails', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-duplicates-tmp-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const ref = (task: string) => ({ file: 'f.vtask', task });
    const pairs = findDuplicates([
      { ref: ref('a'), text: 'What is the capital city of France, in one word?' },
      { ref: ref('b'), text: 'what is the capital city of france in one word' },
    ]);
    assert.deepEqual(
      pairs.map((p) => [p.a.task, p.b.task, p.exact]),
      [['a', 'b', true]],
    );
    assert.deepEqual(fs.readdirSync(tmp), []);
    function* failing() {
      yield { ref: ref('a'), text: 'A prompt read before the input fails.' };
      throw new Error('the input failed');
    }
    assert.throws(() => findDuplicates(failing()), /the input failed/);
    assert.deepEqual(fs.readdirSync(tmp), []);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a scratch folder left by a process that is gone is removed by the next search; a live one stays', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-duplicates-tmp-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const left = path.join(tmp, `vtask-duplicates-${gone.stdout}-AbCdEf`);
    const live = path.join(tmp, `vtask-duplicates-${process.ppid}-AbCdEf`);
    const other = path.join(tmp, `vtask-spool-${gone.stdout}-AbCdEf`);
    for (const d of [left, live, other]) fs.mkdirSync(d);
    fs.writeFileSync(path.join(left, 'texts'), 'a prompt');
    findDuplicates([{ ref: { file: 'f.vtask', task: 'a' }, text: 'One prompt alone.' }]);
    assert.deepEqual(fs.readdirSync(tmp).sort(), [path.basename(other), path.basename(live)].sort());
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

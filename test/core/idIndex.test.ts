// The index of first task ids that a streamed file's repeated-id check keeps (taskfile/idIndex.ts):
// it must answer exactly what a Map of every id answers, for ids of any length and alphabet, and
// a streamed file must report each repeated id where the whole-file parse does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { IdIndex, hashOf } from '../../src/core/taskfile/idIndex';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { streamTaskFile } from '../../src/core/taskfile/stream';

test('answers as a Map of first uses does, over 50,000 ids with repeats, empty, long and non-ASCII ids', () => {
  const index = new IdIndex();
  const map = new Map<string, number>();
  const ids = ['', 'é', '日本語', 'a'.repeat(5000), '\u{1f600}'];
  for (let i = 0; i < 50_000; i++) ids.push(`t${i % 37_000}`, `${i}`);
  for (const [offset, id] of ids.entries()) {
    assert.equal(index.get(id), map.get(id), id.slice(0, 20));
    if (!map.has(id)) map.set(id, offset);
    index.set(id, offset);
  }
  for (const [id, offset] of map) assert.equal(index.get(id), offset);
  for (const id of ['t37000', 'x', 'é ', 'a'.repeat(4999)]) assert.equal(index.get(id), undefined);
  index.close();
});

test('ids past the first 16,384 wait in a scratch folder, removed with the index; a hash collision is told apart there', () => {
  const folders = (): string[] => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`vtask-ids-${process.pid}-`));
  const index = new IdIndex();
  for (let i = 0; i < 20_000; i++) index.set(`id-${i}`, i);
  assert.equal(folders().length, 1);
  // Two ids of one hash (a birthday search over 32 bits takes some 100,000 tries).
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const id = `c${i}`;
    const other = seen.get(hashOf(id));
    if (other !== undefined) pair = [other, id];
    seen.set(hashOf(id), id);
  }
  index.set(pair[0], 1_000_000);
  assert.equal(index.get(pair[0]), 1_000_000);
  assert.equal(index.get(pair[1]), undefined);
  assert.equal(index.get('id-19999'), 19_999);
  index.close();
  assert.equal(folders().length, 0);
});

test('a streamed file reports each repeated id on the line the whole-file parse names', async () => {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < 3000; i++) lines.push(`- {id: t${i % 2500}, prompt: "Task ${i}"}`);
  const text = lines.join('\n') + '\n';
  const stream = streamTaskFile(text);
  const streamed: string[] = [];
  for await (const t of stream.tasks)
    for (const i of t.issues) if (i.code === 'duplicate-id') streamed.push(`${i.start} ${i.message}`);
  const whole = parseTaskFile(text)
    .issues.filter((i) => i.code === 'duplicate-id')
    .map((i) => `${i.start} ${i.message}`);
  assert.equal(streamed.length, 500);
  assert.deepEqual(streamed, whole);
  assert.match(streamed[0] ?? '', /duplicate task id `t0`: it is already used on line 5$/);
});

test('each id past the first 100,000 holds under 60 bytes of memory, in or out of the heap (with its code units in memory, about 100)', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const index = new IdIndex();
  let n = 0;
  const add = (count: number): void => {
    for (const end = n + count; n < end; n++) index.set(`task-number-${n}`, n);
  };
  const used = (): number => {
    gc();
    const u = process.memoryUsage();
    return u.heapUsed + u.arrayBuffers;
  };
  try {
    add(100_000);
    const before = used();
    add(200_000);
    const held = used() - before;
    assert.ok(held < 200_000 * 60, `200,000 ids held ${held} bytes`);
    assert.equal(index.get('task-number-299999'), 299_999);
  } finally {
    index.close();
  }
});

// The index of first task ids that a streamed file's repeated-id check keeps (taskfile/idIndex.ts):
// it must answer exactly what a Map of every id answers, for ids of any length and alphabet, and
// a streamed file must report each repeated id where the whole-file parse does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdIndex } from '../../src/core/taskfile/idIndex';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { streamTaskFile } from '../../src/core/taskfile/stream';

test('answers as a Map of first uses does, over 50,000 ids with repeats, empty, long and non-ASCII ids', () => {
  const ids = ['', 'é', '日本語', 'a'.repeat(5000), '\u{1f600}'];
  for (let i = 0; i < 50_000; i++) ids.push(`t${i % 37_000}`, `${i}`);
  // The ids are read back by offset, as a stream reads them back from its file.
  const index = new IdIndex((offset) => ids[offset]);
  const map = new Map<string, number>();
  for (const [offset, id] of ids.entries()) {
    assert.equal(index.get(id), map.get(id), id.slice(0, 20));
    if (!map.has(id)) map.set(id, offset);
    index.set(id, offset);
  }
  for (const [id, offset] of map) assert.equal(index.get(id), offset);
  for (const id of ['t37000', 'x', 'é ', 'a'.repeat(4999)]) assert.equal(index.get(id), undefined);
});

test('an id is read back for a repeat, not for each id: 200,000 distinct ids and 1,000 repeats of 10 ids', () => {
  const ids: string[] = [];
  for (let i = 0; i < 200_000; i++) ids.push(`t${i}`);
  for (let i = 0; i < 1000; i++) ids.push(`t${i % 10}`);
  let readBack = 0;
  const index = new IdIndex((offset) => {
    readBack++;
    return ids[offset];
  });
  let repeats = 0;
  for (const [offset, id] of ids.entries()) {
    if (index.get(id) !== undefined) repeats++;
    else index.set(id, offset);
  }
  assert.equal(repeats, 1000);
  // 10 repeated ids read back once each (then kept), and the few distinct ids that share a hash.
  assert.ok(readBack >= 10 && readBack < 40, `${readBack} ids read back`);
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

// writeJson: the same text as JSON.stringify, in pieces of about 32K characters.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { jsonPieces, writeJson } from '../../src/core/util/writeJson';

async function written(value: unknown): Promise<string[]> {
  const pieces: string[] = [];
  await writeJson({ write: (s) => pieces.push(s) }, value);
  return pieces;
}

test('writes what JSON.stringify writes, whatever the value', async () => {
  const values: unknown[] = [
    {
      a: 1,
      b: 'x"y\u2028é\u{1f600}',
      c: [1, undefined, () => 1, Symbol('s'), null, { d: undefined }],
      e: undefined,
      f: () => 1,
      g: new Date(0),
      h: { toJSON: () => 'j' },
      i: [],
      j: { k: [[1], { l: 2 }] },
    },
    { only: undefined },
    {},
    Object.assign(Object.create(null) as object, { x: [1, 2] }),
    [1, { a: [2] }],
    'text',
    42,
    null,
    { toJSON: () => ({ a: 1 }) },
  ];
  for (const v of values) assert.equal((await written(v)).join(''), JSON.stringify(v), JSON.stringify(v));
});

test('a large object is written in pieces, none of them the whole, waiting while the stream buffers', async () => {
  const value = {
    results: Array.from({ length: 100_000 }, (_, i) => ({
      file: 'data/a.vtask',
      task: `t${i}`,
      pass_rate: i / 100_000,
    })),
    tail: 'end',
  };
  const pieces = await written(value);
  const text = JSON.stringify(value);
  assert.equal(pieces.join(''), text);
  assert.ok(pieces.length >= 4, `${pieces.length} pieces`);
  // Pieces small enough to die young (over about 128 KB a string is only freed by a full collection).
  assert.ok(Math.max(...pieces.map((p) => p.length)) < (1 << 15) + 200);
  // A stream slower than the writer: each piece waits for the one before to drain.
  const chunks: string[] = [];
  const out = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  let most = 0;
  const write = (s: string): boolean => {
    const ok = out.write(s);
    most = Math.max(most, out.writableLength);
    return ok;
  };
  await writeJson({ write, once: (e: 'drain', f: () => void) => out.once(e, f) }, value);
  await new Promise((resolve) => out.end(resolve));
  assert.equal(chunks.join(''), text);
  assert.ok(text.length > 4 << 20 && most < 2 << 20, `at most ${most} of ${text.length} characters buffered`);
});

test('an array is given an element at a time, so a remembered summary of a million tasks is never one string', () => {
  const prompts = Array.from({ length: 1000 }, (_, i) => `Task ${i}: "2+2"?`);
  const pieces = [...jsonPieces(prompts)];
  assert.equal(pieces.join(''), JSON.stringify(prompts));
  assert.equal(pieces.length, 1002);
});

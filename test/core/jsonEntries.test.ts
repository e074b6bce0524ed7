// The remembered case outcomes are read an entry at a time (overview/dataset/jsonEntries.ts):
// every entry as Object.entries(JSON.parse(file)) gives it, across block boundaries and with
// strings holding braces, commas, escapes and non-ASCII text; a file JSON.parse refuses is refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { jsonEntries } from '../../src/core/overview/dataset/jsonEntries';
import { decodedStrings, YOUNG_PIECE_CHARS } from '../support/decodedStrings';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-json-entries-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

function written(text: string): string {
  const file = path.join(DIR, `f${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, text);
  return file;
}

test('gives the entries JSON.parse gives, for files of one and of several blocks', () => {
  const big: Record<string, unknown> = {};
  for (let i = 0; i < 40_000; i++)
    big[`${i.toString(16).padStart(40, 'a')}`] = { total: i, passed: 1, failed: 0, skipped: i % 3 };
  big['odd key, with {braces} and "quotes" \\ é 日本'] = { total: 1, passed: 0, failed: 1, skipped: 0 };
  for (const text of [
    '{}',
    ' { } \n',
    '{"a":1}',
    '{"__proto__":["x",{"y":"}],"}],"b":2}',
    '{ "a" : { "b" : [1, "}", {"c": null}] } , "d" : "e,f" }\n',
    JSON.stringify(big),
    JSON.stringify(big, null, 2),
  ]) {
    const file = written(text);
    assert.deepEqual([...jsonEntries(file)], Object.entries(JSON.parse(text) as object), text.slice(0, 60));
  }
});

test('a file of several megabytes is decoded in pieces small enough to die young, even as two-byte text', () => {
  const big: Record<string, string> = {};
  for (let i = 0; i < 40_000; i++) big[`日本語-${i}`] = `Tâche ${i} 日本語`.repeat(4);
  const file = written(JSON.stringify(big));
  const { value: entries, longest, total } = decodedStrings(() => [...jsonEntries(file)].length);
  assert.equal(entries, 40_000);
  assert.ok(total > 2_000_000, `${total} characters decoded`);
  assert.ok(longest <= YOUNG_PIECE_CHARS, `a string of ${longest} characters was decoded`);
});

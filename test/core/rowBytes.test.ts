// A remembered summary's rows decoded from their bytes (overview/dataset/rowBytes.ts): every row
// in the layout TaskRows.jsonElements writes is decoded, field for field, with no JSON.parse;
// a row in any other layout is left to JSON.parse (decode says false and pushes nothing).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RowDecoder } from '../../src/core/overview/dataset/rowBytes';
import { TaskRows, type TaskRow } from '../../src/core/overview/dataset/taskRows';

const KEY = 'c2f623256ff1575b16a0f4f18d1c48b1c2b6bbe0';

/** Each row's JSON as the memo writes it, decoded alone into `into`; whether each was decoded. */
function decodeAll(texts: readonly string[], into: TaskRows): boolean[] {
  const decoder = new RowDecoder(into);
  return texts.map((t) => {
    // A row inside a longer buffer, as the scanner gives it.
    const bytes = Buffer.from(`xx${t}yy`);
    return decoder.decode(bytes, 2, bytes.length - 2);
  });
}

test('rows as the memo writes them are decoded from their bytes, spilled ones too, as they were given', () => {
  const given: TaskRow[] = [];
  // Past 16,384 rows the rest are spilled to a scratch file.
  for (let i = 0; i < 20_000; i++)
    given.push({
      id: i % 997 === 3 ? `tâche-日本-\u{1f600}-${i}` : `t${i}`,
      line: i === 5 ? 2 ** 32 - 1 : i + 4,
      kind: i % 10 === 9 ? null : i % 7 === 0 ? 'code' : i % 13 === 0 ? '' : 'math',
      cases: i % 10,
      runKey: KEY.slice(0, 35) + String(i % 100000).padStart(5, '0'),
      ...(i % 3 === 0 ? { outcome: { total: i % 10, passed: i % 5, failed: 0, skipped: i % 2 } } : {}),
    });
  const rows = TaskRows.of(given);
  const texts = [...rows.jsonElements()].map((t) => t.replace(/^,/, ''));
  const decoded = new TaskRows();
  try {
    assert.ok(decodeAll(texts, decoded).every(Boolean));
    assert.deepEqual([...decoded], given);
    assert.deepEqual([...decoded.jsonElements()], [...rows.jsonElements()]);
  } finally {
    rows.close();
    decoded.close();
  }
});

test('a row in any other layout is not decoded and nothing of it is kept', () => {
  const row = (over: string): string =>
    `{"id":"t1","line":4,"kind":"math","cases":2,"runKey":"${KEY}",${over}}`.replace(',}', '}');
  const others = [
    '{"id":"t\\"1","line":4,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":04,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":4294967296,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":4.5,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":-1,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":4,"kind":"math","cases":2,"runKey":"' + KEY.toUpperCase() + '"}',
    '{"id":"t1","line":4,"kind":"math","cases":2,"runKey":"odd"}',
    '{"line":4,"id":"t1","kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1", "line":4,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t1","line":4,"kind":"math\\n","cases":2,"runKey":"' + KEY + '"}',
    '{"id":"t\u00011","line":4,"kind":"math","cases":2,"runKey":"' + KEY + '"}',
    row('"outcome":{"total":2,"passed":2,"failed":0}'),
    row('"outcome":{"total":2,"passed":2,"failed":0,"skipped":0,"more":1}'),
    row('"outcome":null'),
    row('"extra":1'),
  ];
  const rows = new TaskRows();
  assert.deepEqual(
    decodeAll(others, rows),
    others.map(() => false),
  );
  assert.equal(rows.length, 0);
  // The same row in the memo's layout is decoded.
  assert.deepEqual(decodeAll([row('"outcome":{"total":2,"passed":2,"failed":0,"skipped":0}')], rows), [true]);
  assert.deepEqual(
    [...rows],
    [
      {
        id: 't1',
        line: 4,
        kind: 'math',
        cases: 2,
        runKey: KEY,
        outcome: { total: 2, passed: 2, failed: 0, skipped: 0 },
      },
    ],
  );
});

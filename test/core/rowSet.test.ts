// The workbench's selection as runs of row numbers: what it holds after each change a page makes
// (a click, a ctrl-click, a range, select all then deselect one), its text and back, and a bad
// text refused with where.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ROW_SET_CHARS, RowSet } from '../../src/core/base/rowSet';

const rows = (s: RowSet): number[] => [...s];

test('a set of rows: built from any order, added to, taken from, merged', () => {
  const s = RowSet.of([7, 3, 4, 5, 3, 10, 0]);
  assert.deepEqual(rows(s), [0, 3, 4, 5, 7, 10]);
  assert.equal(s.size, 6);
  assert.equal(s.runCount, 4, '0, 3–5, 7, 10');
  assert.ok(s.has(4) && s.has(0) && s.has(10));
  assert.ok(!s.has(6) && !s.has(11) && !s.has(-1) && !s.has(1));
  s.add(6);
  assert.equal(s.runCount, 3, '6 joins 3–5 and 7');
  s.add(6);
  assert.equal(s.size, 7, 'a row added twice counts once');
  s.delete(4);
  s.delete(4);
  s.delete(100);
  assert.deepEqual(rows(s), [0, 3, 5, 6, 7, 10]);
  s.delete(0);
  s.delete(10);
  assert.deepEqual(rows(s), [3, 5, 6, 7]);
  s.addAll(RowSet.of([1, 2, 4, 20]));
  assert.deepEqual(rows(s), [1, 2, 3, 4, 5, 6, 7, 20]);
  assert.equal(s.runCount, 2);
  assert.equal(s.size, 8);
  s.addAll(RowSet.range(0, 30));
  assert.deepEqual([s.size, s.runCount], [30, 1]);
  s.clear();
  assert.deepEqual([s.size, s.runCount, s.encode()], [0, 0, '']);
  assert.equal(RowSet.range(5, 5).size, 0);
});

test('select all of a million rows, less one: three runs and a few characters', () => {
  const all = RowSet.range(0, 1_000_000);
  assert.equal(all.encode(), '0,lfls');
  all.delete(500_000);
  assert.deepEqual([all.size, all.runCount], [999_999, 2]);
  const text = all.encode();
  assert.equal(text, '0,apsw,1,apsv');
  const back = RowSet.decode(text);
  assert.ok(!back.has(500_000) && back.has(499_999) && back.has(500_001) && back.has(999_999) && !back.has(1_000_000));
  assert.equal(back.size, 999_999);
});

test('its text and back give the same rows, whatever they are', () => {
  let seed = 7;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 50; round++) {
    const picked = Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 1000));
    const s = RowSet.of(picked);
    const back = RowSet.decode(s.encode());
    assert.deepEqual(
      rows(back),
      [...new Set(picked)].sort((a, b) => a - b),
    );
    assert.equal(back.size, new Set(picked).size);
    assert.equal(back.encode(), s.encode());
  }
});

test('a bad text is refused, saying where', () => {
  const refused = (text: string, message: RegExp) => assert.throws(() => RowSet.decode(text), message);
  refused('0,5,x', /the run at character 5 has no length/);
  refused('0,A', /'A' at character 3 is no base-36 digit/);
  refused('0,-1', /'-' at character 3/);
  refused('3', /the run at character 1 has no length/);
  refused('0,,1', /a number is missing at character 3/);
  refused('0,5,', /a number is missing at character 5/);
  refused('0,0', /the run at character 1 is empty/);
  refused('0,5,0,2', /the run at character 5 is empty or touches the one before/);
  refused('zzzzzzzzzzzzzzzz,1', /the number at character 1 is too large/);
  refused('1'.repeat(MAX_ROW_SET_CHARS + 1), /at most 16000000 characters/);
  assert.deepEqual(rows(RowSet.decode('')), []);
  assert.deepEqual(rows(RowSet.decode('2,3,1,1')), [2, 3, 4, 6]);
});

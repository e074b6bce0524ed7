// The stats memo's case outcomes in typed arrays (overview/dataset/caseOutcomes.ts) behave as the
// Map they replace: the same answers, the last outcome set for a key, and the entries in the order
// their keys were first set (cases.json is written in it), whether keys are SHA-1s in hex or not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { StatsMemo } from '../../src/core/overview/dataset/statsMemo';
import { CaseOutcomes } from '../../src/core/overview/dataset/caseOutcomes';
import type { CaseCounts } from '../../src/core/overview/dataset/taskRows';

const hexKey = (i: number): string => (i * 2654435761).toString(16).padStart(40, '0').slice(-40);

test('case outcomes answer as a Map does, in its order, for hex and other keys', () => {
  const table = new CaseOutcomes();
  const map = new Map<string, CaseCounts>();
  for (let i = 0; i < 20_000; i++) {
    // Every 97th key is not a SHA-1 (upper case, short, empty); every 5th is set a second time.
    const key = i % 97 === 0 ? ['', 'ABC', hexKey(i).toUpperCase()][i % 3] + `-${i}` : hexKey(i);
    const counts = { total: i % 7, passed: i % 5, failed: i % 3, skipped: i % 2 };
    table.set(key, counts);
    map.set(key, counts);
    if (i % 5 === 0) {
      const again = { total: 4_000_000_000, passed: 1, failed: 2, skipped: 3 };
      table.set(key, again);
      map.set(key, again);
    }
  }
  assert.equal(table.size, map.size);
  for (const [key, counts] of map) assert.deepEqual(table.get(key), counts, key);
  assert.equal(table.get(hexKey(20_001)), undefined);
  assert.equal(table.get('not there'), undefined);
  assert.equal(JSON.stringify([...table.entries()]), JSON.stringify([...map]));
});

test('a memo of 200,000 case outcomes holds them outside the heap, under 120 bytes each (a Map held about 290 on the heap, and the collector sized its heap at several times that)', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-case-outcomes-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const memo = new StatsMemo(dir);
  memo.get(hexKey(0)); // reads the (missing) file once, before the measure
  gc();
  const before = process.memoryUsage();
  const n = 200_000;
  for (let i = 0; i < n; i++) memo.set(hexKey(i + 1), { total: 2, passed: 2, failed: 0, skipped: 0 });
  gc();
  const now = process.memoryUsage();
  assert.ok(now.heapUsed - before.heapUsed < n * 10, `heap grew ${now.heapUsed - before.heapUsed} bytes`);
  const outside = now.arrayBuffers - before.arrayBuffers;
  assert.ok(outside < n * 120, `array buffers grew ${outside} bytes`);
  assert.deepEqual(memo.get(hexKey(n)), { total: 2, passed: 2, failed: 0, skipped: 0 });
});

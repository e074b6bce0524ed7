// Parsing a task file costs time linear in its size whatever its layout: a file written as one
// line of JSON (what `json.dump` writes; YAML is a superset of JSON) included, which the chunked
// path cannot split and the whole-file parse takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTaskFile } from '../../src/core/taskfile/parse';

function oneLineJson(n: number): string {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `m/${i}`,
    prompt: `What is ${i} + 2?`,
    verify: { math: { answer: String(i + 2) } },
  }));
  return JSON.stringify({ vtask: 1, tasks });
}

/** CPU microseconds (user + system) of parsing `text`, the least of three runs. */
function parseCpu(text: string): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const before = process.cpuUsage();
    const file = parseTaskFile(text);
    const used = process.cpuUsage(before);
    assert.deepEqual(file.issues, []);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

void test('a one-line JSON file of 8x the tasks costs less than 12x the CPU (linear, not quadratic)', (t) => {
  const small = oneLineJson(1000);
  const large = oneLineJson(8000);
  assert.equal(large.split('\n').length, 1);
  assert.equal(parseTaskFile(large).tasks.length, 8000);
  parseCpu(small); // warm up the JIT so the small run is not charged for compiling
  const [a, b] = [parseCpu(small), parseCpu(large)];
  const ratio = b / a;
  t.diagnostic(
    `parse CPU: 1000 tasks ${(a / 1000).toFixed(0)} ms, 8000 tasks ${(b / 1000).toFixed(0)} ms, ratio ${ratio.toFixed(1)}`,
  );
  // Measured 6.7 (fixed costs weigh on the small file); the quadratic scan this guards against, 17.6.
  assert.ok(ratio < 12, `8x the tasks took ${ratio.toFixed(1)}x the CPU`);
});

void test('each task of a one-line JSON file has its own offset and length, as its indented form', () => {
  const text = oneLineJson(50);
  const file = parseTaskFile(text);
  assert.equal(file.chunked, false);
  assert.equal(file.tasks.length, 50);
  for (const [i, t] of file.tasks.entries()) {
    const own = text.slice(t.offset, t.offset + t.length);
    assert.ok(own.startsWith(`{"id":"m/${i}"`), own.slice(0, 30));
  }
});

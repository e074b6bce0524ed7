// `vtask stats` on one large task file under a heap limit: the file is read a block at a time and
// one task at a time (taskfile/fileStream.ts, stream.ts), each task's row kept in typed arrays
// outside the heap and its prompt in a scratch folder, its cases run a batch at a time. A real
// process on a generated file, with the counts it must give; a task held as objects again (a row,
// its prompt, a Map entry of its id) does not fit the heap.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI } from '../support/cliProcess';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-memory-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** N small tasks (one in ten with a passing and a failing-expected case), the verifier in defaults. */
function compactTasks(n: number): string {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `- {id: t${i}, prompt: "Task ${i}: 2+2?"${i % 10 === 0 ? ', cases: [{response: "\\\\boxed{4}", expect: pass}, {response: "5", expect: fail}]' : ''}}`,
    );
  return lines.join('\n') + '\n';
}

test('vtask stats reads 100,000 tasks of one file in a 40 MB heap, first and from what it remembered (a build that held a row object and a prompt per task ran out of 48 MB)', () => {
  const file = path.join(DIR, 'larger.vtask');
  fs.writeFileSync(file, compactTasks(100_000));
  const run = (): string => {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=40', CLI, 'stats', file, '--json', '--no-tasks', '--cache-dir', path.join(DIR, 'cache2')],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 },
    );
    assert.equal(/out of memory|memory limit/.test(r.stderr), false, r.stderr.slice(-500));
    assert.equal(r.status, 0, r.stderr.slice(-500));
    return r.stdout;
  };
  const first = run();
  const out = JSON.parse(first) as {
    tasks: number;
    totals: {
      kinds: Record<string, number>;
      cases: Record<string, number>;
      tasks_without_cases: number;
      errors: number;
    };
    duplicates: unknown[];
  };
  assert.equal(out.tasks, 100_000);
  assert.deepEqual(out.totals.kinds, { math: 100_000 });
  assert.deepEqual(out.totals.cases, { total: 20_000, passed: 20_000, failed: 0, skipped: 0 });
  assert.equal(out.totals.tasks_without_cases, 90_000);
  assert.equal(out.totals.errors, 0);
  // Every prompt holds its own task number: none is a duplicate of another.
  assert.deepEqual(out.duplicates, []);
  assert.equal(run(), first);
});

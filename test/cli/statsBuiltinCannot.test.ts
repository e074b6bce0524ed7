// `vtask stats` after a real `vtask run` with the built-in demo model: the task it cannot do (a
// word problem) is counted apart as `builtin_cannot`, in no band, so it does not read as a task
// too hard for a model; the arithmetic task it can do keeps its band.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { DatasetStats } from '../../src/core/overview/dataset/types';
import { readRunRecords } from '../../src/core/overview/runlog/runLog';
import { runCliProcess } from '../support/cliProcess';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stats-cannot-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { OPENAI_BASE_URL: '', OPENAI_API_KEY: '', VTASK_NO_LOCAL_DISCOVERY: '1' };

test("the built-in model's runs of tasks it cannot do are counted apart, not as too hard", async () => {
  const file = path.join(dir, 'demo.vtask');
  const cache = path.join(dir, '.vtask-cache');
  fs.writeFileSync(
    file,
    [
      'vtask: 1',
      'defaults: { samples: 2 }',
      'tasks:',
      '  - id: word-problem',
      '    prompt: A farmer has three cows and buys four more. How many cows does he have?',
      '    verify: { math: { answer: "7" } }',
      '  - id: sum',
      '    prompt: What is 2+2?',
      '    verify: { math: { answer: "4" } }',
      '',
    ].join('\n'),
  );
  const run = await runCliProcess(['run', file, '--cache-dir', cache], env, 120_000);
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  const records = [...readRunRecords(cache)];
  assert.match(records.find((r) => r.task === 'word-problem')?.note ?? '', /built-in demo model/, 'the log keeps why');
  assert.equal(records.find((r) => r.task === 'sum')?.note, undefined);

  const out = await runCliProcess(['stats', file, '--cache-dir', cache, '--json', '--no-duplicates'], env, 60_000);
  assert.equal(out.code, 0, out.stderr);
  const stats = JSON.parse(out.stdout) as DatasetStats;
  const m = stats.models.builtin;
  assert.ok(m, Object.keys(stats.models).join(', '));
  assert.equal(m.tasks, 2);
  assert.equal(m.builtin_cannot, 1);
  const banded = Object.values(m.bands).reduce((a, b) => a + b, 0);
  assert.equal(banded, 1, 'only the sum is in a band');
  assert.equal(m.samples, 2, "the word problem's samples are not in the histogram");
  assert.deepEqual(stats.per_file[0]?.bands.builtin, { ...m.bands });
  const text = await runCliProcess(['stats', file, '--cache-dir', cache, '--no-duplicates'], env, 60_000);
  assert.match(text.stdout, /^ {2}built-in cannot +1 \(tasks the built-in demo model cannot do: in no band\)$/m);
});

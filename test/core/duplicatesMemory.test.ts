// The duplicate search in bounded memory: 300,000 distinct prompts, made one at a time and kept
// by nobody, searched in a child process with a 40 MB heap. The in-memory search kept every
// prompt's text and a map of their normalised texts, and ran out of that heap; this one keeps
// per prompt its task (here 60 bytes, in the heap) and about 30 bytes outside the heap, the rest in a
// scratch folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { findDuplicates } from '../../src/core/overview/prompts/duplicates';

const CHILD = 'VTASK_DUPLICATES_MEMORY_CHILD';
const PROMPTS = 300_000;

/** Prompts whose numbers all differ (so none is a duplicate), but for the last two: a copy and a near copy. */
function* prompts(): Generator<{ ref: { file: string; task: string }; text: string }> {
  for (let i = 0; i < PROMPTS; i++)
    yield {
      ref: { file: 'large.vtask', task: `t${i}` },
      text: `Task ${i}: a farmer has ${i} apples and buys ${i + 7} more at the market today. How many apples now?`,
    };
  yield {
    ref: { file: 'large.vtask', task: 'copy' },
    text: 'task 5: A farmer has 5 apples, and buys 12 more at the market today; how many apples now',
  };
  yield {
    ref: { file: 'large.vtask', task: 'near' },
    text: 'Task 9: a farmer has 9 apples and buys 16 more at the market tonight. How many apples now?',
  };
}

if (process.env[CHILD]) {
  const pairs = findDuplicates(prompts());
  process.stdout.write(JSON.stringify(pairs.map((p) => [p.a.task, p.b.task, p.exact, +p.similarity.toFixed(2)])));
} else {
  test(`the duplicate search over ${PROMPTS.toLocaleString('en-US')} prompts runs in a 40 MB heap`, () => {
    const r = spawnSync(process.execPath, ['--max-old-space-size=40', __filename], {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, [CHILD]: '1' },
    });
    assert.equal(/out of memory/.test(r.stderr), false, r.stderr.slice(-500));
    assert.equal(r.status, 0, r.stderr.slice(-500));
    assert.deepEqual(JSON.parse(r.stdout), [
      ['t5', 'copy', true, 1],
      ['t9', 'near', false, 0.84],
    ]);
  });
}

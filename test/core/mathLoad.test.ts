// A math verdict is a fact about the response, not about the machine: the same pairs checked
// on an idle machine and beside a spinning thread and a CPU-bound process get the same
// verdicts, because the budgets are counted in evaluation steps, not in wall time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { checkMath } from '../../src/core/verifiers/math/checkMath';
import { disposeMathPool } from '../../src/core/verifiers/math/pool';
import { readJsonl, needsConformance } from '../support/conformance';

after(async () => {
  await disposeMathPool();
});

interface Row {
  gold: string;
  pred: string;
}

/** What a user sees of a verdict: pass, error kind, reason and the method that decided. */
async function verdicts(rows: readonly Row[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of rows) {
    const v = await checkMath(r.pred, { answer: r.gold });
    out.push(JSON.stringify([v.pass, v.error ?? null, v.reason, v.details.method ?? null]));
  }
  return out;
}

void test(
  'the same pairs get the same verdicts beside a busy thread and a busy process',
  { skip: needsConformance },
  async () => {
    const rows = [...readJsonl<Row>('math_verify_pairs.jsonl', 270), ...readJsonl<Row>('math_weak_spots.jsonl', 28)];
    const idle = await verdicts(rows);
    const spinner = new Worker('for (;;) {}', { eval: true });
    const hog = spawn(process.execPath, ['-e', 'let x = 0; for (;;) x = (x * 31 + 7) % 1000003;'], { stdio: 'ignore' });
    try {
      // Let both start burning CPU before the second run.
      await new Promise((r) => setTimeout(r, 200));
      const loaded = await verdicts(rows);
      const differ = loaded
        .map((v, i) => (v === idle[i] ? null : `${rows[i]?.gold} vs ${rows[i]?.pred}: idle ${idle[i]}, loaded ${v}`))
        .filter(Boolean);
      assert.deepEqual(differ, []);
    } finally {
      hog.kill();
      await spinner.terminate();
    }
  },
);

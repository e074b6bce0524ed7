// A file's prompts kept while its summary is made (overview/dataset/promptSpool.ts): past a few
// thousand they go to a scratch folder, and read back the same, in order; closing removes the folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import { PromptSpool } from '../../src/core/overview/dataset/promptSpool';

const scratch = (): string[] =>
  fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(`vtask-prompts-${process.pid}-`));

test('prompts read back in order, from memory or from the scratch folder, which closing removes', () => {
  for (const n of [3, 25_000]) {
    const spool = new PromptSpool();
    const given = Array.from({ length: n }, (_, i) => (i % 7 ? `Task ${i}: é日本\u{1f600} "2+2"?` : ''));
    for (const p of given) spool.add(p);
    assert.equal(spool.length, n);
    assert.deepEqual([...spool], given);
    assert.equal(scratch().length, n > 10_000 ? 1 : 0, `${n} prompts`);
    spool.close();
    assert.deepEqual(scratch(), []);
  }
});

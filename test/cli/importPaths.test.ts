// `vtask import` of rows whose verifier or environment names a program outside the dataset's
// folder (`../../../../bin/sh`, `/bin/sh`, inside a composite too): such a row is not imported
// and says why, unless --allow-outside-paths, which imports it with a warning.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-import-paths-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const input = path.join(dir, 'rows.jsonl');
fs.writeFileSync(
  input,
  [
    { task_id: 'inside', prompt: 'p', vtask_verifier: JSON.stringify({ script: { path: './checks/grade.mjs' } }) },
    { task_id: 'up', prompt: 'p', vtask_verifier: JSON.stringify({ script: { path: '../../../../bin/sh' } }) },
    {
      task_id: 'nested',
      prompt: 'p',
      vtask_verifier: JSON.stringify({ all: [{ math: { answer: '1' } }, { script: { path: '/bin/sh' } }] }),
    },
    {
      task_id: 'env',
      prompt: 'p',
      vtask_verifier: JSON.stringify({ math: { answer: '1' } }),
      environment: '../elsewhere/env.mjs',
    },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
);

test('rows naming a program outside the folder are refused, each with its line and path', async () => {
  const out = path.join(dir, 'refused.vtask');
  const r = await runCliProcess(['import', input, '--format', 'trl', '-o', out]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /rows\.jsonl:line 2: not imported: the program path '\.\.\/\.\.\/\.\.\/\.\.\/bin\/sh' leaves the dataset's folder \(.*\): a dataset runs only programs inside its folder \(--allow-outside-paths imports it anyway\)/,
  );
  assert.match(r.stderr, /line 3: not imported: the program path '\/bin\/sh' leaves/);
  assert.match(r.stderr, /line 4: not imported: the program path '\.\.\/elsewhere\/env\.mjs' leaves/);
  assert.match(r.stdout, /1 task from trl rows; 3 rows not imported/);
  const text = fs.readFileSync(out, 'utf8');
  assert.match(text, /\.\/checks\/grade\.mjs/);
  assert.doesNotMatch(text, /bin\/sh|elsewhere/);
});

test('--allow-outside-paths imports them, with a warning each', async () => {
  const out = path.join(dir, 'allowed.vtask');
  const r = await runCliProcess(['import', input, '--format', 'trl', '-o', out, '--allow-outside-paths']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.match(/: warning: the program path '[^']+' leaves the dataset's folder/g)?.length, 3);
  assert.match(fs.readFileSync(out, 'utf8'), /\.\.\/\.\.\/\.\.\/\.\.\/bin\/sh/);
});

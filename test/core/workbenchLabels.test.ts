// Review labels stored with the data: `meta.review` of a task file's task, written as an edit
// that keeps the rest of the YAML as written (comments, quoting, flow maps), and a sidecar
// beside a JSONL or Parquet file, which is never rewritten.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { labelTasks, labelTaskText, readSidecar, sidecarPath, taskFileLabels } from '../../src/core/workbench/labels';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-labels-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const TEXT = `vtask: 1
# Arithmetic, by hand.
tasks:
  - id: add   # the easy one
    prompt: 'What is 17 + 25?'
    verify: { math: { answer: "42" } }
  - id: sub
    prompt: What is 50 - 8?
    verify:
      math: { answer: "42" }
    meta:
      source: gsm8k
  - id: mul
    prompt: What is 6 * 7?
    verify:
      math: { answer: "42" }
    meta: { review: checked }
`;

test('meta.review is added, changed and removed, and nothing else of the file moves', () => {
  const set = labelTaskText(TEXT, new Set(['add', 'sub', 'mul']), 'bad_gold');
  assert.deepEqual([set.changed, set.errors], [3, []]);
  assert.equal(
    set.text,
    TEXT.replace(
      `verify: { math: { answer: "42" } }\n`,
      `verify: { math: { answer: "42" } }\n    meta: { review: bad_gold }\n`,
    )
      .replace('      source: gsm8k\n', '      source: gsm8k\n      review: bad_gold\n')
      .replace('meta: { review: checked }', 'meta: { review: bad_gold }'),
  );
  assert.deepEqual(
    [...taskFileLabels(parseTaskFile(set.text))],
    [
      ['add', 'bad_gold'],
      ['sub', 'bad_gold'],
      ['mul', 'bad_gold'],
    ],
  );
  assert.deepEqual(
    parseTaskFile(set.text).issues.filter((i) => i.severity === 'error'),
    [],
  );
  // Cleared: the file is as it was, but for `mul`, whose label was there before.
  const cleared = labelTaskText(set.text, new Set(['add', 'sub', 'mul']), undefined);
  assert.equal(cleared.changed, 3);
  assert.equal(cleared.text, TEXT.replace('    meta: { review: checked }\n', ''));
  // Labelling with the label a task has changes nothing.
  assert.equal(labelTaskText(TEXT, new Set(['mul']), 'checked').changed, 0);
});

test('a row file is never rewritten: its labels are in a sidecar keyed by id', () => {
  const rows = path.join(dir, 'train.jsonl');
  const body = `${JSON.stringify({ question: 'q', answer: '1', id: 'a' })}\n`;
  fs.writeFileSync(rows, body);
  assert.deepEqual(labelTasks(rows, new Set(['a', 'b']), 'checked'), { changed: 2, errors: [] });
  assert.equal(fs.readFileSync(rows, 'utf8'), body);
  assert.equal(sidecarPath(rows), `${rows}.labels.json`);
  assert.deepEqual(JSON.parse(fs.readFileSync(sidecarPath(rows), 'utf8')), {
    vtask_labels: 1,
    labels: { a: 'checked', b: 'checked' },
  });
  labelTasks(rows, new Set(['b']), undefined);
  assert.deepEqual([...readSidecar(rows)], [['a', 'checked']]);
  assert.throws(() => labelTasks(rows, new Set(['a']), ' '), /a label is not blank/);
  fs.writeFileSync(sidecarPath(rows), '{"labels": []}');
  assert.throws(() => readSidecar(rows), /is not a labels file/);
  // A task file is labelled in place.
  const tasks = path.join(dir, 'a.vtask');
  fs.writeFileSync(tasks, TEXT);
  assert.deepEqual(labelTasks(tasks, new Set(['add']), 'checked'), { changed: 1, errors: [] });
  assert.equal(taskFileLabels(parseTaskFile(fs.readFileSync(tasks, 'utf8'))).get('add'), 'checked');
});

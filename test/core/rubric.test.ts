// Drafting a rubric: the model's reply read as criteria, and the verifier replaced in one edit
// that keeps the rest of the file as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRubric, rubricPrompt } from '../../src/core/audit/rubric';
import { replaceKey } from '../../src/core/edit/replaceKey';
import { applyEdit } from '../../src/core/edit/taskEdits';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

void test('a reply is read as a JSON array, fenced or not, or as a list; too few criteria is an error', () => {
  assert.deepEqual(parseRubric('["Names Paris", "Is one sentence"]'), ['Names Paris', 'Is one sentence']);
  assert.deepEqual(parseRubric('Here you go:\n```json\n["A", "B", "A"]\n```'), ['A', 'B']);
  assert.deepEqual(parseRubric('1. States the answer\n2) Shows the work\n- Uses units'), [
    'States the answer',
    'Shows the work',
    'Uses units',
  ]);
  assert.deepEqual(parseRubric('["only one"]'), {
    error: 'the model gave 1 usable criteria; a rubric needs at least 2',
  });
  assert.equal((parseRubric(JSON.stringify(Array.from({ length: 20 }, (_, i) => `c${i}`))) as string[]).length, 8);
});

const FILE = `vtask: 1
tasks:
  # the capital task
  - id: capital
    prompt: "Capital of France?"
    verify: { match: { answer: Paris } }   # a weak check
    cases:
      - { response: "Paris.", expect: pass }
  - id: other
    prompt: "2+2?"
    verify: { math: { answer: "4" } }
`;

void test('the verifier is replaced by a judge in one edit; comments, cases and the other task stay', () => {
  const file = parseTaskFile(FILE);
  const r = replaceKey(
    file,
    0,
    'verify',
    { match: { answer: 'Paris' } },
    { judge: { rubric: ['Names Paris', 'Is short'] } },
  );
  assert.ok('edit' in r, JSON.stringify(r));
  const text = applyEdit(FILE, r.edit);
  const tasks = runnableTasks(parseTaskFile(text)).tasks;
  assert.deepEqual(tasks[0]?.verify, { judge: { rubric: ['Names Paris', 'Is short'] } });
  assert.equal(tasks[0]?.cases.length, 1);
  assert.deepEqual(tasks[1]?.verify, { math: { answer: '4' } });
  assert.match(text, /# the capital task/);
  assert.ok(text.endsWith(FILE.slice(FILE.indexOf('  - id: other'))), 'the next task is byte for byte the same');
  // A verifier that changed since it was read is not replaced.
  assert.match(
    JSON.stringify(replaceKey(file, 0, 'verify', { match: { answer: 'Lyon' } }, { judge: { rubric: ['x', 'y'] } })),
    /the file changed/,
  );
});

void test('the new verifier takes the place of the old one, before the cases, in block style: one criterion a line', () => {
  const r = replaceKey(
    parseTaskFile(FILE),
    0,
    'verify',
    { match: { answer: 'Paris' } },
    { judge: { rubric: ['Names Paris as the capital of France', 'Answers in one sentence'], threshold: 0.5 } },
  );
  assert.ok('edit' in r, JSON.stringify(r));
  const text = applyEdit(FILE, r.edit);
  assert.match(
    text,
    /    prompt: "Capital of France\?"\n    verify:\n      judge:\n        rubric:\n          - Names Paris as the capital of France\n          - Answers in one sentence\n        threshold: 0\.5 *(# a weak check)?\n    cases:\n/,
  );
  assert.ok(
    text.split('\n').every((l) => l.length <= 80),
    'no long line',
  );
});

void test('a verifier fix keeps the key order and the block style of a block verifier', () => {
  const block = `vtask: 1
tasks:
  - id: sum
    prompt: What is 40 + 2?
    verify:
      match: { answer: "42", mode: contains }
    cases:
      - { response: "42", expect: pass }
    tags: [math]
`;
  const r = replaceKey(
    parseTaskFile(block),
    0,
    'verify',
    { match: { answer: '42', mode: 'contains' } },
    { math: { answer: '42' } },
  );
  assert.ok('edit' in r, JSON.stringify(r));
  assert.equal(
    applyEdit(block, r.edit),
    block.replace('      match: { answer: "42", mode: contains }', '      math:\n        answer: "42"'),
  );
});

void test('in a flow task the value is replaced where it is, on one line', () => {
  const flow = `vtask: 1
tasks:
  - { id: f, prompt: "2 + 2?", verify: { match: { answer: "4" } }, cases: [{ response: "4", expect: pass }] }
`;
  const r = replaceKey(parseTaskFile(flow), 0, 'verify', { match: { answer: '4' } }, { math: { answer: '4' } });
  assert.ok('edit' in r, JSON.stringify(r));
  assert.equal(
    applyEdit(flow, r.edit),
    flow.replace('verify: { match: { answer: "4" } }', 'verify: { math: { answer: "4" } }'),
  );
});

void test('the prompt shows the task and up to four cases with their verdicts', () => {
  const task = runnableTasks(parseTaskFile(FILE)).tasks[0]!;
  const [system, user] = rubricPrompt(task);
  assert.match(system?.content ?? '', /JSON array of 2 to 8 strings/);
  assert.match(user?.content ?? '', /"Capital of France\?"/);
  assert.match(user?.content ?? '', /- expected pass: "Paris\."/);
});

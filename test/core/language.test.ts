import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeAt } from '../../src/core/language/completion';
import { contextAt } from '../../src/core/language/context';
import { hoverAt } from '../../src/core/language/hover';
import { outline } from '../../src/core/language/outline';
import { parseTaskFile } from '../../src/core/taskfile/parse';

const FILE = `vtask: 1
tasks:
  - id: a
    prompt: hi
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 5 }
        - 
    cases:
      - response: x
        expect: 
  - id: b
    prompt: yo
    verify:
      math: { answer: "1", tol }
`;

const at = (marker: string, delta = 0): number => FILE.indexOf(marker) + marker.length + delta;
const labels = (offset: number): string[] => completeAt(FILE, offset).map((c) => c.label);

test('cursor context follows indentation and flow braces', () => {
  assert.deepEqual(contextAt(FILE, at('        - \n', -1)).path, ['tasks', 'verify', 'constraints']);
  assert.deepEqual(contextAt(FILE, at('expect: ')), {
    ...contextAt(FILE, at('expect: ')),
    path: ['tasks', 'cases'],
    position: 'value',
    key: 'expect',
  });
  const flow = contextAt(FILE, at('"1", tol'));
  assert.deepEqual(flow.path, ['tasks', 'verify', 'math']);
  assert.equal(flow.word, 'tol');
});

test('completion: instruction ids with kwargs, expect values, verifier params', () => {
  const ids = completeAt(FILE, at('        - \n', -1));
  const nw = ids.find((c) => c.label === 'length_constraints:number_words');
  assert.ok(nw);
  assert.match(nw.insert, /relation: \$\{\d\|less than,at least\|\}/);
  assert.ok(ids.some((c) => c.label === 'vtask:words_start_with'));
  assert.deepEqual(labels(at('expect: ')).slice(0, 2), ['pass', 'fail']);
  const math = completeAt(FILE, at('"1", tol'));
  const tol = math.find((c) => c.label === 'tolerance');
  assert.ok(tol);
  assert.equal(FILE.slice(tol.start, tol.end), 'tol');
});

test('completion: verifier kinds after verify and task keys in a task', () => {
  const text = 'vtask: 1\ntasks:\n  - id: a\n    verify:\n      \n';
  const kinds = completeAt(text, text.indexOf('      \n') + 6).map((c) => c.label);
  assert.ok(['math', 'match', 'constraints', 'code', 'judge', 'all'].every((k) => kinds.includes(k)));
  const t2 = 'vtask: 1\ntasks:\n  - id: a\n    pro';
  const keys = completeAt(t2, t2.length).map((c) => c.label);
  assert.ok(keys.includes('prompt') && keys.includes('verify') && keys.includes('cases'));
});

test('hover: instruction ids, kinds and keys', () => {
  assert.match(hoverAt(FILE, at('length_constraints:num'))?.markdown ?? '', /num_words/);
  assert.match(hoverAt(FILE, at('    verify:\n      ma'))?.markdown ?? '', /mathematically equivalent/);
  // Kinds and instruction ids link to their section of the format reference.
  assert.match(
    hoverAt(FILE, at('    verify:\n      ma'))?.markdown ?? '',
    /\[Reference\]\(https:\/\/github\.com\/vtask-dev\/vtask\/blob\/HEAD\/docs\/format\.md#math\)/,
  );
  assert.match(hoverAt(FILE, at('length_constraints:num'))?.markdown ?? '', /docs\/format\.md#constraints\)/);
  assert.match(hoverAt(FILE, at('    pro'))?.markdown ?? '', /user message/);
  assert.equal(hoverAt(FILE, at('prompt: h')), undefined);
});

test('outline: one symbol per task with verifier and cases', () => {
  const items = outline(parseTaskFile(FILE)).filter((o) => o.kind === 'task');
  assert.deepEqual(
    items.map((o) => o.name),
    ['a', 'b'],
  );
  assert.deepEqual(
    items[0]?.children.map((c) => c.name),
    ['constraints', 'cases'],
  );
  assert.equal(FILE.slice(items[1]?.selectionStart, items[1]?.selectionEnd), 'b');
});

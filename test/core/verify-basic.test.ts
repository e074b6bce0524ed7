import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verify, finalAnswer } from '../../src/core/verifiers/verify';
import { chosenOptions } from '../../src/core/verifiers/choice';

const task = { id: 't', prompt: 'p', messages: [{ role: 'user', content: 'p' }], meta: {}, dir: '.' };
const run = (v: unknown, r: string) => verify(v, r, { task });

test('final answer: text after the last </think>; an unclosed <think> has none', async () => {
  assert.deepEqual(finalAnswer('<think>Paris?</think>Lyon'), { text: 'Lyon' });
  assert.ok('missing' in finalAnswer('<think>still thinking'));
  const v = await run({ match: { answer: 'Paris' } }, '<think>maybe Paris</think>Lyon');
  assert.equal(v.pass, false);
  assert.match(v.reason, /"Lyon"/);
  assert.equal((await run({ match: { answer: 'Paris', final_only: false, mode: 'contains' } }, '<think>Paris</think>Lyon')).pass, true);
  assert.equal((await run({ match: { answer: 'Paris' } }, '<think>Paris')).pass, false);
});

test('match: modes and tags', async () => {
  assert.equal((await run({ match: { answer: 'The Eiffel Tower' } }, 'eiffel tower.')).pass, true);
  assert.equal((await run({ match: { answer: 'Paris', mode: 'exact' } }, 'paris')).pass, false);
  assert.equal((await run({ match: { answer: 'Paris', mode: 'contains' } }, 'It is Paris, France')).pass, true);
  assert.equal((await run({ match: { answer: '^\\d{3}$', mode: 'regex' } }, '123')).pass, true);
  assert.equal((await run({ match: { answers: ['a', 'Paris'] } }, 'PARIS')).pass, true);
  const tagged = await run({ match: { answer: 'Paris', tag: 'answer' } }, 'I think <answer>Lyon</answer> no wait <answer>Paris</answer>');
  assert.equal(tagged.pass, true);
  const missing = await run({ match: { answer: 'Paris', tag: 'answer' } }, 'Paris');
  assert.equal(missing.pass, false);
  assert.match(missing.reason, /no <answer>/);
});

test('choice: exactly one option, from the strongest form', async () => {
  assert.deepEqual(chosenOptions('The answer is (B).', ['A', 'B', 'C']).letters, ['B']);
  assert.deepEqual(chosenOptions('(A) is wrong. Answer: C', ['A', 'B', 'C']).letters, ['C']);
  assert.equal((await run({ choice: { answer: 'B' } }, '\\boxed{B}')).pass, true);
  const both = await run({ choice: { answer: 'B' } }, 'Answer: A. Answer: B');
  assert.equal(both.pass, false);
  assert.match(both.reason, /several options/);
  assert.equal((await run({ choice: { answer: 'B' } }, 'The answer is a prime number')).pass, false);
  assert.equal((await run({ choice: { answer: 'B' } }, 'B')).pass, true);
});

test('json: fenced blocks, schemas, garbage', async () => {
  const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  assert.equal((await run({ json: { schema } }, 'Here:\n```json\n{"name": "x"}\n```')).pass, true);
  const bad = await run({ json: { schema } }, '{"nome": 1}');
  assert.equal(bad.pass, false);
  assert.match(bad.reason, /required property 'name'/);
  assert.equal((await run({ json: {} }, '{not json')).pass, false);
  assert.equal((await run({ json: {} }, '\u0000\u0001binary')).pass, false);
});

test('format: think discipline and regex', async () => {
  assert.equal((await run({ format: { think: 'required' } }, '<think>hmm</think>42')).pass, true);
  assert.equal((await run({ format: { think: 'required' } }, '42')).pass, false);
  assert.equal((await run({ format: { think: 'required' } }, '<think></think>42')).pass, true);
  assert.equal((await run({ format: { think: 'required' } }, '<think>a</think>')).pass, false);
  assert.equal((await run({ format: { think: 'required' } }, '<think>a</think><think>b</think>1')).pass, false);
  assert.equal((await run({ format: { think: 'forbidden' } }, '<think>a</think>1')).pass, false);
  assert.equal((await run({ format: { regex: '^<answer>' } }, '<answer>x</answer>')).pass, true);
});

test('all / any / weighted combine child verdicts', async () => {
  const a = { match: { answer: 'Paris' } };
  const b = { format: { think: 'required' } };
  const all = await run({ all: [a, b] }, '<think>x</think>Paris');
  assert.equal(all.pass, true);
  assert.equal(all.score, 1);
  const half = await run({ all: [a, b] }, 'Paris');
  assert.equal(half.pass, false);
  assert.equal(half.score, 0.5);
  assert.equal((await run({ any: { of: [a, b] } }, 'Paris')).pass, true);
  const w = await run({ weighted: { threshold: 0.7, of: [{ weight: 3, verify: a }, { weight: 1, verify: b }, { weight: 0, verify: b }] } }, 'Paris');
  assert.equal(w.pass, true);
  assert.equal(w.score, 0.75);
});

test('hostile responses never throw', async () => {
  const huge = 'x'.repeat(5 * 1024 * 1024);
  for (const r of [huge, '<script>alert(1)</script>', '\u0000\uffff\ud800', '{{{{{{', '']) {
    for (const v of [{ match: { answer: 'x' } }, { json: {} }, { choice: { answer: 'A' } }, { format: { think: 'required' } }]) {
      const verdict = await run(v, r);
      assert.equal(typeof verdict.pass, 'boolean');
      assert.ok(verdict.reason.length < 500, 'reasons stay one short line');
    }
  }
});

test('unknown kinds and kinds that cannot run are verdicts, not exceptions', async () => {
  const v = await run({ nope: {} }, 'x');
  assert.equal(v.pass, false);
  assert.equal(v.error, 'crash');
});

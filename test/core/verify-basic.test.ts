import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verify, finalAnswer } from '../../src/core/verifiers/verify';
import { chosenOptions } from '../../src/core/verifiers/choice';
import { assertAgreement, readJsonl, rowId, needsConformance } from '../support/conformance';

const task = { id: 't', prompt: 'p', messages: [{ role: 'user', content: 'p' }], meta: {}, dir: '.' };
const run = (v: unknown, r: string) => verify(v, r, { task });

test('final answer: text after the last </think>; an unclosed <think> has none', async () => {
  assert.deepEqual(finalAnswer('<think>Paris?</think>Lyon'), { text: 'Lyon' });
  assert.ok('missing' in finalAnswer('<think>still thinking'));
  const v = await run({ match: { answer: 'Paris' } }, '<think>maybe Paris</think>Lyon');
  assert.equal(v.pass, false);
  assert.match(v.reason, /"Lyon"/);
  assert.equal(
    (await run({ match: { answer: 'Paris', final_only: false, mode: 'contains' } }, '<think>Paris</think>Lyon')).pass,
    true,
  );
  assert.equal((await run({ match: { answer: 'Paris' } }, '<think>Paris')).pass, false);
});

test('match: modes and tags', async () => {
  assert.equal((await run({ match: { answer: 'The Eiffel Tower' } }, 'eiffel tower.')).pass, true);
  assert.equal((await run({ match: { answer: 'Paris', mode: 'exact' } }, 'paris')).pass, false);
  assert.equal((await run({ match: { answer: 'Paris', mode: 'contains' } }, 'It is Paris, France')).pass, true);
  assert.equal((await run({ match: { answer: '^\\d{3}$', mode: 'regex' } }, '123')).pass, true);
  assert.equal((await run({ match: { answers: ['a', 'Paris'] } }, 'PARIS')).pass, true);
  const tagged = await run(
    { match: { answer: 'Paris', tag: 'answer' } },
    'I think <answer>Lyon</answer> no wait <answer>Paris</answer>',
  );
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

test('choice: reads the letter as people write it, and not a capital that starts a word or a phrase', async () => {
  const ABCD = ['A', 'B', 'C', 'D'];
  const read = (r: string): [string[], string] => {
    const c = chosenOptions(r, ABCD);
    return [c.letters, c.source];
  };
  assert.deepEqual(read('A. Because the other options are prime, A is the only composite.'), [['A'], 'leading letter']);
  assert.deepEqual(read('I pick C) 5'), [['C'], 'choice phrase']);
  assert.deepEqual(read("I'd go with (D) since it is the largest."), [['D'], 'choice phrase']);
  assert.deepEqual(read('(B)'), [['B'], 'leading letter']);
  assert.deepEqual(read('**B**'), [['B'], 'leading letter']);
  assert.deepEqual(read('After checking each option, the best fit is **C**.'), [['C'], 'bold']);
  assert.deepEqual(read('Working it out, the answer is B'), [['B'], 'answer line']);
  assert.deepEqual(read('So the correct option is **D**.'), [['D'], 'answer line']);
  assert.deepEqual(read('**Answer:** C'), [['C'], 'answer line']);
  assert.deepEqual(read('Answer: B'), [['B'], 'answer line']);
  assert.deepEqual(read('\\boxed{B}'), [['B'], 'boxed']);
  assert.deepEqual(read('\\boxed{\\text{(C)}}'), [['C'], 'boxed']);
  assert.deepEqual(read('B is correct: 23 has no divisor but 1 and itself.'), [['B'], 'leading letter']);
  assert.deepEqual(read('Answer: C\nthe others are even.'), [['C'], 'answer line'], 'a line break ends the choice');
  // False reads: a capital letter that is an article, a pronoun or an initial is no choice.
  assert.deepEqual(read('A good approach is to test each number for divisors.'), [[], 'none']);
  assert.deepEqual(read('A prime has exactly two divisors, so 23 is prime.'), [[], 'none']);
  assert.deepEqual(read('I think 23 is prime.'), [[], 'none']);
  assert.deepEqual(chosenOptions('I think 23 is prime.', ['G', 'H', 'I', 'J']).letters, []);
  assert.deepEqual(read('The answer is a prime number, 23.'), [[], 'none']);
  assert.deepEqual(read('Dr. B. Smith wrote that Answers vary.'), [[], 'none']);
  assert.deepEqual(read('BANANA'), [[], 'none']);
  // The strongest form wins over a letter discussed on the way; two in it are a hedge.
  assert.deepEqual(read('A. is tempting, but (A) fails for 21. Answer: B'), [['B'], 'answer line']);
  for (const hedge of ['I pick B or C.', 'I pick B and C.', 'B or C', 'Answer: B, C, D'])
    assert.equal((await run({ choice: { answer: 'B' } }, hedge)).pass, false, hedge);
  assert.deepEqual(read('Answer: A, B, C or D'), [['A', 'B', 'C', 'D'], 'answer line']);
  assert.deepEqual(read('I pick (B) or (C).'), [['B', 'C'], 'choice phrase']);
  const two = await run({ choice: { answer: 'B' } }, 'The answer is B. No wait, the answer is C.');
  assert.equal(two.pass, false);
  assert.match(two.reason, /several options were chosen \(B, C\)/);
  const wrong = await run({ choice: { answer: 'B' } }, 'A. Because 21 = 3 × 7.');
  assert.deepEqual([wrong.pass, wrong.reason], [false, 'chose A (leading letter), expected B']);
  const none = await run({ choice: { answer: 'A' } }, 'A good approach is trial division.');
  assert.deepEqual([none.pass, none.reason], [false, 'no option (A, B, C, D, E) was chosen']);
});

test(
  "choice on Math-Verify's multiple-choice extraction rows: the same letter, or none where it finds none",
  { skip: needsConformance },
  () => {
    const file = 'math_verify_string_extraction.jsonl';
    const rows = readJsonl<{ pred: string; expected: string[]; config: { strings?: string[] } }>(file, 7);
    const outcomes = rows.map((r, i) => {
      const got = chosenOptions(r.pred, r.config.strings ?? ['A', 'B', 'C', 'D', 'E']);
      const want = r.expected.length ? [r.expected[1] as string] : [];
      return {
        id: rowId(file, i),
        agree: JSON.stringify(got.letters) === JSON.stringify(want),
        note: `${r.pred}: read ${got.letters.join(', ') || 'nothing'} (${got.source})`,
      };
    });
    assertAgreement(`${file} (choice)`, outcomes, { total: 7 });
  },
);

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
  const w = await run(
    {
      weighted: {
        threshold: 0.7,
        of: [
          { weight: 3, verify: a },
          { weight: 1, verify: b },
          { weight: 0, verify: b },
        ],
      },
    },
    'Paris',
  );
  assert.equal(w.pass, true);
  assert.equal(w.score, 0.75);
});

test('hostile responses never throw', async () => {
  const huge = 'x'.repeat(5 * 1024 * 1024);
  for (const r of [huge, '<script>alert(1)</script>', '\u0000\uffff\ud800', '{{{{{{', '']) {
    for (const v of [
      { match: { answer: 'x' } },
      { json: {} },
      { choice: { answer: 'A' } },
      { format: { think: 'required' } },
    ]) {
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

test('match f1: the score is the F1 of the tokens, and the threshold decides', async () => {
  // Articles fold away: precision 1 (both words are gold words), recall 2/3, so F1 = 0.8, not the mean (5/6).
  const near = await run({ match: { answer: 'the big red house', mode: 'f1', threshold: 0.75 } }, 'big red');
  assert.ok(Math.abs(near.score - 0.8) < 1e-9, String(near.score));
  assert.equal(near.pass, true);
  const strict = await run({ match: { answer: 'the big red house', mode: 'f1', threshold: 0.81 } }, 'big red');
  assert.equal(strict.pass, false);
});

test('json: the last fenced block is the answer; a schema that cannot compile is an error, not a fail', async () => {
  const schema = { type: 'object', required: ['name'] };
  const twoBlocks = 'Draft:\n```json\n{"nome": 1}\n```\nFinal:\n```json\n{"name": "x"}\n```';
  assert.equal((await run({ json: { schema } }, twoBlocks)).pass, true);
  const broken = await run({ json: { schema: { type: 'no-such-type' } } }, '{"name": "x"}');
  assert.equal(broken.pass, false);
  assert.equal(broken.error, 'crash');
});

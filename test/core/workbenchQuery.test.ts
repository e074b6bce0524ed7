// The workbench's query language: terms, free words and quoted phrases read as the box shows
// them, and every query that cannot be read is an error naming the problem and its position.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery, type QueryResult } from '../../src/core/workbench/query';

const ok = (r: QueryResult) => {
  assert.ok('query' in r, JSON.stringify(r));
  return r.query;
};
const bad = (q: string) => {
  const r = parseQuery(q);
  assert.ok('error' in r, `${q} is an error`);
  return r;
};

test('the example query reads into its terms, its model and its words', () => {
  const q = ok(parseQuery('band:too_hard kind:math findings>0 model:strong rate<0.2 label:!checked carry the one'));
  assert.deepEqual(q.text, [
    { field: 'band', value: 'too_hard', negated: false, at: 0 },
    { field: 'kind', value: 'math', negated: false, at: 14 },
    { field: 'label', value: 'checked', negated: true, at: 57 },
  ]);
  assert.deepEqual(q.numbers, [
    { field: 'findings', op: '>', value: 0, at: 24 },
    { field: 'rate', op: '<', value: 0.2, at: 48 },
  ]);
  assert.equal(q.model, 'strong');
  assert.deepEqual(q.words, ['carry', 'the', 'one']);
});

test('comparisons, percentages, quoted phrases and quoted values', () => {
  const q = ok(parseQuery('rate>=20% samples<=8 cases=0 "Two  Words" label:"needs review" "rate<0.2"'));
  assert.deepEqual(
    q.numbers.map((t) => [t.field, t.op, t.value]),
    [
      ['rate', '>=', 0.2],
      ['samples', '<=', 8],
      ['cases', '=', 0],
    ],
  );
  assert.deepEqual(q.words, ['two  words', 'rate<0.2']);
  assert.deepEqual(q.text, [{ field: 'label', value: 'needs review', negated: false, at: 42 }]);
  assert.deepEqual(ok(parseQuery('   ')), { text: [], numbers: [], words: [] });
  // A colon inside a word that is no field name is still read as a field: a typo is said.
  assert.deepEqual(ok(parseQuery('https//x 12:30')).words, ['https//x', '12:30']);
});

test('bad queries say what is wrong and where', () => {
  assert.deepEqual(bad('kind:math bnad:too_hard'), {
    error:
      '`bnad` is no field: the fields are band, kind, model, label, id, file, rate, samples, signal, cases, failing, findings, tokens, cost',
    at: 10,
  });
  assert.deepEqual(bad('band:hard'), {
    error: '`hard` is no band: one of too_easy, learnable, too_hard, error, none',
    at: 5,
  });
  assert.deepEqual(bad('rate<low'), { error: '`rate<` needs a number after it, not `low`', at: 5 });
  assert.deepEqual(bad('x rate>'), { error: '`rate>` needs a number after it', at: 7 });
  assert.deepEqual(bad('rate:0.2'), {
    error: '`rate` is a number: compare it with <, <=, >, >= or =, as in `rate>0`',
    at: 4,
  });
  assert.deepEqual(bad('kind>2'), {
    error: '`kind` is compared as text: write `kind:value` or `kind:!value`, not `>`',
    at: 4,
  });
  assert.deepEqual(bad('label:'), { error: '`label:` needs a value after it', at: 6 });
  assert.deepEqual(bad('label:!'), { error: '`label:` needs a value after it', at: 7 });
  assert.deepEqual(bad('model:a model:b'), { error: 'one model per query: `model:a` is already given', at: 8 });
  assert.deepEqual(bad('model:!a'), {
    error: '`model:` picks the model the other terms test; it cannot be negated',
    at: 0,
  });
  assert.deepEqual(bad('ok "open'), { error: 'a quote is opened here and never closed', at: 3 });
});

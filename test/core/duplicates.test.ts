// Near-duplicate prompts: the normalised text, planted duplicates found (reworded, reordered,
// case, punctuation and quote variants; short problems and instructions reworded by hand) and
// nothing else reported (templated tasks with other numbers, tasks that share boilerplate,
// short prompts whose topic changed), many copies reported as pairs to the first, the
// similarity reported being the true one, and no false duplicate among the examples and the
// peers' IFEval prompts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { bandsFor, findDuplicates } from '../../src/core/overview/prompts/duplicates';
import { normalisePromptText, promptWords } from '../../src/core/overview/prompts/normalise';
import type { DuplicatePair, TaskRef } from '../../src/core/overview/dataset/types';
import { findTaskFiles } from '../../src/core/taskfile/discover';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { needsConformance, readJsonl } from '../support/conformance';

const ROOT = process.cwd();
const at = (task: string, line: number, file = 'set.vtask'): TaskRef => ({ file, task, line });
const prompts = (texts: readonly string[], file = 'set.vtask') =>
  texts.map((text, i) => ({ ref: at(`t${i}`, i, file), text }));
/** A pair as `a~b` (near) or `a=b` (exact), by task id, for comparing whole results. */
const show = (pairs: readonly DuplicatePair[]): string[] =>
  pairs.map((p) => `${p.a.task}${p.exact ? '=' : '~'}${p.b.task}`);

const NUMBER_WORDS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(
    ' ',
  );
/**
 * Jaccard similarity of the prompts' words and 2-word shingles (number words as digits, no
 * thousands separators), computed here from the normalised text alone.
 */
function jaccard(x: string, y: string): number {
  const set = (s: string): Set<string> => {
    const w = normalisePromptText(s)
      .split(' ')
      .map((v) =>
        NUMBER_WORDS.includes(v)
          ? String(NUMBER_WORDS.indexOf(v))
          : /^\d{1,3}(,\d{3})+$/.test(v)
            ? v.replace(/,/g, '')
            : v,
      );
    return new Set([...w, ...w.slice(1).map((v, i) => `${w[i]} ${v}`)]);
  };
  const a = set(x);
  const b = set(y);
  const inter = [...a].filter((s) => b.has(s)).length;
  return inter / (a.size + b.size - inter);
}

void test('normalisePromptText: NFKC, case, quotes and dashes folded, punctuation dropped, numbers and operators kept', () => {
  assert.equal(normalisePromptText('  Don\u2019t \u201cQUOTE\u201d me\u2014ok?!  '), 'dont quote me ok');
  assert.equal(
    normalisePromptText('well-known \u2014 x - 3, x\u22123, 17-25 and -5'),
    'well known x - 3 x - 3 17 - 25 and - 5',
  );
  assert.equal(normalisePromptText("don't DON'T dont"), 'dont dont dont');
  assert.equal(
    normalisePromptText('\uff26\uff55\uff4c\uff4c-width \ufb01ne x\u00b2 Stra\u00dfe'),
    'full width fine x2 strasse',
  );
  assert.equal(normalisePromptText('Caf\u00e9 vs Cafe\u0301 vs CAF\u00c9'), 'café vs café vs café');
  assert.equal(
    normalisePromptText('What is 17+25? And 3.14, 1,000 or 2\u00d73\u22121 = 5.'),
    'what is 17 + 25 and 3.14 1,000 or 2 * 3 - 1 = 5',
  );
  assert.equal(normalisePromptText('Tabs\tand\n\nnewlines   collapse.'), 'tabs and newlines collapse');
  assert.equal(normalisePromptText('!!! ... ???'), '');
  // Every word's span points at the text as written.
  const text = '\u{1F600} Caf\u00e9 \u201cna\u00efve\u201d 3.5km';
  const w = promptWords(text);
  assert.deepEqual(w.words, ['café', 'naïve', '3.5km']);
  assert.deepEqual(
    w.words.map((_, i) => text.slice(w.starts[i], w.ends[i])),
    ['Caf\u00e9', 'na\u00efve', '3.5km'],
  );
});

const ESSAY =
  'Write a short essay about the history of the printing press in Europe. Explain how movable type changed the way books were produced and who could afford them. ' +
  'Mention at least two printers by name and describe one consequence for religion and one for science. Use a neutral tone and keep it under 400 words.';
const CODE =
  'Write a Python function named merge_intervals that takes a list of closed intervals, given as pairs of integers, and returns a new list in which all overlapping intervals are merged. ' +
  'The result must be sorted by start point. Do not modify the input list, and include a docstring with two examples.';
const TRAIN =
  'A train leaves Lisbon at 9:15 and travels toward Porto at 120 km per hour. A second train leaves Porto at 9:45 and travels toward Lisbon at 150 km per hour on a parallel track. ' +
  'The two cities are 310 km apart. At what time do the trains pass each other? Give the answer to the nearest minute.';
const GARDEN =
  'Priya is planning a vegetable garden with 12 rows of 18 plants each. Every plant needs 2 liters of water per day, and her rain barrel holds 900 liters when full. ' +
  'It has not rained for a week. For how many full days can the barrel water the whole garden?';
const POEM =
  'Compose a sonnet about the sea at night from the point of view of a lighthouse keeper who is about to retire. Every line must end with a word that names a color or a sound.';
const SQL =
  'Given a table orders with columns id, customer_id, amount and created_at, write a SQL query that returns, for each customer, the total amount they spent in the last calendar month, ' +
  'sorted from the highest total to the lowest, and only for customers who placed at least three orders in that month.';

void test('planted near duplicates are found and nothing else is: reworded, reordered, case and punctuation variants; templates with other numbers are not', () => {
  const texts = [
    ESSAY, // t0
    CODE, // t1
    TRAIN, // t2
    GARDEN, // t3
    POEM, // t4
    SQL, // t5
    // t6: t0 reworded: two words changed.
    ESSAY.replace('short essay', 'brief essay').replace('neutral tone', 'calm tone'),
    // t7: t1 with its sentences in another order.
    'The result must be sorted by start point. Do not modify the input list, and include a docstring with two examples. ' +
      'Write a Python function named merge_intervals that takes a list of closed intervals, given as pairs of integers, and returns a new list in which all overlapping intervals are merged.',
    // t8: t2 in capitals with other punctuation and typographic quotes: the same normalised text.
    `\u201c${TRAIN.toUpperCase().replace(/\./g, ';').replace(/,/g, ' \u2014')}\u201d`,
    // t9: t2's template with other numbers: another task.
    TRAIN.replace('120 km', '110 km').replace('310 km', '330 km'),
    // t10: t3's template with other numbers and a name: another task.
    GARDEN.replace('12 rows', '14 rows').replace('Priya', 'Mateo'),
    // t11, t12: short templated questions with other numbers.
    'What is 17+25?',
    'What is 18+25?',
    // t13: the same numbers in another order: another question.
    'What is 25+17?',
    // t14: t11 with other case and punctuation: the same question.
    'WHAT IS 17 + 25',
    // t15: t4's topic changed: a different poem, most words shared.
    POEM.replace('the sea at night', 'a mountain in winter').replace('lighthouse keeper', 'forest ranger'),
    // t16: t5 reworded in three places, one of them a number word: still the same query.
    SQL.replace('write a SQL query', 'write an SQL query')
      .replace('sorted from', 'ordered from')
      .replace('lowest,', 'lowest one,'),
  ];
  const pairs = findDuplicates(prompts(texts));
  assert.deepEqual(show(pairs).sort(), ['t0~t6', 't1~t7', 't11=t14', 't2=t8', 't5~t16'].sort());
  for (const p of pairs) {
    const [a, b] = [texts[Number(p.a.task.slice(1))] as string, texts[Number(p.b.task.slice(1))] as string];
    if (p.exact) assert.equal(p.similarity, 1);
    else
      assert.ok(
        Math.abs(p.similarity - jaccard(a, b)) < 1e-12,
        `${p.a.task}~${p.b.task}: ${p.similarity} is not the true similarity ${jaccard(a, b)}`,
      );
    assert.ok(p.similarity >= 0.8);
  }
  // Sorted by similarity, then by place.
  assert.deepEqual(
    pairs.map((p) => p.similarity),
    pairs.map((p) => p.similarity).sort((x, y) => y - x),
  );
  assert.deepEqual(show(pairs.filter((p) => p.exact)), ['t2=t8', 't11=t14']);
  // The template siblings are similar by their words; only their numbers keep them apart.
  assert.ok(jaccard(TRAIN, texts[9] as string) >= 0.8, 'the templated pair shares most shingles');
});

void test('the threshold decides, and the reported similarity is the true one', () => {
  const reworded = ESSAY.replace('short essay', 'brief essay')
    .replace('neutral tone', 'calm tone')
    .replace('two printers', 'two early printers');
  const truth = jaccard(ESSAY, reworded);
  assert.ok(truth > 0.8 && truth < 0.9, `fixture similarity ${truth}`);
  const [found] = findDuplicates(prompts([ESSAY, reworded]));
  assert.equal(found?.similarity, truth);
  assert.deepEqual(findDuplicates(prompts([ESSAY, reworded]), { threshold: 0.9 }), []);
  assert.equal(findDuplicates(prompts([ESSAY, reworded]), { threshold: truth }).length, 1);
  assert.throws(() => findDuplicates([], { threshold: 0 }), /threshold/);
  // Banding: a pair at the threshold becomes a candidate with probability at least 0.99.
  for (const t of [0.5, 0.7, 0.8, 0.9, 0.95]) {
    const { bands, rows } = bandsFor(t);
    assert.ok(bands * rows <= 64);
    assert.ok(1 - (1 - t ** rows) ** bands >= 0.99, `${t}: ${bands}x${rows}`);
  }
});

/** Short problems and instructions, each reworded by hand as a curator would find it in a dataset. */
const REWORDED: readonly (readonly [string, string])[] = [
  // The first: a word problem reworded in four places (two verbs, a thousands separator, "1" as "one").
  [
    'A farmer has 1,000 apples. Every day he sells 1 crate of 48 apples to a shop and gives 12 apples to his neighbour. How many apples does he have left after 10 days?',
    'A farmer has 1000 apples. Every day he ships one crate of 48 apples to a shop and hands 12 apples to his neighbour. How many apples does he have left after 10 days?',
  ],
  [
    'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?',
    'Natalia sold clips to 48 of her friends in April and then sold half as many clips in May. How many clips did Natalia sell in total in April and May?',
  ],
  [
    'Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she earn?',
    'Weng makes $12 an hour for babysitting. Yesterday she did just 50 minutes of babysitting. How much did she make?',
  ],
  [
    'Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much more money does Betty need to buy the wallet?',
    'Betty is saving for a new wallet that costs $100. She has only half of the money she needs. Her parents decide to give her $15 for that purpose, and her grandparents give twice as much as her parents. How much more money does Betty need to buy the wallet?',
  ],
  [
    'James writes a 3-page letter to 2 different friends twice a week. How many pages does he write a year?',
    'James writes a 3-page letter to 2 different friends twice a week. How many pages does he write in one year?',
  ],
  [
    'A robe takes 2 bolts of blue fiber and half that much white fiber. How many bolts in total does it take?',
    'A robe needs 2 bolts of blue fiber and half that much white fiber. How many bolts does it take in total?',
  ],
  [
    'Tom has one apple and buys 7 more at the market. How many apples does Tom have now?',
    'Tom has 1 apple and purchases 7 more at the market. How many apples does he have now?',
  ],
  [
    'A bakery sells 24 muffins in the morning and 18 in the afternoon. If each muffin costs $2, how much money does the bakery make in one day?',
    'A bakery sells 24 muffins in the morning and 18 in the afternoon. Each muffin costs $2. How much money does the bakery earn in 1 day?',
  ],
  ['Find the sum of the first 100 positive integers.', 'What is the sum of the first 100 positive integers?'],
  ['Find all real solutions of x^2 - 5x + 6 = 0.', 'Find every real solution of x^2 - 5x + 6 = 0.'],
  [
    'Write a haiku about autumn leaves. Do not use any commas.',
    'Do not use any commas. Write a haiku about autumn leaves.',
  ],
  [
    'Give me a list of five fruits that are high in vitamin C. Answer in all lowercase letters.',
    'Give me a list of 5 fruits that are high in vitamin C. Respond in all lowercase letters.',
  ],
  ['Explain why the sky is blue in two sentences.', 'In two sentences, explain why the sky is blue.'],
  ['How many positive divisors does 360 have?', 'How many positive divisors does the number 360 have?'],
  ['If 3x + 7 = 22, what is the value of x?', 'What is the value of x if 3x + 7 = 22?'],
  [
    'A rectangle has a length of 12 cm and a width of 5 cm. What is its area?',
    'A rectangle has a length of 12 cm and a width of 5 cm. Find its area.',
  ],
  [
    "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
    "Janet's ducks lay 16 eggs a day. She eats 3 for breakfast every morning and bakes muffins for her friends every day with 4. She sells the rest at the farmers' market daily for $2 per fresh duck egg. How many dollars does she make every day at the farmers' market?",
  ],
  [
    'Translate the following sentence into French: The cat is sleeping on the sofa.',
    'Translate this sentence into French: the cat is sleeping on the sofa.',
  ],
  [
    'Write a limerick about a programmer who hates bugs. Your answer must be in all capital letters.',
    'Your answer must be in all capital letters. Write a limerick about a programmer that hates bugs.',
  ],
  [
    'Sort the list [5, 3, 9, 1] in ascending order and return it as JSON.',
    'Sort the list [5, 3, 9, 1] in ascending order and give it back as JSON.',
  ],
  [
    'A shirt costs $40 and is on sale for 25% off. What is the sale price?',
    'A shirt that costs $40 is on sale for 25% off. What is its sale price?',
  ],
  [
    'Mark has 3 times as many marbles as Lisa. Together they have 48 marbles. How many marbles does Lisa have?',
    'Mark has three times as many marbles as Lisa. Together they have 48 marbles. How many does Lisa have?',
  ],
  [
    'Summarize the plot of Hamlet in exactly 3 bullet points.',
    'Summarize the plot of Hamlet in exactly three bullet points.',
  ],
  ['Compute 15% of 80, then add 12 to the result.', 'Calculate 15% of 80 and then add 12 to the result.'],
  [
    'Write a cover letter for a junior data analyst position. Keep it under 200 words and do not mention salary.',
    "Write a cover letter for a junior data analyst role. Keep it under 200 words, and don't mention salary.",
  ],
];
/** Short prompts most of whose words are shared, but which ask something else. */
const OTHER_TASKS: readonly (readonly [string, string])[] = [
  [
    'Tom has one apple and buys 7 more at the market. How many apples does Tom have now?',
    'Tom has 2 apples and buys 7 more at the market. How many apples does Tom have now?',
  ],
  ['Write a haiku about autumn leaves.', 'Write a haiku about winter snow.'],
  ['Explain why the sky is blue in two sentences.', 'Explain why the sea is salty in two sentences.'],
  ['What is 17+25?', 'What is 18+25?'],
  ['Is 5 greater than 3?', 'Is 3 greater than 5?'],
  [
    'Summarize the plot of Hamlet in exactly 3 bullet points.',
    'Summarize the plot of Macbeth in exactly 3 bullet points.',
  ],
  [
    'Translate the following sentence into French: The cat is sleeping on the sofa.',
    'Translate the following sentence into German: The cat is sleeping on the sofa.',
  ],
  [
    'Write a Python function that returns the largest element of a list.',
    'Write a Python function that returns the smallest element of a list.',
  ],
  [
    'Mark has three times as many marbles as Lisa. Together they have 48 marbles. How many marbles does Lisa have?',
    'Mark has four times as many marbles as Lisa. Together they have 48 marbles. How many marbles does Lisa have?',
  ],
];

void test('reworded short prompts: the ones that keep most of their words are found at 0.8, and prompts that ask something else are not', () => {
  const reworded = REWORDED.flatMap(([a, b], i) => [
    { ref: at(`p${i}`, 2 * i), text: a },
    { ref: at(`q${i}`, 2 * i + 1), text: b },
  ]);
  const pairs = findDuplicates(reworded);
  assert.ok(
    pairs.every((p) => !p.exact && p.a.task.slice(1) === p.b.task.slice(1)),
    `only planted pairs: ${show(pairs).join(' ')}`,
  );
  for (const p of pairs) {
    const [a, b] = REWORDED[Number(p.a.task.slice(1))] as readonly [string, string];
    assert.ok(
      Math.abs(p.similarity - jaccard(a, b)) < 1e-12,
      `${p.a.task}: ${p.similarity} is not the true similarity ${jaccard(a, b)}`,
    );
  }
  // Found: verb swaps, a reordered sentence, "one"/"1", "three"/"3", "1,000"/"1000", added or
  // dropped words: 9 of the 25. Missed: a rewording that changes a third of a short prompt's words (the
  // measure sees words, not meaning: "What is its area?" and "Find its area." share two).
  assert.deepEqual(
    pairs.map((p) => Number(p.a.task.slice(1))).sort((x, y) => x - y),
    [0, 4, 7, 10, 11, 12, 14, 21, 22],
  );
  assert.deepEqual(
    findDuplicates(
      OTHER_TASKS.flatMap(([a, b], i) => [
        { ref: at(`p${i}`, 2 * i), text: a },
        { ref: at(`q${i}`, 2 * i + 1), text: b },
      ]),
    ),
    [],
  );
});

void test('1,000 copies of one prompt are 999 pairs to the first; near copies pair with the earlier task most like them', () => {
  const texts: string[] = [];
  for (let i = 0; i < 1000; i++) texts.push(i % 2 ? CODE.toUpperCase() : `${CODE} `);
  texts.push(
    ESSAY,
    ESSAY.replace('short essay', 'brief essay'),
    ESSAY.replace('short essay', 'brief essay').replace('neutral tone', 'calm tone'),
  );
  const pairs = findDuplicates(prompts(texts));
  const exact = pairs.filter((p) => p.exact);
  assert.equal(exact.length, 999);
  assert.ok(exact.every((p) => p.a.task === 't0'));
  assert.deepEqual(
    exact.map((p) => p.b.line),
    Array.from({ length: 999 }, (_, i) => i + 1),
  );
  // The third essay is closer to the second (one word apart) than to the first.
  assert.deepEqual(show(pairs.filter((p) => !p.exact)), ['t1000~t1001', 't1001~t1002']);
});

void test('pairs are ordered by similarity, then by file and line', () => {
  const pairs = findDuplicates([
    { ref: at('b2', 9, 'b.vtask'), text: POEM },
    { ref: at('a1', 3, 'a.vtask'), text: SQL },
    { ref: at('b1', 2, 'b.vtask'), text: POEM.toUpperCase() },
    { ref: at('a2', 7, 'a.vtask'), text: SQL },
    { ref: at('c1', 1, 'c.vtask'), text: ESSAY },
    { ref: at('c2', 2, 'c.vtask'), text: ESSAY.replace('short essay', 'brief essay') },
  ]);
  assert.deepEqual(show(pairs), ['a1=a2', 'b2=b1', 'c1~c2']);
});

void test('prompts without a word are not compared; one-word prompts match only exactly', () => {
  assert.deepEqual(findDuplicates(prompts(['', '...', '', 'Hello', 'hello!', 'Hello there'])), [
    { a: at('t3', 3), b: at('t4', 4), similarity: 1, exact: true },
  ]);
});

/** Task prompts of the repository's examples and the peers' IFEval prompts. */
function realPrompts(): { ref: TaskRef; text: string }[] {
  const out: { ref: TaskRef; text: string }[] = [];
  for (const file of findTaskFiles([path.join(ROOT, 'examples')])) {
    for (const t of runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks)
      out.push({ ref: { file: path.relative(ROOT, file), task: t.id }, text: t.prompt });
  }
  readJsonl<{ key: number; prompt: string }>('ifeval_input_prompts.jsonl', 541).forEach((r, i) =>
    out.push({ ref: { file: 'ifeval_input_prompts.jsonl', task: String(r.key), line: i }, text: r.prompt }),
  );
  return out;
}

void test(
  'conformance: no false duplicate among the examples and the 541 IFEval prompts; shared boilerplate shows only at a low threshold',
  { skip: needsConformance },
  () => {
    const real = realPrompts();
    assert.ok(real.length >= 541 + 10, `${real.length} prompts`);
    assert.deepEqual(findDuplicates(real), []);
    assert.deepEqual(findDuplicates(real, { threshold: 0.7 }), []);
    assert.deepEqual(findDuplicates(real, { threshold: 0.6 }), []);
    // At 0.5 the only pairs are IFEval prompts that end in the same 40-word "repeat the request"
    // instruction: a template, not a duplicate, and exactly what a low threshold should show.
    assert.deepEqual(show(findDuplicates(real, { threshold: 0.5 })).sort(), ['1139~2337', '1139~2739', '1139~288']);
  },
);

void test('property: a prompt always matches a copy of itself with changed case and punctuation', () => {
  const word = fc.oneof(
    fc.constantFrom(
      'the',
      'train',
      'leaves',
      'at',
      'what',
      'time',
      'caf\u00e9',
      'na\u00efve',
      'x',
      'Stra\u00dfe',
      'don\u2019t',
    ),
    fc.integer({ min: 0, max: 9999 }).map(String),
  );
  // Punctuation only: a dash before a number is a minus sign, which changes the task.
  const punct = fc.constantFrom(
    ' ',
    '  ',
    ', ',
    '. ',
    '; ',
    '! ',
    '? ',
    '\u2026 ',
    ' (',
    ') ',
    ' [',
    '] ',
    ' "',
    '" ',
    ' \u201c',
    '\u201d ',
    '\n',
    ': ',
  );
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 60 }),
      fc.array(fc.tuple(punct, fc.boolean()), { minLength: 60, maxLength: 60 }),
      (words, styles) => {
        const text = words.join(' ');
        const copy = words
          .map((w, i) => {
            const [sep, upper] = styles[i] as [string, boolean];
            return (upper ? w.toUpperCase() : w) + sep;
          })
          .join('');
        const pairs = findDuplicates(prompts([text, copy]));
        assert.deepEqual(pairs, [{ a: at('t0', 0), b: at('t1', 1), similarity: 1, exact: true }]);
      },
    ),
    { numRuns: 300, seed: 7 },
  );
});

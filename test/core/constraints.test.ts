import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConstraints, looseVariants } from '../../src/core/verifiers/constraints/checkConstraints';
import { CHECKERS, UNAVAILABLE } from '../../src/core/verifiers/constraints/checkers';
import { INSTRUCTIONS } from '../../src/core/verifiers/constraints/instructions';
import { constraintsKind } from '../../src/core/verifiers/constraints';
import { readCsv } from '../../src/core/verifiers/constraints/text/csv';
import { detectLanguage } from '../../src/core/verifiers/constraints/text/language';
import { sentences } from '../../src/core/verifiers/constraints/text/punkt';
import { countWordTokens, isUpper, pySplit } from '../../src/core/verifiers/constraints/text/py';
import { wordTokenize } from '../../src/core/verifiers/constraints/text/treebank';
import type { InstructionCheck } from '../../src/core/verifiers/constraints/types';
import type { VerifyContext } from '../../src/core/verifiers/verdict';

const check = (id: string, response: string, kwargs: Record<string, unknown> = {}): boolean =>
  (CHECKERS.get(id) as InstructionCheck)(response, kwargs, { prompt: '' }).pass;

void test('every registered id has exactly one checker, and every one decides', () => {
  for (const id of INSTRUCTIONS.keys()) assert.ok(CHECKERS.has(id), `no checker for ${id}`);
  for (const id of CHECKERS.keys()) assert.ok(INSTRUCTIONS.has(id), `checker for unregistered ${id}`);
  assert.deepEqual([...UNAVAILABLE.keys()], []);
  const v = checkConstraints('Run now.', { instructions: ['words:start_verb'] });
  assert.deepEqual([v.error, v.pass], [undefined, true]);
  assert.deepEqual(
    (v.details.results as { reason: string }[]).map((r) => r.reason),
    ['starts with the verb "Run"'],
  );
});

void test('IFBench words:start_verb: the first token by a verb lexicon, suffix rules and the word after it', () => {
  const starts = (r: string): boolean => check('words:start_verb', r);
  for (const r of [
    'Imagine a world without bees.',
    "Let's begin.",
    "Don't panic.",
    'Does this start with a verb?',
    'Consider the following.',
    'Based on the data, yes.',
    'Running every morning helps.',
    'Discovered in 1928, penicillin changed medicine.',
    'Went home early.',
    'Exercise daily.',
    'Visualize success.',
    'Harnessing wind power works.',
  ]) {
    assert.ok(starts(r), r);
  }
  // Nouns, adjectives, modals, prepositions, interjections; a verb-or-noun word that is the subject.
  for (const r of [
    'This does not start with a verb.',
    'The cat sat.',
    'Paris is the capital.',
    'Love is patient.',
    'Research shows that sleep matters.',
    'Exercise is healthy.',
    'Interesting question!',
    'Morning routines matter.',
    'Steps to follow:',
    'Sure! Here it is.',
    'Can you help?',
    'Like many cities, Paris is old.',
    'Please find it attached.',
    '123 go',
    '**Imagine** this.',
    '',
  ]) {
    assert.ok(!starts(r), r);
  }
  const v = (CHECKERS.get('words:start_verb') as InstructionCheck)('Love is patient.', {}, { prompt: '' });
  assert.equal(v.reason, 'starts with "Love", not a verb');
});

void test('the verdict: pass when all hold, score is the share, reason names what failed with figures', () => {
  const response = Array.from({ length: 63 }, (_, i) => `word${i}`).join(' ');
  const v = checkConstraints(response, {
    instructions: [
      { 'length_constraints:number_words': { relation: 'less than', num_words: 50 } },
      'punctuation:no_comma',
    ],
  });
  assert.equal(v.pass, false);
  assert.equal(v.score, 0.5);
  assert.match(v.reason, /length_constraints:number_words: 63 words, needs less than 50/);
  const results = v.details.results as { id: string; pass: boolean; measured?: Record<string, unknown> }[];
  assert.deepEqual(
    results.map((r) => [r.id, r.pass]),
    [
      ['length_constraints:number_words', false],
      ['punctuation:no_comma', true],
    ],
  );
  assert.equal(results[0]?.measured?.words, 63);
  const ok = checkConstraints('short answer', {
    instructions: [{ 'length_constraints:number_words': { relation: 'less than', num_words: 50 } }],
  });
  assert.equal(ok.pass, true);
  assert.equal(ok.score, 1);
});

void test('the kind exposes the checker and reads the prompt from the context', async () => {
  assert.ok(constraintsKind.check);
  const ctx = {
    task: { id: 't', prompt: 'p', messages: [], meta: {}, dir: '.' },
    signal: new AbortController().signal,
    trusted: true,
    child: () => Promise.reject(new Error('no')),
  } as unknown as VerifyContext;
  const v = await constraintsKind.check('hello, world', { instructions: ['punctuation:no_comma'] }, ctx);
  assert.equal(v.pass, false);
  assert.match(v.reason, /1 comma, needs none/);
});

void test("loose mode tries IFEval's eight variants; strict mode only the response", () => {
  const response = 'Sure, here it is:\n*Title*\nbody text\nHope this helps!';
  assert.equal(looseVariants(response).length, 8);
  assert.deepEqual(
    looseVariants('a\n*b*\nc').map((v) => v[1]),
    ['a\n*b*\nc', 'a\nb\nc', '*b*\nc', 'a\n*b*', '*b*', 'b\nc', 'a\nb', 'b'],
  );
  const ins = { instructions: ['punctuation:no_comma'] };
  assert.equal(checkConstraints(response, ins).pass, false);
  const loose = checkConstraints(response, { ...ins, mode: 'loose' });
  assert.equal(loose.pass, true);
  const r = (loose.details.results as { variant?: string }[])[0];
  assert.equal(r?.variant, 'without the first line');
  // An empty response (or variant) never counts, as in IFEval's evaluation.
  assert.equal(checkConstraints('   ', ins).pass, false);
  assert.equal(checkConstraints('', { ...ins, mode: 'loose' }).pass, false);
});

void test('IFEval group: words, sentences, paragraphs, sections, bullets, highlights, placeholders', () => {
  assert.equal(countWordTokens("Don't stop-believing, 3.14!"), 6);
  assert.deepEqual(sentences('Mr. Smith went to Washington. He arrived at 5 p.m. on Monday. Was it late? Yes!'), [
    'Mr. Smith went to Washington.',
    'He arrived at 5 p.m. on Monday.',
    'Was it late?',
    'Yes!',
  ]);
  assert.deepEqual(sentences('He said "hi." Then left.'), ['He said "hi."', 'Then left.']);
  // Punkt's orthographic context without its table: a lowercase initial ends a sentence before a
  // capitalised word, a capital initial (a name) does not; a common word after an abbreviation starts one.
  assert.deepEqual(sentences("You are located in o. Let's check the weather."), [
    'You are located in o.',
    "Let's check the weather.",
  ]);
  assert.deepEqual(sentences('It was written by J. Smith in 1990.'), ['It was written by J. Smith in 1990.']);
  assert.deepEqual(sentences('I moved to the U.S. Please write.'), ['I moved to the U.S.', 'Please write.']);
  assert.deepEqual(sentences('I met Dr. Watson there.'), ['I met Dr. Watson there.']);
  assert.deepEqual(sentences(''), []);
  assert.ok(check('length_constraints:number_paragraphs', 'a\n***\nb\n***\nc', { num_paragraphs: 3 }));
  assert.ok(!check('length_constraints:number_paragraphs', 'a\n***\n\n***\nc', { num_paragraphs: 2 }));
  assert.ok(
    check('detectable_format:multiple_sections', 'SECTION 1\nx\nSECTION 2\ny', {
      section_spliter: 'SECTION',
      num_sections: 2,
    }),
  );
  assert.ok(
    check('detectable_format:number_bullet_lists', '* one\n* two\n- three\n**bold** not a bullet', { num_bullets: 3 }),
  );
  assert.ok(check('detectable_format:number_highlighted_sections', '*a* and **b**', { num_highlights: 2 }));
  assert.ok(check('detectable_content:number_placeholders', '[name] at [address]', { num_placeholders: 2 }));
  assert.ok(!check('detectable_content:number_placeholders', '[name\n] [x', { num_placeholders: 1 }));
  assert.ok(check('detectable_content:postscript', 'Body.\nP.S. more', { postscript_marker: 'P.S.' }));
  assert.ok(check('detectable_content:postscript', 'Body.\np. p. s extra', { postscript_marker: 'P.P.S' }));
  assert.ok(check('detectable_format:json_format', '```json\n{"a": [1, 2]}\n```'));
  assert.ok(!check('detectable_format:json_format', '{"a": NaN'));
  assert.ok(check('detectable_format:title', '<<A poem>>\ntext'));
  assert.ok(!check('detectable_format:title', '<<  >>'));
  assert.ok(check('startend:end_checker', 'Done. Any other questions?"', { end_phrase: 'Any other questions?' }));
  assert.ok(check('combination:two_responses', 'one\n******\ntwo'));
  assert.ok(check('keywords:existence', 'C++ and $5 deals', { keywords: ['c++', '$5'] }), 'keywords are literal text');
  assert.ok(!check('keywords:forbidden_words', 'The Café is open', { forbidden_words: ['café'] }));
  assert.ok(check('keywords:forbidden_words', 'The cafés are open', { forbidden_words: ['café'] }));
  assert.ok(check('keywords:letter_frequency', 'Eeee', { letter: 'e', let_frequency: 4, let_relation: 'at least' }));
  assert.ok(
    check('change_case:capital_word_frequency', "I DON'T KNOW", { capital_frequency: 4, capital_relation: 'at least' }),
  );
});

void test('Treebank tokens and Python string semantics', () => {
  assert.deepEqual(wordTokenize('I can\'t go, he said. "Why?"'), [
    'I',
    'ca',
    "n't",
    'go',
    ',',
    'he',
    'said',
    '.',
    '``',
    'Why',
    '?',
    "''",
  ]);
  assert.deepEqual(wordTokenize('cannot (see) 3.5 -- ok...'), [
    'can',
    'not',
    '(',
    'see',
    ')',
    '3.5',
    '--',
    'ok',
    '...',
  ]);
  assert.ok(isUpper('ABC-1') && !isUpper('123') && !isUpper('ABc'));
  assert.deepEqual(pySplit('  a\u00a0b\x1cc  '), ['a', 'b', 'c']);
  assert.deepEqual(readCsv('a,"b,c"\n\n"x""y",z'), [['a', 'b,c'], [], ['x"y', 'z']]);
});

void test("language: detected with franc over langdetect's languages; undetectable text passes", () => {
  assert.equal(detectLanguage('Nous sommes allés au musée hier après-midi avec des amis.'), 'fr');
  assert.equal(detectLanguage('THIS IS AN ENGLISH SENTENCE IN CAPITAL LETTERS, ALL OF IT.'), 'en');
  assert.equal(detectLanguage('昨日は友達と一緒に映画を見に行きました。'), 'ja');
  assert.equal(detectLanguage('12345 !!'), null);
  assert.ok(check('language:response_language', 'Ok', { language: 'de' }), 'too short to detect: passes, as in IFEval');
  assert.ok(
    !check('language:response_language', 'This is clearly written in the English language, not German.', {
      language: 'de',
    }),
  );
  const v = checkConstraints('Saluton al vi ĉiuj, karaj amikoj.', {
    instructions: [{ 'language:response_language': { language: 'eo' } }],
  });
  assert.equal(v.error, 'unavailable');
  assert.ok(check('change_case:english_lowercase', 'every letter here is lowercase and written in plain english.'));
  assert.ok(
    !check('change_case:english_capital', 'CECI EST UNE PHRASE ENTIÈREMENT EN FRANÇAIS, PAS EN ANGLAIS DU TOUT.'),
  );
  // Short text: English by its function words or its trigram score, never when accents say otherwise.
  assert.equal(detectLanguage('cat was too busy'), 'en');
  assert.equal(detectLanguage('1. PIXEL PRODIGY\n2. CODE CONSTRUCT\n3. DIGITAL DYNAMICS'), 'en');
  assert.equal(detectLanguage('Nous sommes allés au musée hier après-midi avec des amis.'), 'fr');
  // Mixed text: the paragraphs with the most letters decide.
  assert.equal(
    detectLanguage(
      'Sure! Here is my response to your request.\n\nNave bianca danza\nsul mare in notte stellata\nun sogno naviga\n\nLet me know if you would like any changes.',
    ),
    'en',
  );
  // Too short to identify, but in the wrong script: not Korean.
  assert.ok(!check('language:response_language', '<<SRE>>', { language: 'ko' }));
  assert.ok(check('language:response_language', '<<한국>>', { language: 'ko' }));
});

void test('open-instruct group', () => {
  assert.ok(
    check('copy:repeat_phrase', 'The early bird gets the worm. The late bird catches the worm.', {
      phrase: 'The early bird catches the worm',
      small_n: 2,
    }),
  );
  assert.ok(
    !check('copy:repeat_phrase', 'The early bird catches the worm. The early bird catches the worm.', {
      phrase: 'The early bird catches the worm',
      small_n: 2,
    }),
    'no word changed',
  );
  assert.ok(
    !check('copy:repeat_phrase', 'The early bird gets the worm.', {
      phrase: 'The early bird catches the worm',
      small_n: 2,
    }),
    'only once',
  );
  assert.ok(
    check('copy:repeat_phrase', 'The quick bird catches the worm and The early cat catches the worm', {
      phrase: 'The early bird catches the worm',
      small_n: 2,
    }),
  );
  assert.ok(check('copy:copying_multiple', 'Say hi\n******\nsay hi', { prompt_to_repeat: 'Say hi', N: 2 }));
  assert.ok(check('new:copy_span_idx', 'hello', { prompt_to_repeat: 'Hello world', n_start: 0, n_end: 5 }));
  assert.ok(check('detectable_format:square_brackets', '[a] [b]'));
  assert.ok(check('detectable_format:bigram_wrapping', '<<I am>> <<at home>>'));
  assert.ok(check('keywords:no_adjacent_consecutive', 'apple cherry banana'));
  assert.ok(!check('keywords:no_adjacent_consecutive', 'apple banana'));
  assert.ok(check('first_word:first_word_sent', 'Indeed it is. Indeed so.', { first_word: 'indeed' }));
  assert.ok(check('last_word:last_word_answer', 'It ends today!', { last_word: 'today' }));
  assert.ok(check('paragraphs:paragraphs2', 'one\n\ntwo'));
  assert.ok(check('count:lowercase_counting', 'ONLY Two lowercase words here', { N: 3 }));
  assert.ok(check('letters:letter_counting', 'abc', { N: 3, relation: 'at least' }));
  assert.ok(check('count:count_increment_word', 'moon tide tide', { keyword1: 'moon', keyword2: 'tide' }));
  assert.ok(check('keywords:start_end', 'Hello there hello'));
  assert.ok(
    check(
      'count:counting_composition',
      'Cats sit here. Dogs run there.\n***\nBirds fly high. Fish swim deep.\n***\nCows eat grass. Owls hoot late.',
      { n_sent: 2, n_words: 4 },
    ),
  );
  assert.ok(
    check('keywords:keyword_specific_position', 'One two. Three garden four.', { keyword: 'garden', n: 2, m: 2 }),
  );
  // Case matters here (treebank tokens, compared as they are), unlike IFBench's variant.
  assert.ok(
    !check('keywords:keyword_specific_position', 'One two. Three Garden four.', { keyword: 'garden', n: 2, m: 2 }),
  );
  assert.ok(
    check('words:keywords_specific_position', 'One two. Three Garden four.', { keyword: 'garden', n: 2, m: 2 }),
  );
  assert.ok(
    check('keywords:word_count_different_numbers', 'tide tide moon', {
      keyword: 'tide',
      relation: 'at least',
      frequency: 2,
    }),
  );
  assert.ok(
    !check('keywords:word_count_different_numbers', 'tide moon', {
      keyword: 'tide',
      relation: 'at least',
      frequency: 2,
    }),
  );
});

void test('IFBench ratio:overlap counts character trigrams, as nltk.ngrams over a string does', () => {
  const overlap = (response: string, reference_text: string, percentage: number) =>
    (CHECKERS.get('ratio:overlap') as InstructionCheck)(response, { reference_text, percentage }, { prompt: '' });
  // abc, bca, cab against xab, abc, bcx: one of three.
  const third = overlap('abcab', 'xabcx', 33);
  assert.equal(third.pass, true);
  assert.equal(third.reason, 'character trigram overlap 33.3% (1 of 3), needs 33% ± 2');
  assert.equal(overlap('abcab', 'xabcx', 30).pass, false);
  // The words rearranged share one word trigram in four, but every character trigram.
  const swapped = overlap('the mat sat on the cat', 'the cat sat on the mat', 100);
  assert.equal(swapped.pass, true, swapped.reason);
  assert.equal(overlap('the mat sat on the cat', 'the cat sat on the mat', 25).pass, false);
  // Code points, as Python's str: one emoji is one character.
  assert.equal(overlap('😀ab', 'x😀ab', 100).pass, true);
  const short = overlap('Hi', 'Hi there', 50);
  assert.deepEqual(
    [short.pass, short.reason],
    [false, 'the response is shorter than 3 characters, so it has no trigrams'],
  );
});

void test('vtask group', () => {
  assert.ok(check('vtask:words_start_with', 'Silly snakes, seriously!', { letter: 's' }));
  assert.ok(!check('vtask:words_start_with', 'Silly snakes 5', { letter: 's' }));
  assert.ok(!check('vtask:words_start_with', '...', { letter: 's' }));
  assert.ok(check('vtask:min_chars', '  abc  ', { min_chars: 3 }));
  assert.ok(check('vtask:max_chars', '😀😀', { max_chars: 2 }), 'code points, not UTF-16 units');
  assert.ok(check('vtask:starts_with', '\n  dear Reader, hi', { phrase: 'Dear reader,' }));
});

function exampleKwargs(id: string): Record<string, unknown> {
  const d = INSTRUCTIONS.get(id);
  return Object.fromEntries(
    Object.entries(d?.kwargs ?? {})
      .filter(([, k]) => k.required)
      .map(([n, k]) => [n, k.example]),
  );
}

function runAll(text: string, ids: readonly string[], limitMs: number): void {
  const t0 = Date.now();
  const v = checkConstraints(text, { instructions: ids.map((id) => ({ [id]: exampleKwargs(id) })), mode: 'strict' });
  const ms = Date.now() - t0;
  assert.equal(typeof v.pass, 'boolean');
  assert.ok(v.score >= 0 && v.score <= 1);
  assert.ok(ms < limitMs, `${ms} ms for a ${text.length}-character response`);
  for (const r of v.details.results as { error?: string; id: string; reason: string }[]) {
    assert.equal(r.error, undefined, `${r.id}: ${r.reason}`);
  }
}

void test('hostile input: a 5 MB response through every IFEval id and one id of each other group', () => {
  const big = 'All work and no play makes Jack a dull boy. '.repeat(120_000); // ~5.3 MB
  const ids = [...INSTRUCTIONS.values()].filter((d) => d.source === 'ifeval').map((d) => d.id);
  ids.push(
    'count:word_count_range',
    'format:parentheses',
    'custom:csv_city',
    'copy:repeat_phrase',
    'vtask:words_start_with',
  );
  runAll(big, ids, 60_000);
});

void test('hostile input: binary, <script>, empty and pathological patterns through every id', () => {
  const nasty = [
    '\n'.repeat(300_000),
    ' '.repeat(300_000),
    '['.repeat(300_000),
    '<<'.repeat(150_000),
    '. '.repeat(150_000),
    '*\n'.repeat(150_000),
    '((((('.repeat(60_000),
    '"\''.repeat(100_000),
    Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256)).toString('latin1'),
    '\u0000\uffff\ud800 <script>alert(1)</script> </think> \u202e',
    '',
  ];
  for (const text of nasty) runAll(text, [...INSTRUCTIONS.keys()], 30_000);
});

test('two_responses needs two different responses; quotation needs an opening and a closing mark', () => {
  assert.equal(
    check('combination:two_responses', 'same answer\n******\n same answer '),
    false,
    'the same response twice is one response',
  );
  assert.equal(check('combination:two_responses', 'one\n******\ntwo'), true);
  assert.equal(check('startend:quotation', '"'), false, 'a lone quotation mark wraps nothing');
  assert.equal(check('startend:quotation', '""'), true);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addCase,
  addKey,
  appendItem,
  applyEdit,
  removeItem,
  removeKey,
  setScalar,
  type EditResult,
  type NodePath,
  type Scalar,
} from '../../src/core/edit/taskEdits';
import { parseTaskFile, parseWholeFile, type TaskFile } from '../../src/core/taskfile/parse';
import { toJS } from '../../src/core/base/ynode';

const FILE = `vtask: 1
defaults:
  samples: 8
tasks:
  - id: gsm8k/clips               # unique in the file
    prompt: |
      Natalia sold clips.
      How many?
    verify:                       # exactly one verifier
      math: { answer: "72" }
    cases:
      - response: "48 + 24 = 72, so \\\\boxed{72}."
        expect: pass
      - response: '\\boxed{71}'
        expect: fail

  - id: ifeval/sea
    prompt: Describe the sea in under 50 words without commas.
    verify:
      constraints:
        - length_constraints:number_words: { relation: less than, num_words: 50 }
        - punctuation:no_comma
        - change_case:english_lowercase
    tags: [ocean, short, calm]
    meta: { source: ifeval, empty: [] }

  # the last task
  - id: plain
    prompt: Say hi.
    verify: { match: { answer: hi } }
`;

/** The edited text; fails the test with the error when there is one. */
function edited(text: string, r: EditResult): string {
  if ('error' in r) assert.fail(r.error);
  return applyEdit(text, r.edit);
}

function errorOf(r: EditResult): string {
  assert.ok('error' in r, 'expected an error, got an edit');
  return r.error;
}

/** The plain value at `path` of task `task`, as the whole-document parser reads the text. */
function valueAt(text: string, task: number, path: NodePath): unknown {
  const file = parseWholeFile(text);
  let v = toJS(file.tasks[task]?.node);
  for (const seg of path) v = (v as Record<string | number, unknown>)[seg];
  return v;
}

function syntaxErrors(text: string): number {
  return parseWholeFile(text).issues.filter((i) => i.code === 'yaml-syntax').length;
}

/** `text` with exactly one occurrence of `from` replaced: the edit touched nothing else. */
function replacedOnce(text: string, from: string, to: string): string {
  assert.equal(text.split(from).length, 2, `expected one ${JSON.stringify(from)}`);
  return text.replace(from, () => to);
}

const file = (text = FILE): TaskFile => parseTaskFile(text);

test('a plain scalar stays plain', () => {
  const out = edited(FILE, setScalar(file(), 2, ['prompt'], 'Say hi.', 'Say hello, please.'));
  assert.equal(out, replacedOnce(FILE, 'prompt: Say hi.', 'prompt: Say hello, please.'));
});

test('a number in a flow mapping changes and the rest of the line is byte-identical', () => {
  const path = ['verify', 'constraints', 0, 'length_constraints:number_words', 'num_words'];
  const r = setScalar(file(), 1, path, 50, 40);
  const out = edited(FILE, r);
  assert.equal(
    out,
    replacedOnce(FILE, '{ relation: less than, num_words: 50 }', '{ relation: less than, num_words: 40 }'),
  );
  assert.ok('edit' in r && r.edit.length === 2 && r.edit.text === '40');
  assert.equal(valueAt(out, 1, path), 40);
});

test('strings that would read as something else are quoted', () => {
  const cases: [Scalar, string][] = [
    ['50', '"50"'],
    ['true', '"true"'],
    ['null', '"null"'],
    ['a: b', '"a: b"'],
    ['#x', '"#x"'],
    [' lead', '" lead"'],
    ['trail ', '"trail "'],
    ['', '""'],
    ['- item', '"- item"'],
    ['say "hi" # now', '"say \\"hi\\" # now"'],
  ];
  for (const [value, written] of cases) {
    const out = edited(FILE, setScalar(file(), 2, ['prompt'], 'Say hi.', value));
    assert.equal(out, replacedOnce(FILE, 'prompt: Say hi.', `prompt: ${written}`), String(value));
    assert.equal(valueAt(out, 2, ['prompt']), value);
  }
  // In a flow collection the flow indicators force quotes too; in block context they do not.
  const rel = ['verify', 'constraints', 0, 'length_constraints:number_words', 'relation'];
  const flowOut = edited(FILE, setScalar(file(), 1, rel, 'less than', 'at least, or [so]'));
  assert.match(flowOut, /\{ relation: "at least, or \[so\]", num_words: 50 \}/);
  const blockOut = edited(FILE, setScalar(file(), 2, ['prompt'], 'Say hi.', 'a, [b] {c}'));
  assert.match(blockOut, /prompt: a, \[b\] \{c\}\n/);
  // Numbers, booleans and null are written plainly, even over a quoted string.
  const num = edited(FILE, setScalar(file(), 0, ['verify', 'math', 'answer'], '72', 72));
  assert.equal(num, replacedOnce(FILE, 'answer: "72"', 'answer: 72'));
  assert.equal(valueAt(num, 0, ['verify', 'math', 'answer']), 72);
  const nul = edited(FILE, setScalar(file(), 2, ['prompt'], 'Say hi.', null));
  assert.equal(valueAt(nul, 2, ['prompt']), null);
});

test('quoted scalars keep their quotes', () => {
  const out = edited(FILE, setScalar(file(), 0, ['cases', 1, 'response'], '\\boxed{71}', "it's \\boxed{70}"));
  assert.equal(out, replacedOnce(FILE, "'\\boxed{71}'", "'it''s \\boxed{70}'"));
  const dq = edited(
    FILE,
    setScalar(file(), 0, ['cases', 0, 'response'], '48 + 24 = 72, so \\boxed{72}.', 'plain words'),
  );
  assert.match(dq, /- response: "plain words"\n/);
});

test('a block scalar stays a block scalar, with the right chomping and indentation', () => {
  const f = file();
  const set = (value: string): string =>
    edited(FILE, setScalar(f, 0, ['prompt'], 'Natalia sold clips.\nHow many?\n', value));
  const old = 'prompt: |\n      Natalia sold clips.\n      How many?\n';
  assert.equal(set('One.\nTwo.'), replacedOnce(FILE, old, 'prompt: |-\n      One.\n      Two.\n'));
  assert.equal(set('One.\nTwo.\n'), replacedOnce(FILE, old, 'prompt: |\n      One.\n      Two.\n'));
  assert.equal(set('One.\n\nTwo.\n\n'), replacedOnce(FILE, old, 'prompt: |+\n      One.\n\n      Two.\n\n'));
  assert.equal(set('  indented\nnot'), replacedOnce(FILE, old, 'prompt: |2-\n        indented\n      not\n'));
  assert.equal(set('single line'), replacedOnce(FILE, old, 'prompt: |-\n      single line\n'));
  for (const v of [
    'One.\nTwo.',
    'One.\nTwo.\n',
    'One.\n\nTwo.\n\n',
    '  indented\nnot',
    'single line',
    'tab\tinside\n\tand first',
  ])
    assert.equal(valueAt(set(v), 0, ['prompt']), v);
  // Control characters cannot be in a block scalar: double quotes, escaped.
  const ctl = set('bell\u0007\nnext');
  assert.match(ctl, /prompt: "bell\\x07\\nnext"\n {4}verify:/);
  assert.equal(valueAt(ctl, 0, ['prompt']), 'bell\u0007\nnext');
  // A number over a block scalar keeps the line break after it.
  assert.equal(
    edited(FILE, setScalar(f, 0, ['prompt'], 'Natalia sold clips.\nHow many?\n', 7)),
    replacedOnce(FILE, old, 'prompt: 7\n'),
  );
});

test('multi-line text over a plain scalar becomes a block scalar in block context, double-quoted in flow', () => {
  const out = edited(FILE, setScalar(file(), 0, ['id'], 'gsm8k/clips', 'two\nlines'));
  // The comment that followed the value stays on the header line.
  assert.equal(
    out,
    replacedOnce(
      FILE,
      'id: gsm8k/clips               # unique in the file\n',
      'id: |-               # unique in the file\n      two\n      lines\n',
    ),
  );
  assert.equal(valueAt(out, 0, ['id']), 'two\nlines');
  const flowOut = edited(FILE, setScalar(file(), 2, ['verify', 'match', 'answer'], 'hi', 'two\nlines'));
  assert.equal(flowOut, replacedOnce(FILE, '{ answer: hi }', '{ answer: "two\\nlines" }'));
});

test('comments on the same line and elsewhere are kept', () => {
  const out = edited(FILE, setScalar(file(), 0, ['id'], 'gsm8k/clips', 'gsm8k/pins'));
  assert.equal(
    out,
    replacedOnce(FILE, 'id: gsm8k/clips               # unique', 'id: gsm8k/pins               # unique'),
  );
  for (const comment of ['# unique in the file', '# exactly one verifier', '# the last task'])
    assert.ok(out.includes(comment));
  // A key with no value yet but a comment: the value goes after the colon, the comment stays.
  const bare = FILE.replace('    prompt: Say hi.\n', '    prompt: Say hi.\n    seed:   # pick one\n');
  assert.equal(
    edited(bare, setScalar(file(bare), 2, ['seed'], null, 7)),
    bare.replace('seed:   # pick one', 'seed: 7   # pick one'),
  );
  assert.equal(
    edited(bare, setScalar(file(bare), 2, ['seed'], null, 'a\nb')),
    bare.replace('seed:   # pick one\n', 'seed: |-   # pick one\n      a\n      b\n'),
  );
});

test('a changed value underneath is an error, never overwritten', () => {
  const f = file();
  const path = ['verify', 'constraints', 0, 'length_constraints:number_words', 'num_words'];
  assert.match(errorOf(setScalar(f, 1, path, 45, 40)), /file changed.*num_words.*the integer 50/);
  assert.match(errorOf(setScalar(f, 1, path, '50', 40)), /file changed/);
  assert.match(errorOf(setScalar(f, 2, ['prompt'], 'Say hello.', 'x')), /file changed/);
  // The same value again is a harmless empty edit.
  const same = setScalar(f, 1, path, 50, 50);
  assert.ok('edit' in same && same.edit.length === 0 && same.edit.text === '');
});

test('errors: task index, missing path segments, wrong node kinds', () => {
  const f = file();
  assert.match(errorOf(setScalar(f, 3, ['prompt'], null, 'x')), /no task 3 \(the file has 3 tasks\)/);
  assert.match(errorOf(setScalar(f, -1, ['prompt'], null, 'x')), /no task -1/);
  assert.match(
    errorOf(setScalar(f, 1, ['verify', 'constraints', 5], null, 'x')),
    /verify\.constraints has no item 5 \(it has 3\)/,
  );
  assert.match(errorOf(setScalar(f, 1, ['verify', 'nope', 'x'], null, 'x')), /verify has no key `nope`/);
  assert.match(errorOf(setScalar(f, 1, ['prompt', 'x'], null, 'x')), /prompt is the text .* no key `x`/);
  assert.match(errorOf(setScalar(f, 1, ['verify'], null, 'x')), /`verify` is a mapping, not a single value/);
  assert.match(errorOf(appendItem(f, 1, ['verify'], 'x')), /`verify` is a mapping, not a list/);
  assert.match(errorOf(appendItem(f, 1, ['cases'], 'x')), /has no key `cases`/);
  assert.match(errorOf(appendItem(f, 1, ['tags'], () => 1)), /only text, numbers/);
  assert.match(errorOf(removeItem(f, 1, ['tags', 3])), /`tags` has no item 3 \(it has 3\)/);
  assert.match(errorOf(removeItem(f, 1, ['tags'])), /must end with the index/);
  assert.match(errorOf(addCase(f, 9, 'x', 'pass')), /no task 9/);
});

const ALIASES = `tasks:
  - id: a
    prompt: &p Hello there
    verify: &v { match: { answer: hi } }
    tags: &t [x, y]
    cases: &c
      - { response: hi, expect: pass }
  - id: b
    prompt: *p
    verify: *v
    tags: *t
    cases: *c
`;

test('aliases are refused; their anchor can be edited', () => {
  const f = file(ALIASES);
  assert.match(
    errorOf(setScalar(f, 1, ['prompt'], 'Hello there', 'x')),
    /`prompt`: this value comes from an anchor; edit it there/,
  );
  assert.match(
    errorOf(setScalar(f, 1, ['verify', 'match', 'answer'], 'hi', 'x')),
    /`verify`: this value comes from an anchor; edit it there/,
  );
  assert.match(errorOf(appendItem(f, 1, ['tags'], 'z')), /anchor/);
  assert.match(errorOf(addCase(f, 1, 'ho', 'fail')), /`cases`: this value comes from an anchor/);
  const added = edited(ALIASES, addCase(f, 0, 'ho', 'fail'));
  assert.deepEqual(valueAt(added, 1, ['cases']), [
    { response: 'hi', expect: 'pass' },
    { response: 'ho', expect: 'fail' },
  ]);
  const out = edited(ALIASES, setScalar(f, 0, ['prompt'], 'Hello there', 'Hi'));
  assert.equal(out, replacedOnce(ALIASES, '&p Hello there', '&p Hi'));
  assert.equal(valueAt(out, 1, ['prompt']), 'Hi');
  const tags = edited(ALIASES, appendItem(f, 0, ['tags'], 'z'));
  assert.deepEqual(valueAt(tags, 1, ['tags']), ['x', 'y', 'z']);
  // Removing an anchored value that an alias uses would break the alias: refused.
  const anchoredItem = `tasks:\n  - id: a\n    prompt: p\n    verify: { match: { answer: hi } }\n    tags:\n      - &one x\n      - y\n    meta: { first: *one }\n`;
  assert.match(errorOf(removeItem(file(anchoredItem), 0, ['tags', 0])), /could not remove/);
});

test('appending to a block list matches its indentation', () => {
  const f = file();
  const out = edited(FILE, appendItem(f, 1, ['verify', 'constraints'], 'detectable_format:title'));
  assert.equal(
    out,
    replacedOnce(
      FILE,
      '        - change_case:english_lowercase\n',
      '        - change_case:english_lowercase\n        - detectable_format:title\n',
    ),
  );
  const map = edited(
    FILE,
    appendItem(f, 1, ['verify', 'constraints'], { 'keywords:existence': { keywords: ['sea', 'wave, crest'] } }),
  );
  assert.match(
    map,
    /\n {8}- change_case:english_lowercase\n {8}- keywords:existence: \{ keywords: \[sea, "wave, crest"\] \}\n {4}tags:/,
  );
  assert.deepEqual(valueAt(map, 1, ['verify', 'constraints', 3]), {
    'keywords:existence': { keywords: ['sea', 'wave, crest'] },
  });
  const two = edited(FILE, appendItem(f, 0, ['cases'], { response: 'x: y', expect: 'fail', name: 'colon' }));
  assert.match(two, /\n {6}- response: "x: y"\n {8}expect: fail\n {8}name: colon\n\n {2}- id: ifeval\/sea/);
  // The last line of the file, without a final line break.
  const noEol = FILE.slice(0, -1) + '\n    stop:\n      - END';
  const tail = edited(noEol, appendItem(file(noEol), 2, ['stop'], 'DONE'));
  assert.equal(tail, noEol + '\n      - DONE');
});

test('appending to a flow list', () => {
  const f = file();
  const out = edited(FILE, appendItem(f, 1, ['tags'], 'deep'));
  assert.equal(out, replacedOnce(FILE, '[ocean, short, calm]', '[ocean, short, calm, deep]'));
  const quoted = edited(FILE, appendItem(f, 1, ['tags'], 'a, b'));
  assert.equal(quoted, replacedOnce(FILE, '[ocean, short, calm]', '[ocean, short, calm, "a, b"]'));
  const empty = edited(FILE, appendItem(f, 1, ['meta', 'empty'], { k: 'v', n: [1, 2] }));
  assert.equal(empty, replacedOnce(FILE, 'empty: []', 'empty: [{ k: v, n: [1, 2] }]'));
  assert.deepEqual(valueAt(empty, 1, ['meta', 'empty']), [{ k: 'v', n: [1, 2] }]);
  const multi = edited(FILE, appendItem(f, 1, ['tags'], 'two\nlines'));
  assert.deepEqual(valueAt(multi, 1, ['tags']), ['ocean', 'short', 'calm', 'two\nlines']);
});

test('removing items from a block list takes their whole lines', () => {
  const f = file();
  const c = (n: string): string => `        - ${n}\n`;
  const first = '        - length_constraints:number_words: { relation: less than, num_words: 50 }\n';
  assert.equal(edited(FILE, removeItem(f, 1, ['verify', 'constraints', 0])), replacedOnce(FILE, first, ''));
  assert.equal(
    edited(FILE, removeItem(f, 1, ['verify', 'constraints', 1])),
    replacedOnce(FILE, c('punctuation:no_comma'), ''),
  );
  assert.equal(
    edited(FILE, removeItem(f, 1, ['verify', 'constraints', 2])),
    replacedOnce(FILE, c('change_case:english_lowercase'), ''),
  );
  // A mapping item over several lines.
  const caseOut = edited(FILE, removeItem(f, 0, ['cases', 0]));
  assert.equal(
    caseOut,
    replacedOnce(FILE, '      - response: "48 + 24 = 72, so \\\\boxed{72}."\n        expect: pass\n', ''),
  );
  // The only item: the key keeps an empty list rather than becoming null.
  const one = `tasks:\n  - id: a\n    prompt: p\n    verify: { match: { answer: hi } }\n    tags:   # some\n      - x\n    meta: {}\n`;
  assert.equal(
    edited(one, removeItem(file(one), 0, ['tags', 0])),
    one.replace('tags:   # some\n      - x\n', 'tags: []   # some\n'),
  );
  // The last item on the file's last line, without a final line break.
  const noEol = FILE.slice(0, -1) + '\n    stop:\n      - END\n      - DONE';
  assert.equal(edited(noEol, removeItem(file(noEol), 2, ['stop', 1])), noEol.slice(0, -'\n      - DONE'.length));
});

test('removing items from a flow list takes one adjacent comma', () => {
  const f = file();
  const tags = (to: string): string => replacedOnce(FILE, '[ocean, short, calm]', to);
  assert.equal(edited(FILE, removeItem(f, 1, ['tags', 0])), tags('[short, calm]'));
  assert.equal(edited(FILE, removeItem(f, 1, ['tags', 1])), tags('[ocean, calm]'));
  assert.equal(edited(FILE, removeItem(f, 1, ['tags', 2])), tags('[ocean, short]'));
  const one = FILE.replace('[ocean, short, calm]', '[ocean,]');
  assert.equal(edited(one, removeItem(file(one), 1, ['tags', 0])), FILE.replace('[ocean, short, calm]', '[]'));
  const maps = FILE.replace('[ocean, short, calm]', '[{ a: 1 }, { b: 2 }]');
  assert.equal(
    edited(maps, removeItem(file(maps), 1, ['tags', 1])),
    FILE.replace('[ocean, short, calm]', '[{ a: 1 }]'),
  );
});

test('addCase appends to an existing block list, aligned with its items', () => {
  const out = edited(FILE, addCase(file(), 0, 'It is 72.', 'pass'));
  assert.equal(
    out,
    replacedOnce(
      FILE,
      '        expect: fail\n\n',
      '        expect: fail\n      - response: It is 72.\n        expect: pass\n\n',
    ),
  );
  const multi = edited(FILE, addCase(file(), 0, 'First line\nSecond: line\n', 'fail'));
  assert.match(multi, /\n {6}- response: \|\n {10}First line\n {10}Second: line\n {8}expect: fail\n\n {2}- id: ifeval/);
  const lead = edited(FILE, addCase(file(), 0, '  indented\nthen not', 'fail'));
  assert.match(lead, /\n {6}- response: \|2-\n {12}indented\n {10}then not\n {8}expect: fail\n/);
  for (const [response, text] of [
    [' x', 'multi'],
    ['<script>alert("x")</script>', 'script'],
    ['nul\u0000 and \u001b[31m', 'ctl'],
  ] as const) {
    const r = edited(FILE, addCase(file(), 0, response, 'fail'));
    const cases = valueAt(r, 0, ['cases']) as unknown[];
    assert.deepEqual(cases.at(-1), { response, expect: 'fail' }, text);
  }
  assert.match(edited(FILE, addCase(file(), 0, 'nul\u0000', 'fail')), /- response: "nul\\x00"\n/);
  // Binary: every byte value, and a lone surrogate.
  const next = rng(3);
  const binary =
    Array.from({ length: 600 }, (_, i) => String.fromCharCode(i < 256 ? i : Math.floor(next() * 256))).join('') +
    '\ud800';
  const bin = edited(FILE, addCase(file(), 0, binary, 'fail'));
  assert.deepEqual((valueAt(bin, 0, ['cases']) as unknown[]).at(-1), { response: binary, expect: 'fail' });
  assert.match(bin, /- response: "\\x00\\x01/);
  // A list of flow mappings gets one more.
  const flowItems = `tasks:\n  - id: a\n    prompt: p\n    verify: { match: { answer: hi } }\n    cases:\n      - { response: "hi", expect: pass }\n`;
  assert.equal(
    edited(flowItems, addCase(file(flowItems), 0, 'ho', 'fail')),
    flowItems + '      - { response: ho, expect: fail }\n',
  );
});

test('addCase creates cases: at the end of a task, before what belongs to the next', () => {
  const out = edited(FILE, addCase(file(), 1, 'The sea is grey.', 'pass'));
  assert.equal(
    out,
    replacedOnce(
      FILE,
      'empty: [] }\n\n  # the last task\n',
      'empty: [] }\n    cases:\n      - response: The sea is grey.\n        expect: pass\n\n  # the last task\n',
    ),
  );
  const last = edited(FILE, addCase(file(), 2, 'hi', 'pass'));
  assert.equal(last, FILE + '    cases:\n      - response: hi\n        expect: pass\n');
  const noEol = FILE.slice(0, -1);
  assert.equal(
    edited(noEol, addCase(file(noEol), 2, 'hi', 'pass')),
    noEol + '\n    cases:\n      - response: hi\n        expect: pass',
  );
  // `cases:` with nothing after it yet.
  const bare = FILE.replace(
    'verify: { match: { answer: hi } }\n',
    'verify: { match: { answer: hi } }\n    cases:   # none yet\n',
  );
  assert.equal(
    edited(bare, addCase(file(bare), 2, 'hi', 'fail')),
    bare + '      - response: hi\n        expect: fail\n',
  );
  // A task written as one flow mapping.
  const flow = `tasks:\n  - { id: a, prompt: p, verify: { match: { answer: hi } } }\n`;
  const flowOut = edited(flow, addCase(file(flow), 0, 'a, b', 'pass'));
  assert.equal(
    flowOut,
    `tasks:\n  - { id: a, prompt: p, verify: { match: { answer: hi } }, cases: [{ response: "a, b", expect: pass }] }\n`,
  );
  assert.match(
    errorOf(addCase(file(FILE.replace('calm]\n', 'calm]\n    cases: { a: 1 }\n')), 1, 'x', 'pass')),
    /`cases` is a mapping, not a list/,
  );
});

test('a huge multi-line response', () => {
  const response = Array.from({ length: 20000 }, (_, i) => `line ${i}: ${'x'.repeat(i % 50)} # not a comment`).join(
    '\n',
  );
  const out = edited(FILE, addCase(file(), 1, response, 'fail'));
  assert.deepEqual((valueAt(out, 1, ['cases']) as unknown[])[0], { response, expect: 'fail' });
  assert.match(out, /- response: \|-\n/);
});

test('CRLF files stay CRLF', () => {
  const crlf = FILE.replace(/\n/g, '\r\n');
  const f = file(crlf);
  const outs = [
    edited(crlf, setScalar(f, 0, ['prompt'], 'Natalia sold clips.\nHow many?\n', 'One.\nTwo.')),
    edited(crlf, setScalar(f, 0, ['id'], 'gsm8k/clips', 'a\nb')),
    edited(crlf, addCase(f, 0, 'x\ny', 'pass')),
    edited(crlf, addCase(f, 1, 'x\ny', 'pass')),
    edited(crlf, appendItem(f, 1, ['verify', 'constraints'], { a: 'b', c: 'd' })),
    edited(crlf, removeItem(f, 1, ['verify', 'constraints', 1])),
    edited(crlf, removeItem(f, 0, ['cases', 1])),
  ];
  for (const out of outs) {
    assert.doesNotMatch(out, /[^\r]\n/);
    assert.equal(syntaxErrors(out), 0);
  }
  assert.equal(valueAt(outs[0] as string, 0, ['prompt']), 'One.\nTwo.');
  assert.deepEqual((valueAt(outs[3] as string, 1, ['cases']) as unknown[])[0], { response: 'x\ny', expect: 'pass' });
});

test('editing a task that is not the last leaves the next one byte-identical', () => {
  const f = file();
  const nextStart = FILE.indexOf('  # the last task');
  const after = FILE.slice(nextStart);
  const results = [
    setScalar(f, 1, ['prompt'], 'Describe the sea in under 50 words without commas.', 'Two\nlines'),
    appendItem(f, 1, ['verify', 'constraints'], 'x:y'),
    removeItem(f, 1, ['verify', 'constraints', 2]),
    addCase(f, 1, 'multi\nline\n\n', 'fail'),
  ];
  for (const r of results) assert.ok(edited(FILE, r).endsWith(after));
});

test('when the preferred style does not read back, the double-quoted fallback is used', () => {
  // `|+` would also keep the blank line that follows the task: the check sees it and quotes instead.
  const text = `tasks:\n  - id: a\n    verify: { match: { answer: hi } }\n    prompt: x\n\n  - id: b\n    prompt: y\n    verify: { match: { answer: hi } }\n`;
  const out = edited(text, setScalar(file(text), 0, ['prompt'], 'x', 'a\n\n'));
  assert.equal(out, text.replace('prompt: x\n', 'prompt: "a\\n\\n"\n'));
  assert.equal(valueAt(out, 0, ['prompt']), 'a\n\n');
});

test('an edit that cannot read back is refused, not returned', () => {
  const tagged = FILE.replace('    prompt: Say hi.\n', '    prompt: Say hi.\n    seed: !!str 7\n');
  assert.match(errorOf(setScalar(file(tagged), 2, ['seed'], '7', 8)), /could not set `seed` safely/);
});

test('addKey to a flow mapping keeps the spacing of its braces; an empty one gets spaces', () => {
  const f = file();
  const math = ['verify', 'math'];
  const out = edited(FILE, addKey(f, 0, math, 'tolerance', 0.01));
  assert.equal(out, replacedOnce(FILE, 'math: { answer: "72" }', 'math: { answer: "72", tolerance: 0.01 }'));
  assert.deepEqual(valueAt(out, 0, math), { answer: '72', tolerance: 0.01 });
  assert.equal(
    edited(FILE, addKey(f, 1, ['meta'], 'n', 3)),
    replacedOnce(FILE, '{ source: ifeval, empty: [] }', '{ source: ifeval, empty: [], n: 3 }'),
  );
  const tight = FILE.replace('{ answer: "72" }', '{answer: "72"}');
  assert.equal(
    edited(tight, addKey(file(tight), 0, math, 'tolerance', 0.01)),
    replacedOnce(tight, '{answer: "72"}', '{answer: "72", tolerance: 0.01}'),
  );
  const trailingComma = FILE.replace('{ answer: "72" }', '{ answer: "72", }');
  assert.deepEqual(valueAt(edited(trailingComma, addKey(file(trailingComma), 0, math, 't', 1)), 0, math), {
    answer: '72',
    t: 1,
  });
  for (const empty of ['{}', '{ }', '{  }']) {
    const text = FILE.replace('empty: [] }', `empty: [] }\n    extra: ${empty}`);
    assert.equal(
      edited(text, addKey(file(text), 1, ['extra'], 'key', 'value')),
      replacedOnce(text, `extra: ${empty}`, 'extra: { key: value }'),
    );
  }
  // Nested flow mappings, and a task written as one flow mapping.
  assert.equal(
    edited(FILE, addKey(f, 2, ['verify', 'match'], 'case', false)),
    replacedOnce(FILE, '{ match: { answer: hi } }', '{ match: { answer: hi, case: false } }'),
  );
  const flowTask = `tasks:\n  - { id: a, prompt: p, verify: { match: { answer: hi } } }\n`;
  assert.equal(
    edited(flowTask, addKey(file(flowTask), 0, [], 'tags', ['x'])),
    flowTask.replace(' } } }', ' } }, tags: [x] }'),
  );
});

test("addKey to a block mapping: a new line at its keys' column, after its last line of content", () => {
  const f = file();
  // The task's own mapping: after `cases`, before the blank line and the next task.
  const root = edited(FILE, addKey(f, 0, [], 'seed', 7));
  assert.equal(root, replacedOnce(FILE, '        expect: fail\n\n', '        expect: fail\n    seed: 7\n\n'));
  const verify = edited(FILE, addKey(f, 0, ['verify'], 'note', 'checked by hand'));
  assert.equal(
    verify,
    replacedOnce(FILE, 'math: { answer: "72" }\n', 'math: { answer: "72" }\n      note: checked by hand\n'),
  );
  // The last task, at the end of the file, with and without a final line break.
  assert.equal(edited(FILE, addKey(f, 2, [], 'seed', 7)), FILE + '    seed: 7\n');
  const noEol = FILE.slice(0, -1);
  assert.equal(edited(noEol, addKey(file(noEol), 2, [], 'seed', 7)), noEol + '\n    seed: 7');
  // A block mapping that is the value of a key.
  const block = FILE.replace('math: { answer: "72" }', 'math:\n        answer: "72"');
  const out = edited(block, addKey(file(block), 0, ['verify', 'math'], 'tolerance', 0.01));
  assert.equal(out, replacedOnce(block, '        answer: "72"\n', '        answer: "72"\n        tolerance: 0.01\n'));
  assert.deepEqual(valueAt(out, 0, ['verify', 'math']), { answer: '72', tolerance: 0.01 });
});

test('addKey to mappings that are list items written compactly', () => {
  // `- key: { ... }`: the inner flow mapping, and the item's own mapping.
  const path = ['verify', 'constraints', 0, 'length_constraints:number_words'];
  const short = FILE.replace('{ relation: less than, num_words: 50 }', '{ relation: less than }');
  assert.equal(edited(short, addKey(file(short), 1, path, 'num_words', 50)), FILE);
  const item = edited(FILE, addKey(file(), 1, ['verify', 'constraints', 0], 'weight', 2));
  assert.equal(item, replacedOnce(FILE, 'num_words: 50 }\n', 'num_words: 50 }\n          weight: 2\n'));
  assert.deepEqual(valueAt(item, 1, ['verify', 'constraints', 0]), {
    'length_constraints:number_words': { relation: 'less than', num_words: 50 },
    weight: 2,
  });
  // `- weight: 2` with more keys under it.
  const weighted = `tasks:\n  - id: a\n    prompt: p\n    verify:\n      all:\n        - weight: 2\n          verify: { match: { answer: hi } }\n        - weight: 1\n          verify: { contains: hi }\n`;
  const w = edited(weighted, addKey(file(weighted), 0, ['verify', 'all', 0], 'name', 'exact'));
  assert.equal(w, weighted.replace('answer: hi } }\n', 'answer: hi } }\n          name: exact\n'));
  const first = edited(weighted, addKey(file(weighted), 0, ['verify', 'all', 0, 'verify', 'match'], 'case', true));
  assert.equal(first, weighted.replace('{ answer: hi }', '{ answer: hi, case: true }'));
  // And the task's own first key is on the dash's line too.
  assert.equal(edited(weighted, addKey(file(weighted), 0, [], 'seed', 1)), weighted + '    seed: 1\n');
});

const COMMENTED = `tasks:
  - id: a
    prompt: p
    verify:
      # the verifier
      math:   # exact
        # the answer first
        answer: "42"   # as text
        # then the mode
        mode: exact
        # nothing after the mode
      # verify ends

    # before b
  - id: b
    prompt: q
    verify: { match: { answer: hi } }
`;

test('addKey and removeKey in a block mapping with comments before and after', () => {
  const f = file(COMMENTED);
  const math = ['verify', 'math'];
  // A comment at the keys' column or after a blank line belongs to what follows; one indented deeper, to what precedes.
  assert.equal(
    edited(COMMENTED, addKey(f, 0, math, 'tolerance', 0.01)),
    replacedOnce(COMMENTED, '        mode: exact\n', '        mode: exact\n        tolerance: 0.01\n'),
  );
  assert.equal(
    edited(COMMENTED, addKey(f, 0, [], 'seed', 1)),
    replacedOnce(COMMENTED, '      # verify ends\n', '      # verify ends\n    seed: 1\n'),
  );
  // The key's lines go, with the comment at their end; the comments around stay.
  assert.equal(
    edited(COMMENTED, removeKey(f, 0, math, 'answer', '42')),
    replacedOnce(COMMENTED, '        answer: "42"   # as text\n', ''),
  );
  assert.equal(
    edited(COMMENTED, removeKey(f, 0, math, 'mode', 'exact')),
    replacedOnce(COMMENTED, '        mode: exact\n', ''),
  );
  // A key with a block value: all its lines, and the comments indented under it.
  const noVerify = edited(COMMENTED, removeKey(f, 0, [], 'verify', { math: { answer: '42', mode: 'exact' } }));
  assert.equal(noVerify, COMMENTED.replace(/ {4}verify:\n[^]*# verify ends\n/, ''));
  assert.match(noVerify, /prompt: p\n\n {4}# before b\n/);
  // The only key: the value becomes `{}`, the comment on the owner's line stays.
  const only = edited(COMMENTED, removeKey(f, 0, ['verify'], 'math', { answer: '42', mode: 'exact' }));
  assert.equal(
    only,
    replacedOnce(
      COMMENTED,
      '    verify:\n      # the verifier\n      math:   # exact\n',
      '    verify: {}\n      # the verifier\n',
    ).replace(/ {8}# the answer[^]*nothing after the mode\n/, ''),
  );
  assert.deepEqual(valueAt(only, 0, ['verify']), {});
});

test('addKey writes collections in flow style and strings as setScalar would', () => {
  const f = file();
  const add = (value: unknown): string => edited(FILE, addKey(f, 2, [], 'x', value));
  const tail = (v: string): string => FILE + `    x: ${v}\n`;
  assert.equal(add({ a: 1 }), tail('{ a: 1 }'));
  assert.equal(add(['a', 'b']), tail('[a, b]'));
  assert.equal(
    add({ list: ['a, b', 'c'], map: {}, none: [], n: null }),
    tail('{ list: ["a, b", c], map: {}, none: [], n: null }'),
  );
  assert.equal(add({}), tail('{}'));
  assert.equal(add([]), tail('[]'));
  for (const [value, written] of [
    ['50', '"50"'],
    ['true', '"true"'],
    ['a: b', '"a: b"'],
    ['#x', '"#x"'],
    ['', '""'],
    [' lead', '" lead"'],
    ['a, [b]', 'a, [b]'],
    [true, 'true'],
    [null, 'null'],
    [-1.5, '-1.5'],
  ] as const) {
    const out = add(value);
    assert.equal(out, tail(written), String(value));
    assert.equal(valueAt(out, 2, ['x']), value);
  }
  // In a flow mapping the flow indicators need quotes too.
  assert.equal(
    edited(FILE, addKey(f, 1, ['meta'], 'x', 'a, [b]')),
    replacedOnce(FILE, 'empty: [] }', 'empty: [], x: "a, [b]" }'),
  );
  // Keys are quoted by the same rules.
  const keyed = edited(FILE, addKey(f, 2, [], 'a: b', 1));
  assert.equal(keyed, tail('1').replace('    x: 1', '    "a: b": 1'));
  assert.equal(valueAt(keyed, 2, ['a: b']), 1);
  assert.match(errorOf(addKey(f, 2, [], 'x', new Date())), /only text, numbers/);
});

test('addKey with multi-line text: a block scalar in a block mapping, double quotes in a flow one', () => {
  const f = file();
  const out = edited(FILE, addKey(f, 0, ['verify'], 'note', 'two\nlines\n'));
  assert.equal(
    out,
    replacedOnce(
      FILE,
      'math: { answer: "72" }\n',
      'math: { answer: "72" }\n      note: |\n        two\n        lines\n',
    ),
  );
  assert.equal(valueAt(out, 0, ['verify', 'note']), 'two\nlines\n');
  const lead = edited(FILE, addKey(f, 2, [], 'note', '  indented\nnot'));
  assert.equal(lead, FILE + '    note: |2-\n        indented\n      not\n');
  assert.equal(valueAt(lead, 2, ['note']), '  indented\nnot');
  assert.equal(
    edited(FILE, addKey(f, 1, ['meta'], 'note', 'a\nb')),
    replacedOnce(FILE, 'empty: [] }', 'empty: [], note: "a\\nb" }'),
  );
  // Inside a mapping value, multi-line text is double-quoted too: it is written in flow style.
  const nested = edited(FILE, addKey(f, 2, [], 'note', { text: 'a\nb' }));
  assert.deepEqual(valueAt(nested, 2, ['note']), { text: 'a\nb' });
});

test('addKey errors: an existing key, something that is not a mapping, aliases', () => {
  const f = file();
  assert.match(errorOf(addKey(f, 0, ['verify', 'math'], 'answer', '1')), /`verify\.math` already has the key `answer`/);
  assert.match(errorOf(addKey(f, 0, [], 'prompt', 'x')), /the task already has the key `prompt`/);
  // A verifier in list shorthand is a list, not a mapping.
  const shorthand = FILE.replace(
    'verify: { match: { answer: hi } }',
    'verify: { constraints: [punctuation:no_comma] }',
  );
  assert.match(
    errorOf(addKey(file(shorthand), 2, ['verify', 'constraints'], 'x', 1)),
    /`verify\.constraints` is a list, not a mapping/,
  );
  assert.match(errorOf(addKey(f, 1, ['verify', 'constraints'], 'x', 1)), /is a list, not a mapping/);
  assert.match(errorOf(addKey(f, 1, ['prompt'], 'x', 1)), /`prompt` is the text .*, not a mapping/);
  assert.match(errorOf(addKey(f, 1, ['nope'], 'x', 1)), /has no key `nope`/);
  assert.match(errorOf(addKey(f, 5, [], 'x', 1)), /no task 5/);
  const a = file(ALIASES);
  assert.match(errorOf(addKey(a, 1, ['verify'], 'x', 1)), /`verify`: this value comes from an anchor/);
  assert.match(errorOf(addKey(a, 1, ['verify', 'match'], 'x', 1)), /`verify`: this value comes from an anchor/);
  assert.match(
    errorOf(removeKey(a, 1, ['verify', 'match'], 'answer', 'hi')),
    /`verify`: this value comes from an anchor/,
  );
  // A key whose value is an alias goes like any other; the anchor stays.
  assert.equal(edited(ALIASES, removeKey(a, 1, [], 'tags', ['x', 'y'])), replacedOnce(ALIASES, '    tags: *t\n', ''));
  assert.equal(
    edited(ALIASES, removeKey(a, 1, [], 'cases', [{ response: 'hi', expect: 'pass' }])),
    replacedOnce(ALIASES, '    cases: *c\n', ''),
  );
  // The anchor itself can take the key; the alias then reads it too.
  const anchored = edited(ALIASES, addKey(a, 0, ['verify', 'match'], 'case', true));
  assert.deepEqual(valueAt(anchored, 1, ['verify']), { match: { answer: 'hi', case: true } });
});

test('removeKey from a flow mapping takes one adjacent comma; the last key leaves {}', () => {
  const three = FILE.replace('{ source: ifeval, empty: [] }', '{ source: ifeval, n: 3, empty: [] }');
  const f = file(three);
  const meta = (to: string): string => replacedOnce(three, '{ source: ifeval, n: 3, empty: [] }', to);
  assert.equal(edited(three, removeKey(f, 1, ['meta'], 'source', 'ifeval')), meta('{ n: 3, empty: [] }'));
  assert.equal(edited(three, removeKey(f, 1, ['meta'], 'n', 3)), meta('{ source: ifeval, empty: [] }'));
  assert.equal(edited(three, removeKey(f, 1, ['meta'], 'empty', [])), meta('{ source: ifeval, n: 3 }'));
  const path = ['verify', 'constraints', 0, 'length_constraints:number_words'];
  assert.equal(
    edited(FILE, removeKey(file(), 1, path, 'num_words', 50)),
    replacedOnce(FILE, '{ relation: less than, num_words: 50 }', '{ relation: less than }'),
  );
  assert.equal(
    edited(FILE, removeKey(file(), 2, ['verify', 'match'], 'answer', 'hi')),
    replacedOnce(FILE, '{ match: { answer: hi } }', '{ match: {} }'),
  );
  assert.equal(
    edited(FILE, removeKey(file(), 2, ['verify'], 'match', { answer: 'hi' })),
    replacedOnce(FILE, '{ match: { answer: hi } }', '{}'),
  );
  // A value written over several lines, and a comment that must stay.
  const multi = FILE.replace(
    '{ match: { answer: hi } }',
    '{\n      match: { answer: hi },   # the check\n      extra: [1,\n        2]\n    }',
  );
  assert.deepEqual(valueAt(edited(multi, removeKey(file(multi), 2, ['verify'], 'extra', [1, 2])), 2, ['verify']), {
    match: { answer: 'hi' },
  });
  const commented = FILE.replace('{ answer: hi }', '{ answer: hi   # only\n    }');
  const c = edited(commented, removeKey(file(commented), 2, ['verify', 'match'], 'answer', 'hi'));
  assert.deepEqual(valueAt(c, 2, ['verify', 'match']), {});
  assert.match(c, /# only/);
});

test("removeKey from a block mapping takes the key's whole lines; the last key leaves {}", () => {
  const f = file();
  // The first key is on the dash's line: the next one moves up.
  assert.equal(
    edited(FILE, removeKey(f, 0, [], 'id', 'gsm8k/clips')),
    replacedOnce(FILE, '  - id: gsm8k/clips               # unique in the file\n    prompt: |', '  - prompt: |'),
  );
  // A block scalar in the middle, and a block list at the end, before the blank line.
  assert.equal(
    edited(FILE, removeKey(f, 0, [], 'prompt', 'Natalia sold clips.\nHow many?\n')),
    replacedOnce(FILE, '    prompt: |\n      Natalia sold clips.\n      How many?\n', ''),
  );
  const noCases = edited(FILE, removeKey(f, 0, [], 'cases', valueAt(FILE, 0, ['cases'])));
  assert.equal(noCases, FILE.replace(/ {4}cases:\n[^]*?expect: fail\n/, ''));
  assert.match(noCases, /math: \{ answer: "72" \}\n\n {2}- id: ifeval/);
  // The last key of the file, with and without a final line break.
  assert.equal(
    edited(FILE, removeKey(f, 2, [], 'verify', { match: { answer: 'hi' } })),
    FILE.replace('    verify: { match: { answer: hi } }\n', ''),
  );
  const noEol = FILE.slice(0, -1);
  assert.equal(
    edited(noEol, removeKey(file(noEol), 2, [], 'verify', { match: { answer: 'hi' } })),
    FILE.replace('\n    verify: { match: { answer: hi } }\n', ''),
  );
  // The only key of a block mapping value: `{}`, keeping the comment on the owner's line.
  assert.equal(
    edited(FILE, removeKey(f, 0, ['verify'], 'math', { answer: '72' })),
    replacedOnce(
      FILE,
      'verify:                       # exactly one verifier\n      math: { answer: "72" }\n',
      'verify: {}                       # exactly one verifier\n',
    ),
  );
  const block = FILE.replace('math: { answer: "72" }', 'math:\n        answer: 1');
  assert.equal(
    edited(block, removeKey(file(block), 0, ['verify', 'math'], 'answer', 1)),
    FILE.replace('math: { answer: "72" }', 'math: {}'),
  );
  // A mapping that is a list item: its first key, its last, its only one.
  const weighted = `tasks:\n  - id: a\n    prompt: p\n    verify:\n      all:\n        - weight: 2\n          name: x\n          verify: { match: { answer: hi } }\n        - weight: 1\n`;
  const w = file(weighted);
  assert.equal(
    edited(weighted, removeKey(w, 0, ['verify', 'all', 0], 'weight', 2)),
    weighted.replace('- weight: 2\n          name', '- name'),
  );
  assert.equal(
    edited(weighted, removeKey(w, 0, ['verify', 'all', 0], 'name', 'x')),
    weighted.replace('          name: x\n', ''),
  );
  assert.equal(
    edited(weighted, removeKey(w, 0, ['verify', 'all', 0], 'verify', { match: { answer: 'hi' } })),
    weighted.replace('          verify: { match: { answer: hi } }\n', ''),
  );
  assert.equal(
    edited(weighted, removeKey(w, 0, ['verify', 'all', 1], 'weight', 1)),
    weighted.replace('- weight: 1\n', '- {}\n'),
  );
  const item = edited(
    FILE,
    removeKey(f, 1, ['verify', 'constraints', 0], 'length_constraints:number_words', {
      relation: 'less than',
      num_words: 50,
    }),
  );
  assert.equal(
    item,
    replacedOnce(FILE, '- length_constraints:number_words: { relation: less than, num_words: 50 }\n', '- {}\n'),
  );
});

test('removeKey refuses when the value changed or the key is missing', () => {
  const f = file();
  assert.match(
    errorOf(removeKey(f, 0, ['verify', 'math'], 'answer', 72)),
    /file changed: `verify\.math\.answer` is now the text "72", not the integer 72; reload/,
  );
  assert.match(
    errorOf(removeKey(f, 1, ['meta'], 'empty', [1])),
    /file changed: `meta\.empty` is now a list, not the list that was shown/,
  );
  assert.match(
    errorOf(removeKey(f, 2, [], 'verify', { match: { answer: 'ho' } })),
    /file changed: `verify` is now a mapping, not the mapping that was shown/,
  );
  assert.match(
    errorOf(removeKey(f, 2, [], 'verify', undefined)),
    /file changed: `verify` is now a mapping, not what was shown/,
  );
  assert.match(
    errorOf(removeKey(f, 0, ['verify', 'math'], 'tolerance', null)),
    /`verify\.math` has no key `tolerance`/,
  );
  assert.match(errorOf(removeKey(f, 1, ['tags'], 'ocean', null)), /`tags` is a list, not a mapping/);
  // An anchored value that an alias uses elsewhere: removing it would break the alias.
  const anchored = FILE.replace('meta: { source: ifeval,', 'meta: { source: &src ifeval,').replace(
    '    prompt: Say hi.\n',
    '    prompt: Say hi.\n    meta: { source: *src }\n',
  );
  assert.match(
    errorOf(removeKey(file(anchored), 1, ['meta'], 'source', 'ifeval')),
    /could not remove `source` from `meta` safely/,
  );
});

test('addKey and removeKey keep CRLF', () => {
  const crlf = FILE.replace(/\n/g, '\r\n');
  const f = file(crlf);
  const outs = [
    edited(crlf, addKey(f, 0, ['verify'], 'note', 'two\nlines')),
    edited(crlf, addKey(f, 0, [], 'seed', 1)),
    edited(crlf, addKey(f, 1, ['meta'], 'n', 1)),
    edited(crlf, removeKey(f, 0, [], 'prompt', 'Natalia sold clips.\nHow many?\n')),
    edited(crlf, removeKey(f, 0, ['verify'], 'math', { answer: '72' })),
    edited(crlf, removeKey(f, 0, [], 'id', 'gsm8k/clips')),
  ];
  for (const out of outs) {
    assert.doesNotMatch(out, /[^\r]\n/);
    assert.equal(syntaxErrors(out), 0);
  }
  assert.equal(valueAt(outs[0] as string, 0, ['verify', 'note']), 'two\nlines');
  assert.equal(outs[1], crlf.replace('expect: fail\r\n\r\n', 'expect: fail\r\n    seed: 1\r\n\r\n'));
  assert.equal(
    outs[4],
    crlf.replace(
      'verify:                       # exactly one verifier\r\n      math: { answer: "72" }\r\n',
      'verify: {}                       # exactly one verifier\r\n',
    ),
  );
  const noEol = crlf.slice(0, -2);
  assert.equal(
    edited(noEol, removeKey(file(noEol), 2, [], 'verify', { match: { answer: 'hi' } })),
    crlf.replace('\r\n    verify: { match: { answer: hi } }\r\n', ''),
  );
});

test('addKey and removeKey on a task that is not the last leave the next one byte-identical', () => {
  const f = file();
  const after = FILE.slice(FILE.indexOf('  # the last task'));
  const results = [
    addKey(f, 1, [], 'note', 'multi\nline\n\n'),
    addKey(f, 1, ['verify'], 'extra', { a: [1] }),
    addKey(f, 1, ['meta'], 'n', 1),
    removeKey(f, 1, [], 'meta', { source: 'ifeval', empty: [] }),
    removeKey(f, 1, ['meta'], 'empty', []),
    removeKey(f, 1, [], 'verify', valueAt(FILE, 1, ['verify'])),
  ];
  for (const r of results) assert.ok(edited(FILE, r).endsWith(after));
  // `|+` would take in the blank line after the task: the check refuses it and the fallback quotes everything.
  const keep = edited(FILE, results[0] as EditResult);
  assert.equal(valueAt(keep, 1, ['note']), 'multi\nline\n\n');
  assert.match(keep, /empty: \[\] \}\n {4}"note": "multi\\nline\\n\\n"\n\n {2}# the last task/);
});

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'a',
  'Z',
  '7',
  '0x1F',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\t',
  ':',
  ': ',
  ' #',
  '#',
  '-',
  '- ',
  '?',
  ',',
  '[',
  ']',
  '{',
  '}',
  '"',
  "'",
  '\\',
  '|',
  '>',
  '&',
  '*',
  '!',
  '%',
  '@',
  '`',
  'é',
  'ü',
  '中文',
  '😀',
  '\u2028',
  '\u0085',
  '\u00a0',
  '\ufeff',
  '\u0000',
  '\u0007',
  '\u001b',
  '\r',
  '\r\n',
  '\u007f',
  'true',
  'null',
  '~',
  '50',
  '1e3',
  '.inf',
  '---',
  '...',
  'word',
  'two words',
];

function randomString(next: () => number): string {
  const n = Math.floor(next() * 8);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)];
  return s;
}

// The same tasks with an alias across tasks: such a file is parsed whole, never in chunks.
const WHOLE = FILE.replace('    prompt: Say hi.\n', '    prompt: Say hi.\n    meta: { source: *src }\n').replace(
  'meta: { source: ifeval,',
  'meta: { source: &src ifeval,',
);

test('random strings round-trip through setScalar in every style', () => {
  assert.equal(file(FILE).chunked, true);
  assert.equal(file(WHOLE).chunked, false);
  const next = rng(20240611);
  const targets: { task: number; path: NodePath }[] = [
    { task: 0, path: ['prompt'] }, // block scalar
    { task: 0, path: ['id'] }, // plain with a comment after it
    { task: 0, path: ['cases', 0, 'response'] }, // double-quoted
    { task: 0, path: ['cases', 1, 'response'] }, // single-quoted
    { task: 1, path: ['verify', 'constraints', 0, 'length_constraints:number_words', 'relation'] }, // in a flow mapping
    { task: 1, path: ['verify', 'constraints', 1] }, // a block list item
    { task: 1, path: ['tags', 1] }, // a flow list item
    { task: 2, path: ['prompt'] },
  ];
  for (const start of [FILE, WHOLE]) {
    let text = start;
    for (let round = 0; round < 40; round++) {
      for (const { task, path } of targets) {
        const old = valueAt(text, task, path) as Scalar;
        const value = randomString(next);
        const before = parseWholeFile(text).tasks.map((t) => toJS(t.node));
        text = edited(text, setScalar(file(text), task, path, old, value));
        const label = `${JSON.stringify(value)} at ${path.join('.')}`;
        const after = parseWholeFile(text);
        assert.equal(after.issues.filter((i) => i.code === 'yaml-syntax').length, 0, label);
        // The value reads back, and everything else is unchanged.
        let holder = before[task] as Record<string | number, unknown>;
        for (const seg of path.slice(0, -1)) holder = holder[seg] as Record<string | number, unknown>;
        holder[path[path.length - 1] as string | number] = value;
        assert.deepEqual(
          after.tasks.map((t) => toJS(t.node)),
          before,
          label,
        );
      }
    }
  }
});

test('random responses round-trip through addCase, random items through appendItem, random keys through addKey', () => {
  const next = rng(7);
  for (const start of [FILE, WHOLE]) roundTripLists(start, next);
});

/** A random value for a key: text (often several lines), a list, a mapping, or null. */
function randomValue(next: () => number): unknown {
  const r = next();
  if (r < 0.6) return randomString(next) + randomString(next);
  if (r < 0.75) return [randomString(next), 3];
  if (r < 0.9) return { [randomString(next)]: randomString(next) };
  return null;
}

function roundTripLists(start: string, next: () => number): void {
  let text = start;
  // Mappings that take random keys: block (a key's value, a task's own) and flow (nested too).
  const mappings: { task: number; path: NodePath; added: string[] }[] = [
    { task: 0, path: ['verify'], added: [] },
    { task: 1, path: [], added: [] },
    { task: 2, path: [], added: [] },
    { task: 1, path: ['meta'], added: [] },
    { task: 2, path: ['verify', 'match'], added: [] },
  ];
  for (let i = 0; i < 30; i++) {
    const m = mappings[i % mappings.length] as (typeof mappings)[number];
    const key = randomString(next);
    const value = randomValue(next);
    const map = valueAt(text, m.task, m.path) as Record<string, unknown>;
    const r = addKey(file(text), m.task, m.path, key, value);
    if (Object.hasOwn(map, key)) {
      assert.match(errorOf(r), /already has the key/);
    } else {
      text = edited(text, r);
      assert.deepEqual(
        valueAt(text, m.task, m.path),
        { ...map, [key]: value },
        `${JSON.stringify(key)}: ${JSON.stringify(value)}`,
      );
      m.added.push(key);
    }
    const response = randomString(next) + randomString(next);
    const expect = next() < 0.5 ? 'pass' : 'fail';
    const task = i % 3;
    text = edited(text, addCase(file(text), task, response, expect));
    const cases = valueAt(text, task, ['cases']) as unknown[];
    assert.deepEqual(cases.at(-1), { response, expect }, JSON.stringify(response));
    const item = { [randomString(next) || 'k']: [randomString(next), 3], note: randomString(next) };
    text = edited(text, appendItem(file(text), 1, ['verify', 'constraints'], item));
    assert.deepEqual((valueAt(text, 1, ['verify', 'constraints']) as unknown[]).at(-1), item, JSON.stringify(item));
    text = edited(text, appendItem(file(text), 1, ['tags'], randomString(next)));
  }
  assert.equal(syntaxErrors(text), 0);
  // And removed again, item by item from the middle, the rest staying in order.
  let tags = valueAt(text, 1, ['tags']) as unknown[];
  while (tags.length > 0) {
    const at = Math.floor(tags.length / 2);
    text = edited(text, removeItem(file(text), 1, ['tags', at]));
    const now = valueAt(text, 1, ['tags']) as unknown[];
    assert.deepEqual(
      now,
      tags.filter((_, i) => i !== at),
    );
    tags = now;
  }
  let constraints = valueAt(text, 1, ['verify', 'constraints']) as unknown[];
  while (constraints.length > 0) {
    const at = Math.floor(constraints.length / 3);
    text = edited(text, removeItem(file(text), 1, ['verify', 'constraints', at]));
    const now = valueAt(text, 1, ['verify', 'constraints']) as unknown[];
    assert.deepEqual(
      now,
      constraints.filter((_, i) => i !== at),
    );
    constraints = now;
  }
  assert.match(text, /\n {6}constraints: \[\]\n/);
  // The keys too, from the middle, with the values they were seen to have.
  for (const m of mappings) {
    while (m.added.length > 0) {
      const key = m.added.splice(Math.floor(m.added.length / 2), 1)[0] as string;
      const map = valueAt(text, m.task, m.path) as Record<string, unknown>;
      text = edited(text, removeKey(file(text), m.task, m.path, key, map[key]));
      const rest = { ...map };
      delete rest[key];
      assert.deepEqual(valueAt(text, m.task, m.path), rest, JSON.stringify(key));
    }
  }
  assert.deepEqual(valueAt(text, 1, ['meta']), { source: 'ifeval', empty: [] });
  assert.deepEqual(valueAt(text, 2, ['verify']), { match: { answer: 'hi' } });
  assert.deepEqual(Object.keys(valueAt(text, 0, ['verify']) as object), ['math']);
  assert.equal(syntaxErrors(text), 0);
}

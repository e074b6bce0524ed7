// The plain-subset YAML reader (taskfile/plainYaml.ts) against the `yaml` package: wherever it
// reads a text at all, its tree (values, styles, ranges) must be the one `yaml` and `fromYaml`
// give, and it must give up on what `yaml` reports as an error. Checked over every task file of
// the fixtures and examples, chunk by chunk, and over generated tasks in the layouts people
// write (block, flow, lists of cases, quoted and typed values, comments, trailing spaces); the
// common layouts must be read by it, not left to `yaml`, or checking large files is slow again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { aliasScope, fromYaml } from '../../src/core/base/ynode';
import { readPlainYaml } from '../../src/core/taskfile/plainYaml';
import { splitTaskFile } from '../../src/core/taskfile/chunks';
import { LineIndex } from '../../src/core/taskfile/text';
import { parseTaskFile, parseWholeFile } from '../../src/core/taskfile/parse';
import { at } from '../../src/core/util/must';

const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false, strict: true } as const;

/** Compares the reader with `yaml` on one text; returns whether the reader read it. */
function agrees(text: string): boolean {
  const mine = readPlainYaml(text);
  const doc = parseDocument(text, YAML_OPTIONS);
  if (mine === undefined) return false;
  assert.deepEqual(
    [doc.errors.map((e) => e.message), doc.warnings.map((e) => e.message)],
    [[], []],
    `read a text yaml reports errors in: ${JSON.stringify(text)}`,
  );
  assert.deepStrictEqual(mine, fromYaml(doc.contents, 0, aliasScope(doc)), `differs on ${JSON.stringify(text)}`);
  return true;
}

function taskFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).flatMap((f) => {
    const file = path.join(dir, f);
    return f.endsWith('.vtask') && fs.statSync(file).isFile() ? [file] : [];
  });
}

void test('plain YAML: every chunk of the fixtures and examples it reads is read as yaml reads it', (t) => {
  let read = 0;
  let chunks = 0;
  for (const file of [...taskFiles('test/fixtures'), ...taskFiles('examples')]) {
    const text = fs.readFileSync(file, 'utf8');
    for (const c of splitTaskFile(text, new LineIndex(text)) ?? [{ text }]) {
      chunks++;
      if (agrees(c.text)) read++;
    }
  }
  t.diagnostic(`read ${read} of ${chunks} chunks`);
  // Most of them are plain: the fast path is the common path, not a curiosity.
  assert.ok(read > chunks / 2, `read ${read} of ${chunks} chunks`);
});

/** A small seeded generator (the same tasks every run). */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

const SCALARS: readonly unknown[] = [
  'What is 2 + 2?',
  'Compute $\\frac{1}{2}$, put it in \\boxed{}.',
  'He said "hi" and it\'s fine',
  'a: b',
  'x # not a comment?',
  'trailing ',
  '-5',
  '- dash',
  '~',
  'null',
  'True',
  'yes',
  '0x1F',
  '.inf',
  '1e3',
  '12345678901234567890',
  '007',
  '',
  'ünïcödé ✓',
  'tab\there',
  'line\nbreak',
  42,
  -3.25,
  0,
  true,
  null,
  ['a', 'b c', 3],
  { answer: '72', tolerance: 0.01 },
  [{ input: '1', expect: 'x' }, { input: '2' }],
  {},
  [],
];

/** One generated task, written with `yaml`'s own writer in block or flow style. */
function genTask(r: () => number, i: number): string {
  const pick = (): unknown => SCALARS[Math.floor(r() * SCALARS.length)];
  const task: Record<string, unknown> = { id: `gen/${i}`, prompt: pick(), verify: { math: { answer: pick() } } };
  if (r() < 0.5) task.tags = [pick(), pick()];
  if (r() < 0.3) task.cases = [{ input: pick(), expect: pick() }, { input: pick() }];
  if (r() < 0.3) task.sampling = { temperature: pick(), seed: 7, max_tokens: 100 };
  const flowLevel = r() < 0.3 ? 1 : r() < 0.5 ? 3 : Infinity;
  let text = stringify(
    { tasks: [task] },
    {
      flowCollectionPadding: r() < 0.5,
      collectionStyle: 'any',
      ...(flowLevel === 1 ? { collectionStyle: 'flow' as const } : {}),
    },
  );
  // What people add by hand: comment lines, blank lines, trailing spaces, a null value.
  if (r() < 0.3) text = text.replace(/\n(\s+)(prompt:)/, '\n$1# the prompt\n\n$1$2');
  if (r() < 0.3) text = text.replace(/("?)\n/, '$1   \n');
  if (r() < 0.2) text = text.replace(/\n(\s+)id:/, '\n$1note:\n$1id:');
  return text.slice(text.indexOf('\n') + 1);
}

void test('plain YAML: generated tasks of every layout are read as yaml reads them', (t) => {
  const r = rng(7);
  let read = 0;
  const n = 3000;
  for (let i = 0; i < n; i++) if (agrees(genTask(r, i))) read++;
  t.diagnostic(`read ${read} of ${n} generated tasks`);
  assert.ok(read > n / 3, `read ${read} of ${n}`);
});

void test('plain YAML: the common layouts (block, one flow mapping per line, lists of cases) are read, not left to yaml', () => {
  const tasks = [
    '  - id: math/0\n    prompt: What is 0 + 2?\n    verify:\n      math:\n        answer: "2"\n',
    '  - { id: add/0, prompt: "What is 0 + 2? Put the answer in \\\\boxed{}.", verify: { math: { answer: "2" } } }\n',
    "  - id: code/1\n    prompt: 'Write f(x).'\n    tags: [easy, code]\n    verify:\n      code:\n        entry: f\n        cases:\n          - input: [1, 2]\n            expect: 3\n          - { input: [0, 0], expect: 0 }\n    sampling:\n      temperature: 0.7\n      samples: 8\n\n",
    'vtask: 1\ndefaults:\n  samples: 4\n  seed: 7\ntasks:\n',
  ];
  for (const t of tasks) assert.ok(agrees(t), `not read: ${JSON.stringify(t)}`);
});

void test('plain YAML: what it gives up on is left to yaml, and checking reports the same issues', () => {
  const texts = [
    'vtask: 1\ntasks:\n  - id: a\n    prompt: &p What?\n    verify: { math: { answer: *p } }\n',
    'vtask: 1\ntasks:\n  - id: a\n    prompt: |\n      multi\n      line\n    verify: { math: { answer: "1" } }\n',
    'vtask: 1\ntasks:\n  - id: a\n    prompt: What\n      goes on\n    verify: { math: { answer: 1 } } # c\n',
    'vtask: 1\ntasks:\n  - id: a\n    prompt: x: y\n    verify:\n     math: {answer: 1}\n',
    'vtask: 1\ntasks:\n  - id: a\n    promt: x\n    verify: { math: { answer: 1, tolerance: .nan } }\n',
  ];
  for (const text of texts) {
    const chunked = parseTaskFile(text);
    const whole = parseWholeFile(text);
    assert.deepEqual(
      chunked.issues.map((i) => [i.code, i.start, i.end, i.message]),
      whole.issues.map((i) => [i.code, i.start, i.end, i.message]),
      text,
    );
  }
});

// A differential fuzz: task chunks from a small grammar that mixes the plain layouts with the
// corners of YAML near them (scalars that are numbers, nulls or booleans only in some spellings,
// every escape, indicators, odd indentation, comments, tabs, CRLF, BOMs, document markers). On
// each, the reader must either give `yaml`'s tree for a text `yaml` reads without an error or a
// warning, or give up. A difference would change a gold answer or hide a syntax error.

/** Plain scalars: ordinary text, and spellings that are (or are nearly) something else. */
const FUZZ_PLAIN: readonly string[] = [
  'What is 2 + 2?',
  'hello world',
  'f(x) = x^2',
  'a/b-c_d.e',
  'x, y] }',
  '42',
  '3.14',
  '-7',
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'False',
  'fALSE',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  '0x1F',
  '0xg',
  '0o17',
  '0o8',
  '017',
  '0',
  '00',
  '-0',
  '+0',
  '+1',
  '-00.0',
  '1.',
  '.5',
  '+.5',
  '-.5e3',
  '.',
  '-.',
  '1e3',
  '1E+3',
  '1e-3',
  '1e',
  'e3',
  '1_000',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '-.nan',
  'inf',
  'NaN',
  '123456789012345',
  '-123456789012345',
  '1234567890123456',
  '9007199254740993',
  '12345678901234567890',
  '0.1234567890123456789',
  '1e400',
  '12:30',
  '1:2:3',
  'a: b',
  'a:b',
  'a:',
  'a :b',
  'a #b',
  'a#b',
  'a # b',
  '- x',
  '-x',
  '-',
  '--',
  '--- x',
  '...',
  '? x',
  '?x',
  ':x',
  ': x',
  '!tag x',
  '!!str 1',
  '&a x',
  '*a',
  '%x',
  '@x',
  '`x`',
  '|',
  '>',
  '|-',
  '> x',
  '[a',
  '{a',
  ']',
  '}',
  ',a',
  '#',
  'a  b',
  'ünïcödé ✓',
  '😀 emoji',
  'مرحبا',
  '\u202eRTL',
  'a\u00a0',
  '\u00a0a',
  'a\u2028b',
  'a\u0085b',
  'a\ufeffb',
  'a\u0001b',
  'a\u007fb',
  '"a" b',
  "'a' b",
  'a "b"',
  "it's",
  'a\\nb',
];

/** Pieces of double-quoted scalars: every escape YAML has, invalid and cut-off ones, odd characters. */
const FUZZ_DOUBLE: readonly string[] = [
  'a',
  'b c',
  ' ',
  '  ',
  'é',
  '😀',
  '\\x41',
  '\\xe9',
  '\\x4',
  '\\xg1',
  '\\u00e9',
  '\\u00E9',
  '\\u12',
  '\\uD83D\\uDE00',
  '\\uD83D',
  '\\U0001F600',
  '\\U0011FFFF',
  '\\U0001F6',
  '\\N',
  '\\_',
  '\\L',
  '\\P',
  '\\e',
  '\\a',
  '\\v',
  '\\ ',
  '\\/',
  '\\0',
  '\\t',
  '\\n',
  '\\r',
  '\\b',
  '\\f',
  '\\"',
  '\\\\',
  '\\q',
  '\\8',
  '\\',
  "'",
  "''",
  '#',
  ' #',
  ': ',
  ',',
  ']',
  '}',
  '[',
  '{',
  '\u00a0',
  '\u2028',
  '\u0085',
  '\ufeff',
  '\u0001',
  '"',
];

/** Pieces of single-quoted scalars: `''`, a lone quote, backslashes (not escapes there), odd characters. */
const FUZZ_SINGLE: readonly string[] = [
  'a',
  'b c',
  ' ',
  "''",
  "'",
  '\\n',
  '\\',
  '"',
  '#',
  ' #',
  ': ',
  ',',
  ']',
  '}',
  'é',
  '😀',
  '\u00a0',
  '\u2028',
  '\ufeff',
];

/** Keys: the plain ones tasks use, and keys of other types, quoted, spaced, long or odd. */
const FUZZ_KEYS: readonly string[] = [
  'id',
  'prompt',
  'verify',
  'math',
  'answer',
  'tags',
  'cases',
  'input',
  'expect',
  'a',
  'b',
  'x_1',
  'a.b',
  'a/b',
  'a-b',
  'A',
  '_k',
  'k2',
  'e1',
  'y',
  'n',
  'on',
  'no',
  'inf',
  'NaN',
  'nULL',
  'tRUE',
  'null',
  'Null',
  'true',
  'False',
  '~',
  '1',
  '007',
  '-k',
  '.k',
  'a b',
  'k ',
  '"q"',
  '"a b"',
  "'s'",
  '"\\x41"',
  'é',
  '<<',
  '? k',
  'k:x',
  'k#',
  'x'.repeat(199),
  'x'.repeat(201),
  'x'.repeat(1100),
];

/** Scalars as tasks usually have them. */
const FUZZ_ORDINARY: readonly string[] = [
  'What is 2 + 2?',
  'hello world',
  'x',
  '42',
  '3.5',
  '-7',
  'true',
  'null',
  '"7"',
  '"What is \\frac{1}{2}?"',
  "'It''s 3'",
  '""',
];

/** How often a scalar, a key or a line is a hazard; some chunks have none, so most of them are read. */
let hazard = 0.2;

/** An inline scalar: plain, double- or single-quoted. */
function fuzzScalar(r: () => number): string {
  const pick = <T>(a: readonly T[]): T => at(a, Math.floor(r() * a.length));
  if (r() >= hazard) return pick(FUZZ_ORDINARY);
  const x = r();
  if (x < 0.55) return pick(FUZZ_PLAIN);
  const pieces = x < 0.8 ? FUZZ_DOUBLE : FUZZ_SINGLE;
  const q = x < 0.8 ? '"' : "'";
  let s = '';
  for (let n = Math.floor(r() * 4); n > 0; n--) s += pick(pieces);
  return q + s + q;
}

/** A one-line flow collection, nested, with odd spacing, trailing commas, empty entries and flow pairs. */
function fuzzFlow(r: () => number, depth: number): string {
  const pick = <T>(a: readonly T[]): T => at(a, Math.floor(r() * a.length));
  const sp = (): string => pick(['', '', ' ', '  ']);
  const item = (): string => {
    const x = r();
    if (depth < 3 && x < 0.2) return fuzzFlow(r, depth + 1);
    if (x > 1 - hazard / 4) return pick(['', '?', 'a: b', 'a:b', '- x', '"k": v', '[a]: b']);
    return fuzzScalar(r);
  };
  const n = Math.floor(r() * 4);
  const items: string[] = [];
  if (r() < 0.5) {
    for (let i = 0; i < n; i++) items.push(item());
    const trail = r() < hazard / 2 ? ',' : '';
    return `[${sp()}${items.join(`${sp()},${sp() || ' '}`)}${trail}${sp()}]`;
  }
  for (let i = 0; i < n; i++) {
    const key = r() >= hazard ? pick(FUZZ_KEYS.slice(0, 26)) : pick(FUZZ_KEYS);
    const colon = r() >= hazard ? ': ' : pick([':', ' : ', ':  ']);
    items.push(r() < hazard / 4 ? key : `${key}${colon}${item()}`);
  }
  const trail = r() < hazard / 2 ? ',' : '';
  return `{${sp()}${items.join(`${sp()},${sp() || ' '}`)}${trail}${sp()}}`;
}

/**
 * The lines of a block node at `indent`; with `inline`, its first line goes after something
 * already written on the line (a `- `), so it has no indentation of its own.
 */
function fuzzBlock(r: () => number, indent: number, depth: number, kind: 'map' | 'seq', inline: boolean): string[] {
  const pick = <T>(a: readonly T[]): T => at(a, Math.floor(r() * a.length));
  const lines: string[] = [];
  const n = 1 + Math.floor(r() * 4);
  const prefix = (i: number, s: string): string => (inline && i === 0 ? s : ' '.repeat(indent) + s);
  for (let i = 0; i < n; i++) {
    const lead = kind === 'map' ? `${r() >= hazard ? pick(FUZZ_KEYS.slice(0, 26)) : pick(FUZZ_KEYS)}:` : '-';
    const x = r();
    if (x < 0.08) {
      lines.push(prefix(i, lead)); // an empty value
    } else if (x < (kind === 'seq' ? 0.7 : 0.3) && depth < 5) {
      // A nested block collection: below the key, or after the `- ` on the same line.
      const sub = r() < (kind === 'seq' ? 0.85 : 0.6) ? 'map' : 'seq';
      if (kind === 'seq' && r() < 0.7) {
        const gap = pick([' ', ' ', ' ', '  ', '   ']);
        const [first = '', ...rest] = fuzzBlock(r, indent + 1 + gap.length, depth + 1, sub, true);
        lines.push(prefix(i, `${lead}${gap}${first}`), ...rest);
      } else {
        const step = pick([2, 2, 2, 4, 1, 3, sub === 'seq' ? 0 : 2]);
        lines.push(prefix(i, lead), ...fuzzBlock(r, indent + step, depth + 1, sub, false));
      }
    } else {
      const value = r() < 0.2 ? fuzzFlow(r, 0) : fuzzScalar(r);
      lines.push(prefix(i, `${lead}${pick([' ', ' ', ' ', '  '])}${value}`));
    }
  }
  return lines;
}

/** Edits made by hand, and ones that are not plain YAML, applied to a few of the lines. */
function fuzzHazards(r: () => number, lines: string[]): string {
  const pick = <T>(a: readonly T[]): T => at(a, Math.floor(r() * a.length));
  const gap = (): number => Math.floor(r() * (lines.length + 1));
  for (let n = r() >= hazard * 2 ? 0 : 1 + Math.floor(r() * 3); n > 0; n--) {
    const i = Math.min(gap(), lines.length - 1);
    const line = at(lines, i);
    const indent = ' '.repeat(Math.floor(r() * 8));
    switch (Math.floor(r() * 14)) {
      case 0:
        lines.splice(gap(), 0, `${indent}# a comment: with - [things]`);
        break;
      case 1:
        lines.splice(gap(), 0, pick(['', '  ', indent]));
        break;
      case 2:
        lines[i] += pick([' ', '   ']);
        break;
      case 3:
        lines[i] = line + pick([' # comment', '  #', '#x', ' #']);
        break;
      case 4:
        lines.splice(i + 1, 0, `${indent}  more words`);
        break;
      case 5:
        lines[i] = r() < 0.5 ? ` ${line}` : line.replace(/^ /, '');
        break;
      case 6:
        lines[i] = r() < 0.5 ? line.replace(/^ {2}/, '\t') : line.replace(/: /, ':\t');
        break;
      case 7:
        lines.unshift(pick(['---', '--- ', '--- # doc', '%YAML 1.2\n---']));
        break;
      case 8:
        lines.push(pick(['...', '---', '--- x']));
        break;
      case 9:
        lines.splice(gap(), 0, pick(['...', '---']));
        break;
      case 10:
        lines[0] = `\ufeff${at(lines, 0)}`;
        break;
      case 11:
        lines.splice(gap(), 0, `${indent}${pick(FUZZ_KEYS)}: ${fuzzScalar(r)}`);
        break;
      case 12:
        lines[i] = line.replace(/(\S)$/, `$1${pick([':', ' :', ',', ' - x', ': x'])}`);
        break;
      default:
        lines.splice(gap(), 0, `${indent}- ${fuzzScalar(r)}`);
    }
  }
  const nl = r() < 0.08 ? '\r\n' : '\n';
  const end = r() < 0.15 ? '' : nl;
  return lines.join(nl) + end;
}

/** Layouts comments are put into at every place: where they sit changes the ranges `yaml` gives. */
const FUZZ_COMMENTED: readonly string[] = [
  '  - id: a\n    prompt: x\n    verify:\n      math:\n        answer: 1\n    tags: [a]\n    note:\n',
  'a:\n  b: 1\n  c:\n    - x\n    - y: 1\n      z:\n      w: "q"\nd:\n',
  '- a:\n- b: [1]\n  c:\n-   d: 2\n    e: 3\n',
];

/** One fuzzed chunk: a task (a one-item list, as the splitter cuts them) or a header-like mapping. */
function fuzzChunk(r: () => number): string {
  hazard = at([0, 0, 0.02, 0.05, 0.1, 0.3], Math.floor(r() * 6));
  const x = r();
  const indent = x < 0.6 ? 2 : 0;
  const lines =
    x < 0.85
      ? fuzzBlock(r, indent, 0, 'seq', false).slice(0, 1 + Math.floor(r() * 30))
      : fuzzBlock(r, 0, 0, 'map', false);
  return fuzzHazards(r, lines);
}

void test("plain YAML: a differential fuzz against yaml, where the reader gives yaml's tree or gives up", (t) => {
  const r = rng(20260101);
  const n = 6000;
  let read = 0;
  const differs: string[] = [];
  const texts: string[] = [];
  // Every hazard alone, in each place a scalar or key goes: as a value, a list item, a flow item, a key.
  const quoted = [
    ...FUZZ_DOUBLE.map((s) => `"${s}"`),
    ...FUZZ_SINGLE.map((s) => `'${s}'`),
    ...FUZZ_DOUBLE.map((s) => `"a${s}b"`),
  ];
  for (const s of [...FUZZ_PLAIN, ...quoted]) {
    texts.push(`  - id: x\n    prompt: ${s}\n    verify:\n      math:\n        answer: ${s}\n`);
    texts.push(`  - ${s}\n  - x\n`, `a: [${s}]\n`, `a: [${s}, x]\n`, `a: {k: ${s}}\n`, `a: {k: ${s}, j: x}\n`);
  }
  // A comment line at every indentation in every gap of a few layouts, after a blank line or not.
  for (const base of FUZZ_COMMENTED) {
    const lines = base.split('\n');
    for (let gap = 0; gap < lines.length; gap++)
      for (let indent = 0; indent < 10; indent++)
        for (const blank of ['', '\n'])
          texts.push([...lines.slice(0, gap), `${blank}${' '.repeat(indent)}# c`, ...lines.slice(gap)].join('\n'));
  }
  for (const k of FUZZ_KEYS) texts.push(`  - ${k}: x\n    b: y\n`, `a:\n  ${k}:\n  b: y\n`, `a: {${k}: x}\n`);
  for (let i = 0; i < n; i++) texts.push(fuzzChunk(r));
  for (const text of texts) {
    try {
      if (agrees(text)) read++;
    } catch (e) {
      differs.push(
        `${JSON.stringify(text)}\n  ${String(e instanceof Error ? e.message : e)
          .split('\n')
          .slice(0, 12)
          .join('\n  ')}`,
      );
    }
  }
  const all = texts.length;
  t.diagnostic(`read ${read} of ${all} fuzzed chunks, ${all - read - differs.length} left to yaml`);
  assert.deepEqual(differs, []);
  // The grammar is mostly plain: a reader that gave up on everything would pass the rest vacuously.
  assert.ok(read > all / 3, `read ${read} of ${all}`);
});

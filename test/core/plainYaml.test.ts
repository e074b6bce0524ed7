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

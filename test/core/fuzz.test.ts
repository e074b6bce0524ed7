// Property-based fuzzing with fast-check: the parser and validator on random YAML-ish text and
// on random mutations of the example files, the YAML edits on random values, and every verifier
// kind's check on hostile responses. Each property is bounded in time per input. The default run
// takes seconds; VTASK_FUZZ_RUNS=N runs N inputs per property (a longer run, printed at the end).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { applyEdit, setScalar, type NodePath } from '../../src/core/edit/taskEdits';
import { parseTaskFile, parseWholeFile, type TaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks, type TaskSpec } from '../../src/core/taskfile/resolve';
import { taskView } from '../../src/core/run/cases';
import { kindOf, verify } from '../../src/core/verifiers/verify';
import { toJS } from '../../src/core/base/ynode';

const RUNS = Number(process.env.VTASK_FUZZ_RUNS) || 0;
const runs = (fast: number): number => RUNS || fast;
/** The most one parse or one check may take on one input, even on a loaded machine. */
const BOUND_MS = 5_000;
const ROOT = process.cwd();
const EXAMPLES = ['examples', 'test/fixtures/check'].flatMap((d) =>
  fs
    .readdirSync(path.join(ROOT, d))
    .filter((f) => f.endsWith('.vtask'))
    .map((f) => path.join(ROOT, d, f)),
);
const texts = EXAMPLES.map((f) => fs.readFileSync(f, 'utf8'));
const stats: string[] = [];

function timed<T>(what: string, f: () => T): T {
  const t = performance.now();
  const r = f();
  const ms = performance.now() - t;
  assert.ok(ms < BOUND_MS, `${what} took ${ms.toFixed(0)} ms`);
  return r;
}

/** Every issue lies inside the text, and every task's range too. */
function wellFormed(file: TaskFile): void {
  const n = file.text.length;
  for (const i of file.issues) {
    assert.ok(i.start >= 0 && i.start <= i.end && i.end <= n, `issue out of range: ${JSON.stringify(i)} in ${n} chars`);
    assert.ok(i.message.length > 0 && !i.message.includes('\n'), `message: ${JSON.stringify(i.message)}`);
  }
  for (const t of file.tasks)
    assert.ok(t.offset >= 0 && t.offset + t.length <= n, `task out of range: ${t.offset}+${t.length} in ${n}`);
}

const PIECES = [
  'vtask: 1\n',
  'tasks:\n',
  '  - id: a\n',
  '    prompt: hi\n',
  '    verify: { math: { answer: "1" } }\n',
  '    cases: [{ response: x, expect: pass }]\n',
  'defaults:\n',
  '  samples: 3\n',
  '&a ',
  '*a',
  '<<: *a\n',
  '- ',
  ': ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '"',
  "'",
  '|\n',
  '>-\n',
  '#',
  '\t',
  '\n',
  '  ',
  '---\n',
  '...\n',
  '? ',
  '!!str ',
  '%YAML 1.2\n',
  '\u0000',
  '\u001b[2J',
  '\ufeff',
  '😀',
  'é',
  '\r\n',
  'null',
  '~',
  '1e309',
  '-.inf',
  '0x1F',
];
const yamlish = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 12 })), { maxLength: 60 })
  .map((a) => a.join(''));

/** A random mutation of an example: pieces inserted, ranges deleted or duplicated. */
const mutated = fc
  .tuple(
    fc.nat({ max: texts.length - 1 }),
    fc.array(
      fc.tuple(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat({ max: 40 }),
        fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 8 })),
        fc.nat({ max: 2 }),
      ),
      { minLength: 1, maxLength: 6 },
    ),
  )
  .map(([i, muts]) => {
    let t = texts[i]!;
    for (const [at, len, piece, op] of muts) {
      const p = Math.floor(at * t.length);
      t =
        op === 0
          ? t.slice(0, p) + piece + t.slice(p)
          : op === 1
            ? t.slice(0, p) + t.slice(p + len)
            : t.slice(0, p + len) + t.slice(p);
    }
    return t;
  });

function parsesSafely(text: string): void {
  wellFormed(timed('parseTaskFile', () => parseTaskFile(text)));
  wellFormed(timed('parseWholeFile', () => parseWholeFile(text)));
  timed('runnableTasks', () => runnableTasks(parseTaskFile(text)));
}

void test('fuzz: the parser and validator never throw on random YAML-ish text', () => {
  const t = performance.now();
  fc.assert(fc.property(yamlish, parsesSafely), { numRuns: runs(200) });
  stats.push(`parser, random text: ${runs(200)} inputs in ${(performance.now() - t).toFixed(0)} ms`);
});

void test('fuzz: the parser and validator never throw on mutated example files', () => {
  const t = performance.now();
  fc.assert(fc.property(mutated, parsesSafely), { numRuns: runs(80) });
  stats.push(`parser, mutated examples: ${runs(80)} inputs in ${(performance.now() - t).toFixed(0)} ms`);
});

const EDIT_FILE = `vtask: 1
tasks:
  - id: a
    prompt: |
      Two
      lines.
    verify: { match: { answer: hi } }
    cases:
      - response: "quoted"
        expect: pass
  - id: b
    prompt: plain
    tags: [x, y]
    verify:
      math: { answer: "1" }
`;

void test('fuzz: setScalar writes any string so it reads back, and nothing else changes', () => {
  const targets: { task: number; path: NodePath }[] = [
    { task: 0, path: ['prompt'] },
    { task: 0, path: ['cases', 0, 'response'] },
    { task: 0, path: ['verify', 'match', 'answer'] },
    { task: 1, path: ['prompt'] },
    { task: 1, path: ['tags', 1] },
  ];
  const t = performance.now();
  // Full Unicode, control characters included; lone surrogates cannot be stored in a UTF-8 file.
  const value = fc.string({
    unit: fc.oneof(
      fc.constantFrom('\n', '\t', ' ', ':', '#', '"', "'", '\\', '- ', '{', '[', '&', '*', '\r\n', '\u0085', '\u2028'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 40,
  });
  fc.assert(
    fc.property(fc.constantFrom(...targets), value, ({ task, path: p }, v) => {
      const before = parseWholeFile(EDIT_FILE).tasks.map((x) => toJS(x.node));
      let old: unknown = before[task];
      for (const seg of p) old = (old as Record<string | number, unknown>)[seg];
      const r = setScalar(parseTaskFile(EDIT_FILE), task, p, old as string, v);
      if ('error' in r) assert.fail(r.error);
      const after = parseWholeFile(applyEdit(EDIT_FILE, r.edit));
      assert.deepEqual(
        after.issues.filter((i) => i.code === 'yaml-syntax'),
        [],
      );
      let holder = before[task] as Record<string | number, unknown>;
      for (const seg of p.slice(0, -1)) holder = holder[seg] as Record<string | number, unknown>;
      holder[p[p.length - 1] as string | number] = v;
      assert.deepEqual(
        after.tasks.map((x) => toJS(x.node)),
        before,
      );
    }),
    { numRuns: runs(150) },
  );
  stats.push(`setScalar round trip: ${runs(150)} inputs in ${(performance.now() - t).toFixed(0)} ms`);
});

/** One runnable task per verifier kind, from the examples and fixtures. */
function tasksByKind(): Map<string, { task: TaskSpec; file: string }> {
  const out = new Map<string, { task: TaskSpec; file: string }>();
  EXAMPLES.forEach((file, i) => {
    for (const task of runnableTasks(parseTaskFile(texts[i]!)).tasks) {
      const k = kindOf(task.verify);
      if ('kind' in k && !out.has(k.kind.kind)) out.set(k.kind.kind, { task, file });
    }
  });
  return out;
}

const LATEX = [
  '\\frac{'.repeat(200) + '1' + '}'.repeat(200),
  '\\boxed{' + '\\sqrt{'.repeat(300) + 'x',
  '\\boxed{1e999999}',
  '\\boxed{' + '9'.repeat(5000) + '}',
  '\\boxed{x^{x^{x^{x^{x^{x^{x^{99}}}}}}}}',
  '$$\\begin{pmatrix}' + '1&'.repeat(500) + '\\end{pmatrix}$$',
  '\\boxed{\\int_0^\\infty e^{-x^2}dx}',
  '\\boxed{(((((((((((((((((((((((1)))))))))))))))))))))))}',
];
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    ...LATEX,
    '<script>alert(1)</script>',
    '```python\nimport os\nos.system("echo hi")\n```',
    '```js\nwhile(true){}\n```',
    '\u0000\u001b]0;x\u0007',
    '{"a": ' + '['.repeat(1000) + ']'.repeat(1000) + '}',
    'a'.repeat(200_000),
    '\\boxed{72}',
    '<think>' + 'x'.repeat(1000),
  ),
  fc.tuple(fc.constantFrom(...LATEX), fc.string({ maxLength: 20 })).map(([a, b]) => a + b),
);

void test('fuzz: every verifier kind returns a verdict with a score in [0, 1] on hostile responses', async () => {
  const kinds = tasksByKind();
  assert.ok(kinds.size >= 5, `only ${[...kinds.keys()].join(', ')}`);
  for (const [kind, { task, file }] of kinds) {
    // Code verifiers start a process per check: fewer inputs, the same properties.
    const n = kind === 'code' || kind === 'script' ? Math.min(runs(2), RUNS ? 50 : 2) : runs(40);
    const t = performance.now();
    await fc.assert(
      fc.asyncProperty(hostile, async (response) => {
        const started = performance.now();
        const v = await verify(task.verify, response, { task: taskView(task, file), trusted: true });
        const ms = performance.now() - started;
        assert.ok(ms < (kind === 'code' || kind === 'script' ? 30_000 : BOUND_MS), `${kind} took ${ms.toFixed(0)} ms`);
        assert.equal(typeof v.pass, 'boolean');
        assert.ok(v.score >= 0 && v.score <= 1, `${kind}: score ${v.score}`);
        assert.equal(typeof v.reason, 'string');
      }),
      { numRuns: n },
    );
    stats.push(`verifier ${kind}: ${n} inputs in ${(performance.now() - t).toFixed(0)} ms`);
  }
});

void test('fuzz: summary', () => {
  // Printed so a long run (VTASK_FUZZ_RUNS) reports its iterations and time.
  for (const s of stats) process.stdout.write(`# ${s}\n`);
});

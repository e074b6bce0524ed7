// Bounded input: an alias bomb, deep nesting, a huge line or file each end in one clear error at
// the place that breaks the limit, quickly, in the chunked and the whole-file parse alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../src/core/taskfile/limits';
import { parseTaskFile, parseWholeFile, type TaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

/** Nine anchors, each a list of nine aliases of the one before: 9^9 values once expanded. */
function aliasBomb(): string {
  const rows = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= 9; i++) rows.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `vtask: 1\ntasks:\n  - id: bomb\n    prompt: hi\n    verify: { math: { answer: "1" } }\n    meta:\n${rows.map((r) => '      ' + r).join('\n')}\n`;
}

function only(file: TaskFile, code: string): { message: string; line: number; col: number } {
  const errors = file.issues.filter((i) => i.severity === 'error');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  const issue = errors[0]!;
  assert.equal(issue.code, code);
  const p = file.lines.position(issue.start);
  return { message: issue.message, line: p.line + 1, col: p.character + 1 };
}

for (const [name, parse] of [
  ['chunked', parseTaskFile],
  ['whole', parseWholeFile],
] as const) {
  void test(`${name}: an alias bomb is one error at an alias, in well under a second`, () => {
    const text = aliasBomb();
    const started = performance.now();
    const file = parse(text);
    assert.ok(performance.now() - started < 2000, 'took too long');
    const e = only(file, 'too-large');
    assert.match(e.message, /more than 1000 aliases/);
    // The error points at an alias (`*a…`), on one of the anchor lines.
    const at = file.issues.find((i) => i.code === 'too-large')!;
    assert.equal(text[at.start], '*');
    assert.equal(runnableTasks(file).tasks.length, 0);
  });

  void test(`${name}: one big anchor used many times is capped by expanded size`, () => {
    const big = `[${Array.from({ length: 2000 }, (_, i) => i).join(', ')}]`;
    const uses = Array.from({ length: 200 }, () => '*big').join(', ');
    const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: hi\n    verify: { math: { answer: "1" } }\n    meta: { b: &big ${big}, uses: [${uses}] }\n`;
    const e = only(parse(text), 'too-large');
    assert.match(e.message, new RegExp(`more than ${LIMITS.aliasNodes} values`));
  });

  void test(`${name}: nesting past the limit is an error where it starts to be too deep`, () => {
    const depth = LIMITS.depth + 20;
    const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: hi\n    verify: { math: { answer: "1" } }\n    meta: { deep: ${'['.repeat(depth)}${']'.repeat(depth)} }\n`;
    const e = only(parse(text), 'too-large');
    assert.match(e.message, /nest more than 100 levels/);
    assert.equal(e.line, 6);
  });
}

void test('thousands of nested brackets are refused before YAML parsing (which would exhaust the heap)', () => {
  const n = 400_000;
  const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: hi\n    verify: { math: { answer: "1" } }\n    meta: ${'['.repeat(n)}\n${']'.repeat(n)}\n`;
  const e = only(parseTaskFile(text), 'too-large');
  assert.match(e.message, /more than 1000 nested brackets/);
  assert.equal(e.line, 6);
  assert.equal(e.col, 11 + 1000);
});

void test('a line over the length limit is an error at the column where it passes the limit', () => {
  const text = `vtask: 1\ntasks:\n  - id: t\n    prompt: "${'x'.repeat(LIMITS.lineChars)}"\n    verify: { math: { answer: "1" } }\n`;
  const e = only(parseTaskFile(text), 'too-large');
  assert.equal(e.line, 4);
  assert.equal(e.col, LIMITS.lineChars + 1);
  assert.match(e.message, /line 4 has \d+ characters, over the limit of 1000000/);
});

void test('aliases within the limits still expand as before', () => {
  const text = `vtask: 1\ndefaults:\n  verify: &v { math: { answer: "4" } }\ntasks:\n  - id: a\n    prompt: 2+2?\n    verify: *v\n  - id: b\n    prompt: 3+1?\n    verify: *v\n`;
  const file = parseTaskFile(text);
  assert.deepEqual(
    file.issues.filter((i) => i.severity === 'error'),
    [],
  );
  assert.equal(runnableTasks(file).tasks.length, 2);
});

/** A file of `tasks` tasks with a dozen cases each, the first `aliases` of which take their verifier from `defaults`. */
function sharedAnchorFile(tasks: number, aliases: number): string {
  const cases = Array.from({ length: 12 }, (_, k) => `      - { response: "${k}", expect: fail }`);
  const lines = ['vtask: 1', 'defaults:', '  verify: &shared { match: { answer: "42" } }', 'tasks:'];
  for (let i = 0; i < tasks; i++)
    lines.push(
      `  - id: t${i}`,
      `    prompt: "What is six times seven? (${i})"`,
      i < aliases ? '    verify: *shared' : '    verify: { match: { answer: "42" } }',
      '    cases:',
      ...cases,
    );
  return lines.join('\n') + '\n';
}

function cpuMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

void test('aliases cost time linear in the file: four hundred aliases parse about as fast as none', () => {
  const none = sharedAnchorFile(400, 0);
  const many = sharedAnchorFile(400, 400);
  // The base is the same file through the `yaml` package (a whole-file parse, as a file whose
  // tasks share anchors is parsed): plain tasks without aliases take a far faster path.
  parseWholeFile(none); // warm up
  const base = Math.min(
    cpuMs(() => parseWholeFile(none)),
    cpuMs(() => parseWholeFile(none)),
  );
  let file: TaskFile | undefined;
  const aliased = cpuMs(() => (file = parseTaskFile(many)));
  assert.deepEqual(
    file!.issues.filter((i) => i.severity === 'error'),
    [],
  );
  assert.equal(runnableTasks(file!).tasks.length, 400);
  // Resolving each alias by walking the document up to it made this over ten times the base.
  assert.ok(aliased < base * 4 + 200, `${Math.round(aliased)} ms of CPU with aliases, ${Math.round(base)} ms without`);
});

void test('an anchor named again later: each alias reads the last anchor before it', () => {
  const text = `vtask: 1\ntasks:\n  - id: a\n    prompt: &p first\n    verify: { match: { answer: *p } }\n  - id: b\n    prompt: &p second\n    verify: { match: { answer: *p } }\n`;
  const specs = runnableTasks(parseTaskFile(text)).tasks;
  assert.deepEqual(
    specs.map((t) => (t.verify as { match: { answer: string } }).match.answer),
    ['first', 'second'],
  );
});

for (const [name, parse] of [
  ['chunked', parseTaskFile],
  ['whole', parseWholeFile],
] as const) {
  void test(`${name}: the allowance of expanded aliases covers the whole file, not each task`, () => {
    // Each task alone is well within the limit (3,000 values); forty of them are not.
    const task = (i: number): string =>
      `  - id: t${i}\n    prompt: hi\n    verify: { math: { answer: "1" } }\n    meta: { b: &big [${Array.from({ length: 100 }, (_, k) => k).join(', ')}], uses: [${Array.from({ length: 30 }, () => '*big').join(', ')}] }\n`;
    const text = `vtask: 1\ntasks:\n${Array.from({ length: 40 }, (_, i) => task(i)).join('')}`;
    const e = only(parse(text), 'too-large');
    assert.match(e.message, new RegExp(`aliases in this file expand to more than ${LIMITS.aliasNodes} values`));
  });
}

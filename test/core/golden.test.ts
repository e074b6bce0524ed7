// Golden tests of the task-file validator: every fixture in test/fixtures/check is parsed and its
// issues, printed as `vtask check` prints them, must equal the fixture's `.expected` file. The
// fast path (per-task chunks) must agree with the whole-file parse, incremental re-parsing must
// agree with a fresh parse, and truncated files must never make the parser throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { formatIssue } from '../../src/core/taskfile/format';
import type { Issue } from '../../src/core/base/issues';
import { parseTaskFile, parseWholeFile, TaskFileParser, type TaskFile } from '../../src/core/taskfile/parse';
import { getPair, type YNode } from '../../src/core/base/ynode';

const ROOT = process.cwd();
const FIXTURES = path.resolve(ROOT, 'test/fixtures/check');

/** The fixtures the golden suite must always have (more may be added freely). */
const REQUIRED = [
  'valid',
  'typo-key',
  'duplicate-id',
  'unknown-verifier',
  'missing-kwarg',
  'bad-expect',
  'done-when',
  'yaml-syntax',
  'wrong-types',
  'missing-parts',
  'missing-parts-defaults',
  'models',
  'composite',
  'flow-style',
  'tabs-and-comments',
];

function fixtureNames(): string[] {
  return fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.vtask'))
    .map((f) => f.slice(0, -'.vtask'.length))
    .sort();
}

function readFixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, `${name}.vtask`), 'utf8');
}

/** The lines of a `.expected` file; an empty file means no issues. */
function readExpected(name: string): string[] {
  const text = fs.readFileSync(path.join(FIXTURES, `${name}.expected`), 'utf8').replace(/\r\n/g, '\n');
  return text.split('\n').filter((l) => l !== '');
}

function formatAll(file: TaskFile, name: string): string[] {
  return file.issues.map((i) => formatIssue(name, file.lines, i));
}

/** Issues as plain data (drops `fixes: undefined` and the like) for deep comparison. */
function plain(issues: readonly Issue[]): unknown[] {
  return JSON.parse(JSON.stringify(issues)) as unknown[];
}

void test('every required fixture exists with its .expected file', () => {
  const names = new Set(fixtureNames());
  for (const r of REQUIRED) assert.ok(names.has(r), `missing fixture ${r}.vtask`);
  for (const n of names) assert.ok(fs.existsSync(path.join(FIXTURES, `${n}.expected`)), `missing ${n}.expected`);
});

for (const name of fixtureNames()) {
  void test(`golden: ${name}.vtask`, () => {
    const file = parseTaskFile(readFixture(name));
    assert.deepEqual(formatAll(file, `${name}.vtask`), readExpected(name));
  });
}

for (const name of fixtureNames()) {
  void test(`chunked and whole-file parses agree: ${name}.vtask`, () => {
    const text = readFixture(name);
    const fast = parseTaskFile(text);
    const whole = parseWholeFile(text);
    assert.equal(whole.chunked, false);
    // The CLI output must not depend on which path was taken.
    assert.deepEqual(plain(whole.issues), plain(fast.issues));
    // Both paths see the same tasks, named at the same place, unless YAML syntax errors make
    // the whole-document parser read a different structure after them (chunks contain errors).
    if (whole.issues.some((i) => i.code === 'yaml-syntax')) return;
    const summary = (f: TaskFile): unknown[] =>
      f.tasks.map((t) => ({
        id: t.id,
        anchor: t.offset + t.anchor[0],
        hasPrompt: t.hasPrompt,
        hasVerify: t.hasVerify,
        caseCount: t.caseCount,
      }));
    assert.deepEqual(summary(whole), summary(fast));
  });
}

void test('valid.vtask takes the chunked fast path and has tasks of every verifier kind', () => {
  const text = readFixture('valid');
  const file = parseTaskFile(text);
  assert.equal(file.chunked, true);
  assert.deepEqual(file.issues, []);
  const kinds = new Set<string>();
  const collect = (v: YNode | null | undefined): void => {
    const kind = v?.type === 'map' ? v.items[0] : undefined;
    if (!kind) return;
    const name = String(kind.key.value);
    kinds.add(name);
    const params = kind.value;
    if (name !== 'all' && name !== 'any' && name !== 'weighted') return;
    const list = params?.type === 'seq' ? params : params?.type === 'map' ? getPair(params, 'of')?.value : undefined;
    if (list?.type !== 'seq') return;
    for (const item of list.items)
      collect(name === 'weighted' && item.type === 'map' ? getPair(item, 'verify')?.value : item);
  };
  for (const t of file.tasks) if (t.node) collect(getPair(t.node, 'verify')?.value);
  assert.deepEqual([...kinds].sort(), [
    'all',
    'any',
    'choice',
    'code',
    'constraints',
    'format',
    'json',
    'judge',
    'match',
    'math',
    'script',
    'state',
    'trajectory',
    'weighted',
  ]);
  assert.equal(file.tasks.length, 20);
  assert.ok(file.tasks.every((t) => t.id !== undefined));
});

void test('flow-style.vtask is parsed whole; tabs-and-comments.vtask keeps CRLF and is chunked', () => {
  assert.equal(parseTaskFile(readFixture('flow-style')).chunked, false);
  const crlf = readFixture('tabs-and-comments');
  assert.ok(crlf.includes('\r\n'), 'the fixture lost its CRLF line endings (check .gitattributes / editor settings)');
  assert.ok(!/[^\r]\n/.test(crlf), 'every line of the fixture must end in CRLF');
  assert.ok(crlf.includes('\t'));
  assert.equal(parseTaskFile(crlf).chunked, true);
});

void test('done-when.vtask: one issue per mistake, each with the right code, and the quick fixes resolve them', () => {
  const text = readFixture('done-when');
  const file = parseTaskFile(text);
  const codes = file.issues.map((i) => i.code);
  assert.deepEqual(codes, ['unknown-key', 'unknown-verifier', 'duplicate-id', 'missing-kwarg', 'bad-expect']);
  for (const code of ['unknown-key', 'unknown-verifier', 'bad-expect'] as const) {
    const issue = file.issues.find((i) => i.code === code);
    assert.ok(issue?.fixes?.length, `${code} has no quick fix`);
    const fix = issue.fixes[0]!;
    const fixed = text.slice(0, fix.start) + fix.text + text.slice(fix.end);
    const after = parseTaskFile(fixed);
    assert.equal(
      after.issues.filter((i) => i.code === code).length,
      0,
      `applying "${fix.title}" does not resolve ${code}`,
    );
    assert.equal(after.issues.length, file.issues.length - 1, `applying "${fix.title}" changes other issues`);
  }
});

void test('models.vtask: literal credentials (headers and api_key_env) have their own code', () => {
  const file = parseTaskFile(readFixture('models'));
  const creds = file.issues.filter((i) => i.code === 'literal-credential');
  assert.equal(creds.length, 3);
  const text = readFixture('models');
  for (const c of creds) assert.match(text.slice(c.start, c.end), /Bearer sk-|0123456789abcdef|sk-proj-/);
});

/** The text of a generated task file, from scripts/gen-large.mjs run as a program. */
function generate(args: string[]): string {
  const r = spawnSync(process.execPath, [path.resolve(ROOT, 'scripts/gen-large.mjs'), '-', ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

void test('gen-large.mjs is deterministic and writes a valid file', () => {
  const a = generate(['--tasks', '300', '--seed', '7']);
  assert.equal(generate(['--tasks', '300', '--seed', '7']), a);
  assert.notEqual(generate(['--tasks', '300', '--seed', '8']), a);
  const file = parseTaskFile(a);
  assert.equal(file.chunked, true);
  assert.equal(file.tasks.length, 300);
  assert.deepEqual(
    file.issues.map((i) => formatIssue('gen', file.lines, i)),
    [],
  );
  // A mistake in every 30th task: 10 issues, one in each of those tasks.
  const bad = parseTaskFile(generate(['--tasks', '300', '--seed', '7', '--errors', '30']));
  assert.equal(bad.issues.length, 10);
  assert.deepEqual(
    bad.tasks.filter((t) => t.issues.length > 0).map((t) => t.index),
    [29, 59, 89, 119, 149, 179, 209, 239, 269, 299],
  );
});

/** Issues of one task, as the editor would show them, keyed by task index. */
function perTask(file: TaskFile): unknown[] {
  return file.tasks.map((t) => ({ id: t.id, issues: plain(t.issues) }));
}

/** File issues that fall inside no task in [from, to) are compared after moving them by `delta`. */
function shiftedIssues(issues: readonly Issue[], from: number, to: number, delta: number): unknown[] {
  return plain(
    issues
      .filter((i) => i.start < from || i.start >= to)
      .map((i) =>
        i.start >= to
          ? {
              ...i,
              start: i.start + delta,
              end: i.end + delta,
              fixes: i.fixes?.map((f) => ({ ...f, start: f.start + delta, end: f.end + delta })),
            }
          : i,
      ),
  );
}

void test('incremental re-parse of a 2,000-task file equals a fresh parse and leaves other tasks alone', () => {
  const text = generate(['--tasks', '2000', '--seed', '3', '--errors', '50']);
  const parser = new TaskFileParser();
  const before = parser.parse(text);
  assert.equal(before.chunked, true);
  assert.equal(before.tasks.length, 2000);
  assert.equal(before.issues.length, 40);

  // Change a value into a typo in a clean task in the middle: `expect: pass` -> `expect: pas`.
  const k = before.tasks.findIndex(
    (t) =>
      t.index >= 1000 && t.issues.length === 0 && text.slice(t.offset, t.offset + t.length).includes('expect: pass'),
  );
  assert.ok(k !== -1);
  const t = before.tasks[k]!;
  const old = text.slice(t.offset, t.offset + t.length);
  const at = t.offset + old.indexOf('expect: pass') + 'expect: pas'.length;
  const edited = text.slice(0, at) + text.slice(at + 1);
  const delta = -1;

  const after = parser.parse(edited);
  const fresh = parseTaskFile(edited);
  assert.deepEqual(plain(after.issues), plain(fresh.issues));
  assert.deepEqual(perTask(after), perTask(fresh));
  assert.deepEqual(
    after.tasks.map((x) => [x.offset, x.length]),
    fresh.tasks.map((x) => [x.offset, x.length]),
  );

  // The edited task has exactly one new issue, the typo, with a suggestion.
  const mine = after.tasks[k]!.issues;
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.code, 'bad-expect');
  assert.match(mine[0]!.message, /not the text "pas" \(did you mean `pass`\?\)/);

  // Every other task reports exactly what it did before; only absolute offsets move.
  for (let i = 0; i < after.tasks.length; i++) {
    if (i === k) continue;
    const a = after.tasks[i]!;
    const b = before.tasks[i]!;
    assert.deepEqual(plain(a.issues), plain(b.issues), `task ${i} changed`);
    assert.equal(a.offset, b.offset + (i > k ? delta : 0), `task ${i} moved wrongly`);
  }
  const end = t.offset + t.length;
  assert.deepEqual(
    shiftedIssues(after.issues, t.offset, end + delta, 0),
    shiftedIssues(before.issues, t.offset, end, delta),
  );
  assert.equal(after.issues.length, before.issues.length + 1);
});

void test('re-parsing reuses the trees of the tasks whose text did not change', () => {
  const text = generate(['--tasks', '2000', '--seed', '4']);
  const parser = new TaskFileParser();
  const before = parser.parse(text);
  const k = 1234;
  const t = before.tasks[k]!;
  // Insert a line in the middle of task k: it moves every later task down by one line.
  const nl = text.indexOf('\n', t.offset) + 1;
  const edited = text.slice(0, nl) + '    tags: [edited]\n' + text.slice(nl);
  const after = parser.parse(edited);
  assert.deepEqual(plain(after.issues), plain(parseTaskFile(edited).issues));
  let reused = 0;
  for (let i = 0; i < after.tasks.length; i++) if (i !== k && after.tasks[i]!.node === before.tasks[i]!.node) reused++;
  assert.equal(reused, after.tasks.length - 1, 'unchanged tasks were parsed again');
  assert.notEqual(after.tasks[k]!.node, before.tasks[k]!.node);
});

void test('a sequence of edits (insert, delete, break, repair) through one parser always equals a fresh parse', () => {
  let text = generate(['--tasks', '400', '--seed', '5', '--errors', '40']);
  const parser = new TaskFileParser();
  const check = (label: string): void => {
    const inc = parser.parse(text);
    const fresh = parseTaskFile(text);
    assert.deepEqual(plain(inc.issues), plain(fresh.issues), label);
    assert.deepEqual(perTask(inc), perTask(fresh), label);
  };
  check('initial');
  const tasks = parseTaskFile(text).tasks;
  const t100 = tasks[100]!;
  const t200 = tasks[200]!;
  const dup = text.slice(t100.offset, t100.offset + t100.length);
  text = text.slice(0, t200.offset) + dup + text.slice(t200.offset);
  check('duplicate a task (duplicate id appears)');
  text = text.slice(0, t200.offset) + text.slice(t200.offset + dup.length);
  check('remove it again');
  text = text.replace('tasks:\n', 'tasks: [\n');
  check('break the layout (whole-file path)');
  text = text.replace('tasks: [\n', 'tasks:\n');
  check('repair it');
  text = text + 'models:\n  m: { base_url: "http://localhost:1/v1", model: x }\n';
  check('top-level keys after the tasks');
  text = text.replace(/\n {2}- id: /, '\n  -  id: ');
  check('odd spacing after a dash');
});

/** Every 37th prefix of a text, and the text itself. */
function truncations(text: string): string[] {
  const out: string[] = [];
  for (let n = 0; n < text.length; n += 37) out.push(text.slice(0, n));
  out.push(text);
  return out;
}

/** Everything wrong with the ranges of a parse of `text`, as readable lines. */
function rangeProblems(file: TaskFile, text: string, label: string): string[] {
  const out: string[] = [];
  for (const i of file.issues) {
    if (!(i.start >= 0 && i.start <= i.end && i.end <= text.length))
      out.push(`${label}: ${i.code} [${i.start}, ${i.end}) outside [0, ${text.length}]: ${i.message}`);
    for (const f of i.fixes ?? [])
      if (!(f.start >= 0 && f.start <= f.end && f.end <= text.length))
        out.push(`${label}: fix [${f.start}, ${f.end}) outside the text`);
    if (i.message.length === 0) out.push(`${label}: empty message`);
  }
  for (const t of file.tasks)
    if (!(t.offset >= 0 && t.offset + t.length <= text.length))
      out.push(`${label}: task ${t.index} [${t.offset}, ${t.offset + t.length}) outside the text`);
  return out;
}

// A prefix can stop inside a quoted string or a flow mapping, so YAML reports an error at the
// very end of the text: its range must still end inside the text.
for (const name of ['valid', 'tabs-and-comments', 'flow-style', 'composite']) {
  void test(`truncating ${name}.vtask at every 37th offset never throws and keeps every issue in range`, () => {
    const parser = new TaskFileParser();
    const problems: string[] = [];
    for (const prefix of truncations(readFixture(name))) {
      const label = `${name} cut at ${prefix.length}`;
      let file: TaskFile;
      try {
        file = parseTaskFile(prefix);
      } catch (e) {
        assert.fail(`${label}: parseTaskFile threw ${(e as Error).stack}`);
      }
      problems.push(...rangeProblems(file, prefix, label));
      for (const i of file.issues) formatIssue(name, file.lines, i);
      // The same prefixes fed through one parser, as an editor would while the user types.
      const inc = parser.parse(prefix);
      assert.deepEqual(plain(inc.issues), plain(file.issues), `${label}: incremental parse differs`);
    }
    assert.deepEqual(problems, [], `${problems.length} range problems; the first: ${problems[0]}`);
  });
}

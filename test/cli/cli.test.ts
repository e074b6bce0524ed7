// The built CLI (out/cli.js, what `bin.vtask` points to) run as a real process from the repo root:
// exit codes, help and version, folder discovery, and the exact `file:line:col: severity: message`
// lines of `vtask check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const FIXTURES = 'test/fixtures/check';
const pkg = JSON.parse(fs.readFileSync(path.resolve(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

function vtask(args: readonly string[], cwd = ROOT): SpawnSyncReturns<string> {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

/** A fixture's `.expected` lines with the file name as the CLI prints it for `shown`. */
function expectedFor(name: string, shown: string): string[] {
  const text = fs.readFileSync(path.resolve(ROOT, FIXTURES, `${name}.expected`), 'utf8');
  return lines(text).map((l) => {
    assert.ok(l.startsWith(`${name}.vtask:`), `unexpected line in ${name}.expected: ${l}`);
    return shown + l.slice(`${name}.vtask`.length);
  });
}

/**
 * The fixtures' profiles send keys to OpenAI: allowed here, so that `check` prints only the
 * problems of the files (without it, a warning at each such profile; see endpointTrust.test.ts).
 */
const TRUSTED = ['--trust-endpoint', 'https://api.openai.com/v1'];

/** `file:line:col: severity: message` with one-based numbers and a non-empty message. */
const ISSUE_LINE = /^(.+):([1-9]\d*):([1-9]\d*): (error|warning|info): (\S.*)$/;

void test('bin.vtask points at the built CLI, which starts with a node shebang', () => {
  assert.equal(path.normalize(pkg.bin.vtask!), path.normalize('./out/cli.js'));
  assert.match(fs.readFileSync(CLI, 'utf8').split('\n')[0]!, /^#!.*node/);
});

void test('check on a valid file: exit 0, nothing on stdout, a summary on stderr', () => {
  const r = vtask(['check', `${FIXTURES}/valid.vtask`, ...TRUSTED]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /1 file/);
  assert.match(r.stderr, /20 tasks/);
  assert.match(r.stderr, /0 errors/);
});

void test('check on a file with issues: exit 1 and exactly the expected lines', () => {
  for (const name of ['duplicate-id', 'unknown-verifier', 'done-when', 'models', 'math-gold']) {
    const file = `${FIXTURES}/${name}.vtask`;
    const r = vtask(['check', file, ...TRUSTED]);
    assert.equal(r.status, 1, `${name}: ${r.stderr}`);
    assert.deepEqual(lines(r.stdout), expectedFor(name, file), name);
  }
});

void test('check prints every problem as file:line:col: error: message, on stdout only', () => {
  const files = fs
    .readdirSync(path.resolve(ROOT, FIXTURES))
    .filter((f) => f.endsWith('.vtask'))
    .sort()
    .map((f) => `${FIXTURES}/${f}`);
  const r = vtask(['check', ...files, ...TRUSTED]);
  assert.equal(r.status, 1);
  const out = lines(r.stdout);
  assert.ok(out.length > 50, `only ${out.length} lines`);
  for (const l of out) {
    const m = ISSUE_LINE.exec(l);
    assert.ok(m, `not file:line:col: severity: message: ${JSON.stringify(l)}`);
    assert.equal(m[4], 'error', l);
    assert.ok(files.includes(m[1]!), `unknown file in ${l}`);
  }
  // Files are reported in the order given, each file's issues by position.
  const order = out.map((l) => files.indexOf(ISSUE_LINE.exec(l)![1]!));
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
  );
  // The CRLF fixture: columns do not count the carriage return, lines are not doubled.
  assert.ok(
    out.includes(
      `${FIXTURES}/tabs-and-comments.vtask:30:5: error: unknown key \`verfiy\` in a task (did you mean \`verify\`?)`,
    ),
  );
  assert.doesNotMatch(r.stdout, /\r/);
  assert.match(r.stderr, new RegExp(`checked ${files.length} files`));
});

void test('a missing path is a usage error: exit 2, message on stderr', () => {
  const r = vtask(['check', `${FIXTURES}/valid.vtask`, 'no/such/file.vtask']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no\/such\/file\.vtask/);
  assert.doesNotMatch(r.stdout, /error:/);
});

void test('an unknown option is a usage error: exit 2', () => {
  for (const args of [
    ['check', '--frobnicate', `${FIXTURES}/valid.vtask`],
    ['check', `${FIXTURES}/valid.vtask`, '-x'],
  ]) {
    const r = vtask(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /--frobnicate|-x/);
    assert.equal(r.stdout, '');
  }
});

void test('check without paths, no command at all, and an unknown command are usage errors: exit 2', () => {
  const none = vtask(['check']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /file or folder|PATH/i);
  assert.equal(vtask([]).status, 2);
  const unknown = vtask(['chekc', `${FIXTURES}/valid.vtask`]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /chekc/);
});

void test('a usage error prints its one line and where the usage is, not the whole help: exit 2', () => {
  const bad = vtask(['export', `${FIXTURES}/valid.vtask`, '-o', path.join(os.tmpdir(), 'never.jsonl')]);
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, '');
  const [message, pointer, ...more] = lines(bad.stderr);
  assert.match(message ?? '', /^vtask export: --format is required: one of /);
  assert.equal(pointer, "run 'vtask help export' for usage");
  assert.deepEqual(more, [], 'nothing after the pointer: the help is not printed');
  const unknown = vtask(['chekc', `${FIXTURES}/valid.vtask`]);
  assert.deepEqual(
    [unknown.status, lines(unknown.stderr)],
    [2, ["vtask: unknown command 'chekc' (did you mean 'check'?)", "run 'vtask help' for usage"]],
  );
  // The pointer works: `vtask help <command>` is the command's own help.
  const help = vtask(['help', 'export']);
  assert.equal(help.status, 0);
  assert.equal(help.stdout, vtask(['export', '--help']).stdout);
  assert.match(help.stdout, /^Usage: vtask export /);
  const nosuch = vtask(['help', 'exprot']);
  assert.deepEqual(
    [nosuch.status, lines(nosuch.stderr)[0]],
    [2, "vtask: unknown command 'exprot' (did you mean 'export'?)"],
  );
});

void test('--help and -h print the usage and exit 0', () => {
  for (const flag of ['--help', '-h']) {
    const r = vtask([flag]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Usage: vtask/);
    assert.match(r.stdout, /\bcheck\b/);
  }
});

void test('--version and -v print the package.json version', () => {
  for (const flag of ['--version', '-v']) {
    const r = vtask([flag]);
    assert.equal(r.status, 0);
    assert.equal(r.stdout.trim(), pkg.version);
  }
});

void test('check --help prints the help of check and exits 0 without checking', () => {
  const r = vtask(['check', '--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Usage: vtask check/);
  assert.doesNotMatch(r.stdout, /^\S+:\d+:\d+: error:/m);
  const h = vtask(['check', 'no/such/path', '-h']);
  assert.equal(h.status, 0);
});

void test('a folder is searched recursively for .vtask, .vtask.yaml and .vtask.yml files', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bad = (id: string): string =>
    `vtask: 1\ntasks:\n  - id: ${id}\n    promt: hi\n    verify: { math: { answer: "1" } }\n`;
  const good = 'vtask: 1\ntasks:\n  - id: ok\n    prompt: hi\n    verify: { math: { answer: "1" } }\n';
  const files: Record<string, string> = {
    'a.vtask': bad('a'),
    'sub/b.vtask.yaml': bad('b'),
    'sub/deeper/c.vtask.yml': bad('c'),
    'sub/deeper/fine.vtask': good,
    'plain.yaml': bad('not-a-task-file'),
    'notes.vtask.txt': bad('not-a-task-file-either'),
    'node_modules/pkg/d.vtask': bad('in-node-modules'),
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const r = vtask(['check', dir]);
  assert.equal(r.status, 1, r.stderr);
  const line = (rel: string): string =>
    `${path.join(dir, rel)}:4:5: error: unknown key \`promt\` in a task (did you mean \`prompt\`?)`;
  assert.deepEqual(
    lines(r.stdout).sort(),
    [line('a.vtask'), line('sub/b.vtask.yaml'), line('sub/deeper/c.vtask.yml')].sort(),
  );
  assert.match(r.stderr, /checked 4 files/);

  // A relative folder, from another working directory, is printed relative as given.
  const rel = vtask(['check', 'sub'], dir);
  assert.equal(rel.status, 1);
  assert.deepEqual(
    lines(rel.stdout).sort(),
    [path.join('sub', 'b.vtask.yaml'), path.join('sub', 'deeper', 'c.vtask.yml')]
      .map((f) => `${f}:4:5: error: unknown key \`promt\` in a task (did you mean \`prompt\`?)`)
      .sort(),
  );

  // A folder holding only valid files passes.
  const ok = vtask(['check', path.join(dir, 'sub/deeper/fine.vtask')]);
  assert.equal(ok.status, 0, ok.stdout);
  // A file named explicitly is checked whatever its extension.
  const explicit = vtask(['check', path.join(dir, 'plain.yaml')]);
  assert.equal(explicit.status, 1);
  assert.match(explicit.stdout, /plain\.yaml:4:5: error: unknown key `promt`/);
});

void test('a folder without task files is not a failed check', (t) => {
  // Nothing to check is not a failed check (1) nor a usage error (2): the folder exists and is
  // valid, it just holds no task files; the summary on stderr says so.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-empty-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = vtask(['check', dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /checked 0 files, 0 tasks: 0 errors/);
});

void test('a large generated file is checked in one run', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-large-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'large.vtask');
  const g = spawnSync(
    process.execPath,
    [path.resolve(ROOT, 'scripts/gen-large.mjs'), file, '--tasks', '2000', '--errors', '100'],
    { encoding: 'utf8' },
  );
  assert.equal(g.status, 0, g.stderr);
  const r = vtask(['check', file]);
  assert.equal(r.status, 1);
  const out = lines(r.stdout);
  assert.equal(out.length, 20);
  for (const l of out) assert.match(l, ISSUE_LINE);
  assert.match(r.stderr, /2000 tasks/);
});

void test('test: a case whose script is missing is undecided, says why, is a JUnit error and fails the command', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-undecided-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'a.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: ok\n    prompt: p\n    verify: { match: { answer: "4" } }\n    cases:\n      - { response: "4", expect: pass }\n  - id: scripted\n    prompt: p\n    verify: { script: { path: ./checks/gone.mjs } }\n    cases:\n      - { response: "x", expect: fail }\n`,
  );
  const junit = path.join(dir, 'report.xml');
  const r = vtask(['test', file, '--junit', junit]);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.deepEqual(lines(r.stdout), [
    `${file}:12:9: unavailable: task scripted case 0: the script ./checks/gone.mjs was not found (looked for ${path.join(dir, 'checks', 'gone.mjs')})`,
    '1 passed, 0 failed, 1 undecided (their verifier could not give a verdict here; see above)',
  ]);
  const xml = fs.readFileSync(junit, 'utf8');
  assert.match(xml, /<testsuites name="vtask" tests="2" failures="0" errors="1">/);
  assert.match(
    xml,
    /name="scripted case 0" time="0"><error type="unavailable" message="no verdict: the script \.\/checks\/gone\.mjs was not found/,
  );
  assert.doesNotMatch(xml, /<skipped/);
  const json = vtask(['test', file, '--json']);
  assert.equal(json.status, 1);
  const out = JSON.parse(json.stdout) as {
    passed: number;
    failed: number;
    skipped: number;
    undecided: number;
    results: { undecided?: boolean; error?: string }[];
  };
  assert.deepEqual([out.passed, out.failed, out.skipped, out.undecided], [1, 0, 0, 1]);
  assert.deepEqual(
    out.results.map((x) => [x.undecided, x.error]),
    [
      [undefined, undefined],
      [true, 'unavailable'],
    ],
  );
  // vtask check already says the script is not there.
  const check = vtask(['check', file]);
  assert.equal(check.status, 1);
  assert.match(check.stdout, /a\.vtask:10:31: error: the script \.\/checks\/gone\.mjs was not found/);
});

/** `line:col` (one-based) of the `nth` occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string, nth: number): string {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${needle} #${nth} not found`);
  const before = text.slice(0, at);
  return `${before.split('\n').length}:${at - before.lastIndexOf('\n')}`;
}

void test('a one-line JSON task file is checked as its indented form, issues at their columns', (t) => {
  // YAML is a superset of JSON: what `json.dump` writes is a task file, on one line.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-json-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tasks = Array.from({ length: 3000 }, (_, i) => ({
    id: `m/${i === 2999 ? 7 : i}`,
    prompt: `What is ${i} + 2?`,
    verify: { math: i % 1000 === 500 ? { answr: String(i + 2) } : { answer: String(i + 2) } },
  }));
  const doc = { vtask: 1, tasks };
  const texts = { 'one.vtask': JSON.stringify(doc), 'indented.vtask': JSON.stringify(doc, null, 2) };
  const found: Record<string, string[]> = {};
  for (const [name, text] of Object.entries(texts)) {
    fs.writeFileSync(path.join(dir, name), text);
    const r = vtask(['check', name], dir);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /checked 1 file, 3000 tasks: 4 errors/);
    const expected = [
      ...[0, 1, 2].map(
        (k) =>
          `${name}:${positionOf(text, '"answr"', k)}: error: unknown key \`answr\` in \`math\` (did you mean \`answer\`?)`,
      ),
      `${name}:${positionOf(text, '"m/7"', 1)}: error: duplicate task id \`m/7\`: it is already used on line ${positionOf(text, '"m/7"', 0).split(':')[0]}`,
    ];
    assert.deepEqual(lines(r.stdout), expected);
    found[name] = lines(r.stdout).map((l) => l.replace(/^[^:]+:\d+:\d+: /, '').replace(/on line \d+/, 'on line N'));
  }
  assert.deepEqual(found['one.vtask'], found['indented.vtask']);
});

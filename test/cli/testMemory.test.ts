// `vtask test` in bounded memory: a file's tasks are read one at a time and their results are
// spooled (memory, then a temporary file), never all kept. A real process on a generated file
// under a heap limit the whole-file version could not run in, and the exact output of a small
// file with errors, failures and every report, as it was before the streaming.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CLI } from '../support/cliProcess';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-test-memory-'));

/** N small tasks (one in ten with a passing and a failing-expected case), the verifier in defaults. */
function compactTasks(n: number): string {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `- {id: t${i}, prompt: "Task ${i}: 2+2?"${i % 10 === 0 ? ', cases: [{response: "\\\\boxed{4}", expect: pass}, {response: "5", expect: fail}]' : ''}}`,
    );
  return lines.join('\n') + '\n';
}

test('vtask test runs 10,000 tasks of one file in a 24 MB heap (the whole-file version needed more than 32 MB)', () => {
  const file = path.join(DIR, 'large.vtask');
  fs.writeFileSync(file, compactTasks(10_000));
  const junit = path.join(DIR, 'large.xml');
  const r = spawnSync(process.execPath, ['--max-old-space-size=24', CLI, 'test', file, '--junit', junit], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.stderr.includes('heap out of memory'), false, r.stderr.slice(-500));
  assert.equal(r.stdout, '2000 passed, 0 failed\n');
  assert.equal(r.status, 0);
  const xml = fs.readFileSync(junit, 'utf8');
  assert.match(xml, /<testsuites name="vtask" tests="2000" failures="0" errors="0">/);
  assert.equal(xml.match(/<testcase /g)?.length, 2000);
});

test('vtask test runs 100,000 tasks of one file in a 32 MB heap: no chunk or map entry is kept per task', () => {
  // The file is read a block at a time and a task's place and id are kept outside the heap: a
  // build that kept the whole text, a chunk object per task and a Map of every id ran out of it.
  const file = path.join(DIR, 'larger.vtask');
  fs.writeFileSync(file, compactTasks(100_000));
  const r = spawnSync(process.execPath, ['--max-old-space-size=32', CLI, 'test', file], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(/out of memory|memory limit/.test(r.stderr), false, r.stderr.slice(-500));
  assert.equal(r.stdout, '20000 passed, 0 failed\n');
  assert.equal(r.status, 0);
});

const SMALL = `vtask: 1
bogus_top: 1
tasks:
  - id: a
    prompt: Capital of France?
    verify: { match: { answer: Paris } }
    cases:
      - { response: "Lyon", expect: pass }
      - { response: "Paris", expect: pass, name: right }
  - id: b
    prompt: x
    verify: { maths: {} }
    cases:
      - { response: "a", expect: pass }
  - id: a
    prompt: y
    verify: { match: { answer: y } }
    cases:
      - { response: "y", expect: fail }
extra_tail: 2
`;

test('vtask test prints a small file as before: its errors in file order, then the cases that did not pass', () => {
  const file = path.join(DIR, 'small.vtask');
  fs.writeFileSync(file, SMALL);
  const junit = path.join(DIR, 'small.xml');
  const r = spawnSync(process.execPath, [CLI, 'test', file, '--junit', junit], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 1);
  assert.equal(
    r.stdout,
    [
      `${file}:2:1: error: unknown key \`bogus_top\` in the file`,
      `${file}:12:15: error: unknown verifier kind \`maths\` (did you mean \`math\`?)`,
      `${file}:15:9: error: duplicate task id \`a\`: it is already used on line 4`,
      `${file}:20:1: error: unknown key \`extra_tail\` in the file`,
      `${file}:8:9: fail: task a case 0: expected pass, got fail: got "Lyon", expected "Paris" (normalized)`,
      '1 passed, 1 failed',
      '',
    ].join('\n'),
  );
  const xml = fs.readFileSync(junit, 'utf8');
  assert.match(
    xml,
    /<testsuites name="vtask" tests="2" failures="5" errors="0">\n {2}<testsuite name="[^"]*small.vtask" tests="6" failures="5" errors="0" skipped="0">\n {4}<testcase classname="[^"]*" name="validation">/,
  );
  const json = spawnSync(process.execPath, [CLI, 'test', file, '--json'], { encoding: 'utf8', timeout: 60_000 });
  const out = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(out), ['passed', 'failed', 'skipped', 'undecided', 'invalid', 'results']);
  assert.deepEqual(out.results, [
    {
      file,
      task: 'a',
      case: 0,
      expected: 'pass',
      actual: 'fail',
      ok: false,
      score: 0,
      reason: 'got "Lyon", expected "Paris" (normalized)',
    },
    {
      file,
      task: 'a',
      case: 1,
      name: 'right',
      expected: 'pass',
      actual: 'pass',
      ok: true,
      score: 1,
      reason: 'normalized match of "Paris"',
    },
  ]);
  assert.equal(out.invalid, 4);
});

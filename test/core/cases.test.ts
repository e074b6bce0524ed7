import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCases } from '../../src/core/run/cases';
import { JunitReport } from '../../src/core/run/junit';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

const FILE = `vtask: 1
defaults:
  system: Be brief.
  verify: { match: { answer: Paris } }
tasks:
  - id: inherits
    prompt: Capital of France?
    cases:
      - { response: "Paris", expect: pass }
      - { response: "Lyon", expect: pass, name: wrong on purpose }
  - id: scored
    prompt: x
    verify:
      all: [{ match: { answer: a } }, { match: { answer: b } }]
    cases:
      - { response: "a", expect: { score: 0.5 } }
  - id: broken
    prompt: x
    verify: { maths: {} }
    cases:
      - { response: "a", expect: pass }
`;

test('defaults apply, broken tasks are left out, cases are judged', async () => {
  const { tasks, skipped } = runnableTasks(parseTaskFile(FILE));
  assert.deepEqual(
    tasks.map((t) => t.id),
    ['inherits', 'scored'],
  );
  assert.deepEqual(
    skipped.map((t) => t.id),
    ['broken'],
  );
  assert.deepEqual(tasks[0]?.messages, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Capital of France?' },
  ]);
  const results = await runCases(tasks, { file: 'x.vtask' });
  assert.deepEqual(
    results.map((r) => [r.task, r.case, r.ok]),
    [
      ['inherits', 0, true],
      ['inherits', 1, false],
      ['scored', 0, true],
    ],
  );
  assert.equal(FILE.slice(results[1]!.offset).startsWith('{ response: "Lyon"'), true);
  const report = new JunitReport();
  report.begin('x.vtask');
  for (const r of results) report.result(r);
  report.error('x.vtask:19:7: error: unknown verifier kind');
  await report.end();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-junit-')), 'report.xml');
  await report.write(out);
  report.close();
  const xml = fs.readFileSync(out, 'utf8');
  assert.match(xml, /<testsuites name="vtask" tests="3" failures="2" errors="0">/);
  assert.match(xml, /inherits case 1 \(wrong on purpose\)".*<failure message="expected pass, got fail/);
  // Validation errors come first in their suite, whenever they were met.
  assert.match(
    xml,
    /<testsuite name="x.vtask" tests="4" failures="2" errors="0" skipped="0">\n {4}<testcase classname="x.vtask" name="validation">/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCases } from '../../src/core/run/cases';
import { junitXml } from '../../src/core/run/junit';
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
  assert.deepEqual(tasks.map((t) => t.id), ['inherits', 'scored']);
  assert.deepEqual(skipped.map((t) => t.id), ['broken']);
  assert.deepEqual(tasks[0]?.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Capital of France?' }]);
  const results = await runCases(tasks, { file: 'x.vtask' });
  assert.deepEqual(results.map((r) => [r.task, r.case, r.ok]), [['inherits', 0, true], ['inherits', 1, false], ['scored', 0, true]]);
  assert.equal(FILE.slice(results[1]!.offset).startsWith('{ response: "Lyon"'), true);
  const xml = junitXml([{ file: 'x.vtask', results, errors: ['x.vtask:19:7: error: unknown verifier kind'] }]);
  assert.match(xml, /<testsuites name="vtask" tests="3" failures="2" errors="0">/);
  assert.match(xml, /inherits case 1 \(wrong on purpose\)".*<failure message="expected pass, got fail/);
});

// `vtask test` on the math verifier's golden cases (test/fixtures/math/shapes.vtask): answers
// written as models write them (named values, repeating decimals, mixed numbers, numerals in a
// base, units, percent) and the task-file options, each with responses that must and must not pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');

interface TestJson {
  passed: number;
  failed: number;
  results: { task: string; case: number; ok: boolean; reason: string }[];
}

void test('vtask test passes every math shape case, for the reasons a person would give', () => {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
  const r = spawnSync(process.execPath, [CLI, 'test', 'test/fixtures/math/shapes.vtask', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout) as TestJson;
  assert.deepEqual(
    out.results.filter((x) => !x.ok).map((x) => `${x.task}#${x.case}: ${x.reason}`),
    [],
  );
  assert.equal(out.passed, 38);
  const reason = (task: string, n: number): string =>
    out.results.find((x) => x.task === task && x.case === n)?.reason ?? '';
  assert.match(reason('binary', 3), /expected a base-2 numeral/);
  assert.match(reason('juxtaposed', 1), /two numbers side by side/);
  assert.match(
    reason('named/terms', 3),
    /expected a_3 = 2, a_\{37\} = 19 \(unnamed values are read in the order a_3, a_37\)/,
  );
  assert.match(reason('percent', 1), /extracted 0\.25\\% from .*, expected 0\.25$/);
  assert.match(reason('options/set-relation', 1), /expected a set, got an inequality \(set_relation: false\)/);
});

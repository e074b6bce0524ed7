// The tests that read ../shared (test/support/conformance.ts) in a checkout with nothing beside it,
// as a new contributor's clone is: outside CI they skip with a `needs:` reason saying where the
// data comes from; under CI=true, where ../shared is always laid, they fail. The data is found from
// the compiled test's own place: run from this repository's root (which has ../shared beside it),
// the lone copy still does not find it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/conformance';

/** A lone checkout: package.json, the compiled conformance test and the packages it loads. */
function loneCheckout(): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-lone-'));
  const repo = path.join(dir, 'vtask');
  const file = path.join(repo, 'out/test/core/conformance-code.test.js');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'out/test/core/conformance-code.test.js'), file);
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(repo, 'package.json'));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(repo, 'node_modules'), 'dir');
  return { dir, file };
}

/** node --test on one file, from this repository's root, with TAP output. */
function nodeTest(file: string, ci: string | undefined): { status: number | null; tap: string } {
  const env = { ...process.env, CI: ci, NODE_TEST_CONTEXT: undefined };
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, tap: r.stdout + r.stderr };
}

void test('without ../shared: a conformance test skips with `needs:` outside CI and fails under CI=true', () => {
  const { dir, file } = loneCheckout();
  try {
    const dev = nodeTest(file, undefined);
    assert.equal(dev.status, 0, dev.tap);
    assert.match(
      dev.tap,
      /^ok 1 - code execution agrees with open-instruct and verl # SKIP needs: \.\.\/shared\/conformance beside the repository \(the peers' test suites\)$/m,
    );
    assert.match(dev.tap, /^# skipped 1$/m);

    const ci = nodeTest(file, 'true');
    assert.equal(ci.status, 1, ci.tap);
    assert.match(ci.tap, /^# fail 1$/m);
    assert.ok(
      ci.tap.includes(
        `ENOENT: no such file or directory, open '${path.join(dir, 'shared/conformance/code_exec_cases.jsonl')}'`,
      ),
      ci.tap,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

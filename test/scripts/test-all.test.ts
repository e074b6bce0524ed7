// The test runner itself (scripts/test-all.mjs), run as a person runs it: a failure, a skip and an
// empty suite must each show in its exit code and in its last line. It runs with --no-build: the
// out/ this test runs from is current, and a rebuild here would pull out/test from under the
// other test files running beside it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const RUNNER = path.resolve(process.cwd(), 'scripts/test-all.mjs');

function runner(
  env: Record<string, string | undefined>,
  stage = 'unit',
): Promise<{ code: number | null; stdout: string; last: string }> {
  return new Promise((resolve, reject) => {
    const clean = {
      ...process.env,
      CI: undefined,
      VTASK_CANARY: undefined,
      VTASK_TEST_ONLY: undefined,
      NODE_TEST_CONTEXT: undefined,
    };
    const child = spawn(process.execPath, [RUNNER, '--no-build', stage], {
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the runner did not finish within 60 s:\n${stdout}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, last: stdout.trimEnd().split('\n').pop() ?? '' });
    });
  });
}

void test('VTASK_CANARY=1: the failing canary makes the runner exit 1 with "1 failed", and every skip is listed', async () => {
  const r = await runner({ VTASK_CANARY: '1', VTASK_TEST_ONLY: 'canary/' });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.last, '0 passed, 1 failed, 2 skipped', r.stdout);
  assert.match(
    r.stdout,
    /skipped: out\/test\/canary\/skip\.test\.js › canary: a conformance check skipped without saying what it needs: data not loaded/,
  );
  assert.match(
    r.stdout,
    /skipped: out\/test\/canary\/skip\.test\.js › canary: a parity check skipped for want of something: needs: a file this machine lacks/,
  );
});

void test('CI=true: a conformance skip without `needs:` fails; one that says what it needs stays a skip', async () => {
  const r = await runner({ VTASK_CANARY: '1', VTASK_TEST_ONLY: 'canary/skip', CI: 'true' });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.last, '0 passed, 1 failed, 1 skipped', r.stdout);
  assert.match(r.stdout, /FAILED \(skipped in CI\): out\/test\/canary\/skip\.test\.js › canary: a conformance check/);
});

void test('no test files is a failure, not "0 passed, 0 failed"', async () => {
  // Without VTASK_CANARY the canary folder is not even looked at.
  const r = await runner({ VTASK_TEST_ONLY: 'canary/' });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.last, '0 passed, 1 failed, 0 skipped', r.stdout);
  assert.match(r.stdout, /unit\s+FAIL\s+0\s+1\s+0\s+\S+\s+no test files/);
});

void test('outside CI, e2e-floor without the floor VS Code is a skip that names the install command, in the table and the last line', async () => {
  // An empty cache has no floor VS Code; the main runtime is given by its overrides, so that
  // nothing is installed here.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-floor-cache-'));
  try {
    const r = await runner(
      { VTASK_CACHE: cache, VTASK_NODE24: process.execPath, VTASK_CODE_SERVER: RUNNER, VTASK_CHROMIUM: RUNNER },
      'e2e-floor',
    );
    assert.equal(r.code, 0, r.stdout);
    assert.equal(r.last, '0 passed, 0 failed, 1 skipped', r.stdout);
    assert.match(
      r.stdout,
      /^skipped: needs: code-server 4\.90\.3 \(VS Code 1\.90, about 600 MB\): bash scripts\/install-vscode-floor\.sh$/m,
    );
    assert.match(r.stdout, /^e2e-floor\s+-\s+0\s+0\s+1\s+\S+\s+needs: code-server 4\.90\.3/m);
    assert.deepEqual(fs.readdirSync(cache), [], 'nothing was installed');
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

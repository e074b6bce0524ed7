// The mutation script's targets are text in the source files; an edit that changes one would
// silently take its mutant out of `npm run mutation`. `--check` finds every target, quickly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/conformance';

test('every mutation of npm run mutation still finds its target in the source', () => {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/mutation.mjs'), '--check'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `targets missing:\n${r.stderr}`);
  const m = /^(\d+)\/(\d+) mutation targets found$/m.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.equal(m[1], m[2]);
  assert.ok(Number(m[2]) >= 50, `only ${m[2]} mutations in scope`);
});

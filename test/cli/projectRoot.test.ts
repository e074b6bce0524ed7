// The folder a dataset's script may read is the task file's own (or one the user names with
// --root), never an ancestor found by walking up. Run as an unprivileged user (as root, the
// sandbox's per-run user could not read mode-600 files anyway, which would hide a leak) whose
// home folder is a dotfiles repository holding ~/.ssh/id_rsa, with a downloaded dataset in
// ~/datasets/x/ whose script tries to read that key and ../other/.env.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI } from '../support/cliProcess';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-home-'));
const x = path.join(home, 'datasets', 'x');
const key = path.join(home, '.ssh', 'id_rsa');
const KEY_TEXT = 'PRIVATE-KEY-0123456789';
const ENV_TEXT = 'OTHER_PROJECT_SECRET=42';

fs.mkdirSync(path.join(home, '.git'));
fs.mkdirSync(path.dirname(key));
fs.writeFileSync(key, KEY_TEXT, { mode: 0o600 });
fs.mkdirSync(path.join(home, 'datasets', 'other'), { recursive: true });
fs.writeFileSync(path.join(home, 'datasets', 'other', '.env'), ENV_TEXT, { mode: 0o600 });
fs.mkdirSync(x, { recursive: true });
// Passes when it could read neither file; fails saying what it read otherwise.
fs.writeFileSync(
  path.join(x, 'check.mjs'),
  `import fs from 'node:fs';
const tryRead = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return undefined; } };
export function verify() {
  const got = [tryRead(${JSON.stringify(key)}), tryRead('../other/.env')].filter((t) => t !== undefined);
  return { pass: got.length === 0, reason: got.length ? 'read: ' + got.join(' | ') : 'read nothing' };
}
`,
);
fs.writeFileSync(
  path.join(x, 'data.vtask'),
  `vtask: 1
tasks:
  - id: peek
    prompt: anything
    verify: { script: { path: ./check.mjs } }
    cases:
      - { response: anything, expect: pass }
`,
);
// The whole home belongs to the user the CLI runs as.
if (isRoot) for (const p of [home, ...walk(home)]) fs.chownSync(p, NOBODY, NOBODY);

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? [p, ...walk(p)] : [p];
  });
}

after(() => fs.rmSync(home, { recursive: true, force: true }));

/** `vtask test` on the dataset as the home's user (nobody when this runs as root). */
function vtaskTest(...flags: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [CLI, 'test', path.join(x, 'data.vtask'), ...flags], {
    cwd: x,
    env: { ...process.env, HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

test("a dataset's script cannot read ~/.ssh/id_rsa or another project's .env above its folder", (t) => {
  const r = vtaskTest();
  if (/isolation: WEAK/.test(r.out))
    return t.skip('needs: the full sandbox (bubblewrap) for an unprivileged user: weak isolation hides no file');
  assert.doesNotMatch(r.out, new RegExp(`${KEY_TEXT}|${ENV_TEXT}`));
  assert.match(r.out, /1 passed, 0 failed/);
  assert.equal(r.code, 0, r.out);
});

test('with --root naming the home folder, the user chose to let it read there (the probe above can see a leak)', (t) => {
  const r = vtaskTest('--root', home);
  if (/isolation: WEAK/.test(r.out)) return t.skip('needs: the full sandbox (bubblewrap) for an unprivileged user');
  assert.match(r.out, new RegExp(`read: ${KEY_TEXT} \\| ${ENV_TEXT}`));
  assert.equal(r.code, 1);
});

test("a script outside the task file's folder is refused, saying which folder it may read", () => {
  const other = path.join(x, 'outside.vtask');
  fs.writeFileSync(
    other,
    `vtask: 1\ntasks:\n  - id: up\n    prompt: p\n    verify: { script: { path: ../other/check.mjs } }\n    cases:\n      - { response: r, expect: pass }\n`,
  );
  fs.copyFileSync(path.join(x, 'check.mjs'), path.join(home, 'datasets', 'other', 'check.mjs'));
  if (isRoot)
    for (const p of [other, path.join(home, 'datasets', 'other', 'check.mjs')]) fs.chownSync(p, NOBODY, NOBODY);
  const r = spawnSync(process.execPath, [CLI, 'test', other], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home },
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  assert.match(r.stdout + r.stderr, /the script .*check\.mjs is outside the folder it may read \(.*datasets\/x\)/);
  assert.doesNotMatch(r.stdout + r.stderr, new RegExp(KEY_TEXT));
});

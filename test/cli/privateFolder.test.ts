// As root, in a folder other users cannot enter (a `mktemp -d`, mode 700), agent environments and
// script verifiers start and pass: the sandbox's per-run user gets what it needs of the folder,
// and no more (a mode-600 file beside the task stays unreadable to it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCliProcess } from '../support/cliProcess';

const isRoot = process.getuid?.() === 0;
const examples = path.resolve(__dirname, '../../../examples');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-private-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the folder is private: mode 700', () => {
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
});

test(
  "as root in a private folder, the examples' agent environments (JS and Python) run and pass",
  { skip: !isRoot && 'needs: root (the per-run sandbox user exists only then)' },
  async (t) => {
    fs.cpSync(path.join(examples, 'envs'), path.join(dir, 'envs'), { recursive: true });
    fs.copyFileSync(path.join(examples, 'agent-kv.vtask'), path.join(dir, 'agent-kv.vtask'));
    const r = await runCliProcess(['test', path.join(dir, 'agent-kv.vtask')], {}, 120_000);
    if (/isolation: WEAK/.test(r.stderr)) return t.skip('needs: the full sandbox (bubblewrap)');
    assert.doesNotMatch(r.stdout + r.stderr, /Permission denied|could not be started|skipped/);
    assert.match(r.stdout, /^11 passed, 0 failed$/m);
    assert.equal(r.code, 0);
  },
);

test(
  'as root in a private folder, a script verifier reads its data beside it but not a mode-600 file',
  { skip: !isRoot && 'needs: root (the per-run sandbox user exists only then)' },
  async (t) => {
    fs.writeFileSync(path.join(dir, 'data.txt'), '72\n');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'root-only\n', { mode: 0o600 });
    fs.writeFileSync(
      path.join(dir, 'check.mjs'),
      `import fs from 'node:fs';
let secret = 'unreadable';
try { secret = fs.readFileSync('secret.txt', 'utf8').trim(); } catch {}
export function verify(response) {
  const want = fs.readFileSync('data.txt', 'utf8').trim();
  return { pass: response.trim() === want && secret === 'unreadable', reason: 'want ' + want + ', secret ' + secret };
}
`,
    );
    fs.writeFileSync(
      path.join(dir, 'script.vtask'),
      `vtask: 1
tasks:
  - id: answer
    prompt: How many clips?
    verify: { script: { path: ./check.mjs } }
    cases:
      - { response: "72", expect: pass }
      - { response: "71", expect: fail }
`,
    );
    const r = await runCliProcess(['test', path.join(dir, 'script.vtask')], {}, 60_000);
    if (/isolation: WEAK/.test(r.stderr)) return t.skip('needs: the full sandbox (bubblewrap)');
    assert.doesNotMatch(r.stdout + r.stderr, /root-only|Permission denied|skipped/);
    assert.match(r.stdout, /^2 passed, 0 failed$/m);
    assert.equal(r.code, 0);
  },
);

// `vtask env RUN`: an environment behind vtask's sandbox for programs outside vtask. As a real
// process: the protocol relayed (a fresh environment per reset, calls checked against the
// tool's schema, the state), errors as replies, a crashing environment recovered by the next
// reset; and the Python package starting JS module and Python environments through it, and
// refusing to run one unsandboxed unless told to.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { python, pythonMissing } from '../support/python';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-env-relay-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
for (const f of ['kv_store.mjs', 'kv_store.py'])
  fs.copyFileSync(path.join(ROOT, 'examples/envs', f), path.join(DIR, f));
fs.chmodSync(path.join(DIR, 'kv_store.py'), 0o755);
// Answers reset, then dies on its first call.
fs.writeFileSync(
  path.join(DIR, 'crash.mjs'),
  `export const reset = () => ({ tools: [{ name: 'boom', parameters: { type: 'object' } }] });\nexport function call() { process.exit(3); }\nexport const state = () => ({});\n`,
);

/** Sends `requests` (one per line) to `vtask env RUN` and returns its replies, parsed. */
function relay(
  run: string,
  requests: readonly unknown[],
): { replies: unknown[]; stderr: string; status: number | null } {
  const input = requests.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
  const r = spawnSync(process.execPath, [CLI, 'env', run], { cwd: DIR, input, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.error, undefined, String(r.error));
  return {
    replies: r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown),
    stderr: r.stderr,
    status: r.status,
  };
}

for (const run of ['kv_store.mjs', 'kv_store.py']) {
  void test(`vtask env ${run}: each reset a fresh environment, calls checked and relayed, the state, errors as replies`, () => {
    const { replies, stderr, status } = relay(run, [
      { op: 'call', tool: 'get', args: { key: 'fr' } },
      { op: 'reset', args: { data: { fr: 'Lyon' } } },
      { op: 'call', tool: 'get', args: { key: 'fr' } },
      { op: 'call', tool: 'get', args: { key: 3 } },
      { op: 'call', tool: 'nope', args: {} },
      { op: 'state' },
      { op: 'reset', args: {} },
      { op: 'state' },
      'not json',
    ]);
    assert.equal(status, 0, stderr);
    const [early, tools, got, bad, unknown, state, again, fresh, garbled] = replies as Record<string, unknown>[];
    assert.match(String(early?.error), /send \{"op": "reset"\} first/);
    assert.deepEqual(
      (tools?.tools as { name: string }[]).map((t) => t.name),
      ['get', 'set', 'list'],
    );
    assert.deepEqual(got, { result: 'Lyon' });
    assert.deepEqual(bad, { error: 'invalid arguments for get: key must be string' });
    assert.match(String(unknown?.error), /unknown tool "nope"; the tools are get, set, list/);
    assert.deepEqual(state, { store: { fr: 'Lyon' }, lookups: 1 });
    assert.ok(Array.isArray(again?.tools));
    assert.equal((fresh as { lookups: number }).lookups, 0, 'the second reset started a fresh environment');
    assert.match(String(garbled?.error), /one JSON object per line/);
    assert.match(stderr, /isolation: full sandbox \(bwrap/, 'how it was isolated is said');
  });
}

void test('vtask env: an environment that dies on a call answers an error, and the next reset starts a new one', () => {
  const { replies, status } = relay('crash.mjs', [
    { op: 'reset' },
    { op: 'call', tool: 'boom', args: {} },
    { op: 'state' },
    { op: 'reset' },
  ]);
  assert.equal(status, 0);
  const [, died, gone, back] = replies as Record<string, unknown>[];
  assert.match(String(died?.error), /crash\.mjs exited with code 3/);
  assert.match(String(gone?.error), /send \{"op": "reset"\} first/);
  assert.ok(Array.isArray(back?.tools));
});

void test('vtask env: usage errors exit 2', () => {
  const none = spawnSync(process.execPath, [CLI, 'env'], { encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /name the environment to start/);
  const flag = spawnSync(process.execPath, [CLI, 'env', 'x.mjs', '--timeout'], { encoding: 'utf8' });
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /did you mean '--timeout-ms'/);
});

void test('Python: the package starts JS module and Python environments in the sandbox through vtask env, and never unsandboxed unless told', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const script = `
import json, sys
from vtask_reward.environment import Environment
out = {}
for run in ["kv_store.mjs", "kv_store.py"]:
    with Environment(run, base_dir=sys.argv[1]) as env:
        names = [t["name"] for t in env.reset({"data": {"fr": "Lyon"}})]
        out[run] = {"tools": names, "get": env.call("get", {"key": "fr"}), "bad": env.call("get", {"key": 3}), "state": env.state()}
print(json.dumps(out))
`;
  const got = JSON.parse(python(['-c', script, DIR]).trim()) as Record<string, unknown>;
  for (const run of ['kv_store.mjs', 'kv_store.py']) {
    assert.deepEqual(
      got[run],
      {
        tools: ['get', 'set', 'list'],
        get: { result: 'Lyon' },
        bad: { error: 'invalid arguments for get: key must be string' },
        state: { store: { fr: 'Lyon' }, lookups: 1 },
      },
      run,
    );
  }
  // Without vtask the environment is not run at all, and the error says how to opt in.
  const noVtask = { VTASK_CLI: path.join(DIR, 'no-such-vtask') };
  const refused = python(
    [
      '-c',
      'import sys\nfrom vtask_reward.environment import Environment, EnvironmentFailure\ntry:\n    Environment("kv_store.py", base_dir=sys.argv[1]).reset({})\nexcept EnvironmentFailure as e:\n    print(e)',
      DIR,
    ],
    noVtask,
  );
  assert.match(refused, /environments run in vtask's sandbox, and the vtask command .* is not found.*isolation='none'/);
  const optedIn = python(
    [
      '-c',
      'import sys, json\nfrom vtask_reward.environment import Environment\nwith Environment("kv_store.py", base_dir=sys.argv[1], isolation="none") as e:\n    e.reset({})\n    print(json.dumps(e.call("get", {"key": "fr"})))',
      DIR,
    ],
    noVtask,
  );
  assert.deepEqual(JSON.parse(optedIn.trim()), { result: 'Paris' });
});

// Agent environments (spec §6): JS modules and executables in any language, each one sandboxed
// process speaking one JSON object per line; crashes, hangs, garbage and bad tool lists end
// with a clear error and no process left behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EnvironmentError, startEnvironment, type EnvironmentContext, type StartedEnvironment } from '../../src/core/agent/environment';
import { getSandbox } from '../../src/core/sandbox';
import { which } from '../../src/core/sandbox/backends';

// Environments live in a temporary project (readable by the sandbox's user, unlike a home folder).
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-env-test-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
const EXAMPLES = path.resolve(__dirname, '../../../examples');

function write(name: string, text: string, mode = 0o644): string {
  fs.mkdirSync(path.dirname(path.join(DIR, name)), { recursive: true });
  fs.writeFileSync(path.join(DIR, name), text, { mode });
  return name;
}

const never = new AbortController().signal;

function ctx(extra: Partial<EnvironmentContext> = {}): EnvironmentContext {
  return { dir: DIR, trusted: true, signal: never, ...extra };
}

/** Starts an environment, hands it to `fn` and always closes it. */
async function withEnv<T>(run: string, fn: (env: StartedEnvironment) => Promise<T>, extra: Partial<EnvironmentContext> = {}, args?: Record<string, unknown>): Promise<T> {
  const env = await startEnvironment({ run, ...(args ? { args } : {}) }, ctx(extra));
  try {
    return await fn(env);
  } finally {
    await env.close();
  }
}

async function startError(run: string, extra: Partial<EnvironmentContext> = {}): Promise<EnvironmentError> {
  const started = Date.now();
  try {
    const env = await startEnvironment({ run }, ctx(extra));
    await env.close();
  } catch (e) {
    assert.ok(e instanceof EnvironmentError, String(e));
    assert.ok(Date.now() - started < 15_000, 'fails in bounded time');
    return e;
  }
  assert.fail(`${run} started`);
}

// The Python environment of spec §6, verbatim.
const SPEC_PYTHON = `#!/usr/bin/env python3
import json, sys
count = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "reset":
        count = m.get("args", {}).get("start", 0)
        out = {"tools": [{"name": "bump", "description": "Add one and return the count.",
                          "parameters": {"type": "object", "properties": {}}}]}
    elif m["op"] == "call" and m["tool"] == "bump":
        count += 1; out = {"result": count}
    elif m["op"] == "state":
        out = {"count": count}
    else:
        out = {"error": f"unknown request {m}"}
    print(json.dumps(out), flush=True)
`;

void test('the Python environment of the spec runs unchanged: reset with args, calls, state', async (t) => {
  write('counter.py', SPEC_PYTHON, 0o755);
  await withEnv(
    './counter.py',
    async (env) => {
      t.diagnostic(`start-up ${env.startupMs} ms; ${env.isolation}`);
      assert.deepEqual(env.tools.map((x) => x.name), ['bump']);
      assert.deepEqual(env.tools[0]?.parameters, { type: 'object', properties: {} });
      assert.deepEqual(await env.call('bump', {}, never), { result: 6 });
      assert.deepEqual(await env.call('bump', {}, never), { result: 7 });
      assert.deepEqual(await env.call('nope', {}, never), { error: "unknown request {'op': 'call', 'tool': 'nope', 'args': {}}" });
      assert.deepEqual(await env.state(never), { count: 7 });
      const sb = await getSandbox();
      assert.equal(env.sandboxIsolation.method, sb.method);
      assert.match(env.isolation, new RegExp(`^${sb.method} \\((full|weak)\\): `));
    },
    {},
    { start: 5 },
  );
});

void test('a JS module environment: sync and async exports, thrown errors become error results, console.log does not break the protocol', async () => {
  write(
    'kv.mjs',
    [
      'let store = {}; let n = 0;',
      'export function reset(args) { console.log("resetting"); store = { ...(args.data ?? {}) }; return [{ name: "get", parameters: { type: "object", properties: { key: { type: "string" } } } }]; }',
      'export async function call(tool, args) { n++; if (!(args.key in store)) throw new Error(`no ${args.key}`); return { value: store[args.key] }; }',
      'export const state = () => ({ n, store });',
    ].join('\n'),
  );
  await withEnv(
    'kv.mjs',
    async (env) => {
      assert.deepEqual(env.tools, [{ name: 'get', parameters: { type: 'object', properties: { key: { type: 'string' } } } }]);
      assert.deepEqual(await env.call('get', { key: 'a' }, never), { result: { value: 1 } });
      assert.deepEqual(await env.call('get', { key: 'b' }, never), { error: 'no b' });
      assert.deepEqual(await env.state(never), { n: 2, store: { a: 1 } });
    },
    {},
    { data: { a: 1 } },
  );
});

void test('the example key-value stores (JS module and Python executable) behave alike', async () => {
  for (const run of ['envs/kv_store.mjs', 'envs/kv_store.py']) {
    await withEnv(
      run,
      async (env) => {
        assert.deepEqual(env.tools.map((x) => x.name), ['get', 'set', 'list'], run);
        assert.deepEqual(await env.call('get', { key: 'fr' }, never), { result: 'Paris' }, run);
        assert.deepEqual(await env.call('set', { key: 'pt', value: 'Lisbon' }, never), { result: 'ok' }, run);
        assert.deepEqual(await env.call('get', { key: 'xx' }, never), { error: 'no value under "xx"' }, run);
        assert.deepEqual(await env.call('list', {}, never), { result: ['de', 'es', 'fr', 'it', 'pt'] }, run);
        const s = (await env.state(never)) as { lookups: number; store: Record<string, string> };
        assert.equal(s.lookups, 2, run);
        assert.equal(s.store.pt, 'Lisbon', run);
      },
      { dir: EXAMPLES },
    );
  }
});

// Agent environments (spec §6): JS modules and executables in any language, each one sandboxed
// process speaking one JSON object per line; crashes, hangs, garbage and bad tool lists end
// with a clear error and no process left behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  EnvironmentError,
  startEnvironment,
  type EnvironmentContext,
  type StartedEnvironment,
} from '../../src/core/agent/environment';
import { replayCalls } from '../../src/core/agent/replay';
import { validateToolArgs } from '../../src/core/agent/toolArgs';
import { ALLOW_WEAK_ENV, detectSandbox, getSandbox } from '../../src/core/sandbox';
import { countingListener } from '../support/listener';
import { noSurvivors, survivors } from '../support/survivors';

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
const LINUX = process.platform === 'linux';
/** No test may hang: a broken timeout fails the test instead. */
const LIMIT = { timeout: 30_000 };

/** A unique name, so that the environment's processes can be found by their command line. */
function token(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** Every session a test starts is closed at the end, even when the test fails half-way (an open one would keep the tests running). */
const open = new Set<StartedEnvironment>();
after(() => Promise.all([...open].map((e) => e.close())));

async function start(spec: Parameters<typeof startEnvironment>[0], c: EnvironmentContext): Promise<StartedEnvironment> {
  const env = await startEnvironment(spec, c);
  open.add(env);
  return env;
}

function ctx(extra: Partial<EnvironmentContext> = {}): EnvironmentContext {
  return { dir: DIR, trusted: true, signal: never, ...extra };
}

/** Starts an environment, hands it to `fn` and always closes it. */
async function withEnv<T>(
  run: string,
  fn: (env: StartedEnvironment) => Promise<T>,
  extra: Partial<EnvironmentContext> = {},
  args?: Record<string, unknown>,
): Promise<T> {
  const env = await start({ run, ...(args ? { args } : {}) }, ctx(extra));
  try {
    return await fn(env);
  } finally {
    await env.close();
  }
}

async function startError(run: string, extra: Partial<EnvironmentContext> = {}): Promise<EnvironmentError> {
  const started = Date.now();
  try {
    const env = await start({ run }, ctx(extra));
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

void test('the Python environment of the spec runs unchanged: reset with args, calls, state', LIMIT, async (t) => {
  write('counter.py', SPEC_PYTHON, 0o755);
  await withEnv(
    './counter.py',
    async (env) => {
      t.diagnostic(`start-up ${env.startupMs} ms; ${env.isolation}`);
      assert.deepEqual(
        env.tools.map((x) => x.name),
        ['bump'],
      );
      assert.deepEqual(env.tools[0]?.parameters, { type: 'object', properties: {} });
      assert.deepEqual(await env.call('bump', {}, never), { result: 6 });
      assert.deepEqual(await env.call('bump', {}, never), { result: 7 });
      assert.deepEqual(await env.call('nope', {}, never), {
        error: "unknown request {'op': 'call', 'tool': 'nope', 'args': {}}",
      });
      assert.deepEqual(await env.state(never), { count: 7 });
      const sb = await getSandbox();
      assert.equal(env.sandboxIsolation.method, sb.method);
      assert.match(env.isolation, new RegExp(`^${sb.method} \\((full|weak)\\): `));
    },
    {},
    { start: 5 },
  );
});

void test(
  'a JS module environment: sync and async exports, thrown errors become error results, console.log does not break the protocol',
  LIMIT,
  async () => {
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
        assert.deepEqual(env.tools, [
          { name: 'get', parameters: { type: 'object', properties: { key: { type: 'string' } } } },
        ]);
        assert.deepEqual(await env.call('get', { key: 'a' }, never), { result: { value: 1 } });
        assert.deepEqual(await env.call('get', { key: 'b' }, never), { error: 'no b' });
        assert.deepEqual(await env.state(never), { n: 2, store: { a: 1 } });
      },
      {},
      { data: { a: 1 } },
    );
  },
);

void test('the example key-value stores (JS module and Python executable) behave alike', LIMIT, async () => {
  for (const run of ['envs/kv_store.mjs', 'envs/kv_store.py']) {
    await withEnv(
      run,
      async (env) => {
        assert.deepEqual(
          env.tools.map((x) => x.name),
          ['get', 'set', 'list'],
          run,
        );
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

void test(
  'an executable in another language (Perl), written from the spec alone, works unchanged',
  LIMIT,
  async (t) => {
    if (!fs.existsSync('/usr/bin/perl')) return t.skip('needs: perl');
    write(
      'counter.pl',
      [
        '#!/usr/bin/perl',
        'use strict; use warnings; use JSON::PP;',
        '$| = 1;',
        'my $json = JSON::PP->new->canonical;',
        'my %notes;',
        'while (my $line = <STDIN>) {',
        '  my $m = $json->decode($line);',
        '  my $out;',
        '  if ($m->{op} eq "reset") {',
        '    %notes = ();',
        '    $out = { tools => [ { name => "note", description => "Keep a note.", parameters => { type => "object", properties => { text => { type => "string" } }, required => ["text"] } } ] };',
        '  } elsif ($m->{op} eq "call") {',
        '    $notes{ $m->{args}{text} } = 1;',
        '    $out = { result => scalar(keys %notes) };',
        '  } elsif ($m->{op} eq "state") {',
        '    $out = { notes => [ sort keys %notes ] };',
        '  } else { $out = { error => "unknown op" }; }',
        '  print $json->encode($out), "\\n";',
        '}',
      ].join('\n'),
      0o755,
    );
    await withEnv('counter.pl', async (env) => {
      assert.deepEqual(
        env.tools.map((x) => x.name),
        ['note'],
      );
      assert.deepEqual(await env.call('note', { text: 'b' }, never), { result: 1 });
      assert.deepEqual(await env.call('note', { text: 'a' }, never), { result: 2 });
      assert.deepEqual(await env.state(never), { notes: ['a', 'b'] });
    });
  },
);

void test('an environment that crashes: the exit code and the last lines of its stderr', LIMIT, async () => {
  const tok = token();
  write(
    `crash_${tok}.py`,
    `#!/usr/bin/env python3\nimport json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m["op"] == "reset":\n        print(json.dumps({"tools": [{"name": "div", "parameters": {"type": "object"}}]}), flush=True)\n    else:\n        print(1 / 0)\n`,
    0o755,
  );
  const env = await start({ run: `crash_${tok}.py` }, ctx());
  const e = await env.call('div', {}, never).then(
    () => assert.fail('answered'),
    (x: unknown) => x,
  );
  assert.ok(e instanceof EnvironmentError);
  assert.equal(e.failure, 'crash');
  assert.match(e.message, /crash_t\w+\.py exited with code 1: .*ZeroDivisionError: division by zero/);
  // The session is over: every later request says why.
  await assert.rejects(env.state(never), /exited with code 1/);
  await env.close();
  await noSurvivors(tok, 'the environment');

  write('dies.sh', '#!/bin/sh\necho "cannot open the database" >&2\nexit 3\n', 0o755);
  const early = await startError('dies.sh');
  assert.equal(early.failure, 'crash');
  assert.match(early.message, /dies\.sh exited with code 3: cannot open the database/);
});

void test(
  'an environment that hangs: the request times out in bounded time and the process is killed',
  LIMIT,
  async () => {
    const tok = token();
    write(
      `hang_${tok}.py`,
      `#!/usr/bin/env python3\nimport json, sys, time\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m["op"] == "reset":\n        print(json.dumps({"tools": [{"name": "wait", "parameters": {"type": "object"}}]}), flush=True)\n    else:\n        time.sleep(3600)\n`,
      0o755,
    );
    const env = await start({ run: `hang_${tok}.py`, timeoutMs: 400 }, ctx());
    const started = Date.now();
    const e = await env.call('wait', {}, never).then(
      () => assert.fail('answered'),
      (x: unknown) => x,
    );
    assert.ok(Date.now() - started < 3000, `timed out after ${Date.now() - started} ms`);
    assert.ok(e instanceof EnvironmentError);
    assert.equal(e.failure, 'timeout');
    assert.match(e.message, /did not answer the call of wait within 400 ms/);
    await noSurvivors(tok, 'the environment');
    await env.close();

    // A hang before the first reply, with the context's default timeout.
    write(`mute_${tok}.sh`, '#!/bin/sh\nsleep 3600\n', 0o755);
    const mute = await startError(`mute_${tok}.sh`, { timeoutMs: 400 });
    assert.equal(mute.failure, 'timeout');
    assert.match(mute.message, /did not answer `reset` within 400 ms/);
    await noSurvivors(tok, 'the environment');
  },
);

void test('the lifetime bound stops an environment left open', LIMIT, async () => {
  const tok = token();
  write(
    `idle_${tok}.mjs`,
    'export const reset = () => ({ tools: [] }); export const call = () => 1; export const state = () => ({});\n',
  );
  const env = await start({ run: `idle_${tok}.mjs` }, ctx({ lifetimeMs: 1500 }));
  await new Promise((r) => setTimeout(r, 2500));
  await noSurvivors(tok, 'the environment');
  await assert.rejects(env.state(never), /lifetime limit/);
  await env.close();
});

void test('aborting the context or closing the session kills the environment', LIMIT, async () => {
  const tok = token();
  write(
    `live_${tok}.mjs`,
    'export const reset = () => ({ tools: [] }); export const call = () => 1; export const state = () => ({ ok: true });\n',
  );
  const abort = new AbortController();
  const env = await start({ run: `live_${tok}.mjs` }, ctx({ signal: abort.signal }));
  assert.deepEqual(await env.state(never), { ok: true });
  assert.ok(!LINUX || survivors(tok).length > 0, 'the environment runs while open');
  abort.abort();
  await assert.rejects(env.state(never), (e: unknown) => e instanceof EnvironmentError && e.failure === 'cancelled');
  await noSurvivors(tok, 'the environment');
  await env.close();

  const again = await start({ run: `live_${tok}.mjs` }, ctx());
  await again.close();
  await again.close();
  await noSurvivors(tok, 'the environment');
});

void test(
  'replies that break the protocol: not JSON, a line nobody asked for, an endless line, a bad call reply',
  LIMIT,
  async () => {
    write(
      'chatty.py',
      '#!/usr/bin/env python3\nimport sys\nfor line in sys.stdin:\n    print("Hello, I am an environment", flush=True)\n',
      0o755,
    );
    const chatty = await startError('chatty.py');
    assert.equal(chatty.failure, 'crash');
    assert.match(chatty.message, /chatty\.py replied with something that is not JSON: 'Hello, I am an environment'/);

    write('extra.sh', '#!/bin/sh\nread x\necho \'{"tools": []}\'\necho \'{"tools": []}\'\nsleep 5\n', 0o755);
    const extra = await start({ run: 'extra.sh' }, ctx());
    await new Promise((r) => setTimeout(r, 300));
    await assert.rejects(extra.state(never), /printed a line no request asked for: '\{"tools": \[\]\}'/);
    await extra.close();

    write(
      'endless.py',
      '#!/usr/bin/env python3\nimport sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write("x" * 65536)\n',
      0o755,
    );
    const endless = await startError('endless.py');
    assert.match(endless.message, /replied with a line longer than 1024 KiB/);

    write(
      'badcall.mjs',
      'export const reset = () => ({ tools: [{ name: "t", parameters: { type: "object" } }] }); export const call = () => ({ result: 1, error: "both" }); export const state = () => 1;\n',
    );
    await withEnv('badcall.mjs', async (env) => {
      // `{result, error}` from a module is a result as a whole; the line protocol itself is checked below.
      assert.deepEqual(await env.call('t', {}, never), { result: { result: 1, error: 'both' } });
    });
    write(
      'badcall.sh',
      '#!/bin/sh\nread x\necho \'{"tools": [{"name": "t", "parameters": {"type": "object"}}]}\'\nread x\necho \'[1, 2]\'\nsleep 5\n',
      0o755,
    );
    const bad = await start({ run: 'badcall.sh' }, ctx());
    await assert.rejects(
      bad.call('t', {}, never),
      /a call reply must be \{"result": \.\.\.\} or \{"error": "\.\.\."\}, got '\[1,2\]'/,
    );
    await bad.close();
  },
);

void test('a reset reply without a valid tools list says which tool is wrong', LIMIT, async () => {
  const cases: [string, RegExp][] = [
    [
      '{"tools": [{"name": "get", "parameters": {"type": "object"}}, {"name": "set"}]}',
      /tool 2 \(set\) has no `parameters`/,
    ],
    ['{"tools": [{"parameters": {"type": "object"}}]}', /tool 1 has no `name`/],
    [
      '{"tools": [{"name": "get", "parameters": {"type": "string"}}]}',
      /tool 1 \(get\): `parameters` must be a JSON Schema of an object/,
    ],
    ['{"tools": [{"name": "get me", "parameters": {}}]}', /tool 1 \(get me\): a name is 1 to 64 letters/],
    ['{"tools": [{"name": "a", "parameters": {}}, {"name": "a", "parameters": {}}]}', /tool 2 repeats the name a/],
    [
      '{"tools": [{"name": "get", "parameters": {"type": "object", "properties": {"key": {"type": "text"}}}}]}',
      /tool 1 \(get\): `parameters` is not a valid JSON Schema: /,
    ],
    ['{"tool": []}', /the reset reply has no `tools` list/],
    ['{"error": "no such seed"}', /reset failed: no such seed/],
  ];
  for (const [reply, expected] of cases) {
    write('badtools.sh', `#!/bin/sh\nread x\necho '${reply}'\nsleep 5\n`, 0o755);
    const e = await startError('badtools.sh');
    assert.equal(e.failure, 'crash', reply);
    assert.match(e.message, expected, reply);
  }
  write('noexport.mjs', 'export const reset = () => ({ tools: [] });\n');
  assert.match((await startError('noexport.mjs')).message, /noexport\.mjs does not export a function call\(\)/);
});

void test('not found, not executable, untrusted: refused before anything runs', LIMIT, async () => {
  assert.match((await startError('missing.py')).message, /the environment missing\.py was not found/);
  write('plain.py', SPEC_PYTHON, 0o644);
  assert.match(
    (await startError('plain.py')).message,
    /neither a \.js\/\.mjs\/\.cjs module nor executable \(chmod \+x it\)/,
  );
  // Untrusted: refused before the file is even looked at.
  const e = await startError('missing.py', { trusted: false });
  assert.equal(e.failure, 'refused');
  assert.equal(e.message, 'environments do not run in an untrusted workspace');
});

void test('weak isolation runs only with the opt-in, and says so', LIMIT, async (t) => {
  if (process.env[ALLOW_WEAK_ENV]) return t.skip(`${ALLOW_WEAK_ENV} is set: weak isolation is allowed process-wide`);
  write('counter.py', SPEC_PYTHON, 0o755);
  const weak = await detectSandbox('process');
  const refused = await startError('counter.py', { sandbox: weak });
  assert.equal(refused.failure, 'unavailable');
  assert.match(refused.message, /the full sandbox \(bubblewrap\) is unavailable/);
  await withEnv(
    'counter.py',
    async (env) => {
      assert.match(env.isolation, /^process \(weak\): .*; lacks network isolation/);
      assert.deepEqual(await env.call('bump', {}, never), { result: 1 });
    },
    { sandbox: weak, allowWeakIsolation: true },
  );
});

void test('the network is closed inside an environment, even to 127.0.0.1', LIMIT, async (t) => {
  const sb = await getSandbox();
  if (sb.method === 'process') return t.skip('needs: bwrap or sandbox-exec (a plain process is not network-isolated)');
  const listener = await countingListener();
  const port = listener.port;
  try {
    write(
      'netprobe.mjs',
      [
        'import net from "node:net";',
        'export const reset = () => ({ tools: [] });',
        'export const call = () => null;',
        `export const state = () => new Promise((resolve) => { const s = net.connect(${port}, "127.0.0.1"); s.on("connect", () => resolve("connected")); s.on("error", (e) => resolve(e.code)); });`,
      ].join('\n'),
    );
    await withEnv('netprobe.mjs', async (env) => {
      const got = await env.state(never);
      assert.notEqual(got, 'connected');
      assert.match(String(got), /^E[A-Z]+/);
    });
    assert.equal(listener.connections(), 0);
  } finally {
    await listener.close();
  }
});

void test('validateToolArgs: JSON and the tool schema, with the error the model reads', LIMIT, () => {
  const get = {
    name: 'get',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string' }, n: { type: 'integer' } },
      required: ['key'],
      additionalProperties: false,
    },
  };
  assert.deepEqual(validateToolArgs(get, '{"key": "fr"}'), { args: { key: 'fr' } });
  assert.deepEqual(validateToolArgs(get, '{}'), { error: 'invalid arguments for get: key is required' });
  assert.deepEqual(validateToolArgs(get, '{"key": "fr", "n": 1.5}'), {
    error: 'invalid arguments for get: n must be integer',
  });
  assert.deepEqual(validateToolArgs(get, '{"key": "fr", "x": 1}'), {
    error: 'invalid arguments for get: unexpected argument x',
  });
  assert.match(
    (validateToolArgs(get, '{"key": fr}') as { error: string }).error,
    /^invalid arguments for get: not JSON \(.*\): '\{"key": fr\}'$/,
  );
  assert.deepEqual(validateToolArgs(get, '["fr"]'), {
    error: `invalid arguments for get: expected a JSON object, got '["fr"]'`,
  });
  const list = { name: 'list', parameters: { type: 'object', properties: {} } };
  assert.deepEqual(validateToolArgs(list, ''), { args: {} });
  assert.match(
    (
      validateToolArgs(
        { name: 'odd', parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
        '{}',
      ) as { error: string }
    ).error,
    /^the tool odd cannot be called: its parameters are not a valid JSON Schema/,
  );
});

void test(
  'replayCalls: one turn per call and the final answer; bad calls are error results the environment never sees',
  LIMIT,
  async () => {
    await withEnv(
      'envs/kv_store.mjs',
      async (env) => {
        const t = await replayCalls(
          env,
          [{ get: { country: 'fr' } }, { delete: { key: 'fr' } }, { get: { key: 'fr' } }, { list: null }],
          '<answer>Paris</answer>',
        );
        assert.equal(t.stop, 'final');
        assert.equal(t.turns, 5);
        assert.equal(t.final, '<answer>Paris</answer>');
        assert.deepEqual(
          t.steps.map((s) => [s.turn, s.call.name, s.args]),
          [
            [1, 'get', undefined],
            [2, 'delete', undefined],
            [3, 'get', { key: 'fr' }],
            [4, 'list', {}],
          ],
        );
        assert.deepEqual(t.steps[0]?.outcome, {
          error: 'invalid arguments for get: key is required; unexpected argument country',
        });
        assert.deepEqual(t.steps[1]?.outcome, { error: 'unknown tool "delete"; the tools are get, set, list' });
        assert.deepEqual(t.steps[2]?.outcome, { result: 'Paris' });
        // Only the valid call reached the environment.
        assert.deepEqual((t.state as { lookups: number }).lookups, 1);
        assert.deepEqual(
          t.messages.map((m) => m.role),
          ['assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
        );
        assert.deepEqual(t.messages[0], {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', name: 'get', arguments: '{"country":"fr"}' }],
        });
        assert.deepEqual(t.messages[1], {
          role: 'tool',
          tool_call_id: 'call_1',
          name: 'get',
          content: '{"error":"invalid arguments for get: key is required; unexpected argument country"}',
        });
        assert.equal(t.messages[5]?.content, 'Paris');
        assert.equal(t.messages[7]?.content, '["de","es","fr","it"]');
      },
      { dir: EXAMPLES },
    );
    // The turn limit ends a longer script as it would end a run.
    await withEnv(
      'envs/kv_store.py',
      async (env) => {
        const t = await replayCalls(env, [{ list: {} }, { list: {} }, { list: {} }], 'done', { maxTurns: 2 });
        assert.equal(t.stop, 'max_turns');
        assert.equal(t.turns, 2);
        assert.equal(t.final, '');
        assert.equal(t.steps.length, 2);
      },
      { dir: EXAMPLES },
    );
    // An environment that dies mid-script ends the trajectory with the error and its turn.
    write(
      'dies-later.sh',
      '#!/bin/sh\nread x\necho \'{"tools": [{"name": "t", "parameters": {"type": "object"}}]}\'\nread x\necho \'{"result": 1}\'\nread x\necho "out of disk" >&2\nexit 4\n',
      0o755,
    );
    await withEnv('dies-later.sh', async (env) => {
      const t = await replayCalls(env, [{ t: {} }, { t: {} }], 'done');
      assert.equal(t.stop, 'error');
      assert.equal(t.steps.length, 1);
      assert.match(t.error ?? '', /^turn 2: the environment dies-later\.sh exited with code 4: out of disk$/);
    });
  },
);

// `vtask test` on agent tasks: each case's `calls` replayed in a fresh sandboxed environment,
// the verifier given the trajectory; a case that fails names the turn; an environment that
// breaks fails its case with the reason; an untrusted workspace skips them with the reason.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flatCalls, withCall } from '../../src/core/agent/replay';
import { runCases } from '../../src/core/run/cases';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-agent-cli-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

function vtask(args: readonly string[]): SpawnSyncReturns<string> {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

interface TestJson {
  passed: number;
  failed: number;
  skipped: number;
  results: {
    task: string;
    case: number;
    ok: boolean;
    actual: unknown;
    reason: string;
    error?: string;
    isolation?: { method: string };
  }[];
}

void test('vtask test examples/agent-kv.vtask replays every case in its environment and passes', () => {
  const r = vtask(['test', 'examples/agent-kv.vtask', '--json']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout) as TestJson;
  assert.equal(out.failed, 0);
  assert.equal(out.skipped, 0);
  assert.equal(out.passed, 11);
  // The cases that must fail do fail, for the reason the task file gives them.
  const reasons = new Map(out.results.map((x) => [`${x.task}#${x.case}`, x.reason]));
  assert.match(
    reasons.get('kv/lookup-fr#2') ?? '',
    /trajectory: get was never called; state: lookups is 0, expected 1/,
  );
  assert.match(reasons.get('kv/lookup-fr#3') ?? '', /turn 4 made tool call 4, more than the 3 allowed/);
  assert.match(reasons.get('kv/lookup-fr#4') ?? '', /turn 1 called set, which is not allowed/);
  assert.match(reasons.get('kv/store-then-list#1') ?? '', /turn 1 called list before set \(turn 2\)/);
  assert.match(reasons.get('kv/store-then-list#2') ?? '', /store\.pt is "Porto", expected "Lisbon"/);
  // The environment's isolation is reported with the verdict, as for code verifiers.
  assert.ok(
    out.results.every((x) => typeof x.isolation?.method === 'string'),
    JSON.stringify(out.results[0]),
  );
});

void test('a case whose trajectory breaks the verifier fails with the turn; a broken or slow environment fails its case with the reason', () => {
  fs.mkdirSync(path.join(DIR, 'envs'), { recursive: true });
  fs.copyFileSync(path.resolve(ROOT, 'examples/envs/kv_store.py'), path.join(DIR, 'envs/kv.py'));
  fs.chmodSync(path.join(DIR, 'envs/kv.py'), 0o755);
  fs.writeFileSync(path.join(DIR, 'envs/broken.sh'), '#!/bin/sh\necho "no database here" >&2\nexit 2\n', {
    mode: 0o755,
  });
  fs.writeFileSync(
    path.join(DIR, 'envs/slow.sh'),
    '#!/bin/sh\nread x\necho \'{"tools": [{"name": "wait", "parameters": {"type": "object"}}]}\'\nsleep 30\n',
    { mode: 0o755 },
  );
  const file = path.join(DIR, 'agent.vtask');
  fs.writeFileSync(
    file,
    [
      'vtask: 1',
      'tasks:',
      '  - id: kv/no-writes',
      '    prompt: Read fr.',
      '    environment: { run: ./envs/kv.py }',
      '    verify: { trajectory: { not_called: [set] } }',
      '    cases:',
      '      - calls: [{ get: { key: fr } }, { set: { key: fr, value: x } }]',
      '        response: done',
      '        expect: pass',
      '  - id: kv/broken',
      '    prompt: Read fr.',
      '    environment: { run: ./envs/broken.sh }',
      '    verify: { match: { answer: Paris } }',
      '    cases:',
      '      - response: Paris',
      '        expect: pass',
      '  - id: kv/slow',
      '    prompt: Wait.',
      '    environment: { run: ./envs/slow.sh, timeout_ms: 300 }',
      '    verify: { match: { answer: done } }',
      '    cases:',
      '      - calls: [{ wait: {} }]',
      '        response: done',
      '        expect: pass',
      '  - id: plain/with-calls',
      '    prompt: Say Paris.',
      '    verify: { match: { answer: Paris } }',
      '    cases:',
      '      - calls: [{ get: { key: fr } }]',
      '        response: Paris',
      '        expect: pass',
    ].join('\n') + '\n',
  );
  const r = vtask(['test', file]);
  assert.equal(r.status, 1, r.stdout + r.stderr);
  const out = r.stdout.split('\n');
  assert.ok(
    out.some((l) =>
      /agent\.vtask:8:\d+: fail: task kv\/no-writes case 0: expected pass, got fail: turn 2 called set, which is not allowed$/.test(
        l,
      ),
    ),
    r.stdout,
  );
  assert.ok(
    out.some((l) =>
      /crash: task kv\/broken case 0: .*the environment \.\/envs\/broken\.sh exited with code 2: no database here/.test(
        l,
      ),
    ),
    r.stdout,
  );
  assert.ok(
    out.some((l) =>
      /crash: task plain\/with-calls case 0: .*the case has `calls`, but the task has no `environment`/.test(l),
    ),
    r.stdout,
  );
  // The task's `timeout_ms` bounds each reply.
  assert.ok(
    out.some((l) =>
      /crash: task kv\/slow case 0: .*the environment failed at turn 1: the environment \.\/envs\/slow\.sh did not answer the call of wait within 300 ms/.test(
        l,
      ),
    ),
    r.stdout,
  );
  // An environment that breaks gives no verdict: undecided, which fails the command as a failed case does.
  assert.equal(
    out.filter(Boolean).at(-1),
    '0 passed, 1 failed, 3 undecided (their verifier could not give a verdict here; see above)',
  );
});

void test('in an untrusted workspace agent cases are skipped with the reason, and nothing is replayed', async () => {
  fs.writeFileSync(
    path.join(DIR, 'tools.sh'),
    `#!/bin/sh\nread x\necho '{"tools": []}'\nread x\necho '{"ok": true}'\n`,
    { mode: 0o755 },
  );
  const text = [
    'vtask: 1',
    'tasks:',
    '  - id: a',
    '    prompt: p',
    '    environment: { run: ./tools.sh }',
    '    verify: { match: { answer: x } }',
    '    cases:',
    '      - response: x',
    '        expect: pass',
  ].join('\n');
  const { tasks } = runnableTasks(parseTaskFile(text));
  const file = path.join(DIR, 'untrusted.vtask');
  const [res] = await runCases(tasks, { file, trusted: false });
  assert.ok(res);
  assert.equal(res.skipped, true);
  assert.equal(res.ok, false);
  assert.equal(res.verdict.reason, 'environments do not run in an untrusted workspace');
  assert.equal(res.verdict.error, 'refused');
  assert.equal(res.trajectory, undefined, 'nothing was replayed');
  // The same case in a trusted workspace runs.
  const [trusted] = await runCases(tasks, { file });
  assert.equal(trusted?.skipped, false);
  assert.equal(trusted?.ok, true, trusted?.verdict.reason);
  assert.ok(trusted?.trajectory, 'the replayed trajectory comes with the result');
  assert.equal(trusted?.trajectory?.final, 'x');
  assert.deepEqual(trusted?.trajectory?.state, { ok: true });
});

void test('a case turn may hold parallel calls and arguments as the model wrote them; the turn limit leaves no final answer', async () => {
  fs.mkdirSync(path.join(DIR, 'envs'), { recursive: true });
  fs.copyFileSync(path.resolve(ROOT, 'examples/envs/kv_store.py'), path.join(DIR, 'envs/kv.py'));
  fs.chmodSync(path.join(DIR, 'envs/kv.py'), 0o755);
  const text = [
    'vtask: 1',
    'tasks:',
    '  - id: kv/parallel',
    '    prompt: Read fr and de at once.',
    '    environment: { run: ./envs/kv.py }',
    '    max_turns: 2',
    '    verify: { all: [{ match: { answer: Paris and Berlin } }, { trajectory: { called: [get], max_turns: 2 } }] }',
    '    cases:',
    '      - calls: [[{ get: { key: fr } }, { get: { key: de } }]]',
    '        response: Paris and Berlin',
    '        expect: pass',
    '      - calls: [{ get: \'{"key": 7\' }, { get: { key: fr } }]',
    '        response: Paris and Berlin',
    '        expect: fail',
  ].join('\n');
  const parsed = parseTaskFile(text);
  assert.deepEqual(
    parsed.issues.filter((i) => i.severity === 'error'),
    [],
  );
  const { tasks } = runnableTasks(parsed);
  const [together, cut] = await runCases(tasks, { file: path.join(DIR, 'parallel.vtask') });
  assert.equal(together?.ok, true, together?.verdict.reason);
  assert.deepEqual(
    together?.trajectory?.steps.map((s) => [s.turn, s.outcome]),
    [
      [1, { result: 'Paris' }],
      [1, { result: 'Berlin' }],
    ],
  );
  assert.equal(together?.trajectory?.turns, 2);
  // Two turns of calls reach the limit of 2: the response is never given, and the reason says so.
  assert.equal(cut?.ok, true);
  assert.equal(cut?.trajectory?.stop, 'max_turns');
  assert.match(cut?.verdict.reason ?? '', /^the turn limit \(2 turns\) was reached before a final answer/);
  const raw = cut?.trajectory?.steps[0];
  assert.equal(raw?.call.arguments, '{"key": 7', 'sent as written');
  assert.match((raw?.outcome as { error?: string }).error ?? '', /invalid arguments for get: not JSON/);
});

void test('a script read call by call keeps its turns when one call is replaced', () => {
  const turns = [{ a: {} }, [{ b: { x: 1 } }, { c: {} }], { d: {} }];
  assert.deepEqual(flatCalls(turns), [{ a: {} }, { b: { x: 1 } }, { c: {} }, { d: {} }]);
  assert.deepEqual(withCall(turns, 2, { c: { y: 2 } }), [{ a: {} }, [{ b: { x: 1 } }, { c: { y: 2 } }], { d: {} }]);
  assert.deepEqual(withCall(turns, 3, { e: {} }), [{ a: {} }, [{ b: { x: 1 } }, { c: {} }], { e: {} }]);
});

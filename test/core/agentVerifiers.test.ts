// The `trajectory` and `state` verifiers: they read the sample's trajectory, not its text; a
// failure names the turn that went wrong; without a trajectory they fail and say why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trajectory, TrajectoryStep } from '../../src/core/agent/types';
import { valueAt } from '../../src/core/verifiers/agentChecks';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import type { Verdict } from '../../src/core/verifiers/verdict';
import { verify } from '../../src/core/verifiers/verify';

const TASK = { id: 'kv/1', prompt: 'p', messages: [{ role: 'user', content: 'p' }], meta: {}, dir: '/tmp' };

/** A trajectory of calls `[tool, args | undefined for invalid ones]`, one per turn, then the answer. */
function trajectory(
  calls: readonly [string, Record<string, unknown> | undefined][],
  state: unknown = { lookups: 1 },
  final = '<answer>Paris</answer>',
): Trajectory {
  const steps: TrajectoryStep[] = calls.map(([name, args], i) => ({
    turn: i + 1,
    call: { id: `call_${i + 1}`, name, arguments: JSON.stringify(args ?? { bad: true }) },
    ...(args ? { args } : {}),
    outcome: args ? { result: 'ok' } : { error: `invalid arguments for ${name}` },
  }));
  return { messages: [], steps, final, turns: calls.length + 1, state, stop: 'final' };
}

function check(verifier: unknown, t: Trajectory | undefined, response = t?.final ?? ''): Promise<Verdict> {
  return verify(verifier, response, { task: TASK, ...(t ? { trajectory: t } : {}) });
}

void test('trajectory: called, not_called, order, max_tool_calls, max_turns pass on a trajectory of the right shape', async () => {
  const t = trajectory([
    ['search', { q: 'fr' }],
    ['get', { key: 'fr' }],
  ]);
  const v = await check(
    {
      trajectory: {
        called: ['get', 'search'],
        not_called: ['delete'],
        order: ['search', 'get'],
        max_tool_calls: 2,
        max_turns: 3,
      },
    },
    t,
  );
  assert.equal(v.pass, true, v.reason);
  assert.equal(v.score, 1);
  assert.match(v.reason, /2 tool calls \(search, get\) in 3 turns/);
  assert.deepEqual(v.details.calls, [
    { turn: 1, tool: 'search', ok: true },
    { turn: 2, tool: 'get', ok: true },
  ]);
});

void test('trajectory failures name the turn: a forbidden tool, too many calls, too many turns, the wrong order', async () => {
  const t = trajectory([
    ['get', { key: 'a' }],
    ['list', {}],
    ['delete', { key: 'a' }],
    ['get', { key: 'b' }],
  ]);
  const forbidden = await check({ trajectory: { not_called: ['delete'] } }, t);
  assert.equal(forbidden.pass, false);
  assert.equal(forbidden.reason, 'turn 3 called delete, which is not allowed');
  assert.equal(forbidden.details.turn, 3);

  const many = await check({ trajectory: { max_tool_calls: 2 } }, t);
  assert.equal(many.reason, 'turn 3 made tool call 3, more than the 2 allowed');
  assert.equal(many.details.turn, 3);

  const turns = await check({ trajectory: { max_turns: 4 } }, t);
  assert.match(turns.reason, /^the agent took 5 turns, more than the 4 allowed/);
  assert.equal(turns.details.turn, 5);

  const order = await check({ trajectory: { order: ['delete', 'list'] } }, t);
  assert.equal(order.reason, 'turn 2 called list before delete (turn 3); the order must be delete → list');
  assert.equal(order.details.turn, 2);
  // A subsequence: other calls may come between, and a later call may satisfy a step.
  assert.equal((await check({ trajectory: { order: ['get', 'list', 'delete'] } }, t)).pass, true);
  assert.equal((await check({ trajectory: { order: ['list', 'get'] } }, t)).pass, true);
  assert.equal(
    (await check({ trajectory: { order: ['list', 'set'] } }, t)).reason,
    'set was never called (the order must be list → set)',
  );

  // Several failures: all named, the earliest turn first and in details.
  const both = await check({ trajectory: { not_called: ['delete'], max_tool_calls: 1 } }, t);
  assert.equal(
    both.reason,
    'turn 2 made tool call 2, more than the 1 allowed; turn 3 called delete, which is not allowed',
  );
  assert.equal(both.details.turn, 2);
});

void test('trajectory: a call with invalid arguments is not a call made; a tool never called has no turn', async () => {
  const t = trajectory([
    ['get', undefined],
    ['list', {}],
  ]);
  const v = await check({ trajectory: { called: ['get'] } }, t);
  assert.equal(v.reason, 'get was called only with invalid arguments (first at turn 1)');
  assert.equal(v.details.turn, 1);
  const never = await check({ trajectory: { called: ['set'] } }, t);
  assert.equal(never.reason, 'set was never called');
  assert.equal(never.details.turn, undefined);
  // Invalid calls still count against the budget and against not_called.
  assert.equal((await check({ trajectory: { max_tool_calls: 1 } }, t)).pass, false);
  assert.equal(
    (await check({ trajectory: { not_called: ['get'] } }, t)).reason,
    'turn 1 called get, which is not allowed',
  );
});

void test('state: equals (deep), contains, matches and a JSON schema at a dotted path', async () => {
  const t = trajectory([], { lookups: 2, store: { fr: 'Paris' }, orders: [{ status: 'shipped', items: ['a', 'b'] }] });
  const cases: [Record<string, unknown>, boolean, RegExp][] = [
    [{ path: 'lookups', equals: 2 }, true, /^lookups is 2$/],
    [{ path: 'lookups', equals: 1 }, false, /^lookups is 2, expected 1$/],
    [{ path: 'store', equals: { fr: 'Paris' } }, true, /store is/],
    [{ path: 'store', equals: { fr: 'Paris', de: 'Berlin' } }, false, /expected/],
    [{ path: 'orders.0.status', equals: 'shipped' }, true, /orders\.0\.status is "shipped"/],
    [{ path: 'orders.0.items', contains: 'b' }, true, /contains "b"/],
    [{ path: 'orders.0.items', contains: 'c' }, false, /does not contain "c": it is \["a","b"\]/],
    [{ path: 'store', contains: 'fr' }, true, /contains/],
    [{ path: 'store', contains: { fr: 'Paris' } }, true, /contains/],
    [{ path: 'orders.0.status', contains: 'ship' }, true, /contains/],
    [{ path: 'orders.0.status', matches: '^ship' }, true, /matches/],
    [{ path: 'lookups', matches: '^1$' }, false, /does not match/],
    [{ path: 'lookups', json: { type: 'integer', minimum: 2 } }, true, /matches the schema/],
    [{ path: 'store', json: { type: 'object', required: ['de'] } }, false, /^store must have required property 'de'$/],
    [
      { path: 'orders.1.status', equals: 'x' },
      false,
      /^the final state has nothing at orders\.1 \(path orders\.1\.status\)/,
    ],
  ];
  for (const [params, pass, reason] of cases) {
    const v = await check({ state: params }, t);
    assert.equal(v.pass, pass, `${JSON.stringify(params)}: ${v.reason}`);
    assert.match(v.reason, reason, JSON.stringify(params));
    assert.equal(v.details.path, params.path);
  }
  assert.deepEqual(valueAt({ a: [{ b: 0 }] }, 'a.0.b'), { found: true, value: 0 });
  assert.deepEqual(valueAt({ a: null }, 'a.b'), { found: false, missing: 'a.b' });
});

void test('state: an unknown final state fails with the reason it could not be read', async () => {
  const t: Trajectory = {
    ...trajectory([]),
    state: undefined,
    error: 'the final state could not be read: the environment x.py exited with code 1',
  };
  const v = await check({ state: { path: 'lookups', equals: 1 } }, t);
  assert.equal(v.pass, false);
  assert.equal(
    v.reason,
    "the environment's final state is unknown: the final state could not be read: the environment x.py exited with code 1",
  );
});

void test('without a trajectory (a task without an environment) both kinds fail and say why', async () => {
  for (const verifier of [{ trajectory: { called: ['get'] } }, { state: { path: 'lookups', equals: 1 } }]) {
    const v = await check(verifier, undefined, 'Paris');
    assert.equal(v.pass, false);
    assert.match(v.reason, /checks an agent's trajectory, and there is none: give the task an `environment`/);
  }
});

void test('composed with match: every other kind checks the final answer; agent kinds ignore the text', async () => {
  const t = trajectory([['get', { key: 'fr' }]], { lookups: 1 });
  const composed = {
    all: [
      { match: { answer: 'Paris', tag: 'answer' } },
      { trajectory: { called: ['get'] } },
      { state: { path: 'lookups', equals: 1 } },
    ],
  };
  assert.equal((await check(composed, t)).pass, true);
  const wrong = await check(composed, t, '<answer>Lyon</answer>');
  assert.equal(wrong.pass, false);
  assert.match(wrong.reason, /^1\/3 failed: match:/);
  // An unclosed <think> leaves no final answer for match, but the trajectory is still checked.
  const thinking = await check({ trajectory: { called: ['get'] } }, t, '<think>still going');
  assert.equal(thinking.pass, true, thinking.reason);
  // The failing child's turn reaches the composite's details.
  const failing = await check({ all: [{ trajectory: { max_tool_calls: 0 } }] }, t);
  const child = (failing.details.children as { details: { turn?: number } }[])[0];
  assert.equal(child?.details.turn, 1);
});

void test('composed with any and weighted: agent checks weigh and choose like every other kind', async () => {
  const t = trajectory(
    [
      ['get', { key: 'fr' }],
      ['set', { key: 'fr', value: 'x' }],
    ],
    { lookups: 1 },
  );
  // any: a trajectory that used set fails the first alternative and passes the second.
  const either = await check(
    { any: [{ trajectory: { not_called: ['set'] } }, { state: { path: 'lookups', equals: 1 } }] },
    t,
  );
  assert.equal(either.pass, true, either.reason);
  const neither = await check(
    { any: [{ trajectory: { not_called: ['set'] } }, { state: { path: 'lookups', equals: 2 } }] },
    t,
  );
  assert.equal(neither.pass, false);
  assert.equal(
    (neither.details.children as { details: { turn?: number } }[])[0]?.details.turn,
    2,
    'the failing alternative names its turn',
  );
  // weighted: the answer counts 3, the forbidden call 1; a weight-0 check is reported, not counted.
  const weighted = {
    weighted: {
      of: [
        { weight: 3, verify: { match: { answer: 'Paris', tag: 'answer' } } },
        { weight: 1, verify: { trajectory: { not_called: ['set'] } } },
        { weight: 0, verify: { state: { path: 'lookups', equals: 9 } } },
      ],
      threshold: 0.7,
    },
  };
  const w = await check(weighted, t);
  assert.equal(w.score, 0.75);
  assert.equal(w.pass, true, w.reason);
});

void test('validation: `calls` items are one tool each, `state` needs exactly one check, `environment` takes timeout_ms', () => {
  const text = [
    'vtask: 1',
    'tasks:',
    '  - id: a',
    '    prompt: p',
    '    environment: { run: ./env.mjs, timeout_ms: 2000 }',
    '    verify: { state: { path: lookups } }',
    '    cases:',
    '      - calls: [{ get: { key: fr }, set: { key: fr } }]',
    '        response: x',
    '        expect: pass',
  ].join('\n');
  const f = parseTaskFile(text);
  const messages = f.issues.concat(f.tasks.flatMap((t) => t.issues)).map((i) => i.message);
  assert.ok(
    messages.some((m) => /`state` needs exactly one of `equals`, `contains`, `matches` or `json`/.test(m)),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => /a call is one tool with its arguments/.test(m)),
    messages.join('\n'),
  );
  assert.ok(!messages.some((m) => /timeout_ms/.test(m)), messages.join('\n'));
});

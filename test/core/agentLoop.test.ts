// The agent loop against the test server over HTTP, with real environments (the example
// key-value store, and programs that crash): a multi-turn episode to a final answer, invalid
// tool arguments, parallel calls in order, the turn limit, a crashing environment, streaming,
// cancellation, and the two levels of caching (steps and whole trajectories).
import { test, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEnvironment } from '../../src/core/agent/environment';
import { runAgentSample, type AgentSampleOptions } from '../../src/core/agent/loop';
import { replayCalls } from '../../src/core/agent/replay';
import { trajectoryCalls } from '../../src/core/panel/trajectory';
import type { EnvironmentSession } from '../../src/core/agent/types';
import { SampleCache } from '../../src/core/sampling/cache';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { profileFromEntry } from '../../src/core/sampling/profiles';
import { startOpenAIServer, type OpenAIServer } from '../support/openaiServer';

// Environments live in a temporary project (readable by the sandbox's user, unlike a home folder).
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-loop-test-'));
fs.chmodSync(DIR, 0o755);
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
fs.copyFileSync(path.resolve(__dirname, '../../../examples/envs/kv_store.mjs'), path.join(DIR, 'kv_store.mjs'));
// Answers `reset`, then dies on the first call.
fs.writeFileSync(
  path.join(DIR, 'crash.mjs'),
  `export function reset() { return { tools: [{ name: 'get', parameters: { type: 'object', properties: { key: { type: 'string' } } } }] }; }
export function call() { process.exit(3); }
export function state() { return {}; }
`,
);

// Answers `reset`, then never answers a call.
fs.writeFileSync(
  path.join(DIR, 'hang.mjs'),
  `export function reset() { return { tools: [{ name: 'get', parameters: { type: 'object' } }] }; }
export function call() { return new Promise(() => {}); }
export function state() { return {}; }
`,
);

const never = new AbortController().signal;
const FAST = { policy: { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 2 } } as const;

async function serve(t: TestContext): Promise<OpenAIServer> {
  const server = await startOpenAIServer();
  t.after(() => server.close());
  return server;
}

const prompt = (turns: unknown[]): string =>
  `Which capital is stored under fr?\nvtask-test-script: ${JSON.stringify(turns)}`;

interface Started {
  count: number;
  calls: string[];
}

/** The options of one sample in a real environment; `started` counts environments and the calls they got. */
function options(
  server: OpenAIServer,
  turns: unknown[],
  extra: Partial<AgentSampleOptions> & { run?: string; stream?: boolean } = {},
): AgentSampleOptions & { started: Started } {
  const profile = profileFromEntry('test', { base_url: server.url, model: 'test-model' });
  const started: Started = { count: 0, calls: [] };
  const run = extra.run ?? 'kv_store.mjs';
  return {
    profile,
    provider: new OpenAIProvider(profile, { retry: FAST, stream: extra.stream ?? false }),
    request: { messages: [{ role: 'user', content: prompt(turns) }] },
    index: 0,
    maxTurns: 6,
    environmentKey: { run },
    signal: never,
    start: async (signal): Promise<EnvironmentSession> => {
      started.count++;
      const env = await startEnvironment({ run }, { dir: DIR, trusted: true, signal });
      return {
        ...env,
        tools: env.tools,
        isolation: env.isolation,
        close: () => env.close(),
        state: (s) => env.state(s),
        call: (tool, args, s) => (started.calls.push(`${tool} ${JSON.stringify(args)}`), env.call(tool, args, s)),
      };
    },
    started,
    ...extra,
  };
}

for (const stream of [false, true]) {
  void test(`a multi-turn episode to a final answer (${stream ? 'streamed' : 'one body'})`, async (t) => {
    const server = await serve(t);
    const o = options(server, [{ calls: [{ get: { key: 'fr' } }] }, { answer: '<answer>Paris</answer>' }], { stream });
    const { sample, cached } = await runAgentSample(o);
    const tr = sample.trajectory;
    assert.equal(cached, false);
    assert.equal(tr.stop, 'final');
    assert.equal(tr.turns, 2);
    assert.equal(tr.final, '<answer>Paris</answer>');
    assert.equal(sample.text, '<answer>Paris</answer>');
    assert.deepEqual(
      tr.steps.map((s) => [s.turn, s.call.name, s.args, s.outcome]),
      [[1, 'get', { key: 'fr' }, { result: 'Paris' }]],
    );
    assert.deepEqual(tr.state, { store: { fr: 'Paris', de: 'Berlin', it: 'Rome', es: 'Madrid' }, lookups: 1 });
    assert.deepEqual(
      tr.messages.map((m) => m.role),
      ['assistant', 'tool', 'assistant'],
    );
    // The second request carries the call and its result, with the environment's tools.
    const second = server.samplingRequests[1]?.body as {
      messages: Array<Record<string, unknown>>;
      tools: Array<{ function: { name: string } }>;
    };
    assert.deepEqual(
      second.tools.map((x) => x.function.name),
      ['get', 'set', 'list'],
    );
    assert.deepEqual(second.messages.slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'get', arguments: '{"key":"fr"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0_0', content: 'Paris' },
    ]);
    assert.equal(server.samplingRequests.length, 2);
  });
}

void test('invalid tool arguments and unknown tools get an error result; the environment never sees them', async (t) => {
  const server = await serve(t);
  const o = options(server, [
    {
      calls: [
        { name: 'get', arguments: '{"key": 3}' },
        { name: 'get', arguments: 'not json' },
        { nope: {} },
        { get: { key: 'de' } },
      ],
    },
    { answer: 'Berlin' },
  ]);
  const tr = (await runAgentSample(o)).sample.trajectory;
  assert.equal(tr.stop, 'final');
  assert.deepEqual(o.started.calls, ['get {"key":"de"}']);
  const [bad, garbled, unknown, good] = tr.steps;
  assert.ok(bad && 'error' in bad.outcome && bad.args === undefined, JSON.stringify(bad));
  assert.match((bad.outcome as { error: string }).error, /key/);
  assert.ok(garbled && 'error' in garbled.outcome);
  assert.match((garbled.outcome as { error: string }).error, /JSON/i);
  assert.ok(unknown && 'error' in unknown.outcome);
  assert.match((unknown.outcome as { error: string }).error, /unknown tool "nope"; the tools are get, set, list/);
  assert.deepEqual(good?.outcome, { result: 'Berlin' });
  // The model reads each error as the tool's result.
  const toolMessages = (
    server.samplingRequests[1]?.body as { messages: Array<{ role: string; content: string }> }
  ).messages.filter((m) => m.role === 'tool');
  assert.equal(toolMessages.length, 4);
  assert.match(toolMessages[0]?.content ?? '', /^\{"error":/);
});

void test('parallel calls of one turn run in the order written', async (t) => {
  const server = await serve(t);
  const o = options(server, [
    { calls: [{ set: { key: 'x', value: 'first' } }, { get: { key: 'x' } }, { set: { key: 'x', value: 'second' } }] },
    { answer: 'done' },
  ]);
  const tr = (await runAgentSample(o)).sample.trajectory;
  assert.deepEqual(
    tr.steps.map((s) => s.outcome),
    [{ result: 'ok' }, { result: 'first' }, { result: 'ok' }],
  );
  assert.ok(tr.steps.every((s) => s.turn === 1));
  assert.equal((tr.state as { store: Record<string, string> }).store.x, 'second');
  assert.equal(tr.turns, 2);
});

void test('a sampled trajectory added as a case replays to the same turns, calls and results', async (t) => {
  const server = await serve(t);
  const turns = [
    { calls: [{ set: { key: 'x', value: 'v' } }, { name: 'get', arguments: 'not json' }] },
    { calls: [{ get: { key: 'x' } }] },
    { answer: '<answer>v</answer>' },
  ];
  const tr = (await runAgentSample(options(server, turns))).sample.trajectory;
  assert.equal(tr.stop, 'final');
  const calls = trajectoryCalls(tr);
  assert.deepEqual(calls, [[{ set: { key: 'x', value: 'v' } }, { get: 'not json' }], { get: { key: 'x' } }]);
  const env = await startEnvironment({ run: 'kv_store.mjs' }, { dir: DIR, trusted: true, signal: never });
  const replayed = await replayCalls(env, calls, tr.final, { maxTurns: 6 }).finally(() => env.close());
  const shape = (x: typeof tr) =>
    x.steps.map((s) => [s.turn, s.call.name, s.call.arguments.replace(/\s/g, ''), s.outcome]);
  assert.deepEqual(shape(replayed), shape(tr));
  assert.equal(replayed.turns, tr.turns);
  assert.deepEqual(replayed.state, tr.state);
  assert.equal(replayed.final, tr.final);
});

void test('the turn limit ends a model that keeps calling tools', async (t) => {
  const server = await serve(t);
  const o = options(server, [{ calls: [{ get: { key: 'fr' } }], answer: '<answer>Paris</answer>' }], { maxTurns: 3 });
  const tr = (await runAgentSample(o)).sample.trajectory;
  assert.equal(tr.stop, 'max_turns');
  assert.equal(tr.final, '', 'text written beside tool calls is no final answer');
  assert.equal(tr.turns, 3);
  assert.equal(tr.steps.length, 3);
  assert.equal(server.samplingRequests.length, 3);
  assert.equal((tr.state as { lookups: number }).lookups, 3);
});

void test('a crashing environment ends the trajectory with a clear error', async (t) => {
  const server = await serve(t);
  const o = options(server, [{ calls: [{ get: { key: 'fr' } }] }, { answer: 'never' }], { run: 'crash.mjs' });
  const tr = (await runAgentSample(o)).sample.trajectory;
  assert.equal(tr.stop, 'error');
  assert.match(tr.error ?? '', /the environment failed on turn 1, calling get: /);
  assert.equal(tr.turns, 1);
  assert.equal(server.samplingRequests.length, 1, 'no model turn after the environment died');

  const missing = options(server, [{ answer: 'x' }], { run: 'no-such-env.mjs' });
  const tm = (await runAgentSample(missing)).sample.trajectory;
  assert.equal(tm.stop, 'error');
  assert.match(tm.error ?? '', /the environment did not start: .*no-such-env/);
  assert.equal(server.samplingRequests.length, 1, 'no request when the environment does not start');
});

void test('an environment that never answers a call ends the trajectory within the call bound', async (t) => {
  const server = await serve(t);
  const o = options(server, [{ calls: [{ get: { key: 'fr' } }] }, { answer: 'never' }], {
    run: 'hang.mjs',
    callTimeoutMs: 400,
  });
  const t0 = Date.now();
  const tr = (await runAgentSample(o)).sample.trajectory;
  assert.ok(Date.now() - t0 < 5000, 'bounded');
  assert.equal(tr.stop, 'error');
  assert.match(tr.error ?? '', /tool call get took longer than 400 ms/);
  assert.equal(server.samplingRequests.length, 1);
});

void test('caching: a second run replays nothing; a changed environment replays model steps from the cache', async (t) => {
  const server = await serve(t);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-loop-cache-'));
  t.after(() => fs.rmSync(cacheDir, { recursive: true, force: true }));
  const cache = SampleCache.open(cacheDir);
  t.after(() => cache.close());
  const turns = [{ calls: [{ get: { key: 'fr' } }] }, { calls: [{ get: { key: 'de' } }] }, { answer: 'Paris, Berlin' }];
  const first = await runAgentSample(options(server, turns, { cache }));
  assert.equal(first.cached, false);
  assert.equal(server.samplingRequests.length, 3);

  const again = options(server, turns, { cache });
  const second = await runAgentSample(again);
  assert.equal(second.cached, true);
  assert.equal(server.samplingRequests.length, 3, 'no model request');
  assert.equal(again.started.count, 0, 'no environment started');
  assert.deepEqual(second.sample.trajectory, first.sample.trajectory);

  // Another environment identity: the environment runs again, the model is not asked.
  const changed = options(server, turns, { cache, environmentKey: { run: 'kv_store.mjs', content: 'edited' } });
  const third = await runAgentSample(changed);
  assert.equal(third.cached, false);
  assert.equal(third.cachedSteps, 3);
  assert.equal(changed.started.count, 1);
  assert.equal(server.samplingRequests.length, 3);
  assert.deepEqual(third.sample.trajectory.steps, first.sample.trajectory.steps);

  // Across a reopened cache (a new process): still nothing replayed.
  cache.flush();
  const reopened = SampleCache.open(cacheDir);
  t.after(() => reopened.close());
  const fourth = options(server, turns, { cache: reopened });
  assert.equal((await runAgentSample(fourth)).cached, true);
  assert.equal(fourth.started.count, 0);

  // --fresh asks again at every step.
  await runAgentSample(options(server, turns, { cache, fresh: true }));
  assert.equal(server.samplingRequests.length, 6);
});

void test('a trajectory that ended in an environment error is not kept whole: the next run tries the environment again', async (t) => {
  const server = await serve(t);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-loop-cache-'));
  t.after(() => fs.rmSync(cacheDir, { recursive: true, force: true }));
  const cache = SampleCache.open(cacheDir);
  t.after(() => cache.close());
  const turns = [{ calls: [{ get: { key: 'fr' } }] }, { answer: 'x' }];
  await runAgentSample(options(server, turns, { cache, run: 'crash.mjs' }));
  const again = options(server, turns, { cache, run: 'crash.mjs' });
  const r = await runAgentSample(again);
  assert.equal(r.cached, false);
  assert.equal(again.started.count, 1);
  assert.equal(r.cachedSteps, 1);
  assert.equal(server.samplingRequests.length, 1, 'its model step came from the cache');
});

void test('cancelling mid-trajectory rejects and closes the environment', async (t) => {
  const server = await serve(t);
  const abort = new AbortController();
  server.behaviour = (r) => (r.index === 1 ? { hang: true } : undefined);
  const o = options(server, [{ calls: [{ get: { key: 'fr' } }] }, { answer: 'x' }], { signal: abort.signal });
  const running = runAgentSample(o);
  await server.waitFor(() => server.samplingRequests.length === 2);
  abort.abort();
  await assert.rejects(running, /cancel/);
  assert.equal(o.started.count, 1);
});

// `vtask run` on agent tasks, as a real process against the test server with real environments:
// trajectories in --json and turns and tool calls in the table, the turn limit and a crashing
// environment as verdicts, a second run that replays nothing (the server's request count says
// so), and a re-verify after editing the verifier with no request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { reverify } from '../../src/core/panel/samples';
import { sampleTasks } from '../../src/core/run/sampleTasks';
import { SampleCache } from '../../src/core/sampling/cache';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { profileFromEntry } from '../../src/core/sampling/profiles';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { OpenAIServer } from '../support/openaiServer';
import { startCli } from '../support/cliProcess';
import { runArgs } from '../support/runArgs';

const server = new OpenAIServer();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-agent-run-'));
fs.chmodSync(dir, 0o755);

before(async () => {
  await server.listen();
  fs.mkdirSync(path.join(dir, 'envs'));
  fs.copyFileSync(path.resolve(__dirname, '../../../examples/envs/kv_store.mjs'), path.join(dir, 'envs/kv_store.mjs'));
  fs.writeFileSync(
    path.join(dir, 'envs/crash.mjs'),
    `export function reset() { return { tools: [{ name: 'get', parameters: { type: 'object' } }] }; }\nexport function call() { process.exit(3); }\nexport function state() { return {}; }\n`,
  );
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const script = (turns: unknown[]): string =>
  JSON.stringify(
    `Which capital is stored under fr? Reply with <answer>...</answer>.\nvtask-test-script: ${JSON.stringify(turns)}`,
  );

function taskFile(answer: string): string {
  return `vtask: 1
tasks:
  - id: kv/lookup
    prompt: ${script([{ calls: [{ get: { key: 'fr' } }] }, { answer: '<answer>Paris</answer>' }])}
    environment: { run: ./envs/kv_store.mjs }
    samples: 3
    verify:
      all:
        - match: { answer: ${answer}, tag: answer }
        - trajectory: { called: [get], max_tool_calls: 1, max_turns: 2 }
        - state: { path: lookups, equals: 1 }
  - id: kv/loop
    prompt: ${script([{ calls: [{ get: { key: 'fr' } }, { list: {} }], answer: '<answer>Paris</answer>' }])}
    environment: { run: ./envs/kv_store.mjs, args: { data: { fr: Lyon } } }
    max_turns: 2
    samples: 1
    verify: { match: { answer: Paris, tag: answer } }
  - id: kv/crash
    prompt: ${script([{ calls: [{ get: { key: 'fr' } }] }, { answer: '<answer>Paris</answer>' }])}
    environment: { run: ./envs/crash.mjs }
    samples: 1
    verify: { match: { answer: Paris, tag: answer } }
`;
}

interface JsonSample {
  pass: boolean;
  reason: string;
  cached: boolean;
  error?: string;
  trajectory?: {
    stop: string;
    turns: number;
    steps: Array<{ call: { name: string }; outcome: unknown }>;
    messages: Array<{ role: string }>;
    state?: unknown;
    error?: string;
  };
}
interface JsonTask {
  task: string;
  requests: number;
  pass_rate: number;
  samples: JsonSample[];
}

const file = path.join(dir, 'agent.vtask');
const cacheDir = path.join(dir, 'cache');
const run = (...extra: string[]) =>
  startCli(
    ['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', cacheDir, ...extra],
    {},
    60_000,
  ).done;

test('vtask run on agent tasks: trajectories, the turn limit, a crashing environment; a second run replays nothing; an edited verifier re-verifies without a request', async () => {
  fs.writeFileSync(file, taskFile('Paris'));
  const first = await run('--json');
  const out = JSON.parse(first.stdout) as { tasks: JsonTask[] };
  const [lookup, loop, crash] = out.tasks;
  assert.ok(lookup && loop && crash, first.stderr);

  assert.equal(lookup.requests, 6, 'three samples of two turns');
  assert.equal(lookup.pass_rate, 1);
  for (const s of lookup.samples) {
    assert.equal(s.pass, true, s.reason);
    assert.equal(s.trajectory?.stop, 'final');
    assert.equal(s.trajectory?.turns, 2);
    assert.deepEqual(
      s.trajectory?.steps.map((x) => [x.call.name, x.outcome]),
      [['get', { result: 'Paris' }]],
    );
    assert.deepEqual(
      s.trajectory?.messages.map((m) => m.role),
      ['assistant', 'tool', 'assistant'],
    );
    assert.deepEqual(s.trajectory?.state, {
      store: { fr: 'Paris', de: 'Berlin', it: 'Rome', es: 'Madrid' },
      lookups: 1,
    });
  }

  const l = loop.samples[0];
  assert.equal(l?.trajectory?.stop, 'max_turns');
  assert.equal(l?.trajectory?.turns, 2);
  assert.deepEqual(
    l?.trajectory?.steps.map((x) => x.outcome),
    [{ result: 'Lyon' }, { result: ['fr'] }, { result: 'Lyon' }, { result: ['fr'] }],
    'parallel calls, args reach reset',
  );
  // Its last turn wrote the right answer beside its calls: the limit left no final answer, so it fails, and says why.
  assert.equal(l?.pass, false);
  assert.match(l?.reason ?? '', /^the turn limit \(2 turns\) was reached before a final answer/);

  const c = crash.samples[0];
  assert.equal(c?.trajectory?.stop, 'error');
  assert.equal(c?.error, 'crash');
  assert.match(c?.reason ?? '', /the environment failed on turn 1, calling get/);
  const requests = server.samplingRequests.length;
  assert.equal(requests, 6 + 2 + 1);

  // The same run again: every trajectory from the cache, not one request. The crashed one is
  // run again in its environment, its model step from the cache.
  const second = JSON.parse((await run('--json')).stdout) as { tasks: JsonTask[] };
  assert.equal(server.samplingRequests.length, requests, 'no model request');
  assert.deepEqual(
    second.tasks.map((t) => t.requests),
    [0, 0, 0],
  );
  assert.deepEqual(
    second.tasks[0]?.samples.map((s) => s.cached),
    [true, true, true],
  );
  assert.deepEqual(
    second.tasks[0]?.samples.map((s) => s.trajectory),
    lookup.samples.map((s) => s.trajectory),
  );

  // The verifier edited: the cached trajectories are verified again, with no request.
  fs.writeFileSync(file, taskFile('Rome'));
  const text = await run();
  assert.equal(server.samplingRequests.length, requests, 'no model request after editing the verifier');
  assert.match(text.stdout, /^kv\/lookup\s+0\/3\b/m);
  assert.match(text.stdout, /2\.0 turns, 1\.0 tool calls per sample \(3 final\)/);
  assert.match(text.stdout, /2\.0 turns, 4\.0 tool calls per sample \(1 max_turns\)/);
  assert.match(text.stdout, /1 error/);
});

test('agent tasks are refused in an untrusted workspace, with the reason', async () => {
  fs.writeFileSync(file, taskFile('Paris'));
  const [task] = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks;
  assert.ok(task);
  const profile = profileFromEntry('test', { base_url: server.url, model: 'test-model' });
  const before = server.samplingRequests.length;
  const cache = SampleCache.open(fs.mkdtempSync(path.join(dir, 'untrusted-')));
  try {
    const [r] = await sampleTasks([task], {
      file,
      cache,
      profileFor: () => profile,
      providerFor: (p) => new OpenAIProvider(p),
      signal: new AbortController().signal,
      trusted: false,
      fresh: true,
    });
    assert.match(r?.error ?? '', /^refused: environments do not run in an untrusted workspace/);
    assert.equal(r?.samples.length, 0);
    assert.equal(server.samplingRequests.length, before);
  } finally {
    cache.close();
  }
});

test("the editor's re-verify checks trajectories against the edited verifier, with no request", async () => {
  fs.writeFileSync(file, taskFile('Paris'));
  const [task] = runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks;
  assert.ok(task);
  const profile = profileFromEntry('test', { base_url: server.url, model: 'test-model' });
  const cache = SampleCache.open(fs.mkdtempSync(path.join(dir, 'reverify-')));
  try {
    const signal = new AbortController().signal;
    const [run] = await sampleTasks([task], {
      file,
      cache,
      profileFor: () => profile,
      providerFor: (p) => new OpenAIProvider(p),
      signal,
    });
    assert.ok(run);
    assert.equal(run.stats.passed, 3);
    const requests = server.samplingRequests.length;
    const strict = { ...task, verify: { trajectory: { max_tool_calls: 0 } } };
    const r = await reverify(strict, run, { file, signal, trusted: true });
    assert.deepEqual(
      r.run.samples.map((s) => s.verdict.pass),
      [false, false, false],
    );
    assert.equal(r.lost, 3);
    const state = await reverify({ ...task, verify: { state: { path: 'lookups', equals: 1 } } }, run, {
      file,
      signal,
      trusted: true,
    });
    assert.deepEqual(
      state.run.samples.map((s) => s.verdict.pass),
      [true, true, true],
    );
    assert.equal(server.samplingRequests.length, requests);
  } finally {
    cache.close();
  }
});

test('environments alive at once are bounded across the run (VTASK_MAX_ENVIRONMENTS)', async () => {
  const one = path.join(dir, 'one.vtask');
  fs.writeFileSync(one, taskFile('Paris').split('  - id: kv/loop')[0] as string);
  server.behaviour = () => ({ delayMs: 150 });
  try {
    const args = [...runArgs(one, server.url, path.join(dir, 'bounded-cache')), '--fresh', '--json'];
    server.reset();
    const bounded = await startCli(args, { VTASK_MAX_ENVIRONMENTS: '1' }, 60_000).done;
    assert.equal(bounded.code, 0, bounded.stderr);
    assert.equal(server.maxInFlight, 1, 'one trajectory at a time: its environment holds the only slot');
    server.reset();
    const free = await startCli(args, {}, 60_000).done;
    assert.equal(free.code, 0, free.stderr);
    assert.equal(server.maxInFlight, 3, 'three trajectories at once');
  } finally {
    server.behaviour = undefined;
  }
});

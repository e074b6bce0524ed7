// Agent environments in the trainer shims, as real processes: verl's tool agent loop (a harness
// driving `EnvironmentTool`'s work as verl does, test/python/verl_agent_harness.py) never blocks
// its event loop, gives each trajectory its own environment, closes it at release (or when
// abandoned), caps how many live; verl's tool config accepts environments declaring a tool
// alike (rows keyed by their tool names mixing environments in one run) and names both when
// they conflict; TRL's environments reuse one `vtask env` process per
// instance and reset in parallel, and a rollout cut by the turn limit is scored as such.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PYTHON_PATH, python, pythonMissing } from '../support/python';
import { startServe } from '../support/serveProcess';

const ROOT = process.cwd();
const HARNESS = path.join(ROOT, 'test/python/verl_agent_harness.py');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-trainer-envs-'));
fs.chmodSync(DIR, 0o755); // the environment runs as an unprivileged user of its own
after(() => fs.rmSync(DIR, { recursive: true, force: true }));
for (const f of ['kv_store.mjs', 'kv_store.py', 'calculator.mjs']) fs.copyFileSync(path.join(ROOT, 'examples/envs', f), path.join(DIR, f));
fs.chmodSync(path.join(DIR, 'kv_store.py'), 0o755);
// Declares `get` with an integer key: not the key-value store's `get`.
fs.writeFileSync(path.join(DIR, 'numbers.mjs'), `export const reset = () => ({ tools: [{ name: 'get', description: 'The n-th number.', parameters: { type: 'object', properties: { key: { type: 'integer' } }, required: ['key'] } }] });\nexport const call = (tool, args) => args.key * 2;\nexport const state = () => ({});\n`);

interface HarnessResult {
  answers: unknown[][];
  seconds: number;
  max_lag_ms: number;
  machine_lag_ms: number;
  fastest_start_ms: number;
  max_alive: number;
  abandoned_closed: boolean;
  alive_at_end: number;
  processes_at_end: number[];
}

function harness(trajectories: number, maxSessions: number, say: (line: string) => void): HarnessResult {
  const out = path.join(DIR, `harness-${trajectories}-${maxSessions}.json`);
  const printed = python([HARNESS, DIR, out, String(trajectories), String(maxSessions)], { PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}` }, 300_000);
  say(`verl harness (${trajectories} trajectories, max_sessions ${maxSessions}): ${printed.trim()}`);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as HarnessResult;
}

void test('verl: 16 trajectories at once, each with its own environment, the event loop never blocked, every environment closed', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const r = harness(16, 64, (l) => t.diagnostic(l));
  // Each trajectory read back its own number: no environment was shared.
  assert.deepEqual(r.answers, Array.from({ length: 16 }, (_, i) => ['ok', String(i)]));
  assert.equal(r.max_alive, 16, 'all 16 ran at once');
  // A loop that waited on its environments would stall for one start-up after another (16 of
  // them gathered at once): well over one start. The scheduler of a busy machine adds its own lag,
  // measured on another thread at the same time, so that is allowed on top.
  const bound = r.machine_lag_ms + r.fastest_start_ms;
  assert.ok(r.max_lag_ms < bound, `event-loop lag ${r.max_lag_ms.toFixed(0)} ms; the machine's own lag was ${r.machine_lag_ms.toFixed(0)} ms and the fastest environment took ${r.fastest_start_ms.toFixed(0)} ms to start`);
  assert.equal(r.abandoned_closed, true, 'a trajectory never released was closed once idle');
  assert.equal(r.alive_at_end, 0);
  assert.deepEqual(r.processes_at_end, [], 'no vtask env process (or its children) outlives the run');
});

void test('verl: max_sessions caps the live environments of a worker; the others wait for a slot', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const r = harness(8, 3, (l) => t.diagnostic(l));
  assert.deepEqual(r.answers, Array.from({ length: 8 }, (_, i) => ['ok', String(i)]));
  assert.equal(r.max_alive, 3);
  assert.deepEqual(r.processes_at_end, []);
});

void test('verl: one tool config for environments declaring their tools alike, rows keyed by their tools train together over it, one per environment with --split, a conflict names both', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const row = (environment: string, args: unknown = {}): string => JSON.stringify({ extra_info: { tools_kwargs: { vtask: { create_kwargs: { environment, environment_args: JSON.stringify(args), max_turns: 4, task_id: environment } } } } });
  const rows = path.join(DIR, 'rows.jsonl');
  // kv_store.py declares `list` with `required: []`, kv_store.mjs without: the same declaration.
  fs.writeFileSync(rows, [row('kv_store.mjs'), row('kv_store.py'), row('calculator.mjs'), row('calculator.mjs', { tools: ['add'] })].join('\n') + '\n');
  const merged = path.join(DIR, 'tools.yaml');
  python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged]);
  const names = (file: string): string[] => (JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: { tool_schema: { function: { name: string } } }[] }).tools.map((x) => x.tool_schema.function.name);
  assert.deepEqual(names(merged), ['get', 'set', 'list', 'add', 'sub', 'mul']);
  const printed = python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged, '--split']);
  assert.match(printed, /3 tools of kv_store\.mjs -> .*tools\.kv_store\.yaml/);
  assert.deepEqual(names(path.join(DIR, 'tools.kv_store.yaml')), ['get', 'set', 'list']);
  assert.deepEqual(names(path.join(DIR, 'tools.calculator.yaml')), ['add', 'sub', 'mul']);

  // --rows-out keys each row's tools_kwargs by its tools' names: verl offers each row its own
  // environment's tools, so the rows of all these environments train in one run, over one config.
  const keyed = path.join(DIR, 'keyed.jsonl');
  assert.match(python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged, '--rows-out', keyed]), /4 rows, tools_kwargs by tool name -> .*keyed\.jsonl/);
  const keyedRows = fs.readFileSync(keyed, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { extra_info: { tools_kwargs: Record<string, { create_kwargs: { environment: string } }> } });
  assert.deepEqual(keyedRows.map((r) => Object.keys(r.extra_info.tools_kwargs)), [['get', 'set', 'list'], ['get', 'set', 'list'], ['add', 'sub', 'mul'], ['add']]);
  assert.deepEqual(keyedRows.map((r) => r.extra_info.tools_kwargs.add?.create_kwargs.environment ?? r.extra_info.tools_kwargs.get?.create_kwargs.environment), ['kv_store.mjs', 'kv_store.py', 'calculator.mjs', 'calculator.mjs']);
  const ran = path.join(DIR, 'keyed-run.json');
  python([HARNESS, DIR, ran, '--rows', keyed, merged], { PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}` });
  const run = JSON.parse(fs.readFileSync(ran, 'utf8')) as { rows: { offered: string[]; answer: unknown }[]; alive_at_end: number };
  assert.deepEqual(run.rows, [
    { offered: ['get', 'set', 'list'], answer: 'Paris' },
    { offered: ['get', 'set', 'list'], answer: 'Paris' },
    { offered: ['add', 'sub', 'mul'], answer: 5 },
    { offered: ['add'], answer: 5 },
  ]);
  assert.equal(run.alive_at_end, 0);

  const conflicting = path.join(DIR, 'conflict.jsonl');
  fs.writeFileSync(conflicting, [row('kv_store.mjs'), row('numbers.mjs')].join('\n') + '\n');
  const said = python(['-c', 'import sys\nfrom vtask_reward.verl_tools import main\ntry:\n    main(sys.argv[1:])\nexcept ValueError as e:\n    print(e)', conflicting, '-o', path.join(DIR, 'no.yaml')]);
  assert.match(said, /the tool 'get' is declared differently by kv_store\.mjs and numbers\.mjs; .*--split/);
  python(['-m', 'vtask_reward.verl_tools', conflicting, '-o', path.join(DIR, 'ok.yaml'), '--split']);
  assert.deepEqual(names(path.join(DIR, 'ok.numbers.yaml')), ['get']);
});

void test('TRL: one vtask env process per instance for all its rollouts, reset in parallel, a fresh environment each time, all closed; a cut rollout is scored without an answer', async (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const tasks = path.join(DIR, 'kv.vtask');
  fs.writeFileSync(tasks, ['vtask: 1', 'tasks:', '  - id: kv', '    prompt: "fr?"', '    environment: { run: ./kv_store.mjs }', '    verify: { match: { answer: Paris, tag: answer } }', ''].join('\n'));
  const served = await startServe([tasks]);
  after(() => served.child.kill('SIGTERM'));
  const out = path.join(DIR, 'trl.json');
  const printed = python([path.join(ROOT, 'test/python/trl_env_pool.py'), DIR, out], { PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}`, VTASK_URL: served.url });
  t.diagnostic(`TRL reset loops (4 instances, 2 steps): ${printed.trim()}`);
  type Step = { reset_seconds: number; answers: string[]; pids: number[]; trajectories: { calls: unknown[]; state: { lookups: number } }[] };
  const r = JSON.parse(fs.readFileSync(out, 'utf8')) as { steps: Step[]; cut: Record<string, unknown>; answered: Record<string, unknown>; scored: { rewards: number[]; reasons: string[] }; alive_before_close: number; alive_after_close: number; processes_after_close: number[] };
  const [first, second] = r.steps as [Step, Step];
  for (const step of r.steps) {
    assert.deepEqual(step.answers, Array(4).fill('"Paris"'));
    // Each rollout saw a fresh environment: one lookup, its own.
    assert.deepEqual(step.trajectories.map((x) => x.state.lookups), [1, 1, 1, 1]);
    // TRL's sequential reset loop only sends the resets: it never waits for an environment.
    assert.ok(step.reset_seconds < 1, `the reset loop took ${step.reset_seconds} s`);
  }
  assert.equal(new Set(first.pids).size, 4, 'one process per instance');
  assert.deepEqual(second.pids, first.pids, 'the next step reset the same processes');
  assert.equal(r.alive_before_close, 4);
  assert.equal(r.alive_after_close, 0);
  assert.deepEqual(r.processes_after_close, [], 'close_environments() leaves no process');

  // A rollout whose last turn called a tool (TRL's turn limit) goes to vtask serve as cut: its text is no answer.
  assert.equal(r.cut.stop, 'max_turns');
  assert.equal(r.answered.stop, undefined);
  // vtask_reward called as GRPOTrainer calls it: each environment goes with its own completion,
  // and a rollout the turn limit cut scores 0 although its text holds the right answer.
  assert.deepEqual(r.scored.rewards, [1, 0, 1, 0], JSON.stringify(r.scored));
  assert.equal(r.scored.reasons.length, 4, 'one reason per completion in the completions table');
  assert.match(r.scored.reasons[1] ?? '', /turn limit|max_turns/, JSON.stringify(r.scored.reasons));
  assert.doesNotMatch(r.scored.reasons[0] ?? '', /turn limit|max_turns/);
});

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
for (const f of ['kv_store.mjs', 'kv_store.py', 'calculator.mjs'])
  fs.copyFileSync(path.join(ROOT, 'examples/envs', f), path.join(DIR, f));
fs.chmodSync(path.join(DIR, 'kv_store.py'), 0o755);
// Declares `get` with an integer key: not the key-value store's `get`.
fs.writeFileSync(
  path.join(DIR, 'numbers.mjs'),
  `export const reset = () => ({ tools: [{ name: 'get', description: 'The n-th number.', parameters: { type: 'object', properties: { key: { type: 'integer' } }, required: ['key'] } }] });\nexport const call = (tool, args) => args.key * 2;\nexport const state = () => ({});\n`,
);

interface HarnessResult {
  answers: unknown[][];
  seconds: number;
  max_lag_ms: number;
  idle_loops_lag_ms: number;
  max_alive: number;
  abandoned_closed: boolean;
  alive_at_end: number;
  processes_at_end: number[];
  helpers: number;
}

function harness(trajectories: number, maxSessions: number, say: (line: string) => void): HarnessResult {
  const out = path.join(DIR, `harness-${trajectories}-${maxSessions}.json`);
  const printed = python(
    [HARNESS, DIR, out, String(trajectories), String(maxSessions)],
    { PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}` },
    300_000,
  );
  say(`verl harness (${trajectories} trajectories, max_sessions ${maxSessions}): ${printed.trim()}`);
  return JSON.parse(fs.readFileSync(out, 'utf8')) as HarnessResult;
}

void test('verl: 16 trajectories at once, each with its own environment, the event loop never blocked, every environment closed', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  // While the 16 environments start, the loop wakes no later than 50 ms beyond what otherwise idle
  // event loops in four other processes did at the same time: a busy machine makes every loop
  // late, and only what is beyond that is this loop's own blocking. Each figure is one latest
  // wake-up, and at load 20-30 on 2 cores a single scheduling hiccup put this loop 50-130 ms
  // past the idle ones in 2 of 11 runs, so a run past the bound is run once more and the second
  // must hold. Starting the processes from the trainer's process, on threads, was 80-380 ms past
  // them in every run.
  const within = (x: HarnessResult): boolean => x.max_lag_ms < x.idle_loops_lag_ms + 50;
  const first = harness(16, 64, (l) => t.diagnostic(l));
  const r = within(first) ? first : harness(16, 64, (l) => t.diagnostic(`once more: ${l}`));
  // Each trajectory read back its own number: no environment was shared.
  assert.deepEqual(
    r.answers,
    Array.from({ length: 16 }, (_, i) => ['ok', String(i)]),
  );
  assert.equal(r.max_alive, 16, 'all 16 ran at once');
  assert.ok(
    within(r),
    `event-loop lag ${r.max_lag_ms.toFixed(0)} ms; idle event loops at the same time: ${r.idle_loops_lag_ms.toFixed(0)} ms (the run before: ${first.max_lag_ms.toFixed(0)} and ${first.idle_loops_lag_ms.toFixed(0)} ms)`,
  );
  assert.equal(r.abandoned_closed, true, 'a trajectory never released was closed once idle');
  assert.equal(r.alive_at_end, 0);
  assert.deepEqual(r.processes_at_end, [], 'no vtask env process (or its children) outlives the run');
  assert.equal(r.helpers, 1, 'one helper started the environments');
});

void test('verl: max_sessions caps the live environments of a worker; the others wait for a slot', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const r = harness(8, 3, (l) => t.diagnostic(l));
  assert.deepEqual(
    r.answers,
    Array.from({ length: 8 }, (_, i) => ['ok', String(i)]),
  );
  assert.equal(r.max_alive, 3);
  assert.deepEqual(r.processes_at_end, []);
});

void test('verl: one tool config for environments declaring their tools alike, rows keyed by their tools train together over it (in Parquet too), one per environment with --split, a conflict names both', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const row = (environment: string, args: unknown = {}): string =>
    JSON.stringify({
      extra_info: {
        tools_kwargs: {
          vtask: {
            create_kwargs: { environment, environment_args: JSON.stringify(args), max_turns: 4, task_id: environment },
          },
        },
      },
    });
  const rows = path.join(DIR, 'rows.jsonl');
  // kv_store.py declares `list` with `required: []`, kv_store.mjs without: the same declaration.
  fs.writeFileSync(
    rows,
    [row('kv_store.mjs'), row('kv_store.py'), row('calculator.mjs'), row('calculator.mjs', { tools: ['add'] })].join(
      '\n',
    ) + '\n',
  );
  const merged = path.join(DIR, 'tools.yaml');
  python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged]);
  const names = (file: string): string[] =>
    (
      JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: { tool_schema: { function: { name: string } } }[] }
    ).tools.map((x) => x.tool_schema.function.name);
  assert.deepEqual(names(merged), ['get', 'set', 'list', 'add', 'sub', 'mul']);
  const printed = python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged, '--split']);
  assert.match(printed, /3 tools of kv_store\.mjs -> .*tools\.kv_store\.yaml/);
  assert.deepEqual(names(path.join(DIR, 'tools.kv_store.yaml')), ['get', 'set', 'list']);
  assert.deepEqual(names(path.join(DIR, 'tools.calculator.yaml')), ['add', 'sub', 'mul']);

  // --rows-out keys each row's tools_kwargs by its tools' names: verl offers each row its own
  // environment's tools, so the rows of all these environments train in one run, over one config.
  const keyed = path.join(DIR, 'keyed.jsonl');
  assert.match(
    python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged, '--rows-out', keyed]),
    /4 rows, tools_kwargs by tool name -> .*keyed\.jsonl/,
  );
  const keyedRows = fs
    .readFileSync(keyed, 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as { extra_info: { tools_kwargs: Record<string, { create_kwargs: { environment: string } }> } },
    );
  assert.deepEqual(
    keyedRows.map((r) => Object.keys(r.extra_info.tools_kwargs)),
    [['get', 'set', 'list'], ['get', 'set', 'list'], ['add', 'sub', 'mul'], ['add']],
  );
  assert.deepEqual(
    keyedRows.map(
      (r) =>
        r.extra_info.tools_kwargs.add?.create_kwargs.environment ??
        r.extra_info.tools_kwargs.get?.create_kwargs.environment,
    ),
    ['kv_store.mjs', 'kv_store.py', 'calculator.mjs', 'calculator.mjs'],
  );
  const ran = path.join(DIR, 'keyed-run.json');
  python([HARNESS, DIR, ran, '--rows', keyed, merged], {
    PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}`,
  });
  const run = JSON.parse(fs.readFileSync(ran, 'utf8')) as {
    rows: { offered: string[]; answer: unknown }[];
    alive_at_end: number;
  };
  assert.deepEqual(run.rows, [
    { offered: ['get', 'set', 'list'], answer: 'Paris' },
    { offered: ['get', 'set', 'list'], answer: 'Paris' },
    { offered: ['add', 'sub', 'mul'], answer: 5 },
    { offered: ['add'], answer: 5 },
  ]);
  assert.equal(run.alive_at_end, 0);

  // In Parquet a column has one type, so each row's tools_kwargs holds every tool name of the
  // rows: a foreign one has an empty create_kwargs (never a null verl's lookup fails on), and
  // verl's call of it through the tool answers an error instead of reaching an environment.
  const keyedParquet = path.join(DIR, 'keyed.parquet');
  python(['-m', 'vtask_reward.verl_tools', rows, '-o', merged, '--rows-out', keyedParquet]);
  const lookup = python([
    '-c',
    `
import asyncio, json, sys
import pyarrow.parquet as pq
from vtask_reward.verl_tools import EnvironmentToolMixin
class Tool(EnvironmentToolMixin):
    def __init__(self, name):
        self.name, self.config = name, {"base_dir": sys.argv[2]}
rows = pq.read_table(sys.argv[1]).to_pylist()
# verl's tool agent loop: kwargs = tools_kwargs.get(tool_name, {}); create(create_kwargs=kwargs.get("create_kwargs", {}))
envs = [{name: (kw.get(name, {}).get("create_kwargs", {}) or {}).get("environment") for name in ["get", "add"]} for kw in (r["extra_info"]["tools_kwargs"] for r in rows)]
async def foreign():
    tool = Tool("add")
    instance, _ = await tool.create(create_kwargs=rows[0]["extra_info"]["tools_kwargs"]["add"]["create_kwargs"])
    text, _, _ = await tool.execute(instance, {"a": 2, "b": 3})
    await tool.release(instance)
    return json.loads(text)
print(json.dumps({"envs": envs, "foreign": asyncio.run(foreign())}))
`,
    keyedParquet,
    DIR,
  ]);
  const looked = JSON.parse(lookup.trim()) as { envs: Record<string, string | null>[]; foreign: { error?: string } };
  assert.deepEqual(looked.envs, [
    { get: 'kv_store.mjs', add: null },
    { get: 'kv_store.py', add: null },
    { get: null, add: 'calculator.mjs' },
    { get: null, add: 'calculator.mjs' },
  ]);
  assert.match(String(looked.foreign.error), /this trajectory has no vtask environment/);

  const conflicting = path.join(DIR, 'conflict.jsonl');
  fs.writeFileSync(conflicting, [row('kv_store.mjs'), row('numbers.mjs')].join('\n') + '\n');
  const said = python([
    '-c',
    'import sys\nfrom vtask_reward.verl_tools import main\ntry:\n    main(sys.argv[1:])\nexcept ValueError as e:\n    print(e)',
    conflicting,
    '-o',
    path.join(DIR, 'no.yaml'),
  ]);
  assert.match(said, /the tool 'get' is declared differently by kv_store\.mjs and numbers\.mjs; .*--split/);
  python(['-m', 'vtask_reward.verl_tools', conflicting, '-o', path.join(DIR, 'ok.yaml'), '--split']);
  assert.deepEqual(names(path.join(DIR, 'ok.numbers.yaml')), ['get']);
});

void test('TRL: one vtask env process per instance for all its rollouts, reset in parallel, a fresh environment each time, all closed; a cut rollout is scored without an answer', async (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const tasks = path.join(DIR, 'kv.vtask');
  fs.writeFileSync(
    tasks,
    [
      'vtask: 1',
      'tasks:',
      '  - id: kv',
      '    prompt: "fr?"',
      '    environment: { run: ./kv_store.mjs }',
      '    verify: { match: { answer: Paris, tag: answer } }',
      '',
    ].join('\n'),
  );
  const served = await startServe([tasks]);
  after(() => served.child.kill('SIGTERM'));
  const out = path.join(DIR, 'trl.json');
  const printed = python([path.join(ROOT, 'test/python/trl_env_pool.py'), DIR, out], {
    PYTHONPATH: `${PYTHON_PATH}:${path.join(ROOT, 'test/python')}`,
    VTASK_URL: served.url,
  });
  t.diagnostic(`TRL reset loops (4 instances, 2 steps): ${printed.trim()}`);
  type Step = {
    reset_seconds: number;
    answers: string[];
    pids: number[];
    trajectories: { calls: unknown[]; state: { lookups: number } }[];
  };
  const r = JSON.parse(fs.readFileSync(out, 'utf8')) as {
    steps: Step[];
    cut: Record<string, unknown>;
    answered: Record<string, unknown>;
    scored: { rewards: number[]; reasons: string[] };
    alive_before_close: number;
    alive_after_close: number;
    processes_after_close: number[];
  };
  const [first, second] = r.steps as [Step, Step];
  for (const step of r.steps) {
    assert.deepEqual(step.answers, Array(4).fill('"Paris"'));
    // Each rollout saw a fresh environment: one lookup, its own.
    assert.deepEqual(
      step.trajectories.map((x) => x.state.lookups),
      [1, 1, 1, 1],
    );
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

void test('AsyncEnvironment: a hung environment fails at its timeout, one that dies fails its call and the next reset starts anew, a missing command says so, a 3 MB answer arrives, and none outlives its trainer', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const env = (name: string, onCall: string): void => {
    const file = path.join(DIR, name);
    // Each answers reset; a call does onCall; at the end of its input it waits a minute (the
    // trainer must stop it).
    fs.writeFileSync(
      file,
      `#!/usr/bin/env python3\nimport json, sys, time\nfor line in sys.stdin:\n    op = json.loads(line)["op"]\n    if op == "reset":\n        print(json.dumps({"tools": [{"name": "go"}]}), flush=True)\n    else:\n${onCall}\ntime.sleep(60)\n`,
    );
    fs.chmodSync(file, 0o755);
  };
  env('hang.py', '        time.sleep(60)');
  env('die.py', '        sys.exit(0)');
  env('big.py', '        print(json.dumps({"result": "x" * 3_000_000}), flush=True)');
  const script = `
import asyncio, json, os, sys
from vtask_reward.environment import AsyncEnvironment, EnvironmentFailure
base = sys.argv[1]
kept = []
async def failure(coro):
    try:
        return await coro
    except EnvironmentFailure as e:
        return str(e)
async def main():
    out = {}
    hung = AsyncEnvironment("hang.py", base, timeout=1, isolation="none")
    await hung.reset()
    out["hung"] = await failure(hung.call("go", {}))
    out["hung_running"] = hung.running()
    dies = AsyncEnvironment("die.py", base, isolation="none")
    await dies.reset()
    out["dies"] = await failure(dies.call("go", {}))
    out["again"] = [t["name"] for t in await dies.reset()]
    await dies.close()
    out["missing"] = await failure(AsyncEnvironment("no-such-program", base, isolation="none").reset())
    big = AsyncEnvironment("big.py", base, isolation="none")
    await big.reset()
    out["big"] = len((await big.call("go", {}))["result"])
    await big.close()
    left = AsyncEnvironment("hang.py", base, isolation="none")  # never closed: stopped at exit
    kept.append(left)
    await left.reset()
    out["left_pid"] = left._child.pid
    print(json.dumps(out))
asyncio.run(main())
`;
  const out = JSON.parse(python(['-c', script, DIR]).trim()) as Record<string, unknown>;
  assert.match(String(out.hung), /hang\.py: no answer to call within 1 s/);
  assert.equal(out.hung_running, false, 'the hung environment was stopped');
  assert.match(String(out.dies), /die\.py: the environment ended without answering call/);
  assert.deepEqual(out.again, ['go'], 'the next reset started it again');
  assert.match(String(out.missing), /no-such-program: cannot start: .*No such file or directory/);
  assert.equal(out.big, 3_000_000);
  const left = Number(out.left_pid);
  const alive = (pid: number): boolean => {
    try {
      return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  assert.equal(
    alive(left),
    false,
    `the environment left open (pid ${left}), deaf to its closed input, was stopped when its trainer exited`,
  );
});

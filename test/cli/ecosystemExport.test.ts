// `vtask export --format verifiers|inspect` and `vtask import` of what those tools (and the Hub)
// hold. Without verifiers or Inspect: the package installs with pip and carries its rows and
// environments, its module compiles, its Parquet loads with pyarrow, and the reward and scorer
// code of integrations/python scores through a `vtask serve` it starts itself, as the task
// files' cases say. With them (VTASK_VERIFIERS_PYTHON, VTASK_INSPECT_PYTHON): their own
// evaluation loops run the export against a local OpenAI-compatible server, and every score
// equals the verdict `vtask run` gives the same sample, agent tasks (tools) included.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { startOpenAIServer, type AnswerContext, type Answer } from '../support/openaiServer';
import { ecosystemPython, PYTHON_PATH, python, pythonMissing } from '../support/python';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-eco-'));
const FILES = ['examples/math.vtask', 'examples/agent-calculator.vtask'];
const VTASK_CLI = `${process.execPath} ${CLI}`;
const run = promisify(execFile);

function vtask(args: readonly string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

function exported(format: 'verifiers' | 'inspect' | 'hf', name: string, extra: readonly string[] = []): string {
  const dir = path.join(DIR, name);
  const r = vtask(['export', ...FILES, '--format', format, '-o', dir, '--no-runs', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

const pyJson = <T>(code: string, env: NodeJS.ProcessEnv = {}): T =>
  JSON.parse(python(['-c', code], env).trim().split('\n').at(-1)!) as T;

test('export --format verifiers: a package pip installs, with its rows, environments, README and a module that compiles', (t) => {
  const why = pythonMissing(['pyarrow', 'setuptools']);
  if (why) return t.skip(why);
  const dir = exported('verifiers', 'vtask-calc');
  for (const f of [
    'pyproject.toml',
    'README.md',
    'vtask_calc/__init__.py',
    'vtask_calc/data/tasks.parquet',
    'vtask_calc/envs/envs/calculator.mjs',
  ])
    assert.ok(fs.existsSync(path.join(dir, f)), f);
  python(['-m', 'py_compile', path.join(dir, 'vtask_calc/__init__.py')]);
  const site = path.join(DIR, 'site');
  python(
    ['-m', 'pip', 'install', '-q', '--no-deps', '--no-build-isolation', '--no-index', '--target', site, dir],
    {},
    300_000,
  );
  const got = pyJson<{
    project: { name: string; dependencies: string[] };
    rows: Record<string, unknown>[];
    env: boolean;
    splits: Record<string, string>;
  }>(`
import json, os, sys, tomllib
sys.path.insert(0, ${JSON.stringify(site)})
import vtask_calc
from vtask_reward import verifiers_env
here = os.path.dirname(vtask_calc.__file__)
rows = verifiers_env.read_rows(os.path.join(here, "data", vtask_calc.SPLITS["train"]))
info = json.loads([r for r in rows if r["task_id"] == "calc/add-38-47"][0]["info"])
env = os.path.exists(os.path.join(here, "data", info["environment"]))
print(json.dumps({"project": tomllib.load(open(${JSON.stringify(path.join(dir, 'pyproject.toml'))}, "rb"))["project"], "rows": rows, "env": env, "splits": vtask_calc.SPLITS}, default=str))
`);
  assert.equal(got.project.name, 'vtask-calc');
  assert.ok(
    ['verifiers', 'vtask-reward', 'pyarrow'].every((d) => got.project.dependencies.includes(d)),
    got.project.dependencies.join(),
  );
  assert.deepEqual(got.splits, { train: 'tasks.parquet' });
  assert.equal(got.rows.length, 7);
  const clips = got.rows.find((r) => r.task_id === 'gsm8k/clips')!;
  assert.equal(clips.answer, '72');
  assert.deepEqual(
    (clips.prompt as { role: string }[]).map((m) => m.role),
    ['system', 'user'],
  );
  assert.deepEqual(JSON.parse(JSON.parse(String(clips.info)).vtask_verifier), { math: { answer: '72' } });
  assert.ok(got.env, 'the installed package does not carry the calculator environment its rows name');
  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.match(readme, /### Environment Arguments/);
  assert.match(readme, /vf-eval vtask-calc/);
});

test("verifiers reward: the rubric function scores a group through a vtask serve it starts, as the task files' cases say", (t) => {
  const why = pythonMissing(['pyarrow']);
  if (why) return t.skip(why);
  const dir = exported('verifiers', 'vtask-reward-check');
  const data = path.join(dir, 'vtask_reward_check/data/tasks.parquet');
  const got = pyJson<{ scores: number[]; passes: boolean[]; reasons: string[]; filtered: number[] }>(
    `
import json
from vtask_reward import verifiers_env
f = ${JSON.stringify(data)}
rows = {r["task_id"]: r for r in verifiers_env.read_rows(f)}
reward = verifiers_env.make_reward(f)
clips, add = rows["gsm8k/clips"], rows["calc/add-38-47"]
said = lambda text: [{"role": "assistant", "content": text}]
traj = {"calls": [{"tool": "add", "args": {"a": 38, "b": 47}, "result": 85}], "state": {"calls": 1, "byTool": {"add": 1}}}
states = [{}, {}, {"vtask_trajectory": traj}, {}]
scores = reward([clips["prompt"], clips["prompt"], add["prompt"], add["prompt"]],
                [said("48 + 24 = 72. \\\\boxed{72}"), said("The answer is \\\\boxed{71}."), said("\\\\boxed{85}"), said("\\\\boxed{85}")],
                [clips["info"], clips["info"], add["info"], add["info"]], states)
filtered = [len(verifiers_env.read_rows(f, ids=["gsm8k/clips"])), len(verifiers_env.read_rows(f, num_examples=2)), len(verifiers_env.read_rows(f, bands=["learnable"]))]
print(json.dumps({"scores": scores, "passes": [s["vtask_verdict"]["pass"] for s in states], "reasons": [s["vtask_verdict"]["reason"] for s in states], "filtered": filtered}))
`,
    { VTASK_CLI },
  );
  // The reward is the verdict's score: `all` of two checks with one failed scores 0.5 and fails.
  assert.deepEqual(got.scores, [1, 0, 1, 0.5]);
  assert.deepEqual(got.passes, [true, false, true, false]);
  assert.match(got.reasons[1]!, /extracted 71/);
  assert.match(got.reasons[3]!, /trajectory/);
  assert.deepEqual(got.filtered, [1, 2, 0]);
});

test('a verdict that cannot be given (a judge without a model) is undecided: the reward says so in its metric, never a quiet 0', (t) => {
  const why = pythonMissing(['pyarrow']);
  if (why) return t.skip(why);
  const tasks = path.join(DIR, 'judged.vtask');
  fs.writeFileSync(
    tasks,
    'vtask: 1\ntasks:\n  - id: judged/why\n    prompt: Why is the sky blue?\n    verify:\n      judge: { rubric: ["Names Rayleigh scattering"] }\n',
  );
  const dir = path.join(DIR, 'vtask-judged');
  const r = vtask(['export', tasks, '--format', 'verifiers', '-o', dir, '--no-runs']);
  assert.equal(r.status, 0, r.stderr);
  const data = path.join(dir, 'vtask_judged/data/tasks.parquet');
  const got = pyJson<{
    scores: number[];
    undecided: number[];
    verdict: { error?: string; reason: string };
    raised: string;
  }>(
    `
import json
from vtask_reward import verifiers_env
from vtask_reward.client import UndecidedVerdict
f = ${JSON.stringify(data)}
row = verifiers_env.read_rows(f)[0]
states = [{}]
scores = verifiers_env.make_reward(f)([row["prompt"]], [[{"role": "assistant", "content": "Rayleigh scattering."}]], [row["info"]], states)
try:
    verifiers_env.make_reward(f, undecided="raise")([row["prompt"]], [[{"role": "assistant", "content": "x"}]], [row["info"]], [{}])
    raised = ""
except UndecidedVerdict as e:
    raised = str(e)
print(json.dumps({"scores": scores, "undecided": verifiers_env.vtask_undecided(states), "verdict": states[0]["vtask_verdict"], "raised": raised}))
`,
    { VTASK_CLI },
  );
  assert.deepEqual(got.scores, [0]);
  assert.deepEqual(got.undecided, [1]);
  assert.equal(got.verdict.error, 'unavailable');
  assert.match(got.raised, /undecided verdict \(unavailable\)/);
});

test("export --format inspect: tasks.py compiles beside its json_dataset file; the scorer's core scores through vtask serve", (t) => {
  const why = pythonMissing(['pyarrow']);
  if (why) return t.skip(why);
  const dir = exported('inspect', 'inspect-calc');
  python(['-m', 'py_compile', path.join(dir, 'tasks.py')]);
  const text = fs.readFileSync(path.join(dir, 'tasks.py'), 'utf8');
  assert.match(text, /@task\ndef vtask_train\(/);
  assert.match(text, /GENERATE = \{"temperature": 1\}/);
  const rows = fs
    .readFileSync(path.join(dir, 'dataset.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as { id: string; input: { role: string }[]; target: string; metadata: Record<string, unknown> },
    );
  assert.deepEqual(
    rows.map((r) => r.id),
    [
      'gsm8k/clips',
      'gsm8k/weng',
      'competition/fraction',
      'calc/add-38-47',
      'calc/mul-345-12',
      'calc/sub-908-77',
      'calc/add-only',
    ],
  );
  assert.equal(rows[0]!.target, '72');
  assert.equal(rows[3]!.metadata.environment, 'envs/envs/calculator.mjs');
  assert.ok(fs.existsSync(path.join(dir, 'envs/envs/calculator.mjs')));
  // The scorer's path: the samples scored at one moment share a request.
  const got = pyJson<{ pass: boolean; score: number; reason: string }[]>(
    `
import asyncio, json
from vtask_reward.package_rows import VerdictBatcher, serve_client
rows = [json.loads(l) for l in open(${JSON.stringify(path.join(dir, 'dataset.jsonl'))})]
sub = rows[5]
traj = {"calls": [{"tool": "sub", "args": {"a": 908, "b": 77}, "result": 831}, {"tool": "sub", "args": {"a": 908, "b": 77}, "result": 831}], "state": {"calls": 2}}
batcher = VerdictBatcher(serve_client(${JSON.stringify(dir)}))
async def both():
    return await asyncio.gather(batcher.verdict(rows[1]["metadata"], "", "\\\\boxed{10}"), batcher.verdict(sub["metadata"], "", "\\\\boxed{831}", traj))
print(json.dumps(list(asyncio.run(both()))))
`,
    { VTASK_CLI },
  );
  assert.deepEqual(
    got.map((v) => v.pass),
    [true, false],
  );
  assert.match(got[1]!.reason, /state/);
});

test('import: an Inspect json_dataset file (input/target/id/metadata) becomes a task file; an Inspect export comes back whole', () => {
  const file = path.join(DIR, 'samples.jsonl');
  const samples = [
    { id: 1, input: 'What is 6 times 7?', target: '42' },
    {
      id: 'capital',
      input: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      target: ['Paris', 'Paris, France'],
      metadata: { tags: ['geo'] },
    },
    { id: 'none', input: 'Say hi.', target: '' },
  ];
  fs.writeFileSync(file, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
  const out = path.join(DIR, 'samples.vtask');
  const r = vtask(['import', file, '-o', out]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /line 3: not imported: no vtask verifier and no target answer/);
  assert.match(r.stdout, /2 tasks from inspect rows; 1 row not imported/);
  const tasks = (YAML.parse(fs.readFileSync(out, 'utf8')) as { tasks: Record<string, unknown>[] }).tasks;
  assert.deepEqual(tasks[0], { id: '1', prompt: 'What is 6 times 7?', verify: { math: { answer: '42' } } });
  assert.deepEqual(tasks[1], {
    id: 'capital',
    system: 'Answer briefly.',
    prompt: 'What is the capital of France?',
    verify: { match: { answers: ['Paris', 'Paris, France'] } },
    tags: ['geo'],
  });
  const checked = vtask(['test', out]);
  assert.equal(checked.status, 0, checked.stderr + checked.stdout);

  const dir = exported('inspect', 'inspect-round');
  const back = path.join(dir, 'back.vtask');
  const r2 = vtask(['import', dir, '-o', back]);
  assert.equal(r2.status, 0, r2.stderr);
  const again = (
    YAML.parse(fs.readFileSync(back, 'utf8')) as {
      tasks: { id: string; verify: unknown; environment?: { run: string } }[];
    }
  ).tasks;
  assert.equal(again.length, 7);
  assert.deepEqual(again.find((x) => x.id === 'gsm8k/clips')!.verify, { math: { answer: '72' } });
  assert.deepEqual(again.find((x) => x.id === 'calc/add-only')!.environment, {
    run: './envs/envs/calculator.mjs',
    args: { tools: ['add'] },
  });
  const retest = vtask(['check', back]);
  assert.equal(retest.status, 0, retest.stderr + retest.stdout);
});

test('import: a Hub dataset folder reads every shard; a verifiers package folder and a question/answer Parquet come back as tasks', (t) => {
  const why = pythonMissing(['pyarrow']);
  if (why) return t.skip(why);
  const hub = exported('hf', 'hub', ['--shard-size', '3']);
  assert.equal(fs.readdirSync(path.join(hub, 'data')).length, 3);
  const fromHub = path.join(DIR, 'hub.vtask');
  const r = vtask(['import', hub, '-o', fromHub]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /7 tasks from hf rows/);
  const pkg = exported('verifiers', 'vtask-round');
  const fromPkg = path.join(pkg, 'back.vtask');
  const r2 = vtask(['import', pkg, '-o', fromPkg]);
  assert.equal(r2.status, 0, r2.stderr);
  assert.match(r2.stdout, /7 tasks from verifiers rows/);
  const ids = (f: string): string[] =>
    (YAML.parse(fs.readFileSync(f, 'utf8')) as { tasks: { id: string }[] }).tasks.map((x) => x.id);
  assert.deepEqual(ids(fromPkg), ids(fromHub));
  // What a verifiers environment's dataset often is: question and answer columns.
  const qa = path.join(DIR, 'qa.parquet');
  python([
    '-c',
    `import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({"question": ["What is 2+3?", "Half of 10?"], "answer": ["5", "#### 5"]}), ${JSON.stringify(qa)})`,
  ]);
  const r3 = vtask(['import', qa, '-o', path.join(DIR, 'qa.vtask')]);
  assert.equal(r3.status, 0, r3.stderr);
  const tasks = (YAML.parse(fs.readFileSync(path.join(DIR, 'qa.vtask'), 'utf8')) as { tasks: { verify: unknown }[] })
    .tasks;
  assert.deepEqual(
    tasks.map((x) => x.verify),
    [{ math: { answer: '5' } }, { math: { answer: '5' } }],
  );
});

/**
 * The model of the runs below: math prompts get `\boxed{72}` (right for one task only);
 * calculator prompts call the tool the prompt's operator names, then answer with its result.
 */
function calculatorModel(ctx: AnswerContext): Answer | string {
  const messages = ctx.messages ?? [];
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? ctx.prompt;
  const m = /(\d+)\s*([-+*])\s*(\d+)/.exec(user);
  if (!/calculator/.test(user) || !m) return '\\boxed{72}';
  const tool = messages.filter((x) => x.role === 'tool').at(-1);
  if (tool) return `The calculator says ${tool.content}. \\boxed{${tool.content}}`;
  const name = { '+': 'add', '-': 'sub', '*': 'mul' }[m[2] as '+' | '-' | '*'];
  return {
    text: '',
    toolCalls: [{ id: 'call_1', name, arguments: JSON.stringify({ a: Number(m[1]), b: Number(m[3]) }) }],
    finishReason: 'tool_calls',
  };
}

/** `vtask run`'s verdict of each task's one sample from the same model: task id → [score, reason]. */
async function runVerdicts(url: string): Promise<Map<string, [number, string]>> {
  const { stdout } = await run(
    process.execPath,
    [
      CLI,
      'run',
      ...FILES,
      '--base-url',
      url,
      '--model',
      'test-model',
      '--samples',
      '1',
      '--json',
      '--cache-dir',
      fs.mkdtempSync(path.join(DIR, 'cache-')),
    ],
    { cwd: ROOT, maxBuffer: 1 << 26 },
  );
  const out = JSON.parse(stdout) as { tasks: { task: string; samples: { score: number; reason: string }[] }[] };
  return new Map(out.tasks.map((x) => [x.task, [x.samples[0]!.score, x.samples[0]!.reason]]));
}

test("inspect eval of the exported tasks (openai-api provider, local server): every score and explanation is vtask run's verdict", async (t) => {
  const py = ecosystemPython('inspect');
  if ('why' in py) return t.skip(py.why);
  const server = await startOpenAIServer({ answer: calculatorModel });
  try {
    const url = server.url;
    const dir = exported('inspect', 'inspect-eval');
    const logs = path.join(DIR, 'inspect-logs');
    const env = {
      ...process.env,
      PYTHONPATH: PYTHON_PATH,
      VTASK_CLI,
      TEST_BASE_URL: url,
      TEST_API_KEY: 'test',
      INSPECT_DISPLAY: 'plain',
    };
    const inspectCli = path.join(path.dirname(py.python), 'inspect');
    await run(
      inspectCli,
      [
        'eval',
        'tasks.py@vtask_train',
        '--model',
        'openai-api/test/test-model',
        '--log-dir',
        logs,
        '--log-format',
        'json',
        '--display',
        'plain',
      ],
      { cwd: dir, env, maxBuffer: 1 << 26, timeout: 600_000 },
    );
    const log = JSON.parse(
      fs.readFileSync(
        path.join(
          logs,
          fs.readdirSync(logs).find((f) => f.endsWith('.json'))!,
        ),
        'utf8',
      ),
    ) as {
      status: string;
      error?: { message: string };
      samples: { id: string; scores: { vtask_scorer: { value: number; explanation: string } } }[];
    };
    assert.equal(log.status, 'success', log.error?.message);
    const got = new Map(
      log.samples.map((s) => [
        s.id,
        [s.scores.vtask_scorer.value, s.scores.vtask_scorer.explanation] as [number, string],
      ]),
    );
    const want = await runVerdicts(url);
    assert.deepEqual([...got].sort(), [...want].sort());
    // The tools worked: every agent task called its tool once and answered with the result.
    assert.deepEqual(
      ['calc/add-38-47', 'calc/mul-345-12', 'calc/sub-908-77', 'calc/add-only'].map((id) => got.get(id)?.[0]),
      [1, 1, 1, 1],
    );
    assert.equal(got.get('gsm8k/clips')?.[0], 1);
    assert.equal(got.get('gsm8k/weng')?.[0], 0);
  } finally {
    await server.close();
  }
});

test("verifiers: the installed environment's evaluate() against a local server gives vtask run's verdicts, agent tasks as a ToolEnv", async (t) => {
  const py = ecosystemPython('verifiers');
  if ('why' in py) return t.skip(py.why);
  const server = await startOpenAIServer({ answer: calculatorModel });
  try {
    const url = server.url;
    const dir = exported('verifiers', 'vtask-vf-eval');
    const site = path.join(DIR, 'vf-site');
    await run(
      py.python,
      ['-m', 'pip', 'install', '-q', '--no-deps', '--no-build-isolation', '--no-index', '--target', site, dir],
      { maxBuffer: 1 << 26 },
    );
    const env = {
      ...process.env,
      PYTHONPATH: `${site}${path.delimiter}${PYTHON_PATH}`,
      VTASK_CLI,
      TEST_API_KEY: 'test',
    };
    const { stdout } = await run(
      py.python,
      [
        '-c',
        `
import json
import verifiers as vf
from verifiers.types import ClientConfig
env = vf.load_environment("vtask-vf-eval")
assert type(env).__name__ == "VtaskToolEnv", type(env)
out = env.evaluate_sync(client=ClientConfig(api_key_var="TEST_API_KEY", api_base_url=${JSON.stringify(url)}), model="test-model", num_examples=-1, rollouts_per_example=1)
print(json.dumps({json.loads(o["info"])["task_id"] if isinstance(o["info"], str) else o["info"]["task_id"]: o["reward"] for o in out["outputs"]}))
`,
      ],
      { env, maxBuffer: 1 << 26, timeout: 600_000 },
    );
    const got = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    const want = await runVerdicts(url);
    assert.deepEqual(got, Object.fromEntries([...want].map(([id, [score]]) => [id, score])));
  } finally {
    await server.close();
  }
});

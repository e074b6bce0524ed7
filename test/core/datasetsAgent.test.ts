// Agent tasks exported: each format's rows carry the environment by reference where its
// trainer reads it (verl's tools_kwargs, TRL's environment column, open-instruct's env_config),
// in JSONL and in Parquet; OpenAI RFT refuses them. Python reads the rows, and the Python
// package starts the referenced environment and calls its tools (TRL's environment class with
// the schema TRL shows the model, verl's tool config).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exportDataset, type ExportRequest } from '../../src/core/datasets/exportDataset';
import type { DatasetFormat } from '../../src/core/datasets/format';
import { EXPORT_FORMATS } from '../../src/core/datasets/formats';
import { importDataset } from '../../src/core/datasets/importDataset';
import { readRows, type RowFileType } from '../../src/core/datasets/rowFiles';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { python, pythonMissing } from '../support/python';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-agent-export-'));
// Readable by the sandbox's user: the Python package starts the environment through `vtask env`.
fs.chmodSync(DIR, 0o755);
const TASKS = path.join(DIR, 'tasks');
const OUT = path.join(DIR, 'out');
fs.mkdirSync(path.join(TASKS, 'envs'), { recursive: true });
fs.mkdirSync(OUT);
// The counter of the format's section 6, complete: an executable, as environments are.
fs.writeFileSync(
  path.join(TASKS, 'envs', 'counter.py'),
  `#!/usr/bin/env python3
import json, sys
count = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "reset":
        count = m.get("args", {}).get("start", 0)
        out = {"tools": [{"name": "bump", "description": "Add one and return the count.",
                          "parameters": {"type": "object", "properties": {"by": {"type": "integer", "description": "How much to add."}}}}]}
    elif m["op"] == "call" and m["tool"] == "bump":
        count += m["args"].get("by", 1); out = {"result": count}
    elif m["op"] == "state":
        out = {"count": count}
    else:
        out = {"error": "unknown request"}
    print(json.dumps(out), flush=True)
`,
  { mode: 0o755 },
);
const FILE = path.join(TASKS, 'agent.vtask');
fs.writeFileSync(
  FILE,
  `vtask: 1
tasks:
  - id: counter/1
    prompt: "Bump the counter twice, then say the count as <answer>N</answer>."
    environment: { run: ./envs/counter.py, args: { start: 3 } }
    max_turns: 4
    verify:
      match: { answer: "5", tag: answer }
  - id: plain/1
    prompt: "What is 2 + 2?"
    verify:
      math: { answer: "4" }
`,
);

const format = (name: string): DatasetFormat => EXPORT_FORMATS.get(name) as DatasetFormat;

function request(name: string, out: string, over: Partial<ExportRequest> = {}): ExportRequest {
  return {
    files: [FILE],
    format: format(name),
    out,
    type: out.endsWith('.parquet') ? 'parquet' : 'jsonl',
    settings: { version: 'test', promptStyle: 'conversational', viaVtask: true },
    seed: 0,
    dedupe: false,
    lossy: false,
    judgeModel: 'gpt-4.1',
    read: (f) => fs.readFileSync(f, 'utf8'),
    ...over,
  };
}

async function rowsOf(file: string, type: RowFileType): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readRows(file, type)) out.push(r.row as Record<string, unknown>);
  return out;
}

const REF = { environment: '../tasks/envs/counter.py', environment_args: '{"start":3}', max_turns: 4 };

for (const type of ['jsonl', 'parquet'] as const) {
  test(`verl (${type}): the agent row runs in the tool agent loop with its environment in tools_kwargs`, async () => {
    const out = path.join(OUT, `verl.${type}`);
    const report = await exportDataset(request('verl', out));
    assert.equal(report.failed, false, JSON.stringify(report.unexpressible));
    const [agent, plain] = await rowsOf(out, type);
    assert.equal(agent?.agent_name, 'tool_agent');
    assert.equal(plain?.agent_name, 'single_turn_agent');
    const extra = agent?.extra_info as Record<string, unknown>;
    assert.equal(extra.need_tools_kwargs, true);
    assert.deepEqual(extra.tools_kwargs, { vtask: { create_kwargs: { ...REF, task_id: 'counter/1' } } });
    assert.equal((plain?.extra_info as Record<string, unknown>).need_tools_kwargs, false);
    assert.equal((plain?.extra_info as Record<string, unknown>).tools_kwargs ?? null, null);
  });

  test(`trl (${type}): the agent row names its environment, args and turn limit`, async () => {
    const out = path.join(OUT, `trl.${type}`);
    assert.equal((await exportDataset(request('trl', out))).failed, false);
    const [agent, plain] = await rowsOf(out, type);
    assert.deepEqual(
      { environment: agent?.environment, environment_args: agent?.environment_args, max_turns: agent?.max_turns },
      REF,
    );
    assert.equal(plain?.environment ?? null, null);
  });

  test(`open-instruct (${type}): the agent row carries env_config with the vtask environment`, async () => {
    const out = path.join(OUT, `oi.${type}`);
    assert.equal((await exportDataset(request('open-instruct', out))).failed, false);
    const [agent, plain] = await rowsOf(out, type);
    assert.deepEqual(agent?.env_config, {
      env_configs: [{ env_name: 'vtask', environment: REF.environment, environment_args: REF.environment_args }],
      max_steps: 4,
    });
    assert.equal(plain?.env_config ?? null, null);
  });
}

test('the reference is relative to the output file, wherever the output goes', async () => {
  const deeper = path.join(OUT, 'a', 'b');
  fs.mkdirSync(deeper, { recursive: true });
  await exportDataset(request('trl', path.join(deeper, 'trl.jsonl')));
  const [agent] = await rowsOf(path.join(deeper, 'trl.jsonl'), 'jsonl');
  assert.equal(agent?.environment, '../../../tasks/envs/counter.py');
  await exportDataset(request('trl', path.join(TASKS, 'trl.jsonl')));
  assert.equal((await rowsOf(path.join(TASKS, 'trl.jsonl'), 'jsonl'))[0]?.environment, './envs/counter.py');
});

test('import: an agent row comes back as an agent task whose environment is the same file', async () => {
  const back = path.join(DIR, 'imported');
  fs.mkdirSync(back, { recursive: true });
  for (const [name, rows] of [
    ['verl', 'verl.parquet'],
    ['trl', 'trl.jsonl'],
    ['open-instruct', 'oi.parquet'],
  ] as const) {
    const out = path.join(back, `${name}.vtask`);
    // The environment lives beside the task files, outside the imported file's folder: allowed here.
    const report = await importDataset({
      input: path.join(OUT, rows),
      type: rows.endsWith('.parquet') ? 'parquet' : 'jsonl',
      format: name,
      out,
      allowOutsidePaths: true,
    });
    assert.deepEqual(report.bad, [], name);
    const tasks = runnableTasks(parseTaskFile(fs.readFileSync(out, 'utf8'))).tasks;
    const agent = tasks.find((t) => t.id === 'counter/1');
    assert.deepEqual(
      { run: agent?.environment?.run, args: agent?.environment?.args, maxTurns: agent?.maxTurns },
      { run: '../tasks/envs/counter.py', args: { start: 3 }, maxTurns: 4 },
      name,
    );
    assert.equal(path.resolve(back, agent?.environment?.run ?? ''), path.join(TASKS, 'envs', 'counter.py'));
    assert.equal(tasks.find((t) => t.id === 'plain/1')?.environment, undefined, name);
  }
});

test('openai-rft: an agent task is refused (its rows carry no tools), and left out with --lossy', async () => {
  const out = path.join(OUT, 'rft.jsonl');
  const report = await exportDataset(request('openai-rft', out));
  assert.equal(report.failed, true);
  assert.equal(report.unexpressible.length, 1);
  assert.equal(report.unexpressible[0]?.task, 'counter/1');
  assert.match(report.unexpressible[0]?.reason ?? '', /no tools and no environment/);
  assert.equal(fs.existsSync(out), false);
  const lossy = await exportDataset(request('openai-rft', out, { lossy: true }));
  assert.equal(lossy.failed, false);
  assert.deepEqual(
    (await rowsOf(out, 'jsonl')).map((r) => r.task_id),
    ['plain/1'],
  );
});

test("Python: datasets reads the rows; the package starts the environment for TRL and writes verl's tool config", (t) => {
  const why = pythonMissing(['pyarrow', 'datasets', 'transformers']);
  if (why) return t.skip(why);
  const out = python([
    '-c',
    `
import json, datasets, pyarrow.parquet as pq
from transformers.utils import get_json_schema
from vtask_reward.trl_env import trl_environments
from vtask_reward.verl_tools import verl_tool_config
d = ${JSON.stringify(OUT)}
trl = datasets.load_dataset("parquet", data_files=d + "/trl.parquet")["train"]
envs = trl_environments(trl, base_dir=d)
# The plain task's rows (environment null) get a tool-less environment: GRPOTrainer looks them up under None.
assert list(envs) == ["../tasks/envs/counter.py", None], list(envs)
assert envs[None]().reset(prompt="p") is None
env = envs["../tasks/envs/counter.py"]()
row = trl[0]
env.reset(**{k: v for k, v in row.items() if k != "environment"})
first, second = env.bump(), env.bump(by=2)
schema = get_json_schema(env.bump)["function"]
verl = pq.read_table(d + "/verl.parquet").to_pylist()
config = verl_tool_config(verl, base_dir=d)
oi = datasets.load_dataset("json", data_files=d + "/oi.jsonl")["train"]
print(json.dumps({"calls": [first, second], "state": env._state(), "schema": schema,
  "verl": config["tools"][0]["tool_schema"], "class": config["tools"][0]["class_name"],
  "oi": oi[0]["env_config"]["env_configs"][0]["env_name"]}))
`,
  ]);
  const got = JSON.parse(out.trim()) as Record<string, unknown>;
  assert.deepEqual(got.calls, ['4', '6']);
  assert.deepEqual(got.state, { count: 6 });
  const schema = got.schema as {
    name: string;
    parameters: { properties: Record<string, { type: string; description: string }> };
  };
  assert.equal(schema.name, 'bump');
  assert.deepEqual(schema.parameters.properties.by, { type: 'integer', description: 'How much to add.' });
  assert.deepEqual(got.verl, {
    type: 'function',
    function: {
      name: 'bump',
      description: 'Add one and return the count.',
      parameters: { type: 'object', properties: { by: { type: 'integer', description: 'How much to add.' } } },
    },
  });
  assert.equal(got.class, 'vtask_reward.verl_tools.EnvironmentTool');
  assert.equal(got.oi, 'vtask');
});

test('verl: rows rewritten with tools_kwargs keyed by tool name (verl_tools --rows-out) name their tools and import back as the agent task', async (t) => {
  const why = pythonMissing(['pyarrow']);
  if (why) return t.skip(why);
  const keyed = path.join(OUT, 'verl.bytool.parquet');
  const printed = python([
    '-m',
    'vtask_reward.verl_tools',
    path.join(OUT, 'verl.parquet'),
    '-o',
    path.join(OUT, 'verl.tools.yaml'),
    '--rows-out',
    keyed,
  ]);
  assert.match(printed, /2 rows, tools_kwargs by tool name -> .*verl\.bytool\.parquet/);
  const [agent, plain] = await rowsOf(keyed, 'parquet');
  assert.deepEqual((agent?.extra_info as Record<string, unknown>).tools_kwargs, {
    bump: { create_kwargs: { ...REF, task_id: 'counter/1' } },
  });
  assert.equal((plain?.extra_info as Record<string, unknown>).tools_kwargs ?? null, null);
  const out = path.join(DIR, 'imported', 'verl-bytool.vtask');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const report = await importDataset({ input: keyed, type: 'parquet', format: 'verl', out, allowOutsidePaths: true });
  assert.deepEqual(report.bad, []);
  const back = runnableTasks(parseTaskFile(fs.readFileSync(out, 'utf8'))).tasks.find((x) => x.id === 'counter/1');
  assert.deepEqual(
    { run: back?.environment?.run, args: back?.environment?.args, maxTurns: back?.maxTurns },
    { run: '../tasks/envs/counter.py', args: { start: 3 }, maxTurns: 4 },
  );
});

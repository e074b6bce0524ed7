// `vtask serve` scores agent samples with their trajectories: a trainer sends, beside each
// response, the calls it made and the environment's final state (or the OpenAI messages), and
// the task's `trajectory` and `state` checks score as they do in `vtask run`. As a real process
// over HTTP, on the shipped agent example.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI } from '../support/cliProcess';
import { python, pythonMissing } from '../support/python';
import { startServe } from '../support/serveProcess';

let server: { child: ChildProcess; url: string };
before(async () => {
  server = await startServe(['examples/agent-kv.vtask']);
});
after(() => server.child.kill());

interface Verdict {
  pass: boolean;
  score: number;
  reason: string;
}

async function verify(body: unknown): Promise<{ status: number; json: { results?: Verdict[]; error?: string } }> {
  const r = await fetch(`${server.url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as { results?: Verdict[]; error?: string } };
}

const ANSWER = '<answer>Paris</answer>';
const STATE = { store: { fr: 'Paris' }, lookups: 1 };

test('trajectories sent as calls or as OpenAI messages score the trajectory and state checks as a run does', async () => {
  const looked = { calls: [{ tool: 'get', args: { key: 'fr' }, result: 'Paris' }], state: STATE };
  const wrote = {
    calls: [
      { tool: 'set', args: { key: 'fr', value: 'Paris' }, result: 'ok' },
      { tool: 'get', args: { key: 'fr' }, result: 'Paris' },
    ],
    state: STATE,
  };
  const messages = {
    messages: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get', arguments: '{"country": "fr"}' } },
          { id: 'c2', type: 'function', function: { name: 'get', arguments: '{"key": "fr"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"error": "invalid arguments for get: key is required"}' },
      { role: 'tool', tool_call_id: 'c2', content: '"Paris"' },
      { role: 'assistant', content: ANSWER },
    ],
    state: STATE,
  };
  const { status, json } = await verify({
    task: 'kv/lookup-fr',
    responses: [ANSWER, ANSWER, ANSWER, ANSWER],
    trajectories: [looked, wrote, messages, null],
  });
  assert.equal(status, 200, json.error);
  const [ok, bad, viaMessages, none] = json.results ?? [];
  assert.equal(ok?.pass, true, ok?.reason);
  assert.equal(bad?.pass, false);
  assert.match(bad?.reason ?? '', /turn 1 called set, which is not allowed/);
  // The refused call made no lookup; the valid one did: the same verdict as the case that replays it.
  assert.equal(viaMessages?.pass, true, viaMessages?.reason);
  // Without a trajectory the checks that need one fail, and say so.
  assert.equal(none?.pass, false);
  assert.match(none?.reason ?? '', /checks an agent's trajectory, and there is none/);
});

test('a trajectory the turn limit ended has no answer; a malformed one is a 400 that names its place', async () => {
  const cut = {
    calls: [{ tool: 'get', args: { key: 'fr' }, result: 'Paris' }],
    state: STATE,
    stop: 'max_turns',
    turns: 6,
  };
  const r = await verify({ task: 'kv/lookup-fr', responses: [ANSWER], trajectories: [cut] });
  assert.equal(r.status, 200);
  assert.match(r.json.results?.[0]?.reason ?? '', /^the turn limit \(6 turns\) was reached before a final answer/);
  for (const [trajectories, message] of [
    [[{ calls: [{ args: {} }] }], /trajectories\[0\]\.calls\[0\]: "tool" must be the tool's name/],
    [[{ calls: [], messages: [] }], /trajectories\[0\]: give "calls" or "messages", one of them/],
    [[], /one trajectory \(or null\) per response: 1/],
    [
      [{ messages: [{ role: 'assistant', tool_calls: [{ id: 1 }] }] }],
      /trajectories\[0\]\.messages\[0\]\.tool_calls\[0\]/,
    ],
  ] as const) {
    const bad = await verify({ task: 'kv/lookup-fr', responses: [ANSWER], trajectories });
    assert.equal(bad.status, 400, JSON.stringify(trajectories));
    assert.match(bad.json.error ?? '', message);
  }
});

test("Python, TRL: the reward function sends each rollout environment's calls and state, so agent checks score as in a run", (t) => {
  const why = pythonMissing(['datasets']);
  if (why) return t.skip(why);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-trl-traj-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const rows = path.join(dir, 'trl.jsonl');
  const exported = spawnSync(
    process.execPath,
    [CLI, 'export', 'examples/agent-kv.vtask', '--format', 'trl', '-o', rows],
    { encoding: 'utf8' },
  );
  assert.equal(exported.status, 0, exported.stderr);
  // The TRL rows score their agent checks through the environments: no warning for this format.
  assert.doesNotMatch(exported.stderr, /warning/);
  const out = python(
    [
      '-c',
      `
import json, sys, datasets
from vtask_reward.trl import vtask_reward
from vtask_reward.trl_env import trl_environments
rows = datasets.load_dataset("json", data_files=sys.argv[1])["train"].filter(lambda r: r["task_id"] == "kv/lookup-fr")
row = rows[0]
envs = trl_environments(rows, base_dir=sys.argv[2])
looked, wrote = envs[row["environment"]](), envs[row["environment"]]()
for e in (looked, wrote):
    e.reset(**{k: v for k, v in row.items() if k != "environment"})
looked.get(key="fr")
wrote.set(key="fr", value="Paris"); wrote.get(key="fr")
answer = [{"role": "assistant", "content": "<answer>Paris</answer>"}]
kw = dict(prompts=[row["prompt"]] * 2, completions=[answer] * 2, vtask_verifier=[row["vtask_verifier"]] * 2)
print(json.dumps({"with": vtask_reward(environments=[looked, wrote], **kw), "without": vtask_reward(**kw)}))
`,
      rows,
      dir,
    ],
    { VTASK_URL: server.url },
  );
  const got = JSON.parse(out.trim()) as { with: number[]; without: number[] };
  // All three checks hold for the rollout that looked the key up; the one that also wrote fails the trajectory check.
  assert.deepEqual(
    got.with.map((x) => +x.toFixed(3)),
    [1, 0.667],
  );
  // Without the environments the trajectory and state checks have nothing to check.
  assert.deepEqual(
    got.without.map((x) => +x.toFixed(3)),
    [0.333, 0.333],
  );
});

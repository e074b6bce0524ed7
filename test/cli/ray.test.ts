// Ray: `vtask_reward.ray` starts one `vtask serve` per Ray node and scores a dataset exported by
// `vtask export` with Ray Data's map_batches; every verdict must be vtask's own. The server's
// start and stop are bounded and their failures explained.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { verify } from '../../src/core/verifiers/verify';
import { CLI } from '../support/cliProcess';
import { python, pythonMissing } from '../support/python';

const ROOT = process.cwd();
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-ray-'));
const TASKS = path.join(DIR, 'tasks');
const EXAMPLES = ['math.vtask', 'constraints.vtask', 'json-and-composite.vtask'];
fs.mkdirSync(TASKS);
for (const f of EXAMPLES) fs.copyFileSync(path.join(ROOT, 'examples', f), path.join(TASKS, f));
const VTASK_CLI = `${process.execPath} ${CLI}`;

interface Scored {
  task_id: string;
  response: string;
  vtask_score: number;
  vtask_pass: boolean;
  vtask_reason: string;
}

/** Every case of the task files with vtask's verdict, computed here in-process. */
async function casesWithVerdicts(): Promise<{ task_id: string; response: string; score: number; pass: boolean }[]> {
  const out = [];
  for (const f of EXAMPLES) {
    for (const task of runnableTasks(parseTaskFile(fs.readFileSync(path.join(TASKS, f), 'utf8'))).tasks) {
      for (const c of task.cases) {
        const v = await verify(task.verify, c.response, {
          task: { id: task.id, prompt: task.prompt, messages: task.messages, meta: task.meta, dir: TASKS },
        });
        out.push({ task_id: task.id, response: c.response, score: v.score, pass: v.pass });
      }
    }
  }
  return out;
}

test('Ray Data scores an exported dataset through one vtask serve per node, shared by the workers and the datasets of the job, one request per block of mixed verifiers, as vtask does, and stops it', async (t) => {
  const why = pythonMissing(['ray', 'pandas', 'pyarrow']);
  if (why) return t.skip(why);
  const rows = path.join(DIR, 'rows.parquet');
  const exported = spawnSync(process.execPath, [CLI, 'export', TASKS, '--format', 'trl', '-o', rows], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(exported.status, 0, exported.stderr);
  const expected = await casesWithVerdicts();
  assert.ok(
    expected.length >= 20 &&
      expected.some((e) => e.pass) &&
      expected.some((e) => !e.pass) &&
      expected.some((e) => e.score > 0 && e.score < 1),
  );
  fs.writeFileSync(
    path.join(DIR, 'cases.json'),
    JSON.stringify(expected.map(({ task_id, response }) => ({ task_id, response }))),
  );
  // VTASK_CLI is a script that notes each server's pid, then runs vtask: the test counts the
  // servers and waits for each to exit.
  const pids = path.join(DIR, 'pids');
  const cli = path.join(DIR, 'vtask-cli.sh');
  fs.writeFileSync(cli, `#!/bin/sh\necho $$ >> '${pids}'\nexec ${VTASK_CLI} "$@"\n`, { mode: 0o755 });
  const out = path.join(DIR, 'scored.json');
  python(
    [path.join(ROOT, 'test/python/ray_score.py'), rows, path.join(DIR, 'cases.json'), TASKS, pids, out],
    { VTASK_CLI: cli },
    600_000,
  );
  const res = JSON.parse(fs.readFileSync(out, 'utf8')) as {
    results: Scored[];
    servers_started: number;
    servers_after_second_dataset: number;
    second_dataset_agrees: boolean;
    one_block: {
      rows: number;
      blocks: number;
      verifiers_per_block: number[];
      verify_requests: number;
      agrees: boolean;
    };
    servers_running_after_shutdown: number[];
    seconds: Record<string, number>;
  };
  t.diagnostic(`ray start-up ${res.seconds.import} s, scoring ${expected.length} responses ${res.seconds.scoring} s`);
  assert.equal(res.results.length, expected.length);
  const key = (task: string, response: string) => JSON.stringify([task, response]);
  const got = new Map(res.results.map((r) => [key(r.task_id, r.response), r]));
  for (const e of expected) {
    const r = got.get(key(e.task_id, e.response));
    assert.ok(r, `no verdict for ${e.task_id}: ${e.response}`);
    assert.deepEqual(
      [r.vtask_score, r.vtask_pass],
      [e.score, e.pass],
      `${e.task_id}: ${e.response} (${r.vtask_reason})`,
    );
  }
  assert.equal(
    res.servers_after_second_dataset,
    1,
    "one server per Ray node, shared by its workers, tasks and the job's next dataset, not one per worker, task or batch",
  );
  assert.ok(res.second_dataset_agrees, 'the second dataset scored as the first');
  // Blocks of 8 rows of several verifiers each: one request per block, not one per verifier.
  const block = res.one_block;
  assert.equal(block.rows, expected.length);
  assert.ok(
    block.verifiers_per_block.every((v) => v >= 2),
    `every block mixes verifiers: ${block.verifiers_per_block.join(' ')}`,
  );
  assert.equal(block.verify_requests, block.blocks, `${block.blocks} blocks of ${block.rows} rows`);
  assert.ok(block.agrees, 'the rows scored in blocks of 8 scored as in the pipeline');
  assert.equal(res.servers_started, 2, 'the blocks were scored by a server of their own (workers=1): 2 servers in all');
  assert.deepEqual(res.servers_running_after_shutdown, []);
});

test('VtaskServer: waits for /health, scores, stops, also when its starter is killed; a missing command, a silent one and a failing one are clear errors within their bounds', (t) => {
  const why = pythonMissing(['json']);
  if (why) return t.skip(why);
  const out = python(
    [
      '-c',
      `
import json, os, select, subprocess, sys, time
from vtask_reward.client import VtaskError
from vtask_reward.ray import VtaskServer
report = {}
with VtaskServer(${JSON.stringify(path.join(TASKS, 'math.vtask'))}) as server:
    process = server.process
    report["health"] = server.client.health()
    report["verdicts"] = [v["pass"] for v in server.client.verify(["\\\\boxed{72}", "71"], task="gsm8k/clips")]
report["stopped"] = process.poll() is not None
def error(**kw):
    t = time.monotonic()
    try:
        VtaskServer(**kw).start()
    except VtaskError as e:
        return {"error": str(e), "seconds": time.monotonic() - t}
# A server whose starter dies by SIGKILL (as Ray ends workers) stops too.
starter = subprocess.Popen([sys.executable, "-c", "import sys, time; from vtask_reward.ray import VtaskServer; "
    "print(VtaskServer(sys.argv[1]).start().process.pid, flush=True); time.sleep(600)", ${JSON.stringify(path.join(TASKS, 'math.vtask'))}],
    stdout=subprocess.PIPE, text=True)
assert select.select([starter.stdout], [], [], 60)[0], "the starter printed no pid in 60 s"
pid = int(starter.stdout.readline())
starter.kill()
starter.wait(10)
try:
    pidfd = os.pidfd_open(pid)
    report["orphan_stopped"] = bool(select.select([pidfd], [], [], 10)[0])
    if not report["orphan_stopped"]:
        os.kill(pid, 9)  # the test fails; leave nothing running
except ProcessLookupError:
    report["orphan_stopped"] = True
report["missing"] = error(tasks=["x"], command="no-such-vtask-command")
report["silent"] = error(tasks=["x"], command=["sh", "-c", "exec sleep 60", "sh"], start_timeout=1)
report["failing"] = error(tasks=["/nonexistent/tasks.vtask"])
print(json.dumps(report))
`,
    ],
    { VTASK_CLI },
  );
  type Failure = { error: string; seconds: number };
  const r = JSON.parse(out) as {
    health: { ok: boolean; tasks: number };
    verdicts: boolean[];
    stopped: boolean;
    orphan_stopped: boolean;
    missing: Failure;
    silent: Failure;
    failing: Failure;
  };
  assert.deepEqual({ ok: r.health.ok, tasks: r.health.tasks }, { ok: true, tasks: 3 });
  assert.deepEqual(r.verdicts, [true, false]);
  assert.equal(r.stopped, true);
  assert.equal(r.orphan_stopped, true, 'a server outlived the process that started it');
  assert.match(r.missing.error, /no-such-vtask-command.*not found.*VTASK_CLI/);
  assert.match(r.silent.error, /did not start listening in 1 s/);
  assert.ok(r.silent.seconds < 10, `the start timeout is kept: ${r.silent.seconds} s`);
  assert.match(r.failing.error, /exited with code \d+: .*nonexistent/);
});

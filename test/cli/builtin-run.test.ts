// `vtask run` with nothing configured and no server listening uses the built-in demo model.
// Local-server discovery is off (VTASK_NO_LOCAL_DISCOVERY=1): a machine running Ollama or vLLM
// must not change what these tests see.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';

function vtaskRun(t: TestContext, file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-builtin-'));
  t.after(() => fs.rmSync(cache, { recursive: true, force: true }));
  const env = { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '', VTASK_NO_LOCAL_DISCOVERY: '1' };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['out/cli.js', 'run', file, '--cache-dir', cache, '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

interface RunJson {
  tasks: { task: string; model: string; profile: string; pass_rate: number; band: string; samples: unknown[] }[];
}

test('vtask run examples/arithmetic.vtask samples the built-in model with no network', async (t) => {
  const out = await vtaskRun(t, 'examples/arithmetic.vtask');
  assert.equal(out.code, 0, out.stderr);
  const json = JSON.parse(out.stdout) as RunJson;
  assert.equal(json.tasks.length, 4);
  for (const task of json.tasks) {
    assert.equal(task.samples.length, 16);
    assert.match(task.profile, /arith/);
    assert.match(task.model, /^(weak|strong)$/, 'the label of the profile the task names');
  }
  // The weak model solves sums some of the time: at least one task is learnable.
  assert.ok(
    json.tasks.some((task) => task.band === 'learnable'),
    JSON.stringify(json.tasks.map((task) => [task.task, task.pass_rate])),
  );
});

test('a task file naming no model falls back to the built-in demo model, and says so', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-fallback-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'plain.vtask');
  fs.writeFileSync(
    file,
    'vtask: 1\ntasks:\n  - id: sum\n    prompt: What is 2+3?\n    samples: 2\n    verify: { math: { answer: "5" } }\n',
  );
  const out = await vtaskRun(t, file);
  assert.equal(out.code, 0, out.stderr);
  assert.match(
    out.stderr,
    /no model configured and no local server answers: using the built-in demo model builtin:arith-tiny/,
  );
  const json = JSON.parse(out.stdout) as RunJson;
  assert.deepEqual(
    json.tasks.map((task) => [task.task, task.model, task.profile, task.samples.length]),
    [['sum', 'builtin', 'builtin (arith-tiny)', 2]],
  );
});

test('vtask run with the built-in demo model notes the tasks it cannot answer, next to their rows', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-demo-note-'));
  const file = path.join(dir, 'demo.vtask');
  fs.writeFileSync(
    file,
    [
      'vtask: 1',
      'defaults: { samples: 2 }',
      'tasks:',
      '  - id: word-problem',
      '    prompt: A farmer has three cows and buys four more. How many cows does he have?',
      '    verify: { math: { answer: "7" } }',
      '  - id: sum',
      '    prompt: What is 2+2?',
      '    verify: { math: { answer: "4" } }',
      '  - id: division',
      '    prompt: Simplify (6/8) + (1/8).',
      '    verify: { math: { answer: "7/8" } }',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' };
  const runCli = (extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        ['out/cli.js', 'run', file, '--cache-dir', path.join(dir, 'cache'), ...extra],
        { env },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  const table = await runCli([]);
  const json = await runCli(['--json']);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(table.code, 0, table.stderr);
  const row = (id: string): string => table.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
  assert.match(row('word-problem'), /the built-in demo model only does a\+b and a-b below 100 and a\*b up to 12/);
  assert.match(row('division'), /the built-in demo model only does/, 'untrained arithmetic: division');
  assert.doesNotMatch(row('sum'), /demo model/);
  const tasks = (JSON.parse(json.stdout) as { tasks: { task: string; note?: string }[] }).tasks;
  assert.match(tasks.find((t) => t.task === 'word-problem')?.note ?? '', /only does a\+b/);
  assert.equal(tasks.find((t) => t.task === 'sum')?.note, undefined);
});

interface AgentJson {
  tasks: {
    task: string;
    requests: number;
    note?: string;
    samples: {
      pass: boolean;
      reason: string;
      text: string;
      trajectory?: {
        stop: string;
        steps: { call: { name: string; arguments: string }; outcome: { result?: unknown } }[];
      };
    }[];
  }[];
}

test('vtask run examples/agent-calculator.vtask: the built-in calculator model calls the tools offline, with passing and failing trajectories', async (t) => {
  const out = await vtaskRun(t, 'examples/agent-calculator.vtask');
  assert.equal(out.code, 0, out.stderr);
  const json = JSON.parse(out.stdout) as AgentJson;
  assert.equal(json.tasks.length, 4);
  const expected: Record<string, [string, number]> = {
    'calc/add-38-47': ['add', 85],
    'calc/mul-345-12': ['mul', 4140],
    'calc/sub-908-77': ['sub', 831],
    'calc/add-only': ['add', 768],
  };
  for (const task of json.tasks) {
    assert.equal(task.requests, 0, 'an in-process model: no HTTP request');
    assert.equal(task.note, undefined, 'a question the calculator model does with its tools: its results count');
    assert.equal(task.samples.length, 16);
    const passed = task.samples.filter((s) => s.pass);
    const failed = task.samples.filter((s) => !s.pass);
    // Both kinds, as the example promises, so the panel has something to tell apart.
    assert.ok(
      passed.length >= 8 && failed.length >= 1,
      `${task.task}: ${passed.length} passed, ${failed.length} failed`,
    );
    const [tool, result] = expected[task.task] ?? ['?', 0];
    for (const s of passed) {
      assert.equal(s.trajectory?.stop, 'final');
      // A pass came from the calculator: the task's tool called, its result in the answer.
      const call = s.trajectory?.steps.find((x) => x.call.name === tool);
      assert.ok(call, `${task.task}: a passing trajectory called ${tool}: ${JSON.stringify(s.trajectory?.steps)}`);
      assert.equal(call.outcome.result, result, `${task.task}: ${call.call.arguments}`);
    }
    // A failure says why in the verifier's words (a missing call, or a wrong number).
    for (const s of failed) assert.match(s.reason, /never called|expected|extracted|got/, `${task.task}: ${s.reason}`);
  }
});

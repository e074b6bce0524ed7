// `vtask run` end to end: the real CLI process against the project's OpenAI-compatible server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';
import { runArgs } from '../support/runArgs';

const server = new OpenAIServer({
  // Even choices are right, odd ones wrong: a pass rate of one half.
  answer: (ctx) => (ctx.index % 2 === 0 ? 'So the answer is \\boxed{72}.' : 'I get \\boxed{71}.'),
});
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-run-'));
const cacheDir = path.join(dir, 'cache');

const FILE = (verify: string): string => `vtask: 1
tasks:
  - id: clips
    prompt: How many clips?
    samples: 4
    verify: ${verify}
`;

before(async () => {
  await server.listen();
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI as a process; asynchronously, since the server answers from this process. */
function exec(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliProcess(args, {}, 60_000);
}

async function runCli(
  file: string,
  ...extra: string[]
): Promise<{ code: number | null; json: { tasks: Array<Record<string, unknown>> }; stderr: string }> {
  const r = await exec([...runArgs(file, server.url, cacheDir), '--json', ...extra]);
  return {
    code: r.code,
    json: JSON.parse(r.stdout || '{"tasks": []}') as { tasks: Array<Record<string, unknown>> },
    stderr: r.stderr,
  };
}

test('samples, verifies and reports pass rate, pass@k and band', async () => {
  const file = path.join(dir, 'a.vtask');
  fs.writeFileSync(file, FILE('{ math: { answer: "72" } }'));
  const before = server.samplingRequests.length;
  const { code, json } = await runCli(file);
  assert.equal(code, 0);
  const t = json.tasks[0] as {
    pass_rate: number;
    band: string;
    pass_at_k: Record<string, number>;
    samples: { cached: boolean; pass: boolean }[];
  };
  assert.equal(t.pass_rate, 0.5);
  assert.equal(t.band, 'learnable');
  assert.deepEqual(Object.keys(t.pass_at_k), ['1', '2', '4']);
  assert.equal(t.pass_at_k['4'], 1);
  assert.ok(t.samples.every((s) => !s.cached));
  assert.equal(server.samplingRequests.length - before, 1, 'four samples in one request with n = 4');
});

test('a second run, a moved file and a changed verifier make no requests', async () => {
  const file = path.join(dir, 'a.vtask');
  const before = server.samplingRequests.length;
  const again = await runCli(file);
  assert.ok((again.json.tasks[0] as { samples: { cached: boolean }[] }).samples.every((s) => s.cached));
  const moved = path.join(dir, 'elsewhere', 'b.vtask');
  fs.mkdirSync(path.dirname(moved), { recursive: true });
  fs.writeFileSync(moved, FILE('{ match: { answer: "I get \\\\boxed{71}.", mode: exact } }'));
  const changed = await runCli(moved);
  const t = changed.json.tasks[0] as { pass_rate: number; samples: { cached: boolean }[] };
  assert.ok(t.samples.every((s) => s.cached));
  assert.equal(t.pass_rate, 0.5, 'the new verifier judged the cached samples');
  assert.equal(server.samplingRequests.length, before, 'no request was made');
  await runCli(file, '--fresh');
  assert.equal(server.samplingRequests.length, before + 1, '--fresh samples again');
});

test('the human output has a summary table; a refused connection is an actionable error', async () => {
  const file = path.join(dir, 'a.vtask');
  const r = await exec(['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', cacheDir]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^task\s+pass\s+pass@1/m);
  assert.match(r.stdout, /clips\s+2\/4\s+0\.50/);
  const dead = await exec([
    'run',
    file,
    '--base-url',
    'http://127.0.0.1:9/v1',
    '--model',
    'x',
    '--cache-dir',
    path.join(dir, 'c2'),
    '--json',
  ]);
  assert.equal(dead.code, 1);
  assert.match(dead.stdout, /nothing listens at http:\/\/127\.0\.0\.1:9/);
});

test('Ctrl-C stops cleanly and keeps what was sampled', async () => {
  const file = path.join(dir, 'slow.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: seeded\n    prompt: p\n    samples: 6\n    seed: 1\n    verify: { math: { answer: "72" } }\n`,
  );
  // The first two answers come at once; the next two (concurrency 2) hang until Ctrl-C.
  server.script({}, {}, { hang: true }, { hang: true });
  const child = spawn(process.execPath, [CLI, ...runArgs(file, server.url, cacheDir), '--concurrency', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // Woken by each request the server sees; bounded, and a CLI that exits early fails at once.
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`vtask exited (${code}) before its requests hung: ${err}`))),
  );
  exited.catch(() => {});
  await Promise.race([
    server.waitFor(
      () => server.inFlight >= 2 && server.samplingRequests.length >= 4,
      30_000,
      'two hanging requests after two answers',
    ),
    exited,
  ]);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 130, err);
  assert.match(err, /kept in the cache/);
  const again = await runCli(file, '--samples', '6');
  const samples = (again.json.tasks[0] as { samples: { cached: boolean }[] }).samples;
  assert.equal(samples.filter((s) => s.cached).length, 2, 'the two answers taken before Ctrl-C were kept');
});

test('judge cases ask the judge model over HTTP, and are skipped without one', async () => {
  const judgeServer = new OpenAIServer({
    // The judge meets the criterion when the graded response mentions Paris.
    answer: (ctx) => `{"criteria": [{"id": 1, "met": ${/"response":"[^"]*Paris/.test(ctx.prompt)}}]}`,
  });
  await judgeServer.listen();
  try {
    const file = path.join(dir, 'judge.vtask');
    fs.writeFileSync(
      file,
      `vtask: 1\ntasks:\n  - id: j\n    prompt: Capital of France?\n    verify: { judge: { rubric: Names Paris } }\n    cases:\n      - { response: "It is Paris.", expect: pass }\n      - { response: "It is Lyon.", expect: fail }\n`,
    );
    const withJudge = await exec(['test', file, '--base-url', judgeServer.url, '--model', 'test-model']);
    assert.equal(withJudge.code, 0, withJudge.stdout);
    assert.match(withJudge.stdout, /^2 passed, 0 failed$/m);
    assert.equal(judgeServer.samplingRequests.length, 2);
    // No judge model: the cases could not run, and a CI job must not pass on that.
    const without = await exec(['test', file]);
    assert.equal(without.code, 1, without.stdout);
    assert.match(without.stdout, /judge\.vtask:7:\d+: unavailable: task j case 0: .*no judge model/);
    assert.match(
      without.stdout,
      /^0 passed, 0 failed, 2 undecided \(their verifier could not give a verdict here; see above\)$/m,
    );
  } finally {
    await judgeServer.close();
  }
});

/** The run log's records, as `vtask run` wrote them. */
function logged(dir: string): Array<{ task: string; band: string; samples: number }> {
  return fs
    .readFileSync(path.join(dir, 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task: string; band: string; samples: number });
}

test('a run whose sampling fails has band error: in the table, --json, the run log and vtask stats', async () => {
  const file = path.join(dir, 'fails.vtask');
  fs.writeFileSync(file, FILE('{ math: { answer: "72" } }').replace('id: clips', 'id: fails'));
  const c3 = path.join(dir, 'c3');
  // The server answers 500; with no retry budget left the run stops at once.
  server.script({ status: 500, message: 'the model is not loaded' });
  const human = await runCliProcess(
    ['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', c3],
    { VTASK_RETRY_BUDGET_MS: '1' },
    60_000,
  );
  assert.equal(human.code, 1, human.stderr);
  assert.match(
    human.stdout,
    /^fails\s+0\/0\s+-\s+-\s+\(k=1\)\s+error\s+-\s+0\/0\s+no complete answer from .* the retry budget .* ran out/m,
  );
  assert.doesNotMatch(human.stdout, /too_hard/);
  assert.deepEqual(
    logged(c3).map((r) => [r.task, r.band]),
    [['fails', 'error']],
  );
  // Nothing listens: the same in --json.
  const dead = await exec([...runArgs(file, 'http://127.0.0.1:9/v1', c3), '--json']);
  assert.equal(dead.code, 1);
  const t = (JSON.parse(dead.stdout) as { tasks: Array<{ band: string; error: string; undecided: number }> }).tasks[0];
  assert.equal(t?.band, 'error');
  assert.match(t?.error ?? '', /nothing listens/);
  assert.deepEqual(
    logged(c3).map((r) => r.band),
    ['error', 'error'],
  );
  // vtask stats counts the run under error, and puts no 0 in the pass-rate histogram.
  const stats = await exec(['stats', file, '--cache-dir', c3, '--json', '--no-duplicates']);
  assert.equal(stats.code, 0, stats.stderr);
  const m = (
    JSON.parse(stats.stdout) as {
      models: Record<string, { tasks: number; bands: Record<string, number>; histogram: { tasks: number }[] }>;
    }
  ).models['test-model'];
  assert.deepEqual(m?.bands, { too_easy: 0, learnable: 0, too_hard: 0, error: 1 });
  assert.equal(
    m?.histogram.reduce((a, h) => a + h.tasks, 0),
    0,
  );
  const text = await exec(['stats', file, '--cache-dir', c3, '--no-duplicates']);
  assert.match(text.stdout, /^ {2}error\s+1 /m);
});

test('an agent task whose environment is missing: vtask check says where, and its run has band error', async () => {
  const file = path.join(dir, 'agent.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: kv\n    prompt: Which capital is stored under fr?\n    environment:\n      run: ./envs/missing.mjs\n    samples: 2\n    verify: { match: { answer: Paris } }\n`,
  );
  const check = await exec(['check', file]);
  assert.equal(check.code, 1);
  assert.equal(
    check.stdout.trim(),
    `${file}:6:12: error: the environment ./envs/missing.mjs was not found (looked for ${path.join(dir, 'envs', 'missing.mjs')})`,
  );
  const c4 = path.join(dir, 'c4');
  const r = await exec(['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', c4]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^kv\s+0\/0 · 2 undecided\s+.*\serror\s.*undecided: .*missing\.mjs was not found/m);
  const json = await exec([...runArgs(file, server.url, c4), '--json']);
  const t = (
    JSON.parse(json.stdout) as { tasks: Array<{ band: string; undecided: number; samples: { error?: string }[] }> }
  ).tasks[0];
  assert.equal(t?.band, 'error');
  assert.equal(t?.undecided, 2);
  assert.deepEqual(
    logged(c4).map((x) => [x.task, x.band]),
    [
      ['kv', 'error'],
      ['kv', 'error'],
    ],
  );
});

test('a task whose samples all lack a verdict has band error, and no pass-rate filter of vtask export keeps it', async () => {
  const file = path.join(dir, 'undecided.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: gone\n    prompt: How many clips?\n    samples: 4\n    verify: { script: { path: ./checks/gone.mjs } }\n  - id: clips\n    prompt: How many clips?\n    samples: 4\n    verify: { math: { answer: "72" } }\n`,
  );
  const c5 = path.join(dir, 'c5');
  const model = ['--base-url', server.url, '--model', 'test-model', '--cache-dir', c5];
  const r = await exec(['run', file, ...model]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stdout,
    /^gone\s+0\/0 · 4 undecided\s+-\s+-\s+\(k=1\)\s+error\s+-\s+0\/4\s+undecided: the script \.\/checks\/gone\.mjs was not found/m,
  );
  assert.match(r.stdout, /^clips\s+2\/4\s+0\.50\s.*learnable/m);
  const out = path.join(dir, 'kept.jsonl');
  const exported = await exec(['export', file, '--format', 'trl', '-o', out, ...model, '--max-pass-rate', '1']);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = fs
    .readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_id: string; band: string });
  assert.deepEqual(
    rows.map((x) => [x.task_id, x.band]),
    [['clips', 'learnable']],
  );
});

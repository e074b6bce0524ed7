// `vtask run` end to end: the real CLI process against the project's OpenAI-compatible server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, runCliProcess } from '../support/cliProcess';
import { OpenAIServer } from '../support/openaiServer';

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

async function runCli(file: string, ...extra: string[]): Promise<{ code: number | null; json: { tasks: Array<Record<string, unknown>> }; stderr: string }> {
  const r = await exec(['run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', cacheDir, '--json', ...extra]);
  return { code: r.code, json: JSON.parse(r.stdout || '{"tasks": []}') as { tasks: Array<Record<string, unknown>> }, stderr: r.stderr };
}

test('samples, verifies and reports pass rate, pass@k and band', async () => {
  const file = path.join(dir, 'a.vtask');
  fs.writeFileSync(file, FILE('{ math: { answer: "72" } }'));
  const before = server.samplingRequests.length;
  const { code, json } = await runCli(file);
  assert.equal(code, 0);
  const t = json.tasks[0] as { pass_rate: number; band: string; pass_at_k: Record<string, number>; samples: { cached: boolean; pass: boolean }[] };
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
  const dead = await exec(['run', file, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'x', '--cache-dir', path.join(dir, 'c2'), '--json']);
  assert.equal(dead.code, 1);
  assert.match(dead.stdout, /nothing listens at http:\/\/127\.0\.0\.1:9/);
});

test('Ctrl-C stops cleanly and keeps what was sampled', async () => {
  const file = path.join(dir, 'slow.vtask');
  fs.writeFileSync(file, `vtask: 1\ntasks:\n  - id: seeded\n    prompt: p\n    samples: 6\n    seed: 1\n    verify: { math: { answer: "72" } }\n`);
  // The first two answers come at once; the next two (concurrency 2) hang until Ctrl-C.
  server.script({}, {}, { hang: true }, { hang: true });
  const child = spawn(process.execPath, [CLI, 'run', file, '--base-url', server.url, '--model', 'test-model', '--cache-dir', cacheDir, '--concurrency', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // Woken by each request the server sees; bounded, and a CLI that exits early fails at once.
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`vtask exited (${code}) before its requests hung: ${err}`))));
  exited.catch(() => {});
  await Promise.race([server.waitFor(() => server.inFlight >= 2 && server.samplingRequests.length >= 4, 30_000, 'two hanging requests after two answers'), exited]);
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
    fs.writeFileSync(file, `vtask: 1\ntasks:\n  - id: j\n    prompt: Capital of France?\n    verify: { judge: { rubric: Names Paris } }\n    cases:\n      - { response: "It is Paris.", expect: pass }\n      - { response: "It is Lyon.", expect: fail }\n`);
    const withJudge = await exec(['test', file, '--base-url', judgeServer.url, '--model', 'test-model']);
    assert.equal(withJudge.code, 0, withJudge.stdout);
    assert.match(withJudge.stdout, /^2 passed, 0 failed$/m);
    assert.equal(judgeServer.samplingRequests.length, 2);
    const without = await exec(['test', file]);
    assert.match(without.stdout, /2 skipped/);
    assert.match(without.stdout, /^0 passed, 0 failed$/m);
  } finally {
    await judgeServer.close();
  }
});

// Benchmark of zygote sandboxes: sandboxed Python tests per second with 2 in flight (2 cores) and
// CPU per test (from a cgroup of its own, see cpu-meter.mjs: sandboxed processes included), for
// answers of 3 stdin/stdout tests run in zygotes, beside the same tests in a bubblewrap sandbox
// per run, in pre-started sandboxes (the pool) and a bare `python3 -c pass` spawn, all in the
// same run; and the same for JavaScript: Node exec'd in zygotes, beside a bubblewrap sandbox per
// run (the path before zygotes served Node) and a bare `node -e 0`, with start-up flags that might
// make it cheaper (`--jitless`, a 1 MiB semi-space, a start-up snapshot of a harness, no
// ExperimentalWarning under the permission model). `--base COMMIT` also measures the pool of that commit's sources (`git archive`, no
// worktree), for the pool's boot script before and after. Prints human lines, then one JSON line.
//
//   node scripts/bench-zygote.mjs [--answers N] [--tests-per-answer N] [--base COMMIT]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { cpuMeter, ownCpuMs } from './cpu-meter.mjs';

const HERE = path.resolve(import.meta.dirname, '..');
const text = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const ANSWERS = Number(text('--answers', 40));
const BASE = text('--base', undefined);
const TESTS_PER_ANSWER = Number(text('--tests-per-answer', 3));
const CONCURRENCY = 2;
process.env.VTASK_SANDBOX_CONCURRENCY = String(CONCURRENCY);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-zygote-'));
process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

/** The sandbox module of the sources under root, bundled on its own (its own pools and slots). */
async function load(root, name) {
  const outfile = path.join(tmp, `${name}.mjs`);
  await esbuild.build({
    stdin: { contents: `export * from './src/core/sandbox';\n`, resolveDir: root, loader: 'ts' },
    bundle: true,
    nodePaths: [path.join(HERE, 'node_modules')],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

const current = await load(HERE, 'current');
let base;
if (BASE) {
  const dir = path.join(tmp, 'base');
  fs.mkdirSync(dir);
  execFileSync('sh', ['-c', `git -C "$1" archive "$2" src package.json | tar -x -C "$3"`, 'sh', HERE, BASE, dir]);
  base = await load(dir, 'base');
}

const py = current.findInterpreter('python');
if (!py) throw new Error('python3 is not installed');
const sandbox = await current.detectSandbox();
const baseSandbox = base ? await base.detectSandbox(sandbox.method) : undefined;
const PROGRAM = 'print(int(input()) + 1)\n';
const node = current.findInterpreter('javascript');
if (!node) throw new Error('node is not found');
const JS_PROGRAM = "console.log(Number(require('fs').readFileSync(0, 'utf8')) + 1);\n";
// A start-up snapshot of a harness that has loaded what a test needs (fs, the stdin reader).
const SNAPSHOT = path.join(tmp, 'harness.blob');
fs.writeFileSync(
  path.join(tmp, 'harness.js'),
  "const fs = require('fs');\nrequire('v8').startupSnapshot.setDeserializeMainFunction(() => fs.readFileSync(0));\n",
);
execFileSync(node.path, ['--snapshot-blob', SNAPSHOT, '--build-snapshot', path.join(tmp, 'harness.js')], {
  cwd: tmp,
  env: {},
});

/** A JavaScript test as checkCode makes it. */
function jsRunOf(i, program = JS_PROGRAM) {
  return {
    argv: [node.path, ...node.args, ...current.nodeMemoryArgs(512), 'main.js'],
    files: { 'main.js': program },
    stdin: `${i}\n`,
    timeoutMs: 10_000,
    memoryMb: 512,
    memoryPolicy: node.memoryPolicy,
    readOnly: node.readOnly,
    env: node.env,
    zygoteExec: true,
  };
}

function runOf(i, prestarted) {
  return {
    argv: [py.path, ...py.args, 'main.py'],
    files: { 'main.py': PROGRAM },
    stdin: `${i}\n`,
    timeoutMs: 10_000,
    memoryMb: 512,
    readOnly: py.readOnly,
    prestarted,
  };
}

function expect(r, i) {
  if (r.stdout.trim() !== String(i + 1)) throw new Error(`a sandboxed test failed: ${r.sandboxError ?? r.stderr}`);
}

/** One answer of 3 tests: in zygotes (runAll) when `zygote`, else each test a run of its own, at once. */
const answerWith =
  (sb, { prestarted, zygote }) =>
  async (a) => {
    const runs = Array.from({ length: TESTS_PER_ANSWER }, (_, k) => runOf(a * TESTS_PER_ANSWER + k, prestarted));
    process.env.VTASK_ZYGOTE = zygote ? '1' : '0';
    const results = zygote && sb.runAll ? await sb.runAll(runs) : await Promise.all(runs.map((o) => sb.run(o)));
    results.forEach((r, k) => expect(r, a * TESTS_PER_ANSWER + k));
    if (zygote && !results[0].isolation.limits.some((l) => l.startsWith('zygote')))
      throw new Error('the zygote did not run the answer');
  };

/**
 * A JavaScript answer of 3 tests: Node exec'd in a zygote when `zygote`, else a bubblewrap sandbox
 * per test; `empty`: an empty program (what the zygote adds to Node's start).
 */
const jsAnswer =
  (zygote, empty = false) =>
  async (a) => {
    const runs = Array.from({ length: TESTS_PER_ANSWER }, (_, k) =>
      jsRunOf(a * TESTS_PER_ANSWER + k, empty ? '' : JS_PROGRAM),
    );
    process.env.VTASK_ZYGOTE = zygote ? '1' : '0';
    const results = await sandbox.runAll(runs);
    if (empty && results.some((r) => r.exitCode !== 0))
      throw new Error(`an empty program failed: ${results[0].stderr}`);
    if (!empty) results.forEach((r, k) => expect(r, a * TESTS_PER_ANSWER + k));
    if (results[0].isolation.limits.some((l) => l.startsWith('zygote')) !== zygote)
      throw new Error(`the answer ran ${zygote ? 'without' : 'in'} a zygote`);
  };

/** `python3 -c pass` (or `node -e 0`), spawned bare: the floor of any run that starts an interpreter. */
const bare = (exe, args) => () =>
  new Promise((resolve, reject) => {
    const c = spawn(exe, args, { stdio: 'ignore', env: {} });
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });

/** Runs `n` jobs with `CONCURRENCY` in flight; wall ms, CPU ms of everything (from the meter) and of vtask itself. */
async function measure(meter, n, job) {
  await job(0);
  const cpu0 = meter.ms();
  const own0 = ownCpuMs();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await job(next++);
    }),
  );
  return { wallMs: performance.now() - t0, cpuMs: meter.ms() - cpu0, ownMs: ownCpuMs() - own0 };
}

const meter = cpuMeter();
const kinds = [
  ['zygote', ANSWERS, answerWith(sandbox, { prestarted: true, zygote: true }), TESTS_PER_ANSWER],
  ['per_run', Math.ceil(ANSWERS / 2), answerWith(sandbox, { prestarted: false, zygote: false }), TESTS_PER_ANSWER],
  ['pool', Math.ceil(ANSWERS / 2), answerWith(sandbox, { prestarted: true, zygote: false }), TESTS_PER_ANSWER],
  ...(baseSandbox
    ? [
        [
          'pool_base',
          Math.ceil(ANSWERS / 2),
          answerWith(baseSandbox, { prestarted: true, zygote: false }),
          TESTS_PER_ANSWER,
        ],
      ]
    : []),
  ['bare_python_c_pass', ANSWERS, bare(py.path, ['-c', 'pass']), 1],
  ['js_zygote', ANSWERS, jsAnswer(true), TESTS_PER_ANSWER],
  ['js_per_run', ANSWERS, jsAnswer(false), TESTS_PER_ANSWER],
  ['js_zygote_empty_program', ANSWERS, jsAnswer(true, true), TESTS_PER_ANSWER],
  ['bare_node_e_0', ANSWERS, bare(node.path, ['-e', '0']), 1],
  ['bare_node_jitless', ANSWERS, bare(node.path, ['--jitless', '-e', '0']), 1],
  ['bare_node_semi_space_1', ANSWERS, bare(node.path, ['--max-semi-space-size=1', '-e', '0']), 1],
  ['bare_node_snapshot', ANSWERS, bare(node.path, ['--snapshot-blob', SNAPSHOT]), 1],
  // The permission model of JavaScript asserts runs, with its warning and without.
  [
    'bare_node_permission',
    ANSWERS,
    bare(node.path, ['--experimental-permission', '--allow-fs-read=/tmp/', '-e', '0']),
    1,
  ],
  [
    'bare_node_permission_no_warning',
    ANSWERS,
    bare(node.path, [
      '--experimental-permission',
      '--allow-fs-read=/tmp/',
      '--disable-warning=ExperimentalWarning',
      '-e',
      '0',
    ]),
    1,
  ],
];
// Two rounds, the kinds alternated, so that a change of load hits each alike; the figures add both.
const sums = Object.fromEntries(kinds.map(([k]) => [k, { tests: 0, wallMs: 0, cpuMs: 0, ownMs: 0 }]));
for (let round = 0; round < 2; round++) {
  for (const [name, n, job, per] of kinds) {
    const m = await measure(meter, n, job);
    sums[name].tests += n * per;
    sums[name].wallMs += m.wallMs;
    sums[name].cpuMs += m.cpuMs;
    sums[name].ownMs += m.ownMs;
  }
}
meter.close();
await current.disposeSandboxPools();
await base?.disposeSandboxPools();

const figures = {
  method: sandbox.method,
  level: sandbox.level,
  cores: CONCURRENCY,
  load_avg_1m: Number(os.loadavg()[0].toFixed(2)),
  cpu_source: meter.source,
  tests_per_answer: TESTS_PER_ANSWER,
  ...(BASE ? { base: BASE } : {}),
};
for (const [name, s] of Object.entries(sums)) {
  figures[`${name}_tests_per_s`] = Number(((s.tests * 1000) / s.wallMs).toFixed(1));
  figures[`${name}_cpu_ms_per_test`] = Number((s.cpuMs / s.tests).toFixed(1));
  // Of which vtask's own process (framing, supervising): the rest is the sandboxes'.
  figures[`${name}_vtask_cpu_ms_per_test`] = Number((s.ownMs / s.tests).toFixed(1));
  // What 2 cores could do if the tests had them to themselves: the figure the load does not move.
  figures[`${name}_cpu_bound_tests_per_s`] = Number(((CONCURRENCY * 1000 * s.tests) / s.cpuMs).toFixed(1));
}
console.log(
  `isolation: ${sandbox.method}, ${sandbox.level}; CPU from ${meter.source}; load average ${figures.load_avg_1m}`,
);
for (const name of Object.keys(sums)) {
  console.log(
    `${name}: ${figures[`${name}_tests_per_s`]} tests/s with ${CONCURRENCY} in flight, ${figures[`${name}_cpu_ms_per_test`]} ms CPU per test, ${figures[`${name}_vtask_cpu_ms_per_test`]} ms of it vtask's (${figures[`${name}_cpu_bound_tests_per_s`]} tests/s on ${CONCURRENCY} idle cores)`,
  );
}
console.log(JSON.stringify(figures));

// Benchmark of the `code` verifier: tests per second for a trivial Python program with 2 tests in
// flight (2 cores), with pre-started sandboxes (the default) and without (VTASK_SANDBOX_POOL=0),
// and the sandbox's overhead per test against a bare spawn of the same program. Then the CPU
// time of the `asserts` harness per answer: an answer checked by two asserts against the same
// answer printing its result for a stdin/stdout test, in Python and JavaScript, one at a time
// without pre-started sandboxes. CPU is that of the sandboxed processes (the children vtask
// reaped, from /proc/self/stat) plus vtask's own. `--root DIR` measures the sources of another
// checkout of vtask (an older commit, for a before/after figure); `--asserts-only` skips the rest.
// The last line printed is one JSON object of figures.
//
//   node scripts/bench-code.mjs [--tests N] [--answers N] [--asserts-only] [--root DIR]
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { cpuMeter, ownCpuMs } from './cpu-meter.mjs';

const HERE = path.resolve(import.meta.dirname, '..');
const text = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const arg = (name, dflt) => Number(text(name, dflt));
const ROOT = path.resolve(text('--root', HERE));
const N = arg('--tests', 60);
const ANSWERS = arg('--answers', 30);
const ASSERTS_ONLY = process.argv.includes('--asserts-only');
const CONCURRENCY = 2;
process.env.VTASK_SANDBOX_CONCURRENCY = String(CONCURRENCY);
// The figure is measured with the best isolation the machine has, weak or not; it says which.
process.env.VTASK_ALLOW_WEAK_ISOLATION ??= '1';
// Zygotes are measured by bench-zygote.mjs; these figures stay those of a sandbox per run and of the pool.
process.env.VTASK_ZYGOTE ??= '0';

// The core is TypeScript: bundle the pieces we need into a temporary module.
const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-code-')), 'core.mjs');
await esbuild.build({
  stdin: {
    contents: `export { checkCode } from './src/core/verifiers/code/checkCode';\nexport { getSandbox, findInterpreter, disposeSandboxPools } from './src/core/sandbox';\nexport { defaultPoolSize } from './src/core/sandbox/pool';\n`,
    resolveDir: ROOT,
    loader: 'ts',
  },
  bundle: true,
  nodePaths: [path.join(HERE, 'node_modules')],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  logLevel: 'warning',
});
const { checkCode, getSandbox, findInterpreter, disposeSandboxPools, defaultPoolSize } = await import(
  pathToFileURL(outfile).href
);
fs.rmSync(path.dirname(outfile), { recursive: true, force: true });
const POOL_SIZE = defaultPoolSize();

const PROGRAM = 'print(int(input()) + 1)\n';
const py = findInterpreter('python');
if (!py) throw new Error('python3 is not installed');

/** Runs jobs with at most `limit` in flight; returns elapsed ms. */
async function pool(n, limit, job) {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) await job(next++);
    }),
  );
  return performance.now() - t0;
}

function bare(i) {
  return new Promise((resolve, reject) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bare-'));
    fs.writeFileSync(path.join(dir, 'main.py'), PROGRAM);
    const c = spawn(py.path, [...py.args, 'main.py'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('error', reject);
    c.on('close', () => {
      fs.rmSync(dir, { recursive: true, force: true });
      if (out.trim() !== String(i + 1)) reject(new Error(`bare run printed ${out}`));
      else resolve();
    });
    c.stdin.end(`${i}\n`);
  });
}

const sandbox = await getSandbox();
/** One sandboxed run, in a pre-started sandbox or started for it. */
const sandboxedWith = (prestarted) => async (i) => {
  const r = await sandbox.run({
    argv: [py.path, ...py.args, 'main.py'],
    files: { 'main.py': PROGRAM },
    stdin: `${i}\n`,
    timeoutMs: 10_000,
    memoryMb: 512,
    readOnly: py.readOnly,
    prestarted,
  });
  if (r.stdout.trim() !== String(i + 1)) throw new Error(`sandboxed run failed: ${r.sandboxError ?? r.stderr}`);
};
const sandboxed = sandboxedWith(false);
const pooled = sandboxedWith(true);

/** Mean ms of one run at a time, the jobs alternated so that a change of load hits each alike. */
async function latencies(jobs, n) {
  const totals = jobs.map(() => 0);
  for (let i = 0; i < n; i++) {
    for (const [k, job] of jobs.entries()) {
      const t = performance.now();
      await job(i);
      totals[k] += performance.now() - t;
    }
  }
  return totals.map((t) => t / n);
}

const ctx = {
  task: { id: 'bench', prompt: '', messages: [], meta: {}, dir: ROOT },
  signal: new AbortController().signal,
  trusted: true,
  child: () => Promise.reject(new Error('none')),
};
const tests = Array.from({ length: N }, (_, i) => ({ stdin: `${i}\n`, stdout: `${i + 1}\n` }));
async function verifierMs(pool) {
  process.env.VTASK_SANDBOX_POOL = pool ? String(POOL_SIZE) : '0';
  const t0 = performance.now();
  const v = await checkCode(PROGRAM, { language: 'python', tests }, ctx);
  const ms = performance.now() - t0;
  if (!v.pass) throw new Error(`the verifier failed the benchmark program: ${v.reason}`);
  return ms;
}

/** CPU ms per answer of `check`: in all, and vtask's own (the rest is the sandboxed processes'), one answer at a time. */
async function cpuPerAnswer(meter, check, n) {
  await check();
  const total = meter.ms();
  const own = ownCpuMs();
  for (let i = 0; i < n; i++) await check();
  const ownMs = (ownCpuMs() - own) / n;
  const totalMs = (meter.ms() - total) / n;
  return {
    total: Number(totalMs.toFixed(1)),
    sandbox: Number((totalMs - ownMs).toFixed(1)),
    vtask: Number(ownMs.toFixed(1)),
  };
}

async function assertsCpu() {
  process.env.VTASK_SANDBOX_POOL = '0';
  const meter = cpuMeter();
  const run = (answer, params) => async () => {
    const v = await checkCode(answer, params, ctx);
    if (!v.pass) throw new Error(`the benchmark answer failed: ${v.reason}`);
  };
  const pyAnswer = 'def add(a, b):\n    return a + b\n';
  const jsAnswer = 'function add(a, b) { return a + b; }\n';
  const out = { cpu_source: meter.source };
  out.py_plain = await cpuPerAnswer(
    meter,
    run(`${pyAnswer}print(add(1, 2))`, { language: 'python', tests: [{ stdout: '3' }] }),
    ANSWERS,
  );
  out.py_asserts = await cpuPerAnswer(
    meter,
    run(pyAnswer, { language: 'python', asserts: 'assert add(1, 2) == 3\nassert add(2, 2) == 4' }),
    ANSWERS,
  );
  out.js_plain = await cpuPerAnswer(
    meter,
    run(`${jsAnswer}console.log(add(1, 2));`, { language: 'javascript', tests: [{ stdout: '3' }] }),
    ANSWERS,
  );
  out.js_asserts = await cpuPerAnswer(
    meter,
    run(jsAnswer, { language: 'javascript', asserts: 'assert.strictEqual(add(1, 2), 3);\nassert(add(2, 2) === 4);' }),
    ANSWERS,
  );
  meter.close();
  const over = (a, b) => Number((a.total - b.total).toFixed(1));
  return {
    answers: ANSWERS,
    ...out,
    py_harness_overhead_cpu_ms: over(out.py_asserts, out.py_plain),
    js_harness_overhead_cpu_ms: over(out.js_asserts, out.js_plain),
  };
}

if (ASSERTS_ONLY) {
  const sandbox = await getSandbox();
  const figures = {
    root: ROOT,
    method: sandbox.method,
    level: sandbox.level,
    load_avg_1m: Number(os.loadavg()[0].toFixed(2)),
    ...(await assertsCpu()),
  };
  await disposeSandboxPools();
  console.log(
    `asserts harness, CPU per answer (sandboxed processes + vtask), ${ANSWERS} answers each, ${sandbox.method}, from ${figures.cpu_source}:`,
  );
  for (const k of ['py_plain', 'py_asserts', 'js_plain', 'js_asserts'])
    console.log(`  ${k}: ${figures[k].total} ms (${figures[k].sandbox} ms sandboxed + ${figures[k].vtask} ms vtask)`);
  console.log(
    `  harness overhead: Python ${figures.py_harness_overhead_cpu_ms} ms, JavaScript ${figures.js_harness_overhead_cpu_ms} ms`,
  );
  console.log(JSON.stringify(figures));
  process.exit(0);
}

// Warm up the page cache, the sandbox detection and the pool.
await pool(4, 2, bare);
await pool(4, 2, sandboxed);
await pool(4, 2, pooled);

// Latency: one at a time, while the pool refills between runs.
const [bareSeqMs, boxSeqMs, pooledSeqMs] = await latencies([bare, sandboxed, pooled], Math.ceil(N / 4));
// Throughput with 2 in flight: the pool refills while runs go on, so this is its sustained rate.
const bareParMs = await pool(N, CONCURRENCY, bare);
const boxParMs = await pool(N, CONCURRENCY, sandboxed);
const pooledParMs = await pool(N, CONCURRENCY, pooled);
const verifierNoPoolMs = await verifierMs(false);
const verifierPoolMs = await verifierMs(true);
// A burst as a trainer's batch arrives: as many runs as the pool holds, every sandbox started ahead.
await new Promise((r) => setTimeout(r, 2000));
const burstT0 = performance.now();
await pool(POOL_SIZE, CONCURRENCY, pooled);
const burstMs = performance.now() - burstT0;
await disposeSandboxPools();
const asserts = await assertsCpu();

const perS = (n, ms) => Number(((n * 1000) / ms).toFixed(1));
const figures = {
  method: sandbox.method,
  level: sandbox.level,
  cores: CONCURRENCY,
  host_cores: os.availableParallelism?.() ?? os.cpus().length,
  load_avg_1m: Number(os.loadavg()[0].toFixed(2)),
  tests: N,
  pool_size: POOL_SIZE,
  verifier_tests_per_s: perS(N, verifierPoolMs),
  verifier_no_pool_tests_per_s: perS(N, verifierNoPoolMs),
  sandbox_pooled_tests_per_s: perS(N, pooledParMs),
  sandbox_tests_per_s: perS(N, boxParMs),
  bare_tests_per_s: perS(N, bareParMs),
  burst_pooled_tests_per_s: perS(POOL_SIZE, burstMs),
  sandbox_pooled_ms_per_test: Number(pooledSeqMs.toFixed(1)),
  sandbox_ms_per_test: Number(boxSeqMs.toFixed(1)),
  bare_ms_per_test: Number(bareSeqMs.toFixed(1)),
  overhead_ms_per_test: Number((boxSeqMs - bareSeqMs).toFixed(1)),
  asserts_cpu: asserts,
};
console.log(`isolation: ${sandbox.method}, ${sandbox.level} (${sandbox.facts.join(', ')})`);
console.log(
  `verifier: ${figures.verifier_tests_per_s} tests/s with pre-started sandboxes (pool of ${POOL_SIZE}), ${figures.verifier_no_pool_tests_per_s} without; ${CONCURRENCY} in flight, ${N} tests of a trivial Python program`,
);
console.log(
  `sandbox runs: ${figures.sandbox_pooled_tests_per_s} tests/s pre-started, ${figures.sandbox_tests_per_s} started per run, ${figures.bare_tests_per_s} bare spawn; a burst of ${POOL_SIZE} on a full pool: ${figures.burst_pooled_tests_per_s} tests/s`,
);
console.log(
  `one at a time: ${figures.sandbox_pooled_ms_per_test} ms pre-started, ${figures.sandbox_ms_per_test} ms started per run, bare spawn ${figures.bare_ms_per_test} ms`,
);
console.log(
  `asserts harness overhead, CPU per answer: Python ${asserts.py_harness_overhead_cpu_ms} ms, JavaScript ${asserts.js_harness_overhead_cpu_ms} ms`,
);
console.log(JSON.stringify(figures));

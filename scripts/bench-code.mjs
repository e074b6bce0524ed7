// Benchmark of the `code` verifier: tests per second for a trivial Python program with 2 tests in
// flight (2 cores), and the sandbox's overhead per test against a bare spawn of the same program.
// The last line printed is one JSON object of figures.
//
//   node scripts/bench-code.mjs [--tests N]
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const N = arg('--tests', 60);
const CONCURRENCY = 2;
process.env.VTASK_SANDBOX_CONCURRENCY = String(CONCURRENCY);
// The figure is measured with the best isolation the machine has, weak or not; it says which.
process.env.VTASK_ALLOW_WEAK_ISOLATION ??= '1';

// The core is TypeScript: bundle the pieces we need into a temporary module.
const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-code-')), 'core.mjs');
await esbuild.build({
  stdin: {
    contents: `export { checkCode } from './src/core/verifiers/code/checkCode';\nexport { getSandbox, findInterpreter } from './src/core/sandbox';\n`,
    resolveDir: ROOT,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  logLevel: 'warning',
});
const { checkCode, getSandbox, findInterpreter } = await import(pathToFileURL(outfile).href);

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
const sandboxed = async (i) => {
  const r = await sandbox.run({ argv: [py.path, ...py.args, 'main.py'], files: { 'main.py': PROGRAM }, stdin: `${i}\n`, timeoutMs: 10_000, memoryMb: 512, readOnly: py.readOnly });
  if (r.stdout.trim() !== String(i + 1)) throw new Error(`sandboxed run failed: ${r.sandboxError ?? r.stderr}`);
};

// Warm up the page cache and the sandbox detection.
await pool(4, 2, bare);
await pool(4, 2, sandboxed);

// Latency: one at a time, bare and sandboxed alternately so that a change of load hits both alike.
let bareTotal = 0;
let boxTotal = 0;
for (let i = 0; i < N / 2; i++) {
  let t = performance.now();
  await bare(i);
  bareTotal += performance.now() - t;
  t = performance.now();
  await sandboxed(i);
  boxTotal += performance.now() - t;
}
const bareSeqMs = bareTotal / (N / 2);
const boxSeqMs = boxTotal / (N / 2);
const bareParMs = await pool(N, CONCURRENCY, bare);
const boxParMs = await pool(N, CONCURRENCY, sandboxed);

const ctx = { task: { id: 'bench', prompt: '', messages: [], meta: {}, dir: ROOT }, signal: new AbortController().signal, trusted: true, child: () => Promise.reject(new Error('none')) };
const tests = Array.from({ length: N }, (_, i) => ({ stdin: `${i}\n`, stdout: `${i + 1}\n` }));
const t0 = performance.now();
const v = await checkCode(PROGRAM, { language: 'python', tests }, ctx);
const verifierMs = performance.now() - t0;
if (!v.pass) throw new Error(`the verifier failed the benchmark program: ${v.reason}`);

const figures = {
  method: sandbox.method,
  level: sandbox.level,
  cores: CONCURRENCY,
  host_cores: os.availableParallelism?.() ?? os.cpus().length,
  load_avg_1m: Number(os.loadavg()[0].toFixed(2)),
  tests: N,
  verifier_tests_per_s: Number(((N * 1000) / verifierMs).toFixed(1)),
  sandbox_tests_per_s: Number(((N * 1000) / boxParMs).toFixed(1)),
  bare_tests_per_s: Number(((N * 1000) / bareParMs).toFixed(1)),
  sandbox_ms_per_test: Number(boxSeqMs.toFixed(1)),
  bare_ms_per_test: Number(bareSeqMs.toFixed(1)),
  overhead_ms_per_test: Number((boxSeqMs - bareSeqMs).toFixed(1)),
};
console.log(`isolation: ${sandbox.method}, ${sandbox.level} (${sandbox.facts.join(', ')})`);
console.log(`verifier: ${figures.verifier_tests_per_s} tests/s with ${CONCURRENCY} in flight (${N} tests of a trivial Python program)`);
console.log(`sandbox run: ${figures.sandbox_ms_per_test} ms per test, bare spawn ${figures.bare_ms_per_test} ms: overhead ${figures.overhead_ms_per_test} ms`);
fs.rmSync(path.dirname(outfile), { recursive: true, force: true });
console.log(JSON.stringify(figures));

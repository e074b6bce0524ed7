// Benchmark of agent environments: start-up (sandbox, process and `reset`) of the example
// key-value store as a JS module and as a Python executable, the round trip of one tool call,
// and one case replayed from start to close. The last line printed is one JSON object of figures.
//
//   node scripts/bench-env.mjs [--starts N] [--calls N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const STARTS = arg('--starts', 20);
const CALLS = arg('--calls', 200);
// Measured with the best isolation the machine has, weak or not; the output says which.
process.env.VTASK_ALLOW_WEAK_ISOLATION ??= '1';
if (!fs.existsSync(path.join(ROOT, 'out/core.js'))) spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
const { startEnvironment, replayCalls } = createRequire(import.meta.url)(path.join(ROOT, 'out/core.js'));

const dir = path.join(ROOT, 'examples');
const signal = new AbortController().signal;
const ctx = { dir, trusted: true, signal };
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const ms = (x) => Number(x.toFixed(1));

const figures = { cores: os.availableParallelism?.() ?? os.cpus().length, load_avg_1m: Number(os.loadavg()[0].toFixed(2)) };
let isolation = '';
for (const [label, run] of [['module', './envs/kv_store.mjs'], ['python', './envs/kv_store.py']]) {
  const starts = [];
  for (let i = 0; i < STARTS; i++) {
    const env = await startEnvironment({ run }, ctx);
    starts.push(env.startupMs);
    await env.close();
  }
  const env = await startEnvironment({ run }, ctx);
  const calls = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await env.call('get', { key: 'fr' }, signal);
    calls.push(performance.now() - t);
  }
  isolation = env.isolation;
  figures.isolation = env.sandboxIsolation.method;
  await env.close();
  const replays = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const e = await startEnvironment({ run }, ctx);
    await replayCalls(e, [{ get: { key: 'fr' } }, { list: {} }], '<answer>Paris</answer>');
    await e.close();
    replays.push(performance.now() - t);
  }
  figures[`${label}_startup_p50_ms`] = quantile(starts, 0.5);
  figures[`${label}_startup_p95_ms`] = quantile(starts, 0.95);
  figures[`${label}_call_p50_ms`] = ms(quantile(calls, 0.5));
  figures[`${label}_call_p95_ms`] = ms(quantile(calls, 0.95));
  figures[`${label}_case_replay_p50_ms`] = ms(quantile(replays, 0.5));
  console.log(`${label} environment: start-up p50 ${figures[`${label}_startup_p50_ms`]} ms, p95 ${figures[`${label}_startup_p95_ms`]} ms (${STARTS} starts); tool call p50 ${figures[`${label}_call_p50_ms`]} ms, p95 ${figures[`${label}_call_p95_ms`]} ms; a 2-call case replayed start to close ${figures[`${label}_case_replay_p50_ms`]} ms`);
}
console.log(`isolation: ${isolation}`);
console.log(JSON.stringify(figures));

#!/usr/bin/env node
// `vtask run` against its provider's own request rate: the project's test server (its own
// process) answers at once, and the same requests are sent twice, in the same run: by the
// provider alone (createProvider, at the run's concurrency) and by `vtask run` as a user runs
// it (a fresh process, a fresh cache), which also verifies every sample, writes the cache and
// the run log. Two shapes of run: every sample its own request (the tasks have a seed), and one
// request of `n` samples per task (no seed). The figure is requests per second of each, and
// their ratio (the run loop's share of the provider's rate). Beside each rate, the CPU of the
// client per request (the provider's process during its requests; `vtask run`'s whole process,
// start-up included) and the share that gives: on a machine shared with other work the rates
// follow the load, the CPU per request does not. Each run is then repeated on the cache it
// filled: that run sends nothing, and its CPU per request is what the run costs apart from
// sampling, a floor under the first figure. Beside the provider's best round (warm: its code
// compiled, its connections open), the same requests by the provider alone in a fresh process,
// start-up included, as `vtask run` is measured: what a run pays before any work of its own.
// Beside each `vtask run`, its peak RSS (the least of the rounds). Last, what the machine allows:
// the server's CPU per request (its process, during each `vtask run`) and the run's own give the
// most requests per second this work could reach with every core busy and nothing lost to
// splitting it; and the same for the least the run can cost (a fresh provider's CPU and the
// cached run's), a ceiling no rearranging of the run's work across threads passes.
//
//   node scripts/bench-run-loop.mjs [--tasks N] [--samples S] [--concurrency C] [--shape seed|n] [--baseline PATH/TO/cli.js]
//
// --baseline  another build of the CLI (say, the merge base's) measured beside this one
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startServerProcess } from './bench-server.mjs';
import { childrenCpuMs, ownCpuMs, processCpuMs } from './cpu-meter.mjs';

const root = path.resolve(import.meta.dirname, '..');
const opt = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : process.argv[i + 1];
};
const TASKS = Number(opt('--tasks', 500));
const SAMPLES = Number(opt('--samples', 8));
const CONCURRENCY = Number(opt('--concurrency', 64));
/** `seed` or `n` for one shape of run alone; both by default. */
const SHAPE = opt('--shape', 'both');
/** Cores the machine gives this benchmark (the server and the run share them). */
const CORES = os.availableParallelism();
const prompt = (t) => `What is ${t} + 2? Put the answer in \\boxed{}.`;

/** Sends the requests of a run of `TASKS` tasks (with a seed: one per sample) by `provider` alone, CONCURRENCY in flight. */
async function sendAll(provider, seeded) {
  const requests = seeded ? TASKS * SAMPLES : TASKS;
  const signal = new AbortController().signal;
  let next = 0;
  const send = async (k) => {
    const t = k % TASKS;
    const request = {
      messages: [{ role: 'user', content: prompt(t) }],
      ...(seeded ? { seed: 7 + Math.floor(k / TASKS) } : {}),
    };
    const got = await provider.sample(request, seeded ? 1 : SAMPLES, signal);
    if (got.length !== (seeded ? 1 : SAMPLES)) throw new Error('too few answers');
  };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) await send(next++);
    }),
  );
  return requests;
}

// The provider alone in a process of its own (started by the bench below): its requests once,
// nothing printed; the bench reads the process's CPU.
if (process.argv.includes('--provider-once')) {
  const core = createRequire(import.meta.url)(path.join(root, 'out/core.js'));
  const profile = core.resolveProfile({ baseUrl: opt('--base-url'), model: 'test-model', concurrency: CONCURRENCY });
  await sendAll(core.createProvider(profile, { splitThinkTags: false }), opt('--provider-once') === 'seed');
  process.exit(0);
}
const clis = {
  current: path.join(root, 'out/cli.js'),
  ...(opt('--baseline') ? { baseline: path.resolve(opt('--baseline')) } : {}),
};
if (
  !fs.existsSync(path.join(root, 'out/core.js')) ||
  !fs.existsSync(path.join(root, 'out/test/support/openaiServer.js'))
)
  spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const core = createRequire(import.meta.url)(path.join(root, 'out/core.js'));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-run-loop-'));
const { server, port } = await startServerProcess(path.join(root, 'out/test/support/openaiServer.js'));
const baseUrl = `http://127.0.0.1:${port}/v1`;
const figures = { tasks: TASKS, samples: SAMPLES, concurrency: CONCURRENCY, load_average: +os.loadavg()[0].toFixed(2) };
// Each `vtask run` says its peak RSS on stderr as it exits (the kernel's high-water mark of the process).
const peakRss = path.join(dir, 'peak-rss.cjs');
const PEAK_LINE = /^vtask-bench-peak-rss (\d+)$/m;
fs.writeFileSync(
  peakRss,
  "process.on('exit', () => process.stderr.write('\\nvtask-bench-peak-rss ' + process.resourceUsage().maxRSS + '\\n'));\n",
);

/** Requests per second of the provider alone and of each CLI, for tasks with or without a seed. */
async function measure(seeded) {
  const file = path.join(dir, `run-${seeded ? 'seed' : 'n'}.vtask`);
  const lines = ['vtask: 1', 'defaults:', `  samples: ${SAMPLES}`, ...(seeded ? ['  seed: 7'] : []), 'tasks:'];
  for (let i = 0; i < TASKS; i++)
    lines.push(
      `  - { id: add/${i}, prompt: "${prompt(i).replace(/\\/g, '\\\\')}", verify: { math: { answer: "${i + 2}" } } }`,
    );
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const requests = seeded ? TASKS * SAMPLES : TASKS;
  // The provider alone: the same requests, CONCURRENCY in flight.
  const profile = core.resolveProfile({ baseUrl, model: 'test-model', concurrency: CONCURRENCY });
  const provider = core.createProvider(profile, { splitThinkTags: false });
  const raw = async () => {
    const t0 = performance.now();
    const cpu0 = ownCpuMs();
    await sendAll(provider, seeded);
    return { rate: requests / ((performance.now() - t0) / 1000), cpuMs: (ownCpuMs() - cpu0) / requests };
  };
  /** The same in a fresh process, start-up included: its CPU ms per request. */
  const freshProvider = () => {
    const cpu0 = childrenCpuMs();
    const shape = seeded ? 'seed' : 'n';
    const argv = process.argv.slice(2).filter((a, i, all) => a !== '--baseline' && all[i - 1] !== '--baseline');
    const r = spawnSync(
      process.execPath,
      [import.meta.filename, ...argv, '--provider-once', shape, '--base-url', baseUrl],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`the provider's process failed (${r.status}): ${r.stderr.slice(-500)}`);
    return { cpuMs: (childrenCpuMs() - cpu0) / requests };
  };
  await raw(); // warm-up: JIT, connections
  /** One `vtask run` on `cache`: its seconds and CPU ms, after checking it sent `expected` requests. */
  const vtaskRun = (cli, cache, expected) => {
    const server0 = processCpuMs(server.pid);
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      [
        '-r',
        peakRss,
        cli,
        'run',
        file,
        '--base-url',
        baseUrl,
        '--model',
        'test-model',
        '--concurrency',
        String(CONCURRENCY),
        '--cache-dir',
        cache,
        '--json',
      ],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    );
    const s = (performance.now() - t0) / 1000;
    const cpuMs = childrenCpuMs() - cpu0;
    if (r.status !== 0 && r.status !== 1) throw new Error(`vtask run failed (${r.status}): ${r.stderr.slice(-500)}`);
    const sent = JSON.parse(r.stdout).tasks.reduce((a, t) => a + t.requests, 0);
    if (sent !== expected) throw new Error(`vtask run sent ${sent} requests, expected ${expected}`);
    const serverCpuMs = processCpuMs(server.pid) - server0;
    return { s, cpuMs, serverCpuMs, peakMb: Number(PEAK_LINE.exec(r.stderr)?.[1] ?? NaN) / 1024 };
  };
  // The same run again on the cache the first one filled sends nothing: its CPU is the run's
  // own work apart from sampling (start-up, reading the file and the cache, verifying, the
  // output and the run log), the least a run of these tasks can cost per request.
  const runOnce = (cli) => {
    const cache = fs.mkdtempSync(path.join(dir, 'cache-'));
    const first = vtaskRun(cli, cache, requests);
    const again = vtaskRun(cli, cache, 0);
    fs.rmSync(cache, { recursive: true, force: true });
    return {
      rate: requests / first.s,
      cpuMs: first.cpuMs / requests,
      serverCpuMs: first.serverCpuMs / requests,
      cachedCpuMs: again.cpuMs / requests,
      peakMb: first.peakMb,
      cachedPeakMb: again.peakMb,
    };
  };
  // Rounds interleaved, the best of each kept (the highest rate, the least CPU): a shared
  // machine's load drifts.
  const best = {};
  const keep = (k, m) => {
    best[k] = {
      rate: Math.max(best[k]?.rate ?? 0, m.rate),
      cpuMs: Math.min(best[k]?.cpuMs ?? Infinity, m.cpuMs),
      ...(m.cachedCpuMs !== undefined && { cachedCpuMs: Math.min(best[k]?.cachedCpuMs ?? Infinity, m.cachedCpuMs) }),
      ...(m.serverCpuMs !== undefined && { serverCpuMs: Math.min(best[k]?.serverCpuMs ?? Infinity, m.serverCpuMs) }),
      ...(m.peakMb !== undefined && {
        peakMb: Math.min(best[k]?.peakMb ?? Infinity, m.peakMb),
        cachedPeakMb: Math.min(best[k]?.cachedPeakMb ?? Infinity, m.cachedPeakMb),
      }),
    };
  };
  for (let round = 0; round < 3; round++) {
    keep('provider', await raw());
    const fresh = freshProvider();
    best.freshProvider = Math.min(best.freshProvider ?? Infinity, fresh.cpuMs);
    for (const [k, cli] of Object.entries(clis)) keep(k, runOnce(cli));
  }
  const shape = seeded ? 'seed' : 'n';
  const p = best.provider;
  const f = {
    requests,
    provider_requests_per_s: Math.round(p.rate),
    provider_cpu_ms_per_request: +p.cpuMs.toFixed(3),
    provider_fresh_cpu_ms_per_request: +best.freshProvider.toFixed(3),
  };
  for (const k of Object.keys(clis)) {
    const b = best[k];
    f[`${k}_requests_per_s`] = Math.round(b.rate);
    f[`${k}_share`] = +(b.rate / p.rate).toFixed(2);
    f[`${k}_cpu_ms_per_request`] = +b.cpuMs.toFixed(3);
    f[`${k}_cpu_share`] = +(p.cpuMs / b.cpuMs).toFixed(2);
    f[`${k}_cached_cpu_ms_per_request`] = +b.cachedCpuMs.toFixed(3);
    f[`${k}_peak_rss_mb`] = Math.round(b.peakMb);
    f[`${k}_cached_peak_rss_mb`] = Math.round(b.cachedPeakMb);
    // The most requests/s with every core busy: cores over the CPU a request costs in all.
    const ceiling = (clientMs) => (CORES * 1000) / (clientMs + b.serverCpuMs);
    const floorMs = f.provider_fresh_cpu_ms_per_request + b.cachedCpuMs;
    f[`${k}_server_cpu_ms_per_request`] = +b.serverCpuMs.toFixed(3);
    f[`${k}_all_cores_ceiling_per_s`] = Math.round(ceiling(b.cpuMs));
    f[`${k}_floor_ceiling_per_s`] = Math.round(ceiling(floorMs));
    const pct = (rate) => `${Math.round((100 * rate) / p.rate)}%`;
    console.log(
      `vtask run (${k}), ${TASKS} tasks × ${SAMPLES} samples, ${seeded ? 'one request per sample' : `one request of n=${SAMPLES} per task`}, concurrency ${CONCURRENCY}: ${f[`${k}_requests_per_s`]} requests/s, ${Math.round(100 * f[`${k}_share`])}% of the provider's ${f.provider_requests_per_s}/s (whole process, start-up included); CPU ${b.cpuMs.toFixed(3)} ms per request, ${Math.round(100 * f[`${k}_cpu_share`])}% of the provider's rate per CPU-second (${p.cpuMs.toFixed(3)} ms; ${f.provider_fresh_cpu_ms_per_request.toFixed(3)} ms in a fresh process, start-up included); the same run from the cache (no requests) ${b.cachedCpuMs.toFixed(3)} ms; peak RSS ${f[`${k}_peak_rss_mb`]} MB (${f[`${k}_cached_peak_rss_mb`]} MB from the cache)`,
    );
    console.log(
      `  on ${CORES} cores, with the server's ${b.serverCpuMs.toFixed(3)} ms of CPU per request: this run's CPU allows at most ${f[`${k}_all_cores_ceiling_per_s`]} requests/s (${pct(f[`${k}_all_cores_ceiling_per_s`])} of the provider's) with every core busy; the least a run can cost (a fresh provider's ${f.provider_fresh_cpu_ms_per_request.toFixed(3)} ms and the cached run's ${b.cachedCpuMs.toFixed(3)} ms) at most ${f[`${k}_floor_ceiling_per_s`]} (${pct(f[`${k}_floor_ceiling_per_s`])})`,
    );
  }
  figures[shape] = f;
}

try {
  if (SHAPE !== 'n') await measure(true);
  if (SHAPE !== 'seed') await measure(false);
} finally {
  server.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(figures));

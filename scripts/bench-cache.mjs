// Benchmarks the sample cache: write N samples (keys from sampleKey, batched appends), close,
// reopen in a fresh cache, read all of them back; also a reload by a fresh process-like cache
// (cold load only) and a compaction. Bundles the cache on the fly with esbuild. The last line
// is one JSON object of figures.
//   node scripts/bench-cache.mjs [--samples N] [--text-bytes B] [--dir DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const N = Number(arg('--samples', 100_000));
const textBytes = Number(arg('--text-bytes', 1000));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-cache-'));
// The cache goes on the disk under test: a temp folder by default, or --dir (e.g. the workspace's disk).
const dir = path.join(arg('--dir', work), `.vtask-cache-bench-${process.pid}`);

const { SampleCache, sampleKey, sampleParams } = await loadBundled('src/core/sampling/cache.ts');

const profile = {
  name: 'bench',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'Qwen/Qwen3-8B',
  endpoint: 'chat',
  concurrency: 64,
  timeoutMs: 60_000,
};
const tasks = Math.ceil(N / 8);
const filler = 'The answer follows from the equation; therefore we conclude that x = 42. '
  .repeat(Math.ceil(textBytes / 74))
  .slice(0, textBytes);
const requestOf = (t) => ({
  messages: [
    { role: 'system', content: 'Put the final answer in \\boxed{}.' },
    { role: 'user', content: `Problem ${t}: compute the value of x.` },
  ],
  temperature: 1,
  maxTokens: 2048,
});

const ms = (t0) => performance.now() - t0;
// CPU time (user + system) next to wall time: on a busy machine wall time mostly measures the others.
const cpu = (c0) => {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
};
const rate = (n, t) => Math.round(n / (t / 1000));

// Keys: 8 samples per task, as `vtask run --samples 8` would ask.
let t0 = performance.now();
let c0 = process.cpuUsage();
const keys = new Array(N);
const params = new Array(N);
for (let i = 0; i < N; i++) {
  const req = requestOf(Math.floor(i / 8));
  keys[i] = sampleKey(profile, req, i % 8);
  params[i] = sampleParams(profile, req, i % 8);
}
const keyMs = ms(t0);
const keyCpu = cpu(c0);

// Write: puts are buffered and appended in batches; close flushes and fsyncs.
t0 = performance.now();
c0 = process.cpuUsage();
const w = SampleCache.open(dir, { autoCompactSegments: 0 });
const takenAt = new Date().toISOString();
for (let i = 0; i < N; i++) {
  w.put(
    keys[i],
    {
      text: `${i} ${filler}`,
      finishReason: 'stop',
      model: profile.model,
      takenAt,
      latencyMs: 1234,
      usage: { promptTokens: 40, completionTokens: 300 },
    },
    params[i],
  );
}
const putMs = ms(t0);
w.close();
const writeMs = ms(t0);
const writeCpu = cpu(c0);
const wstats = w.stats();

// Read: a new cache (as a second run would) loads the segments on the first get, then every key.
t0 = performance.now();
c0 = process.cpuUsage();
const r = SampleCache.open(dir);
r.load();
const loadMs = ms(t0);
let found = 0;
for (let i = 0; i < N; i++) if (r.get(keys[i])?.text.startsWith(`${i} `)) found++;
const readMs = ms(t0);
const readCpu = cpu(c0);
r.close();
if (found !== N) throw new Error(`read back ${found} of ${N}`);

// Rewrite everything (--fresh), then compact the two generations into one.
const f = SampleCache.open(dir, { autoCompactSegments: 0 });
for (let i = 0; i < N; i++)
  f.put(keys[i], { text: `${i} fresh ${filler}`, finishReason: 'stop', model: profile.model, takenAt }, params[i]);
f.close();
t0 = performance.now();
c0 = process.cpuUsage();
const c = f.compact();
const compactMs = ms(t0);
const compactCpu = cpu(c0);
t0 = performance.now();
const r2 = SampleCache.open(dir);
r2.load();
const reloadMs = ms(t0);
if (r2.stats().entries !== N || !r2.get(keys[N - 1]).text.includes('fresh')) throw new Error('compaction lost records');
r2.close();

const bytes = wstats.bytesWritten;
const mem = process.memoryUsage().rss;
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(work, { recursive: true, force: true });

const fig = (n) => Math.round(n * 10) / 10;
console.log(
  `samples            ${N} (${textBytes} B of text each; ${(bytes / 2 ** 20).toFixed(1)} MiB on disk, ${wstats.flushes} batches)`,
);
console.log(`keys (sha256)      ${fig(keyMs)} ms  (${rate(N, keyMs)}/s; cpu ${fig(keyCpu)} ms)`);
console.log(
  `write (put+close)  ${fig(writeMs)} ms  (${rate(N, writeMs)} samples/s; puts alone ${fig(putMs)} ms; cpu ${fig(writeCpu)} ms)`,
);
console.log(
  `read (load+get)    ${fig(readMs)} ms  (${rate(N, readMs)} samples/s; load ${fig(loadMs)} ms; cpu ${fig(readCpu)} ms)`,
);
console.log(
  `compact 2x${N}     ${fig(compactMs)} ms  (cpu ${fig(compactCpu)} ms; ${c?.inputs} segments -> 1, ${c?.records} records); reload ${fig(reloadMs)} ms`,
);
console.log(
  JSON.stringify({
    bench: 'cache',
    samples: N,
    text_bytes: textBytes,
    mib_on_disk: fig(bytes / 2 ** 20),
    batches: wstats.flushes,
    cpus: os.cpus().length,
    loadavg_1m: fig(os.loadavg()[0]),
    key_ms: fig(keyMs),
    key_cpu_ms: fig(keyCpu),
    write_ms: fig(writeMs),
    write_per_s: rate(N, writeMs),
    write_cpu_ms: fig(writeCpu),
    read_ms: fig(readMs),
    read_per_s: rate(N, readMs),
    read_cpu_ms: fig(readCpu),
    load_ms: fig(loadMs),
    compact_ms: fig(compactMs),
    compact_cpu_ms: fig(compactCpu),
    reload_after_compact_ms: fig(reloadMs),
    rss_mib: Math.round(mem / 2 ** 20),
    node: process.version,
  }),
);

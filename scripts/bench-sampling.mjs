#!/usr/bin/env node
// Client overhead of sampling: the OpenAI-compatible provider against the project's test server
// answering instantly (in its own process), at concurrency 64. Figures: samples per second,
// client CPU per sample and peak RSS of the client process, for one answer per request (the
// worst case: every sample a request), `n: 8` per request, and streaming; and, as the floor, bare
// node:http requests to the same server, so that what the provider adds can be told from what
// the machine and the server cost. Rounds are interleaved and the median taken, since a shared
// machine's load drifts. The last stdout line is one JSON object.
import * as esbuild from 'esbuild';
import http from 'node:http';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './bench-server.mjs';

const root = path.resolve(import.meta.dirname, '..');
const CONCURRENCY = 64;
const DURATION_MS = Number(process.env.BENCH_SAMPLING_MS ?? 2000);
const ROUNDS = Number(process.env.BENCH_SAMPLING_ROUNDS ?? 3);

// The sampling core and the test server, bundled fresh so the figures are of the sources.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-sampling-'));
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  absWorkingDir: root,
};
await esbuild.build({ ...common, entryPoints: ['src/core/sampling/index.ts'], outfile: path.join(tmp, 'sampling.js') });
const serverJs = path.join(tmp, 'openaiServer.js');
await esbuild.build({ ...common, entryPoints: ['test/support/openaiServer.ts'], outfile: serverJs });
const sampling = createRequire(import.meta.url)(path.join(tmp, 'sampling.js'));

const { server, port } = await startServerProcess(serverJs);

let peakRss = process.memoryUsage().rss;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const request = {
  messages: [
    { role: 'system', content: 'Put the final answer in \\boxed{}.' },
    {
      role: 'user',
      content:
        'Natalia sold clips to 48 of her friends in April, and then half as many in May. How many clips did she sell altogether?',
    },
  ],
  temperature: 1,
  maxTokens: 2048,
};

/** Runs CONCURRENCY workers for `ms`, each taking `perCall` samples per call of `call`. */
async function drive(call, perCall, ms) {
  let samples = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + ms;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        samples += perCall;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    samples_per_s: Math.round(samples / seconds),
    client_cpu_us_per_sample: +((cpu.user + cpu.system) / samples).toFixed(1),
    samples,
  };
}

const signal = new AbortController().signal;
function providerCase(name, n, stream) {
  const profile = sampling.profileFromEntry(name, {
    base_url: `http://127.0.0.1:${port}/v1`,
    model: 'test-model',
    concurrency: CONCURRENCY,
    timeout_ms: 30_000,
  });
  const provider = new sampling.OpenAIProvider(profile, { stream });
  return {
    n,
    call: async () => {
      const got = await provider.sample(request, n, signal);
      if (got.length !== n || !got[0].text) throw new Error('bad answer');
    },
  };
}

// The floor: the same request over a bare keep-alive node:http client, answer parsed, nothing else.
const agent = new http.Agent({ keepAlive: true });
const rawBody = JSON.stringify({ model: 'test-model', messages: request.messages, temperature: 1, max_tokens: 2048 });
const rawCase = {
  n: 1,
  call: () => rawRequest(true),
};
function rawRequest(mayRetryStale) {
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(rawBody) },
      },
      (res) => {
        const parts = [];
        res.on('data', (c) => parts.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString())));
        res.on('error', reject);
      },
    );
    // An idle kept-alive socket the server has closed: send again, as the provider does.
    r.on('error', (e) =>
      mayRetryStale && r.reusedSocket && e.code === 'ECONNRESET' ? rawRequest(false).then(resolve, reject) : reject(e),
    );
    r.end(rawBody);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figures = { concurrency: CONCURRENCY, cores: os.availableParallelism?.() ?? os.cpus().length };
figures.load_average = +os.loadavg()[0].toFixed(2);
const cases = [
  ['raw_http_n1', rawCase, 'bare node:http, one sample per request (the floor)'],
  ['n1', providerCase('n1', 1, false), 'provider, one sample per request'],
  ['n8', providerCase('n8', 8, false), 'provider, n=8 per request'],
  ['stream_n1', providerCase('stream', 1, true), 'provider, streamed, one sample per request'],
];
try {
  for (const [, c] of cases) await drive(c.call, c.n, 300); // warm-up: JIT, connections
  const runs = Object.fromEntries(cases.map(([k]) => [k, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const [k, c] of cases) runs[k].push(await drive(c.call, c.n, DURATION_MS));
  for (const [k, , label] of cases) {
    const rs = runs[k];
    const r = {
      samples_per_s: median(rs.map((x) => x.samples_per_s)),
      client_cpu_us_per_sample: median(rs.map((x) => x.client_cpu_us_per_sample)),
      samples: rs.reduce((a, x) => a + x.samples, 0),
    };
    figures[k] = r;
    console.log(
      `sampling, ${label}, concurrency ${CONCURRENCY}: ${r.samples_per_s} samples/s, client CPU ${r.client_cpu_us_per_sample} µs/sample (median of ${ROUNDS})`,
    );
  }
} finally {
  clearInterval(rssTimer);
  server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
figures.samples_per_s = figures.n1.samples_per_s;
figures.provider_cpu_us_over_raw = +(
  figures.n1.client_cpu_us_per_sample - figures.raw_http_n1.client_cpu_us_per_sample
).toFixed(1);
figures.peak_rss_mb = Math.round(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1e6);
console.log(
  `sampling: ${figures.samples_per_s} samples/s at concurrency ${CONCURRENCY}, one per request (target ≥ 2000; bare node:http ${figures.raw_http_n1.samples_per_s}/s on this machine now, load ${figures.load_average}), peak RSS ${figures.peak_rss_mb} MB`,
);
console.log(JSON.stringify(figures));

#!/usr/bin/env node
// Agent tasks: what an environment costs and how many trajectories a run gets through.
// Figures: environment start-up (start to the `reset` reply, then close) and per-call overhead
// (one `get` after another in one environment), for the example key-value store as a JS module
// and as an executable (Python); trajectories per second through the agent loop against the
// project's test server (in its own process, answering instantly) at concurrency 16, each a
// fresh JS environment and two model turns (a `get`, then the answer); and the same
// trajectories replayed from the cache. The last stdout line is one JSON object.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './bench-server.mjs';

const root = path.resolve(import.meta.dirname, '..');
const CONCURRENCY = 16;
const TRAJECTORIES = Number(process.env.BENCH_AGENT_TRAJECTORIES ?? 64);
const STARTS = Number(process.env.BENCH_AGENT_STARTS ?? 8);
const CALLS = Number(process.env.BENCH_AGENT_CALLS ?? 300);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-agent-'));
// The sandbox's user must be able to read the environments.
fs.chmodSync(tmp, 0o755);
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  absWorkingDir: root,
};
await esbuild.build({
  ...common,
  stdin: {
    contents: `export { startEnvironment } from './src/core/agent/environment';
export { runAgentSample } from './src/core/agent/loop';
export { OpenAIProvider } from './src/core/sampling/openai';
export { profileFromEntry } from './src/core/sampling/profiles';
export { SampleCache } from './src/core/sampling/cache';`,
    resolveDir: root,
    loader: 'ts',
  },
  outfile: path.join(tmp, 'agent.js'),
});
const serverJs = path.join(tmp, 'openaiServer.js');
await esbuild.build({ ...common, entryPoints: ['test/support/openaiServer.ts'], outfile: serverJs });
const agent = createRequire(import.meta.url)(path.join(tmp, 'agent.js'));

const envDir = path.join(tmp, 'envs');
fs.mkdirSync(envDir, { mode: 0o755 });
fs.copyFileSync(path.join(root, 'examples/envs/kv_store.mjs'), path.join(envDir, 'kv_store.mjs'));
fs.copyFileSync(path.join(root, 'examples/envs/kv_store.py'), path.join(envDir, 'kv_store.py'));
fs.chmodSync(path.join(envDir, 'kv_store.py'), 0o755);

const { server, port } = await startServerProcess(serverJs);

const never = new AbortController().signal;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figures = {};

try {
  for (const [label, run] of [
    ['js', 'kv_store.mjs'],
    ['executable', 'kv_store.py'],
  ]) {
    const starts = [];
    let env;
    for (let i = 0; i < STARTS; i++) {
      const t = performance.now();
      env = await agent.startEnvironment({ run }, { dir: envDir, trusted: true, signal: never });
      starts.push(performance.now() - t);
      if (i < STARTS - 1) await env.close();
    }
    const t = performance.now();
    for (let i = 0; i < CALLS; i++) await env.call('get', { key: 'fr' }, never);
    const perCall = (performance.now() - t) / CALLS;
    await env.close();
    figures[`${label}_startup_ms`] = Math.round(median(starts));
    figures[`${label}_call_us`] = Math.round(perCall * 1000);
    console.log(
      `environment (${label}, ${env.isolation.split(':')[0]}): start-up median ${figures[`${label}_startup_ms`]} ms over ${STARTS}, ${figures[`${label}_call_us`]} µs per tool call over ${CALLS}`,
    );
  }

  const profile = agent.profileFromEntry('bench', {
    base_url: `http://127.0.0.1:${port}/v1`,
    model: 'test-model',
    concurrency: CONCURRENCY,
  });
  const provider = new agent.OpenAIProvider(profile);
  const content = `Which capital is stored under fr?\nvtask-test-script: ${JSON.stringify([{ calls: [{ get: { key: 'fr' } }] }, { answer: '<answer>Paris</answer>' }])}`;
  const cacheDir = path.join(tmp, 'cache');
  const cache = agent.SampleCache.open(cacheDir);
  const pass = async () => {
    let next = 0;
    let stops = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TRAJECTORIES) {
          const index = next++;
          const r = await agent.runAgentSample({
            profile,
            provider,
            index,
            maxTurns: 4,
            cache,
            signal: never,
            environmentKey: { run: 'kv_store.mjs' },
            request: { messages: [{ role: 'user', content }], seed: 1 },
            start: (signal) => agent.startEnvironment({ run: 'kv_store.mjs' }, { dir: envDir, trusted: true, signal }),
          });
          if (r.sample.trajectory.stop === 'final') stops++;
        }
      }),
    );
    if (stops !== TRAJECTORIES) throw new Error(`${TRAJECTORIES - stops} trajectories did not reach a final answer`);
    return TRAJECTORIES / ((performance.now() - t) / 1000);
  };
  figures.trajectories_per_s = +(await pass()).toFixed(1);
  figures.cached_trajectories_per_s = Math.round(await pass());
  cache.close();
  console.log(
    `agent loop, concurrency ${CONCURRENCY}, ${TRAJECTORIES} trajectories of 2 turns, a fresh JS environment each: ${figures.trajectories_per_s} trajectories/s; replayed from the cache: ${figures.cached_trajectories_per_s}/s`,
  );
} finally {
  server.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(JSON.stringify(figures));

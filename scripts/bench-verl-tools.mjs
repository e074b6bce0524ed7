#!/usr/bin/env node
// The event-loop lag of verl's tool agent loop while 16 trajectories start their environments
// at once (test/python/verl_agent_harness.py: `vtask env` relays of the key-value store), beside
// the way environments were started before (on threads of the trainer's process,
// scripts/verl_tools_threads.py), in turns, medians of --rounds runs each. Each run also gives
// the lag of otherwise idle event loops in four other processes at the same time: what the
// machine's load alone costs any loop.
//
//   node scripts/bench-verl-tools.mjs [--rounds N]   (default 3)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const i = process.argv.indexOf('--rounds');
const ROUNDS = i === -1 ? 3 : Number(process.argv[i + 1]);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-verl-tools-'));
fs.chmodSync(dir, 0o755); // the environment runs as an unprivileged user of its own
fs.copyFileSync(path.join(root, 'examples/envs/kv_store.mjs'), path.join(dir, 'kv_store.mjs'));
const harness = path.join(root, 'test/python/verl_agent_harness.py');
const env = {
  ...process.env,
  PYTHONPATH: `${path.join(root, 'integrations/python')}:${path.join(root, 'test/python')}`,
  VTASK_CLI: `${process.execPath} ${path.join(root, 'out/cli.js')}`,
};

function run(way, k) {
  const out = path.join(dir, `${way}-${k}.json`);
  const args =
    way === 'new'
      ? [harness, dir, out, '16', '64']
      : [path.join(root, 'scripts/verl_tools_threads.py'), harness, dir, out, '16', '64'];
  const r = spawnSync('python3', args, { encoding: 'utf8', env, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`the harness failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

const runs = { new: [], baseline: [] };
try {
  for (let k = 0; k < ROUNDS; k++)
    for (const way of k % 2 ? ['baseline', 'new'] : ['new', 'baseline']) runs[way].push(run(way, k));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figures = {};
for (const [way, rs] of Object.entries(runs)) {
  figures[way] = {
    loop_lag_ms: Math.round(median(rs.map((r) => r.max_lag_ms))),
    idle_loops_lag_ms: Math.round(median(rs.map((r) => r.idle_loops_lag_ms))),
    beyond_idle_ms: Math.round(median(rs.map((r) => r.max_lag_ms - r.idle_loops_lag_ms))),
    seconds: +median(rs.map((r) => r.seconds)).toFixed(1),
  };
}
for (const [way, f] of Object.entries(figures)) {
  console.log(
    `verl tool loop, 16 trajectories starting (${way === 'new' ? 'spawn helper' : 'before: threads'}): loop lag ${f.loop_lag_ms} ms, idle loops meanwhile ${f.idle_loops_lag_ms} ms, beyond them ${f.beyond_idle_ms} ms; ${f.seconds} s (medians of ${ROUNDS})`,
  );
}
console.log(JSON.stringify(figures));

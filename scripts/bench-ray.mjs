#!/usr/bin/env node
// Ray Data scoring throughput beside one `vtask serve` without Ray, and where the CPU goes: rows
// of `vtask export --format trl` (math, constraints, JSON and composite examples) joined with
// their cases' responses, repeated to N rows and shuffled, scored by one server through the
// package's client given the whole table (4,096 rows per request, as Ray's blocks), and by Ray
// Data with 1, 2 and 4 workers sharing the node's server (vtask_reward.ray). The ways take turns;
// each prints its median rows/s, its CPU per row by process and the cores it got
// (scripts/bench_ray.py says which). Ray's start and the job's first dataset (which starts the
// node's server and the scoring workers) are reported apart.
//
//   node scripts/bench-ray.mjs [--rows N] [--workers 1,2,4] [--rounds 3] [--batch-size N]
//
// PYTHONPATH chooses the vtask_reward measured (default: this checkout's integrations/python).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, scoringRows } from './scoring-rows.mjs';

const root = path.resolve(import.meta.dirname, '..');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : process.argv[i + 1];
};
const ROWS = Number(arg('--rows', 20_000));
const WORKERS = arg('--workers', '1,2,4');
const ROUNDS = arg('--rounds', '3');
const BATCH = arg('--batch-size', 'default');
const { dir, tasks, rows } = scoringRows('vtask-bench-ray-', 'rows.parquet');

const r = spawnSync(
  'python3',
  [
    path.join(root, 'scripts/bench_ray.py'),
    rows,
    path.join(dir, 'pairs.json'),
    tasks,
    String(ROWS),
    WORKERS,
    ROUNDS,
    BATCH,
  ],
  {
    encoding: 'utf8',
    timeout: 600_000,
    // No usage report: it is network work at ray.init that a scoring job need not pay.
    env: {
      ...process.env,
      PYTHONPATH: process.env.PYTHONPATH || path.join(root, 'integrations/python'),
      VTASK_CLI: `${process.execPath} ${cli}`,
      RAY_USAGE_STATS_ENABLED: '0',
    },
  },
);
fs.rmSync(dir, { recursive: true, force: true });
if (r.status !== 0) throw new Error(`bench_ray.py failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
const figures = JSON.parse(r.stdout.trim().split('\n').at(-1));
const cpu = (f) =>
  `CPU ms/row ${f.cpu_ms_per_row_total}: ${Object.entries(f.cpu_ms_per_row)
    .map(([role, ms]) => `${role} ${ms}`)
    .join(', ')}`;
const line = (name, f) =>
  console.log(
    `${name}: ${f.rows_per_s} rows/s (rounds: ${f.rows_per_s_each_round.join(', ')}); ${cpu(f)}; ${f.cores} cores; processes started: ${JSON.stringify(f.processes_started)}`,
  );
console.log(
  `${figures.rows} rows, batch size ${figures.batch_size ?? 'default'}, ${figures.rounds} rounds, the ways in turn; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ', 3).join(' ')}`,
);
line(
  'one vtask serve (--workers auto), no Ray, the client given the whole table, 4,096 rows per request',
  figures.one_server,
);
for (const w of WORKERS.split(','))
  line(`Ray Data, ${w} worker(s) sharing the node's vtask serve`, figures[`ray_${w}`]);
console.log(
  `ray.init ${figures.ray_init_s} s; the job's first dataset (starts the node's vtask serve and the scoring workers) ${figures.ray_warmup_s} s`,
);
console.log(JSON.stringify({ ray_score: figures }));

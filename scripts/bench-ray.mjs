#!/usr/bin/env node
// Ray Data scoring throughput beside one `vtask serve` without Ray: rows of `vtask export
// --format trl` (math, constraints, JSON and composite examples) joined with their cases'
// responses, repeated to N rows and shuffled, scored by one server through the client, then by
// Ray Data with 1 and 2 workers sharing the node's server (vtask_reward.ray). The Ray times
// include starting the workers, as a scoring job pays it; Ray's own start-up and the node
// server's first start (by a small dataset before) are reported apart.
//
//   node scripts/bench-ray.mjs [--rows N] [--workers 1,2]
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
const WORKERS = arg('--workers', '1,2');
const { dir, tasks, rows } = scoringRows('vtask-bench-ray-', 'rows.parquet');

const r = spawnSync(
  'python3',
  [path.join(root, 'scripts/bench_ray.py'), rows, path.join(dir, 'pairs.json'), tasks, String(ROWS), WORKERS],
  {
    encoding: 'utf8',
    timeout: 600_000,
    // No usage report: it is network work at ray.init that a scoring job need not pay.
    env: {
      ...process.env,
      PYTHONPATH: path.join(root, 'integrations/python'),
      VTASK_CLI: `${process.execPath} ${cli}`,
      RAY_USAGE_STATS_ENABLED: '0',
    },
  },
);
fs.rmSync(dir, { recursive: true, force: true });
if (r.status !== 0) throw new Error(`bench_ray.py failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
const figures = JSON.parse(r.stdout.trim().split('\n').at(-1));
console.log(`one vtask serve (--workers auto), no Ray, ${figures.rows} rows: ${figures.one_server_rows_per_s} rows/s`);
for (const w of WORKERS.split(',')) {
  console.log(
    `Ray Data, ${w} worker(s) sharing the node's vtask serve, ${figures.rows} rows: ${figures[`ray_${w}_workers_rows_per_s`]} rows/s (${figures[`ray_${w}_workers_s`]} s including the workers' start)`,
  );
}
console.log(
  `ray.init ${figures.ray_init_s} s; the node's vtask serve started with a first worker and 512 rows in ${figures.ray_server_start_s} s`,
);
console.log(JSON.stringify({ ray_score: figures }));

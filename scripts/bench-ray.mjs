#!/usr/bin/env node
// Ray Data scoring throughput beside one `vtask serve` without Ray: rows of `vtask export
// --format trl` (math, constraints, JSON and composite examples) joined with their cases'
// responses, repeated to N rows and shuffled, scored by one server through the client, then by
// Ray Data with 1 and 2 workers sharing the node's server (vtask_reward.ray). The Ray times
// include starting the workers (and, for the first, the server), as a scoring job pays it; Ray's
// own start-up is reported apart.
//
//   node scripts/bench-ray.mjs [--rows N] [--workers 1,2]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : process.argv[i + 1];
};
const ROWS = Number(arg('--rows', 5_000));
const WORKERS = arg('--workers', '1,2');
const core = require(path.join(root, 'out/core.js'));
const cli = path.join(root, 'out/cli.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-ray-'));
const tasks = path.join(dir, 'tasks');
fs.mkdirSync(tasks);
const pairs = [];
for (const f of ['math.vtask', 'constraints.vtask', 'json-and-composite.vtask']) {
  const text = fs.readFileSync(path.join(root, 'examples', f), 'utf8');
  fs.writeFileSync(path.join(tasks, f), text);
  for (const task of core.runnableTasks(new core.TaskFileParser().parse(text)).tasks) {
    for (const c of task.cases) pairs.push({ task_id: task.id, response: c.response });
  }
}
fs.writeFileSync(path.join(dir, 'pairs.json'), JSON.stringify(pairs));
const rows = path.join(dir, 'rows.parquet');
const exported = spawnSync(process.execPath, [cli, 'export', tasks, '--format', 'trl', '-o', rows], { encoding: 'utf8' });
if (exported.status !== 0) throw new Error(`export failed: ${exported.stderr}`);

const r = spawnSync('python3', [path.join(root, 'scripts/bench_ray.py'), rows, path.join(dir, 'pairs.json'), tasks, String(ROWS), WORKERS], {
  encoding: 'utf8',
  timeout: 600_000,
  env: { ...process.env, PYTHONPATH: path.join(root, 'integrations/python'), VTASK_CLI: `${process.execPath} ${cli}` },
});
fs.rmSync(dir, { recursive: true, force: true });
if (r.status !== 0) throw new Error(`bench_ray.py failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
const figures = JSON.parse(r.stdout.trim().split('\n').at(-1));
console.log(`one vtask serve (--workers auto), no Ray, ${figures.rows} rows: ${figures.one_server_rows_per_s} rows/s`);
for (const w of WORKERS.split(',')) {
  console.log(`Ray Data, ${w} worker(s) sharing the node's vtask serve, ${figures.rows} rows: ${figures[`ray_${w}_workers_rows_per_s`]} rows/s (${figures[`ray_${w}_workers_s`]} s including the workers' start; ray.init ${figures.ray_init_s} s)`);
}
console.log(JSON.stringify({ ray_score: figures }));

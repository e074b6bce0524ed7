#!/usr/bin/env node
// Ray Data scoring throughput: rows of `vtask export --format trl` (math, constraints, JSON and
// composite examples) joined with their cases' responses, repeated to N rows, scored by 2 Ray
// workers each running its own `vtask serve` (vtask_reward.ray). The time includes starting the
// workers and their servers, as a scoring job pays it; Ray's own start-up is reported apart.
//
//   node scripts/bench-ray.mjs [--rows N] [--workers W]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const ROWS = arg('--rows', 20_000);
const WORKERS = arg('--workers', 2);
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

const r = spawnSync('python3', [path.join(root, 'scripts/bench_ray.py'), rows, path.join(dir, 'pairs.json'), tasks, String(ROWS), String(WORKERS)], {
  encoding: 'utf8',
  timeout: 600_000,
  env: { ...process.env, PYTHONPATH: path.join(root, 'integrations/python'), VTASK_CLI: `${process.execPath} ${cli}` },
});
fs.rmSync(dir, { recursive: true, force: true });
if (r.status !== 0) throw new Error(`bench_ray.py failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
const figures = JSON.parse(r.stdout.trim().split('\n').at(-1));
console.log(`Ray Data scoring, ${figures.workers} workers with a vtask serve each, ${figures.rows} rows: ${figures.verdicts_per_s} verdicts/s (${figures.score_s} s including the workers' start; ray.init ${figures.ray_init_s} s)`);
console.log(JSON.stringify({ ray_score: figures }));

#!/usr/bin/env node
// Verdicts per second through the Python shims and `vtask serve --workers auto`: verl's
// compute_score per sample (sequential, 16 threads) and compute_score_batch, TRL's reward
// function, and the server under 1, 4 and 16 clients posting batches. Each figure stands beside
// its baseline measured in the same run against the same server: the way the shims sent before
// (a new connection per request, one request per sample or per distinct verifier and prompt);
// the ways take turns slice by slice, and each gives its CPU per verdict, client and server (a
// rate on a loaded machine swings with other jobs; CPU per verdict does not). With 16 clients,
// the server with one process per core beside the same files served by one process.
// Rows are `vtask export --format trl` rows of the math, constraints and JSON examples joined
// with their cases' responses, shuffled.
//
//   node scripts/bench-shims.mjs [--scale X]   (X scales the row counts; default 1)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, scoringRows } from './scoring-rows.mjs';

const root = path.resolve(import.meta.dirname, '..');
const i = process.argv.indexOf('--scale');
const SCALE = i === -1 ? 1 : Number(process.argv[i + 1]);
const { dir, tasks, rows } = scoringRows('vtask-bench-shims-', 'rows.jsonl');

/** `vtask serve` on the rows' task files with `workers`; resolves with the process and its URL. */
async function serve(workers) {
  const child = spawn(process.execPath, [cli, 'serve', tasks, '--port', '0', '--workers', workers], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`vtask serve exited (${code})`)));
  });
  return { child, url };
}

const servers = [];
try {
  servers.push(await serve('auto'), await serve('1'));
  const [auto, one] = servers;
  const pids = servers.map((s) => s.child.pid).join(',');
  const r = spawnSync(
    'python3',
    [
      path.join(root, 'scripts/bench_shims.py'),
      rows,
      path.join(dir, 'pairs.json'),
      auto.url,
      String(SCALE),
      pids,
      one.url,
    ],
    {
      encoding: 'utf8',
      timeout: 900_000,
      env: { ...process.env, PYTHONPATH: path.join(root, 'integrations/python'), VTASK_URL: auto.url },
    },
  );
  if (r.status !== 0) throw new Error(`bench_shims.py failed (${r.error ?? r.status}): ${r.stderr.slice(-2000)}`);
  const figures = JSON.parse(r.stdout.trim().split('\n').at(-1));
  figures.server_workers = os.availableParallelism();
  const cpu = (c) => (c ? ` (CPU per verdict: client ${c.client} ms, server ${c.server} ms)` : '');
  for (const [name, f] of Object.entries(figures)) {
    if (typeof f !== 'object') continue;
    const c = f.cpu_ms_per_verdict;
    if (f.auto !== undefined) {
      console.log(
        `${name.replaceAll('_', ' ')}: --workers auto (${figures.server_workers}) ${f.auto} verdicts/s${cpu(c.auto)}; --workers 1: ${f.one}/s${cpu(c.one)}`,
      );
    } else {
      console.log(
        `${name.replaceAll('_', ' ')}: ${f.new} verdicts/s${cpu(c.new)}; before batching: ${f.baseline}/s${cpu(c.baseline)}; ×${(f.new / f.baseline).toFixed(1)}`,
      );
    }
  }
  console.log(JSON.stringify(figures));
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}

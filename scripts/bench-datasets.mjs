#!/usr/bin/env node
// The dataset bridge's figures: `vtask export` and `vtask import` of 100,000 tasks (time, tasks/s
// and the process's peak memory), and `vtask serve` verdicts per second and p99 latency under 16
// concurrent clients, for math and for constraints. Each as a user runs it: real processes.
//
//   node scripts/bench-datasets.mjs [--tasks N] [--seconds S] [--no-serve]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateTaskFile } from './gen-large.mjs';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'out/cli.js');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const TASKS = arg('--tasks', 100_000);
const SECONDS = arg('--seconds', 10);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-datasets-'));
const preload = path.join(dir, 'peak-rss.cjs');
fs.writeFileSync(
  preload,
  "process.on('exit', () => process.stderr.write('\\npeak-rss ' + process.resourceUsage().maxRSS + '\\n'));\n",
);
const figures = {};

/** Runs the CLI; returns wall time and peak RSS (MB). */
function timed(args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['-r', preload, cli, ...args], {
    encoding: 'utf8',
    cwd: dir,
    maxBuffer: 1 << 26,
  });
  const ms = performance.now() - t;
  const rss = Number(/peak-rss (\d+)/.exec(r.stderr)?.[1] ?? 0) / 1024;
  if (r.status !== 0) throw new Error(`vtask ${args.join(' ')} failed: ${r.stderr.slice(-500)}`);
  return { ms, rss_mb: Math.round(rss) };
}

const big = path.join(dir, 'large.vtask');
fs.writeFileSync(big, generateTaskFile({ tasks: TASKS, seed: 2 }));
const mb = (fs.statSync(big).size / 1e6).toFixed(1);
for (const [format, ext] of [
  ['verl', 'parquet'],
  ['trl', 'jsonl'],
]) {
  const out = path.join(dir, `out-${format}.${ext}`);
  const e = timed(['export', big, '--format', format, '-o', out, '--keep-duplicates']);
  figures[`export_${format}_${ext}`] = {
    tasks: TASKS,
    ms: Math.round(e.ms),
    tasks_per_s: Math.round(TASKS / (e.ms / 1000)),
    peak_rss_mb: e.rss_mb,
    file_mb: +(fs.statSync(out).size / 1e6).toFixed(1),
  };
  console.log(
    `export ${TASKS} tasks (${mb} MB) to ${format} ${ext}: ${Math.round(e.ms)} ms, ${figures[`export_${format}_${ext}`].tasks_per_s} tasks/s, peak RSS ${e.rss_mb} MB`,
  );
  const back = path.join(dir, `back-${format}.vtask`);
  const i = timed(['import', out, '--format', format, '-o', back]);
  figures[`import_${format}_${ext}`] = {
    rows: TASKS,
    ms: Math.round(i.ms),
    rows_per_s: Math.round(TASKS / (i.ms / 1000)),
    peak_rss_mb: i.rss_mb,
  };
  console.log(
    `import ${TASKS} ${format} ${ext} rows: ${Math.round(i.ms)} ms, ${figures[`import_${format}_${ext}`].rows_per_s} rows/s, peak RSS ${i.rss_mb} MB (includes checking the new file)`,
  );
}

/** `vtask serve` under 16 clients posting batches of 16 responses for SECONDS seconds. */
async function serveLoad(label, body, workers) {
  const child = spawn(
    process.execPath,
    [cli, 'serve', path.join(root, 'examples'), '--port', '0', '--workers', String(workers)],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (c) => reject(new Error(`serve exited ${c}`)));
  });
  const latencies = [];
  let verdicts = 0;
  const end = performance.now() + SECONDS * 1000;
  const client = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const res = await fetch(url + '/verify', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      latencies.push(performance.now() - t);
      verdicts += json.results.length;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 16 }, client));
  const secs = (performance.now() - t0) / 1000;
  child.kill('SIGTERM');
  latencies.sort((a, b) => a - b);
  const p = (q) => +latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  const key = `serve_${label}_workers${workers}`;
  figures[key] = {
    verdicts_per_s: Math.round(verdicts / secs),
    requests: latencies.length,
    batch: body.responses.length,
    p50_ms: p(0.5),
    p99_ms: p(0.99),
  };
  console.log(
    `vtask serve (${workers} worker${workers > 1 ? 's' : ''}), ${label}, 16 clients × ${body.responses.length} responses: ${figures[key].verdicts_per_s} verdicts/s, p50 ${figures[key].p50_ms} ms, p99 ${figures[key].p99_ms} ms per request`,
  );
}

const mathBody = {
  task: 'gsm8k/clips',
  responses: Array.from({ length: 16 }, (_, i) => `48 + 24 = ${70 + (i % 4)}, so \\boxed{${70 + (i % 4)}}.`),
};
const ifBody = {
  verifier: {
    constraints: [
      { 'length_constraints:number_words': { relation: 'less than', num_words: 50 } },
      'punctuation:no_comma',
      'change_case:english_lowercase',
    ],
  },
  prompt: 'Describe the sea.',
  responses: Array.from({ length: 16 }, (_, i) => `the sea is wide and grey and restless ${'and blue '.repeat(i)}`),
};
for (const workers of process.argv.includes('--no-serve') ? [] : [1, os.availableParallelism()]) {
  await serveLoad('math', mathBody, workers);
  await serveLoad('constraints', ifBody, workers);
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));

#!/usr/bin/env node
// `vtask stats` over a large dataset: 100,000 tasks in 1,000 files with recorded runs of two
// models, as a user runs it (a real process): time and peak RSS of `--json` the first time (every
// file parsed, the cases of in-process verifiers run), again (files unchanged: their summaries,
// the duplicates and the stat of each file remembered), after one file is edited (that file
// parsed, the duplicates searched again), and of `--html`. The run log is written as `vtask run`
// writes it, with each task's current run key.
//
//   node scripts/bench-stats.mjs [--files N] [--tasks-per-file N] [--keep]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeRunDataset } from './run-dataset.mjs';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'out/cli.js');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const FILES = arg('--files', 1000);
const PER_FILE = arg('--tasks-per-file', 100);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-stats-'));
const preload = path.join(dir, 'peak-rss.cjs');
// Peak RSS and CPU time (user + system) from the process itself: on a shared machine the CPU
// time says what the work costs when wall time includes waiting for a core.
fs.writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\npeak-rss ' + u.maxRSS + ' cpu-us ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n",
);
const data = path.join(dir, 'data');

// The dataset, and two models' runs of every task (run-dataset.mjs: 8 samples each, pass counts
// from a seeded generator; one task in ten was run before with another result, a band that changed).
const t0 = performance.now();
const { tasks } = await writeRunDataset({ dir, files: FILES, tasksPerFile: PER_FILE });
const dataMb = (fs.readdirSync(data).reduce((s, f) => s + fs.statSync(path.join(data, f)).size, 0) / 1e6).toFixed(1);
console.log(
  `generated ${tasks} tasks in ${FILES} files (${dataMb} MB) and the run log of two models in ${Math.round(performance.now() - t0)} ms`,
);

/** Runs the CLI in the dataset's folder; returns wall time, peak RSS (MB) and stdout. */
function timed(args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['-r', preload, cli, ...args], {
    encoding: 'utf8',
    cwd: dir,
    maxBuffer: 1 << 30,
  });
  const ms = Math.round(performance.now() - t);
  const m = /peak-rss (\d+) cpu-us (\d+)/.exec(r.stderr);
  const rss = Math.round(Number(m?.[1] ?? 0) / 1024);
  const cpu = Math.round(Number(m?.[2] ?? 0) / 1000);
  if (r.status !== 0) throw new Error(`vtask ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-500)}`);
  return { ms, cpu_ms: cpu, peak_rss_mb: rss, stdout: r.stdout };
}

const figures = { tasks, files: FILES };
const first = timed(['stats', 'data', '--json']);
const s = JSON.parse(first.stdout);
if (s.tasks !== tasks || s.models['model-a']?.tasks !== tasks)
  throw new Error(`stats saw ${s.tasks} tasks, ${s.models['model-a']?.tasks} runs of model-a; expected ${tasks}`);
figures.stats_json_first = { ms: first.ms, cpu_ms: first.cpu_ms, peak_rss_mb: first.peak_rss_mb };
console.log(
  `vtask stats --json, ${tasks} tasks, 2 models, first run (parse, run cases): ${first.ms} ms (CPU ${first.cpu_ms} ms), peak RSS ${first.peak_rss_mb} MB`,
);
const again = timed(['stats', 'data', '--json']);
figures.stats_json = {
  ms: again.ms,
  cpu_ms: again.cpu_ms,
  peak_rss_mb: again.peak_rss_mb,
  json_mb: +(again.stdout.length / 1e6).toFixed(1),
};
console.log(
  `vtask stats --json, again (files unchanged): ${again.ms} ms (CPU ${again.cpu_ms} ms), peak RSS ${again.peak_rss_mb} MB (${figures.stats_json.json_mb} MB of JSON)`,
);
// One prompt of one file edited, as an author does between two runs.
const edited = path.join(data, `shard-${String(Math.floor(FILES / 2)).padStart(4, '0')}.vtask`);
fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('prompt: ', 'prompt: Please: '));
const edit = timed(['stats', 'data', '--json']);
figures.stats_json_edited = { ms: edit.ms, cpu_ms: edit.cpu_ms, peak_rss_mb: edit.peak_rss_mb };
console.log(
  `vtask stats --json, one file edited (it is parsed, duplicates searched again): ${edit.ms} ms (CPU ${edit.cpu_ms} ms), peak RSS ${edit.peak_rss_mb} MB`,
);
const html = path.join(dir, 'report.html');
const h = timed(['stats', 'data', '--html', html]);
figures.stats_html = {
  ms: h.ms,
  cpu_ms: h.cpu_ms,
  peak_rss_mb: h.peak_rss_mb,
  html_mb: +(fs.statSync(html).size / 1e6).toFixed(2),
};
console.log(
  `vtask stats --html: ${h.ms} ms (CPU ${h.cpu_ms} ms), peak RSS ${h.peak_rss_mb} MB (${figures.stats_html.html_mb} MB page)`,
);
if (!process.argv.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
else console.log(`kept ${dir}`);
console.log(JSON.stringify(figures));

#!/usr/bin/env node
// `npm run bench`: the speed figures the project promises, measured on this machine.
// Each section prints a human line and the run ends with one JSON object of all figures.
// Sections that other scripts measure (math, constraints, code) run when those scripts exist.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { generateTaskFile } from './gen-large.mjs';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
if (!fs.existsSync(path.join(root, 'out/core.js')))
  spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const core = require(path.join(root, 'out/core.js'));
const figures = {};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

// 1. `vtask check` on a 10,000-task file, as a user runs it (a fresh process each time).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-'));
const big = path.join(dir, 'large.vtask');
fs.writeFileSync(big, generateTaskFile({ tasks: 10_000, seed: 1 }));
const size = fs.statSync(big).size;
const runs = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [path.join(root, 'out/cli.js'), 'check', big], { encoding: 'utf8' });
  runs.push(performance.now() - t);
  if (r.status !== 0) throw new Error(`check failed: ${r.stdout}${r.stderr}`);
}
figures.check_10k_ms = Math.round(quantile(runs, 0.5));
console.log(
  `vtask check, 10,000 tasks (${(size / 1e6).toFixed(2)} MB): median ${figures.check_10k_ms} ms over ${runs.length} runs`,
);

// 2. Re-validation after an edit, as the editor does it: one parser per document, one edit a time.
let text = fs.readFileSync(big, 'utf8');
const parser = new core.TaskFileParser();
let t0 = performance.now();
parser.parse(text);
figures.first_parse_10k_ms = Math.round(performance.now() - t0);
const edits = [];
const lensUpdates = [];
core.runnableTasks(parser.parse(text));
for (let i = 0; i < 60; i++) {
  // Type one character into a prompt somewhere in the file, as a person would.
  const at = text.indexOf('prompt:', Math.floor((text.length * i) / 60)) + 'prompt: '.length;
  text = text.slice(0, at) + 'x' + text.slice(at);
  text = JSON.parse(JSON.stringify(text)); // a flat string, like TextDocument.getText()
  t0 = performance.now();
  const file = parser.parse(text);
  edits.push(performance.now() - t0);
  // What the code lenses and decorations need per update: every runnable task and its line.
  t0 = performance.now();
  const { tasks } = core.runnableTasks(file);
  let lines = 0;
  for (const t of tasks) lines += file.lines.position(t.offset).line;
  lensUpdates.push(performance.now() - t0);
  if (lines < 0) throw new Error('unreachable');
}
figures.lens_data_update_p50_ms = +quantile(lensUpdates, 0.5).toFixed(1);
figures.lens_data_update_p95_ms = +quantile(lensUpdates, 0.95).toFixed(1);
figures.revalidate_edit_p50_ms = +quantile(edits, 0.5).toFixed(1);
figures.revalidate_edit_p95_ms = +quantile(edits, 0.95).toFixed(1);
console.log(
  `re-validation per edit, 10,000-task file: p50 ${figures.revalidate_edit_p50_ms} ms, p95 ${figures.revalidate_edit_p95_ms} ms (first parse ${figures.first_parse_10k_ms} ms)`,
);
console.log(
  `lens and decoration data per update, 10,000 tasks: p50 ${figures.lens_data_update_p50_ms} ms, p95 ${figures.lens_data_update_p95_ms} ms`,
);
fs.rmSync(dir, { recursive: true, force: true });

// 3. The verifier benchmarks, each in its own process so one core and warm-up are theirs.
for (const name of [
  'bench-math.mjs',
  'bench-constraints.mjs',
  'bench-code.mjs',
  'bench-sampling.mjs',
  'bench-cache.mjs',
  'bench-builtin.mjs',
  'bench-panel.mjs',
  'bench-datasets.mjs',
  'bench-rows.mjs',
  'bench-dataset-view.mjs',
  'bench-audit.mjs',
  'bench-duplicates.mjs',
  'bench-runlog.mjs',
  'bench-stats.mjs',
  'bench-dashboard.mjs',
  'bench-shims.mjs',
  'bench-ray.mjs',
  'bench-verl-tools.mjs',
  'bench-agent.mjs',
  'bench-bundle.mjs',
  'bench-check.mjs',
  'bench-zygote.mjs',
  'bench-workbench.mjs',
  'bench-workbench-samples.mjs',
  'bench-bulk.mjs',
  'bench-findings.mjs',
  'bench-run-loop.mjs',
  'bench-bulk-run.mjs',
  'bench-memory.mjs',
]) {
  const script = path.join(root, 'scripts', name);
  if (!fs.existsSync(script)) continue;
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', cwd: root, timeout: 600_000 });
  const lines = (r.stdout ?? '').trim().split('\n');
  for (const l of lines.slice(0, -1)) console.log(l);
  try {
    figures[name.replace(/^bench-|\.mjs$/g, '')] = JSON.parse(lines[lines.length - 1] ?? '');
  } catch {
    figures[name] = { error: (r.stderr || r.stdout || '').slice(-300) };
  }
}
console.log(JSON.stringify(figures));

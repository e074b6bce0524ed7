#!/usr/bin/env node
// `vtask check` CPU time by layout and size, and `vtask test` peak RSS, as a user runs them (a
// real process each). The same tasks are written as block YAML and as one line of JSON (what
// `json.dump` writes: YAML is a superset of JSON, so it is a task file the chunked parse cannot
// split and the whole-file parse takes); the cost must grow linearly in both. CPU time (user +
// system, all threads) instead of wall time: on a shared machine wall time includes waiting.
//
//   node scripts/bench-check.mjs [--baseline PATH/TO/cli.js] [--runs N] [--test-tasks N,N...]
//
// --baseline    another build of the CLI (say, the merge base's) measured beside this one
// --runs        runs of each check, the least CPU kept (default 3)
// --test-tasks  sizes of the generated files `vtask test` runs (default 10000)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { generateTaskFile } from './gen-large.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { stringify } = createRequire(import.meta.url)('yaml');
const opt = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const RUNS = Number(opt('--runs') ?? 3);
const clis = {
  current: path.join(root, 'out/cli.js'),
  ...(opt('--baseline') ? { baseline: path.resolve(opt('--baseline')) } : {}),
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-check-'));
const preload = path.join(dir, 'usage.cjs');
fs.writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\npeak-rss ' + u.maxRSS + ' cpu-us ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n",
);

/** Least CPU (ms) and peak RSS (MB) of RUNS runs of the CLI; the command must exit 0. */
function measure(cli, args, runs = RUNS) {
  let cpu = Infinity;
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['-r', preload, cli, ...args], {
      encoding: 'utf8',
      cwd: dir,
      maxBuffer: 1 << 30,
    });
    if (r.status !== 0)
      throw new Error(`vtask ${args.join(' ')} failed (${r.status}): ${r.stdout.slice(-300)}${r.stderr.slice(-300)}`);
    const m = /peak-rss (\d+) cpu-us (\d+)/.exec(r.stderr);
    cpu = Math.min(cpu, Math.round(Number(m?.[2] ?? 0) / 1000));
    rss = Math.max(rss, Math.round(Number(m?.[1] ?? 0) / 1024));
  }
  return { cpu_ms: cpu, peak_rss_mb: rss };
}

/** Small tasks, so that 10,000 of them on one line stay under the line-length limit. */
function tasksDoc(n) {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `math/${i}`,
    prompt: `What is ${i} + 2?`,
    verify: { math: { answer: String(i + 2) } },
  }));
  return { vtask: 1, tasks };
}

const figures = {};
const beside = (f) =>
  Object.entries(f)
    .map(([k, v]) => `${k} ${v.cpu_ms} ms`)
    .join(', ');
for (const n of [2500, 5000, 10_000]) {
  const doc = tasksDoc(n);
  fs.writeFileSync(path.join(dir, `yaml-${n}.vtask`), stringify(doc));
  fs.writeFileSync(path.join(dir, `json-${n}.vtask`), JSON.stringify(doc));
  for (const layout of ['yaml', 'json']) {
    const f = Object.fromEntries(
      Object.entries(clis).map(([name, cli]) => [name, measure(cli, ['check', `${layout}-${n}.vtask`])]),
    );
    figures[`check_${layout}_${n}`] = f;
    console.log(`vtask check, ${n} tasks as ${layout === 'yaml' ? 'block YAML' : 'one-line JSON'}: CPU ${beside(f)}`);
  }
}
// The realistic generated file (cases, several verifiers) the main benchmark checks.
fs.writeFileSync(path.join(dir, 'large.vtask'), generateTaskFile({ tasks: 10_000, seed: 1 }));
const large = Object.fromEntries(
  Object.entries(clis).map(([name, cli]) => [name, measure(cli, ['check', 'large.vtask'])]),
);
figures.check_generated_10000 = large;
console.log(`vtask check, 10,000 generated tasks (gen-large.mjs): CPU ${beside(large)}`);
// `vtask test` on generated files (most tasks have cases): its peak RSS is what a size costs it.
for (const n of (opt('--test-tasks') ?? '10000').split(',').map(Number)) {
  fs.writeFileSync(path.join(dir, `test-${n}.vtask`), generateTaskFile({ tasks: n, seed: 1 }));
  const tested = Object.fromEntries(
    Object.entries(clis).map(([name, cli]) => [name, measure(cli, ['test', `test-${n}.vtask`], 1)]),
  );
  figures[`test_${n}`] = tested;
  console.log(
    `vtask test, ${n} generated tasks: ${Object.entries(tested)
      .map(([k, v]) => `${k} peak RSS ${v.peak_rss_mb} MB (CPU ${v.cpu_ms} ms)`)
      .join(', ')}`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));

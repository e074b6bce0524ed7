#!/usr/bin/env node
// The workbench's Run… of a large selection, against `vtask run` of the same tasks: the
// overhead per task of running from the table. The workbench side runs in a real VS Code (the
// integration suite "dataset workbench: actions on the selection", whose last test runs 400
// tasks × 2 samples against the suite's local model server and keeps the extension host's CPU
// for the whole action, every thread of the host included, in test-results/workbench-bulk-run.json).
// The CLI side runs the same 400 tasks, as a process, against the project's test server in its
// own process; its CPU is read from this process's reaped children, and a run of one task gives
// the CLI's start-up, which is taken off. CPU, not wall time: the machine is shared.
//   node scripts/bench-bulk-run.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './bench-server.mjs';
import { childrenCpuMs } from './cpu-meter.mjs';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'out/cli.js');
const figuresFile = path.join(root, 'test-results/workbench-bulk-run.json');
for (const f of [cli, path.join(root, 'out/test/integration/workbenchBulk.test.js')])
  if (!fs.existsSync(f)) throw new Error(`${f} is not built: run npm run build`);

// The workbench: the integration suite in a real VS Code.
fs.rmSync(figuresFile, { force: true });
const suite = spawnSync(process.execPath, [path.join(root, 'test/harness/run-integration.mjs')], {
  cwd: root,
  env: { ...process.env, VTASK_TEST_GREP: 'dataset workbench: actions on the selection' },
  encoding: 'utf8',
  maxBuffer: 1 << 26,
});
if (suite.status !== 0 || !fs.existsSync(figuresFile))
  throw new Error(`the workbench suite failed (${suite.status}): ${(suite.stdout + suite.stderr).slice(-2000)}`);
const host = JSON.parse(fs.readFileSync(figuresFile, 'utf8'));

// The CLI: the same tasks (test/integration/workbenchBulk.test.ts's), the same samples.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-bulk-run-'));
const taskFile = (n) =>
  `vtask: 1\ntasks:\n${Array.from(
    { length: n },
    (_, i) => `  - id: t${i}\n    prompt: What is ${i} + 1?\n    verify:\n      math: { answer: "${i + 1}" }\n`,
  ).join('')}`;
const { server, port } = await startServerProcess(path.join(root, 'out/test/support/openaiServer.js'));
const cliCpu = (n) => {
  const file = path.join(dir, `run-${n}.vtask`);
  fs.writeFileSync(file, taskFile(n));
  const cache = fs.mkdtempSync(path.join(dir, 'cache-'));
  const before = childrenCpuMs();
  const r = spawnSync(
    process.execPath,
    [
      cli,
      'run',
      file,
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
      '--model',
      'test-model',
      '--samples',
      String(host.samples),
      '--cache-dir',
      cache,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  if (r.status !== 0 && r.status !== 1) throw new Error(`vtask run failed (${r.status}): ${r.stderr.slice(-500)}`);
  return childrenCpuMs() - before;
};
let cli1;
let cliN;
try {
  // Best of three: a shared machine's load drifts.
  cli1 = Math.min(...[0, 1, 2].map(() => cliCpu(1)));
  cliN = Math.min(...[0, 1, 2].map(() => cliCpu(host.tasks)));
} finally {
  server.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}
const perTask = (ms) => +(ms / host.tasks).toFixed(2);
const figures = {
  tasks: host.tasks,
  samples: host.samples,
  workbench_host_cpu_ms_per_task: perTask(host.host_cpu_ms),
  workbench_wall_ms_per_task: perTask(host.wall_ms),
  cli_cpu_ms_per_task: perTask(cliN - cli1),
  cli_start_cpu_ms: cli1,
};
figures.overhead_cpu_ms_per_task = +(figures.workbench_host_cpu_ms_per_task - figures.cli_cpu_ms_per_task).toFixed(2);
console.log(
  `Run… of ${host.tasks} tasks × ${host.samples} samples from the workbench: ${figures.workbench_host_cpu_ms_per_task} ms of the extension host's CPU per task, beside ${figures.cli_cpu_ms_per_task} ms per task for \`vtask run\` of the same tasks (its ${cli1} ms start-up taken off): ${figures.overhead_cpu_ms_per_task} ms per task of overhead`,
);
console.log(JSON.stringify(figures));

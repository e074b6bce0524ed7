// The workbench's actions on a selection, as the extension host runs them (in its own thread):
// the export of every task of a 20,000-task file and the audit of 2,000 tasks, each timed with
// the host's event loop watched (perf_hooks: its max delay is the longest the host was held,
// beside the same measure idle). Beside them the baseline: `vtask export` and `vtask audit` of
// the same file as processes (what a user ran before; the export's rows must be the same bytes).
//   node scripts/bench-bulk.mjs [--tasks 20000] [--audit 2000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const TASKS = arg('--tasks', 20000);
const AUDITED = arg('--audit', 2000);
const cli = path.join(ROOT, 'out/cli.js');
if (!fs.existsSync(cli)) throw new Error(`${cli} is not built: run npm run build`);
const core = await loadBundled('test/browser/workbenchMessages.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-bulk-'));
fs.mkdirSync(path.join(dir, '.git'));
const taskFile = (n) =>
  `vtask: 1\ntasks:\n${Array.from(
    { length: n },
    (_, i) => `  - id: t${i}\n    prompt: What is ${i} + 1?\n    verify:\n      math: { answer: "${i + 1}" }\n`,
  ).join('')}`;
fs.writeFileSync(path.join(dir, 'big.vtask'), taskFile(TASKS));
fs.writeFileSync(path.join(dir, 'audit.vtask'), taskFile(AUDITED));
const figures = { bench: 'bulk', node: process.version, tasks: TASKS, audited: AUDITED };

/**
 * Runs `work` with the event loop watched: its wall time and the longest the loop was held (the
 * largest gap between ticks of a 5 ms timer, the end of the work counting as one: work that
 * never yields to the loop holds it throughout).
 */
async function watched(work) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  const t = performance.now();
  const result = await work();
  const end = performance.now();
  clearInterval(tick);
  delay.disable();
  longest = Math.max(longest, end - last);
  return { result, ms: Math.round(end - t), maxDelayMs: +Math.max(longest, delay.max / 1e6).toFixed(1) };
}

const idle = await watched(() => new Promise((r) => setTimeout(r, 1000)));
figures.idle_max_delay_ms = idle.maxDelayMs;

/** The selection of every task of a file, as the workbench groups it. */
const everything = (file, n) =>
  core.selectionFiles(Array.from({ length: n }, (_, i) => ({ n: i, id: `t${i}`, file, kind: 'math', runs: [] })));

// Export: the CLI as a process, then the workbench's export of the same tasks in this thread.
let t = performance.now();
const r = spawnSync(process.execPath, [cli, 'export', 'big.vtask', '--format', 'trl', '-o', 'cli.jsonl'], {
  cwd: dir,
  encoding: 'utf8',
});
if (r.status !== 0) throw new Error(r.stderr);
figures.cli_export_ms = Math.round(performance.now() - t);
const all = everything('big.vtask', TASKS);
const exported = await watched(() =>
  core.exportFiles({
    cwd: dir,
    files: ['big.vtask'],
    format: 'trl',
    out: path.join(dir, 'bulk.jsonl'),
    select: (file, id) => id !== undefined && all.files.get(file)?.has(id) === true,
    slices: new core.TimeSlices(),
  }),
);
// The same bytes but the version, which this bundle names "bench".
const rows = (f) => fs.readFileSync(path.join(dir, f), 'utf8').replace(/"vtask_version":"[^"]*"/g, '');
if (rows('bulk.jsonl') !== rows('cli.jsonl')) throw new Error(`the workbench's export differs from the CLI's (${dir})`);
figures.bulk_export_ms = exported.ms;
figures.bulk_export_max_delay_ms = exported.maxDelayMs;

// Audit: the CLI as a process, then the workbench's audit of the same tasks in this thread.
t = performance.now();
spawnSync(process.execPath, [cli, 'audit', 'audit.vtask', '--json'], { cwd: dir, encoding: 'utf8' });
figures.cli_audit_ms = Math.round(performance.now() - t);
const some = everything('audit.vtask', AUDITED);
const audited = await watched(() =>
  core.auditSelection(some, { root: dir, trusted: false, slices: new core.TimeSlices() }),
);
if (audited.result.length !== AUDITED) throw new Error(`audited ${audited.result.length} of ${AUDITED}`);
figures.bulk_audit_ms = audited.ms;
figures.bulk_audit_max_delay_ms = audited.maxDelayMs;

fs.rmSync(dir, { recursive: true, force: true });
console.log(
  `export of ${TASKS} tasks: workbench ${figures.bulk_export_ms} ms (host held ${figures.bulk_export_max_delay_ms} ms at most), vtask export ${figures.cli_export_ms} ms`,
);
console.log(
  `audit of ${AUDITED} tasks: workbench ${figures.bulk_audit_ms} ms (host held ${figures.bulk_audit_max_delay_ms} ms at most), vtask audit ${figures.cli_audit_ms} ms; idle ${figures.idle_max_delay_ms} ms`,
);
console.log(JSON.stringify(figures));

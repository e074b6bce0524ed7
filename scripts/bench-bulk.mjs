// The workbench's actions on a selection, as the extension host runs them: the export of every
// task of a 20,000-task file and the audit of 2,000 tasks, each timed with the host's event loop
// watched (scripts/holds.mjs: the longest it was held, in wall time and in the host thread's own
// CPU time, which a busy machine does not inflate). This version runs each action in a worker
// thread of its own (the host only hears its progress); beside it, in the same run, the build of
// commit `--old` (default 1ec360a, which ran them in the host's thread in time slices), bundled
// from its sources, and `vtask export` and `vtask audit` of the same file as processes (what a
// user ran before; the export's rows must be the same bytes).
//   node scripts/bench-bulk.mjs [--tasks 20000] [--audit 2000] [--old REV]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled, ROOT, sourcesOf } from './bundle.mjs';
import { watched, watchHolds } from './holds.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const TASKS = Number(arg('--tasks', 20000));
const AUDITED = Number(arg('--audit', 2000));
const OLD = arg('--old', '1ec360a');
const cli = path.join(ROOT, 'out/cli.js');
const worker = path.join(ROOT, 'out/workbenchWorker.js');
for (const f of [cli, worker]) if (!fs.existsSync(f)) throw new Error(`${f} is not built: run npm run build`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-bulk-'));
const core = await loadBundled('test/browser/workbenchMessages.ts');
const old = await loadBundled('test/browser/workbenchMessages.ts', sourcesOf(OLD, dir));
const data = path.join(dir, 'data');
fs.mkdirSync(path.join(data, '.git'), { recursive: true });
const taskFile = (n) =>
  `vtask: 1\ntasks:\n${Array.from(
    { length: n },
    (_, i) => `  - id: t${i}\n    prompt: What is ${i} + 1?\n    verify:\n      math: { answer: "${i + 1}" }\n`,
  ).join('')}`;
fs.writeFileSync(path.join(data, 'big.vtask'), taskFile(TASKS));
fs.writeFileSync(path.join(data, 'audit.vtask'), taskFile(AUDITED));
const figures = { bench: 'bulk', node: process.version, old: OLD, tasks: TASKS, audited: AUDITED };

const idle = watchHolds();
await new Promise((r) => setTimeout(r, 1000));
figures.idle_hold = idle();

/** The selection of every task of a file, as the workbench groups it. */
const everything = (c, file, n) =>
  c.selectionFiles(Array.from({ length: n }, (_, i) => ({ n: i, id: `t${i}`, file, kind: 'math', runs: [] })));
const signal = new AbortController().signal;
// The same bytes but the version, which these bundles name "bench".
const rows = (f) => fs.readFileSync(path.join(data, f), 'utf8').replace(/"vtask_version":"[^"]*"/g, '');

// Export: the CLI as a process, then each version's export of the same tasks from this thread.
let t = performance.now();
const r = spawnSync(process.execPath, [cli, 'export', 'big.vtask', '--format', 'trl', '-o', 'cli.jsonl'], {
  cwd: data,
  encoding: 'utf8',
});
if (r.status !== 0) throw new Error(r.stderr);
figures.cli_export_ms = Math.round(performance.now() - t);
const before = everything(old, 'big.vtask', TASKS);
const exportedBefore = await watched(() =>
  old.exportFiles({
    cwd: data,
    files: ['big.vtask'],
    format: 'trl',
    out: path.join(data, 'before.jsonl'),
    select: (file, id) => id !== undefined && before.files.get(file)?.has(id) === true,
    slices: new old.TimeSlices(),
  }),
);
// The host gets the selection packed from the index's worker: a string it passes on.
const packedExport = core.packSelection(everything(core, 'big.vtask', TASKS));
const exportedNow = await watched(() =>
  core.startBulkJob(
    worker,
    {
      action: 'export',
      root: data,
      selection: packedExport,
      format: 'trl',
      out: path.join(data, 'now.jsonl'),
      shown: 'now.jsonl',
    },
    { signal, onDone: () => undefined },
  ),
);
for (const f of ['before.jsonl', 'now.jsonl'])
  if (rows(f) !== rows('cli.jsonl')) throw new Error(`the workbench's export (${f}) differs from the CLI's (${data})`);
figures.export = {
  before: { ms: exportedBefore.ms, hold: exportedBefore.hold },
  now: { ms: exportedNow.ms, hold: exportedNow.hold },
};

// Audit: the CLI as a process, then each version's audit of the same tasks from this thread.
t = performance.now();
spawnSync(process.execPath, [cli, 'audit', 'audit.vtask', '--json'], { cwd: data, encoding: 'utf8' });
figures.cli_audit_ms = Math.round(performance.now() - t);
const auditedBefore = await watched(() =>
  old.auditSelection(everything(old, 'audit.vtask', AUDITED), {
    root: data,
    trusted: false,
    slices: new old.TimeSlices(),
  }),
);
if (auditedBefore.result.length !== AUDITED) throw new Error(`audited ${auditedBefore.result.length} of ${AUDITED}`);
let found = 0;
const packedAudit = core.packSelection(everything(core, 'audit.vtask', AUDITED));
const auditedNow = await watched(() =>
  core.startBulkJob(
    worker,
    {
      action: 'audit',
      root: data,
      selection: packedAudit,
      trusted: false,
    },
    { signal, onDone: () => undefined, onFound: (counts) => (found += counts.length) },
  ),
);
if (found !== AUDITED) throw new Error(`the worker audited ${found} of ${AUDITED}`);
figures.audit = {
  before: { ms: auditedBefore.ms, hold: auditedBefore.hold },
  now: { ms: auditedNow.ms, hold: auditedNow.hold },
};

fs.rmSync(dir, { recursive: true, force: true });
const h = (x) => `${x.ms} ms, host held ${x.hold.cpu_ms} ms CPU (${x.hold.wall_ms} ms wall) at most`;
console.log(
  `export of ${TASKS} tasks: ${OLD} (in the host's thread) ${h(figures.export.before)}; now (its worker) ${h(figures.export.now)}; vtask export ${figures.cli_export_ms} ms`,
);
console.log(
  `audit of ${AUDITED} tasks: ${OLD} (in the host's thread) ${h(figures.audit.before)}; now (its worker) ${h(figures.audit.now)}; vtask audit ${figures.cli_audit_ms} ms; idle ${figures.idle_hold.cpu_ms} ms CPU (${figures.idle_hold.wall_ms} ms wall)`,
);
console.log(JSON.stringify(figures));

// What keeping the workbench's audit findings costs: reading a task file of N tasks into the
// workbench's index (its summary remembered, as on a reload) without a findings file, with one
// of N counts (every task audited), and beside it the same read by the collector of commit
// `--old` (default main, before findings were kept), bundled from its sources (`git archive`) in
// the same run on the same file; and the appends of an audit of N tasks in batches of 8, as the
// workbench writes them. CPU time of the process (the machine is shared: wall time measures the
// others), the median of `--runs` reads.
//   node scripts/bench-findings.mjs [--tasks 100000] [--old main] [--runs 5]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const N = Number(arg('--tasks', '100000'));
const OLD = arg('--old', 'main');
const RUNS = Number(arg('--runs', '5'));

const cpuMs = async (f) => {
  const t = process.cpuUsage();
  await f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-findings-'));
const old = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-findings-old-'));
process.once('exit', () => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(old, { recursive: true, force: true });
});
fs.mkdirSync(path.join(dir, '.git'));
const file = path.join(dir, 'tasks.vtask');
fs.writeFileSync(
  file,
  `vtask: 1\ntasks:\n${Array.from({ length: N }, (_, i) => `  - id: t${i}\n    prompt: What is ${i} + 1?\n    verify:\n      math: { answer: "${i + 1}" }\n`).join('')}`,
);

execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${OLD} src | tar -x -C "${old}"`]);
const now = await loadBundled('src/core/workbench/collect.ts');
const then = await loadBundled('src/core/workbench/collect.ts', old);
const store = await loadBundled('src/core/workbench/findingsStore.ts');
const summaries = await loadBundled('src/core/overview/dataset/summary.ts');

const read = async (collect) => {
  const { index } = await collect.collectWorkbench([dir], { root: dir, cases: false });
  return index;
};
// The first read summarises the file and remembers it, as the first opening of the table does.
await read(now);

const times = { old: [], none: [], kept: [] };
for (let r = 0; r < RUNS; r++) times.old.push(await cpuMs(() => read(then)));
for (let r = 0; r < RUNS; r++) times.none.push(await cpuMs(() => read(now)));

// An audit of every task, recorded as the workbench records it: a batch of 8 at a time.
const { summary } = await summaries.summariseTaskFile(fs.readFileSync(file, 'utf8'), file, { cases: false });
const cacheDir = path.join(dir, '.vtask-cache');
const append = await cpuMs(() => {
  for (let i = 0; i < summary.tasks.length; i += 8)
    store.recordFindings(
      cacheDir,
      summary.tasks.slice(i, i + 8).map((t) => ({ file, task: t.id, key: t.runKey, findings: i % 3 })),
    );
});
let index;
for (let r = 0; r < RUNS; r++) times.kept.push(await cpuMs(async () => (index = await read(now))));
const audited = Array.from({ length: index.size }, (_, n) => index.row(n).findings).filter((f) => f >= 0).length;
if (audited !== N) throw new Error(`${audited} of ${N} tasks have their findings after the read`);

console.log(
  JSON.stringify({
    tasks: N,
    old: OLD,
    read_cpu_ms: {
      [`${OLD} (no findings kept)`]: Math.round(median(times.old)),
      'this, no findings file': Math.round(median(times.none)),
      [`this, ${N} counts kept`]: Math.round(median(times.kept)),
    },
    audit_appends_cpu_ms: Math.round(append),
    findings_file_bytes: fs.statSync(path.join(cacheDir, store.FINDINGS_FILE)).size,
  }),
);

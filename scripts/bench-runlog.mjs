// Benchmarks the run log: 200,000 records (two runs of 50,000 tasks by two models) appended,
// then read back by this version and, in the same run on the same file, by the positional
// parser it replaced (the sources of commit `--old`, default c2d3bad, read with `git archive`):
// `readRunLog` (the latest two records of each key) and `readLatestRuns` (what `vtask stats`
// reads: the latest run of each task of the dataset). Records are written without tokens, so
// both versions read every line; then one compaction. The last line is one JSON object of figures.
//   node scripts/bench-runlog.mjs [--records N] [--old REV]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const N = Number(arg('--records', 200_000));
const OLD = arg('--old', 'c2d3bad');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-runlog-'));
const dir = path.join(work, '.vtask-cache');
const oldRoot = path.join(work, 'old');
fs.mkdirSync(oldRoot);
execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${OLD} src | tar -x -C "${oldRoot}"`]);
const { appendRunRecords, readRunLog, compactRunLog, runLogFile } = await loadBundled(
  'src/core/overview/runlog/runLog.ts',
);
const now = { readRunLog, ...(await loadBundled('src/core/overview/runlog/latestRuns.ts')) };
// The run log moved into overview/runlog/; an older commit has it in overview/.
const oldDir = fs.existsSync(path.join(oldRoot, 'src/core/overview/runlog'))
  ? 'src/core/overview/runlog'
  : 'src/core/overview';
const old = {
  ...(await loadBundled(`${oldDir}/runLog.ts`, oldRoot)),
  ...(await loadBundled(`${oldDir}/latestRuns.ts`, oldRoot)),
};

const tasks = Math.ceil(N / 4);
const models = ['qwen3-8b', 'llama-3.1-8b'];
const ms = (t0) => +(performance.now() - t0).toFixed(1);
let t0 = performance.now();
for (let run = 0; run < 2; run++) {
  for (const model of models) {
    const batch = [];
    for (let t = 0; t < tasks; t++) {
      batch.push({
        file: `data/part-${t % 100}.vtask`,
        task: `gsm8k/${t}`,
        model,
        key: 'f'.repeat(40),
        at: new Date(Date.UTC(2026, 0, 1 + run)).toISOString(),
        samples: 8,
        passed: (t + run) % 9,
        pass_rate: ((t + run) % 9) / 8,
        band: 'learnable',
        signal_share: 0.5,
      });
    }
    appendRunRecords(dir, batch, { compactBytes: Infinity });
  }
}
const append = ms(t0);
const bytes = fs.statSync(runLogFile(dir)).size;
// CPU time next to wall time: on a busy machine wall time mostly measures the others.
const cpu = (c0) => +((process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000).toFixed(1);

/** Best of 3 of `fn` (CPU ms), and what its last call returned. */
function best(fn) {
  let min = Infinity;
  let got;
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    got = fn();
    min = Math.min(min, cpu(c0));
  }
  return { ms: min, got };
}

/** Both reads by one version, and a check that it saw every record. */
function measure(v) {
  const log = best(() => v.readRunLog(dir));
  // `readRunLog` of the old version parsed records on first touch: touching them all is part of reading them.
  const touched = best(() => {
    let n = 0;
    for (const e of v.readRunLog(dir).values()) n += e.latest.passed >= 0 && (e.previous?.passed ?? 0) >= 0 ? 1 : 0;
    return n;
  });
  const names = new Map();
  for (let t = 0; t < tasks; t++) names.set(v.latestRunName(`data/part-${t % 100}.vtask`, `gsm8k/${t}`), t);
  const latest = best(() => v.readLatestRuns(dir, names));
  if (log.got.size !== 2 * tasks || touched.got !== 2 * tasks || latest.got.length !== 2 * tasks)
    throw new Error('a version did not read every record');
  return { read_run_log_cpu_ms: log.ms, read_and_touch_all_cpu_ms: touched.ms, read_latest_runs_cpu_ms: latest.ms };
}
const before = measure(old);
const after = measure(now);

// Compaction drops nothing here (two runs of each key): add a third run of one model first.
const third = [];
for (let t = 0; t < tasks; t++)
  third.push({
    file: `data/part-${t % 100}.vtask`,
    task: `gsm8k/${t}`,
    model: models[0],
    key: 'e'.repeat(40),
    at: new Date(Date.UTC(2026, 0, 3)).toISOString(),
    samples: 8,
    passed: 1,
    pass_rate: 0.125,
    band: 'too_hard',
    signal_share: 0.5,
    tokens: { prompt: 120, completion: 800 },
  });
appendRunRecords(dir, third, { compactBytes: Infinity });
t0 = performance.now();
const compacted = compactRunLog(dir);
const compact = ms(t0);
fs.rmSync(work, { recursive: true, force: true });
const figures = {
  records: 4 * tasks,
  bytes,
  old: OLD,
  append_ms: append,
  before,
  after,
  compact_ms: compact,
  compact_lines: compacted,
};
console.log(
  `run log, ${figures.records} records (${(bytes / 1e6).toFixed(1)} MB), CPU ms best of 3, ${OLD} → now: readRunLog ${before.read_run_log_cpu_ms} → ${after.read_run_log_cpu_ms}; with every record touched ${before.read_and_touch_all_cpu_ms} → ${after.read_and_touch_all_cpu_ms}; readLatestRuns ${before.read_latest_runs_cpu_ms} → ${after.read_latest_runs_cpu_ms}; appended in ${append} ms; compacted ${compacted?.before} → ${compacted?.after} lines in ${compact} ms`,
);
console.log(JSON.stringify(figures));

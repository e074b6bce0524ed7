// Benchmarks the run log: 200,000 records (two runs of 50,000 tasks by two models) appended,
// then read back (`readRunLog`, what `vtask stats` does first), and every latest record read
// (what a summary over all of them costs); then one compaction. The last line is one JSON
// object of figures.
//   node scripts/bench-runlog.mjs [--records N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const N = Number(arg('--records', 200_000));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-runlog-'));
const dir = path.join(work, '.vtask-cache');
const { appendRunRecords, readRunLog, compactRunLog, runLogFile } = await loadBundled('src/core/overview/runLog.ts');

const tasks = Math.ceil(N / 4);
const models = ['qwen3-8b', 'llama-3.1-8b'];
const ms = (t0) => +(performance.now() - t0).toFixed(1);
let t0 = performance.now();
for (let run = 0; run < 2; run++) {
  for (const model of models) {
    const batch = [];
    for (let t = 0; t < tasks; t++) {
      batch.push({ file: `data/part-${t % 100}.vtask`, task: `gsm8k/${t}`, model, key: 'f'.repeat(40), at: new Date(Date.UTC(2026, 0, 1 + run)).toISOString(), samples: 8, passed: (t + run) % 9, pass_rate: ((t + run) % 9) / 8, band: 'learnable', signal_share: 0.5 });
    }
    appendRunRecords(dir, batch, { compactBytes: Infinity });
  }
}
const append = ms(t0);
const bytes = fs.statSync(runLogFile(dir)).size;
// CPU time next to wall time: on a busy machine wall time mostly measures the others.
const cpu = (c0) => +((process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000).toFixed(1);
const reads = [];
const readCpu = [];
let touched = 0;
for (let i = 0; i < 3; i++) {
  t0 = performance.now();
  const c0 = process.cpuUsage();
  const log = readRunLog(dir);
  readCpu.push(cpu(c0));
  reads.push(ms(t0));
  if (i === 0) {
    t0 = performance.now();
    for (const e of log.values()) touched += e.latest.passed >= 0 ? 1 : 0;
    reads.push(-ms(t0));
  }
}
const readAll = -reads.splice(1, 1)[0];
const read = Math.min(...reads);
// Compaction drops nothing here (two runs of each key): add a third run of one model first.
const third = [];
for (let t = 0; t < tasks; t++) third.push({ file: `data/part-${t % 100}.vtask`, task: `gsm8k/${t}`, model: models[0], key: 'e'.repeat(40), at: new Date(Date.UTC(2026, 0, 3)).toISOString(), samples: 8, passed: 1, pass_rate: 0.125, band: 'too_hard', signal_share: 0.5 });
appendRunRecords(dir, third, { compactBytes: Infinity });
t0 = performance.now();
const compacted = compactRunLog(dir);
const compact = ms(t0);
fs.rmSync(work, { recursive: true, force: true });
const figures = { records: 4 * tasks, bytes, append_ms: append, read_ms: read, read_cpu_ms: Math.min(...readCpu), read_every_latest_ms: readAll, keys: touched, compact_ms: compact, compact_lines: compacted };
console.log(`run log, ${figures.records} records (${(bytes / 1e6).toFixed(1)} MB): read ${read} ms (best of 3; CPU ${figures.read_cpu_ms} ms), every latest record parsed ${readAll} ms more; appended in ${append} ms; compacted ${compacted?.before} → ${compacted?.after} lines in ${compact} ms`);
console.log(JSON.stringify(figures));

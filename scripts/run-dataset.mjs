// A large dataset with recorded runs, for benchmarks: task files made by gen-large.mjs and the
// run log of the given models, written as `vtask run` writes it (each task's current run key,
// 8 samples, pass counts from a seeded generator; one task in ten run twice, so some bands
// changed since the previous run).
//
//   import { writeRunDataset } from './run-dataset.mjs'
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './bundle.mjs';
import { generateTaskFile } from './gen-large.mjs';

/** Writes `files` task files of `tasksPerFile` tasks under `dir`/data and their runs; returns where, and the task count. */
export async function writeRunDataset({ dir, files, tasksPerFile, models = ['model-a', 'model-b'] }) {
  const core = createRequire(import.meta.url)(path.join(ROOT, 'out/core.js'));
  const { appendRunRecords, taskRunKey } = core;
  const data = path.join(dir, 'data');
  fs.mkdirSync(data, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  const cacheDir = path.join(dir, '.vtask-cache');
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const band = (passed, n) => (passed === n ? 'too_easy' : passed === 0 ? 'too_hard' : 'learnable');
  const paths = [];
  let tasks = 0;
  for (let f = 0; f < files; f++) {
    const name = `shard-${String(f).padStart(4, '0')}.vtask`;
    const text = generateTaskFile({ tasks: tasksPerFile, seed: f + 1 });
    const file = path.join(data, name);
    fs.writeFileSync(file, text);
    paths.push(file);
    const parsed = core.parseTaskFile(text);
    const records = [];
    for (const entry of parsed.tasks) {
      if (entry.id === undefined) continue;
      tasks++;
      const key = taskRunKey(parsed, entry);
      for (const model of models) {
        const runs = rand() < 0.1 ? 2 : 1;
        for (let r = 0; r < runs; r++) {
          const passed = Math.floor(rand() * 9);
          records.push({
            file: `data/${name}`,
            task: entry.id,
            model,
            key,
            at: new Date(Date.UTC(2026, 0, 1 + r)).toISOString(),
            samples: 8,
            passed,
            pass_rate: passed / 8,
            band: band(passed, 8),
            signal_share: 1 - (passed / 8) ** 8 - (1 - passed / 8) ** 8,
          });
        }
      }
    }
    appendRunRecords(cacheDir, records);
  }
  return { files: paths, cacheDir, tasks };
}

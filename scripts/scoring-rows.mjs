// The rows the scoring benchmarks (bench-shims, bench-ray) send: the math, constraints and JSON
// examples copied to a fresh folder, exported as `vtask export --format trl` rows, and each
// case's response beside its task id (pairs.json), for the Python side to join and repeat.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
export const cli = path.join(root, 'out/cli.js');

/** Makes the folder; `rowsFile` names the export (its extension picks JSON lines or Parquet). */
export function scoringRows(prefix, rowsFile) {
  const core = require(path.join(root, 'out/core.js'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const tasks = path.join(dir, 'tasks');
  fs.mkdirSync(tasks);
  const pairs = [];
  for (const f of ['math.vtask', 'constraints.vtask', 'json-and-composite.vtask']) {
    const text = fs.readFileSync(path.join(root, 'examples', f), 'utf8');
    fs.writeFileSync(path.join(tasks, f), text);
    for (const task of core.runnableTasks(new core.TaskFileParser().parse(text)).tasks) {
      for (const c of task.cases) pairs.push({ task_id: task.id, response: c.response });
    }
  }
  fs.writeFileSync(path.join(dir, 'pairs.json'), JSON.stringify(pairs));
  const rows = path.join(dir, rowsFile);
  const exported = spawnSync(process.execPath, [cli, 'export', tasks, '--format', 'trl', '-o', rows], {
    encoding: 'utf8',
  });
  if (exported.status !== 0) throw new Error(`export failed: ${exported.stderr}`);
  return { dir, tasks, rows, pairs: path.join(dir, 'pairs.json') };
}

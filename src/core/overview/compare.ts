// Two models over one dataset: where they agree, and which tasks tell them apart. Tasks that one
// model solves and the other does not are the ones worth reading first.
import type { ModelComparison, TaskModelResult, TaskRef } from './types';

/** How many separating tasks are kept. */
export const SEPARATING = 20;

const refOf = (r: TaskRef): TaskRef => (r.line === undefined ? { file: r.file, task: r.task } : { file: r.file, task: r.task, line: r.line });

/** Model `a` against model `b` over the tasks both have a result for, in the results' order. */
export function compareModels(results: readonly TaskModelResult[], a: string, b: string): ModelComparison {
  const ofB = new Map<string, TaskModelResult>();
  for (const r of results) if (r.model === b) ofB.set(`${r.file}\0${r.task}`, r);
  const points: (TaskRef & { a: number; b: number })[] = [];
  const bothSolve: TaskRef[] = [];
  const bothFail: TaskRef[] = [];
  let aHigher = 0;
  let bHigher = 0;
  for (const r of results) {
    if (r.model !== a) continue;
    const other = ofB.get(`${r.file}\0${r.task}`);
    if (!other) continue;
    points.push({ ...refOf(r), a: r.pass_rate, b: other.pass_rate });
    if (r.pass_rate > other.pass_rate) aHigher++;
    else if (r.pass_rate < other.pass_rate) bHigher++;
    if (r.pass_rate === 1 && other.pass_rate === 1) bothSolve.push(refOf(r));
    else if (r.pass_rate === 0 && other.pass_rate === 0) bothFail.push(refOf(r));
  }
  // Largest difference first; ties keep the dataset's order (sort is stable).
  const separating = points
    .filter((p) => p.a !== p.b)
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
    .slice(0, SEPARATING);
  return { a, b, tasks: points.length, a_higher: aHigher, b_higher: bHigher, points, separating, both_solve: bothSolve, both_fail: bothFail };
}

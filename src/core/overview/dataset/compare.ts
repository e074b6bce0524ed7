// Two models over one dataset: where they agree, and which tasks tell them apart. Tasks that one
// model solves and the other does not are the ones worth reading first.
import type { ModelComparison, TaskModelResult, TaskRef } from './types';
import { at, must } from '../../util/must';
import type { Indexed } from './taskTable';

/** How many separating tasks are kept. */
export const SEPARATING = 20;

type Point = TaskRef & { a: number; b: number };

const refOf = (r: TaskRef): TaskRef =>
  r.line === undefined ? { file: r.file, task: r.task } : { file: r.file, task: r.task, line: r.line };
const pointOf = (r: TaskRef, a: number, b: number): Point =>
  r.line === undefined ? { file: r.file, task: r.task, a, b } : { file: r.file, task: r.task, line: r.line, a, b };

/**
 * Model `a` against model `b` over the tasks both have a result for, in the results' order. A
 * run of band `error` has no pass rate: its task is left out, never compared as a 0.
 */
export function compareModels(results: readonly TaskModelResult[], a: string, b: string): ModelComparison {
  const ofB = new Map<string, TaskModelResult>();
  for (const r of results) if (r.model === b && r.band !== 'error') ofB.set(`${r.file}\0${r.task}`, r);
  const refs: TaskRef[] = [];
  const ratesA: number[] = [];
  const ratesB: number[] = [];
  for (const r of results) {
    if (r.model !== a || r.band === 'error') continue;
    const other = ofB.get(`${r.file}\0${r.task}`);
    if (!other) continue;
    refs.push(refOf(r));
    ratesA.push(r.pass_rate);
    ratesB.push(other.pass_rate);
  }
  return compareRates(a, b, refs, ratesA, ratesB);
}

/**
 * Model `a` against model `b` over `tasks`, given each model's pass rate per task (NaN where it
 * has none), in the tasks' order. `points: false` leaves out the scatter's points (output that
 * draws no scatter plot need not hold one object per task).
 */
export function compareRates(
  a: string,
  b: string,
  tasks: Indexed<TaskRef>,
  ratesA: ArrayLike<number>,
  ratesB: ArrayLike<number>,
  o: { readonly points?: boolean } = {},
): ModelComparison {
  const points: Point[] | undefined = o.points === false ? undefined : [];
  const bothSolve: TaskRef[] = [];
  const bothFail: TaskRef[] = [];
  // The largest differences so far, largest first; ties keep the tasks' order.
  const separating: Point[] = [];
  let count = 0;
  let aHigher = 0;
  let bHigher = 0;
  for (let i = 0; i < tasks.length; i++) {
    const x = at(ratesA, i);
    const y = at(ratesB, i);
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    const ref = must(tasks.at(i), 'a rate is of a task');
    count++;
    let point: Point | undefined;
    if (points) points.push((point = pointOf(ref, x, y)));
    if (x > y) aHigher++;
    else if (x < y) bHigher++;
    if (x === 1 && y === 1) bothSolve.push(ref);
    else if (x === 0 && y === 0) bothFail.push(ref);
    if (x !== y) {
      const at = placeOf(separating, Math.abs(x - y));
      if (at >= 0) {
        separating.splice(at, 0, point ?? pointOf(ref, x, y));
        if (separating.length > SEPARATING) separating.pop();
      }
    }
  }
  return {
    a,
    b,
    tasks: count,
    a_higher: aHigher,
    b_higher: bHigher,
    ...(points ? { points } : {}),
    separating,
    both_solve: bothSolve,
    both_fail: bothFail,
  };
}

/** Where a difference `d` goes among the largest so far (after those it ties with); -1 when it is not among them. */
function placeOf(top: readonly Point[], d: number): number {
  let at = top.length;
  while (at > 0 && Math.abs((top[at - 1] as Point).a - (top[at - 1] as Point).b) < d) at--;
  return at < SEPARATING ? at : -1;
}

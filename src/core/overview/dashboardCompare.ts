// The dashboard's comparison of two models, a page at a time: the per-task results of 100,000
// tasks stay with the extension, and the page gets the grid and the 50 tasks of each list it
// shows (those separating the models, those both always solve, those both never solve).
import { COMPARE_GRID, COMPARE_PAGE, gridCell, type ComparisonView } from '../base/dashboardProtocol';
import { compareModels } from './compare';
import type { TaskModelResult, TaskRef } from './types';

interface Compared {
  readonly points: readonly (TaskRef & { readonly a: number; readonly b: number })[];
  readonly grid: readonly (readonly number[])[];
  readonly tasks: number;
  readonly a_higher: number;
  readonly b_higher: number;
  readonly bothSolve: readonly TaskRef[];
  readonly bothFail: readonly TaskRef[];
}

/** Page `page` of a list (the last one when it asks for more), copied for the message. */
function pageOf<T extends object>(list: readonly T[], page: number): { page: number; total: number; items: T[] } {
  const at = Math.min(Math.max(0, page), Math.max(0, Math.ceil(list.length / COMPARE_PAGE) - 1));
  return { page: at, total: list.length, items: list.slice(at * COMPARE_PAGE, (at + 1) * COMPARE_PAGE).map((x) => ({ ...x })) };
}

/** Comparisons over one set of results, each pair's computed once and then paged. */
export class ComparisonPages {
  private readonly done = new Map<string, Compared>();

  constructor(private readonly results: readonly TaskModelResult[]) {}

  /**
   * Model A against model B: the grid, page `page` of the tasks (of one square, when given),
   * and pages `solvePage` and `failPage` of the tasks both always solve and both never solve.
   */
  page(a: string, b: string, cell: readonly [number, number] | undefined, page: number, solvePage = 0, failPage = 0): ComparisonView {
    const c = this.compared(a, b);
    const listed = cell ? c.points.filter((p) => gridCell(p.a) === cell[0] && gridCell(p.b) === cell[1]) : c.points;
    const { page: at, total, items } = pageOf(listed, page);
    return {
      a,
      b,
      tasks: c.tasks,
      a_higher: c.a_higher,
      b_higher: c.b_higher,
      grid: c.grid.map((row) => [...row]),
      ...(cell ? { cell: [cell[0], cell[1]] as [number, number] } : {}),
      page: at,
      total,
      items,
      both_solve: pageOf(c.bothSolve, solvePage),
      both_fail: pageOf(c.bothFail, failPage),
    };
  }

  private compared(a: string, b: string): Compared {
    const key = JSON.stringify([a, b]);
    let c = this.done.get(key);
    if (c) return c;
    const m = compareModels(this.results, a, b);
    const grid = Array.from({ length: COMPARE_GRID }, () => new Array<number>(COMPARE_GRID).fill(0));
    const points = [...(m.points ?? [])];
    for (const p of points) {
      const row = grid[gridCell(p.a)] as number[];
      row[gridCell(p.b)] = (row[gridCell(p.b)] ?? 0) + 1;
    }
    // Largest difference first; ties keep the dataset's order (sort is stable).
    points.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b));
    this.done.set(key, (c = { points, grid, tasks: m.tasks, a_higher: m.a_higher, b_higher: m.b_higher, bothSolve: m.both_solve, bothFail: m.both_fail }));
    return c;
  }
}

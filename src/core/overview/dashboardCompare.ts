// The dashboard's comparison of two models, a page at a time: the per-task results of 100,000
// tasks stay with the extension, and the page gets the grid and the 50 tasks it shows.
import { COMPARE_GRID, COMPARE_PAGE, gridCell, type ComparisonView } from '../base/dashboardProtocol';
import { compareModels } from './compare';
import type { TaskModelResult, TaskRef } from './types';

interface Compared {
  readonly points: readonly (TaskRef & { readonly a: number; readonly b: number })[];
  readonly grid: readonly (readonly number[])[];
  readonly tasks: number;
  readonly a_higher: number;
  readonly b_higher: number;
}

/** Comparisons over one set of results, each pair's computed once and then paged. */
export class ComparisonPages {
  private readonly done = new Map<string, Compared>();

  constructor(private readonly results: readonly TaskModelResult[]) {}

  /** Model A against model B: the grid, and page `page` of the tasks (of one square, when given). */
  page(a: string, b: string, cell: readonly [number, number] | undefined, page: number): ComparisonView {
    const c = this.compared(a, b);
    const listed = cell ? c.points.filter((p) => gridCell(p.a) === cell[0] && gridCell(p.b) === cell[1]) : c.points;
    const at = Math.min(Math.max(0, page), Math.max(0, Math.ceil(listed.length / COMPARE_PAGE) - 1));
    const items = listed.slice(at * COMPARE_PAGE, (at + 1) * COMPARE_PAGE).map((p) => ({ ...p }));
    return { a, b, tasks: c.tasks, a_higher: c.a_higher, b_higher: c.b_higher, grid: c.grid.map((row) => [...row]), ...(cell ? { cell: [cell[0], cell[1]] as [number, number] } : {}), page: at, total: listed.length, items };
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
    this.done.set(key, (c = { points, grid, tasks: m.tasks, a_higher: m.a_higher, b_higher: m.b_higher }));
    return c;
  }
}

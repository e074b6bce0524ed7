// The dashboard's comparison of two models, a page at a time: the per-task results of 100,000
// tasks stay with the extension, and the page gets the grid and the 50 tasks of each list it
// shows (those separating the models, those both always solve, those both never solve). Results
// come file by file: each file is compared once per pair and kept while its results are the same
// array (an unchanged file), so new statistics after a run compare again only the file run.
import { COMPARE_GRID, COMPARE_PAGE, gridCell, type ComparisonView } from '../../base/dashboardProtocol';
import type { TimeSlices } from '../../util/slices';
import { compareModels } from './compare';
import type { ModelComparison, TaskModelResult, TaskRef } from './types';
import { at } from '../../util/must';

interface Compared {
  readonly points: readonly (TaskRef & { readonly a: number; readonly b: number })[];
  readonly grid: readonly (readonly number[])[];
  readonly tasks: number;
  readonly a_higher: number;
  readonly b_higher: number;
  readonly bothSolve: readonly TaskRef[];
  readonly bothFail: readonly TaskRef[];
}

/** Each file's comparisons by pair, while its results are the same array. */
const perFile = new WeakMap<readonly TaskModelResult[], Map<string, ModelComparison>>();

function compareFile(results: readonly TaskModelResult[], a: string, b: string, key: string): ModelComparison {
  let byPair = perFile.get(results);
  if (!byPair) perFile.set(results, (byPair = new Map()));
  let c = byPair.get(key);
  if (!c) byPair.set(key, (c = compareModels(results, a, b)));
  return c;
}

/** Comparisons over one set of results, file by file, each pair's put together once and then paged. */
export class ComparisonPages {
  private readonly done = new Map<string, Promise<Compared>>();

  /** `name`: how the page names a file (the results name it as the statistics do). */
  constructor(
    private readonly files: readonly (readonly TaskModelResult[])[],
    private readonly name: (file: string) => string = (f) => f,
  ) {}

  /**
   * Model A against model B: the grid, page `page` of the tasks (of one square, when given),
   * and pages `solvePage` and `failPage` of the tasks both always solve and both never solve.
   * The first page of a pair compares it, in `slices` when given.
   */
  async page(
    a: string,
    b: string,
    cell: readonly [number, number] | undefined,
    page: number,
    solvePage = 0,
    failPage = 0,
    slices?: TimeSlices,
  ): Promise<ComparisonView> {
    const key = JSON.stringify([a, b]);
    let compared = this.done.get(key);
    if (!compared) this.done.set(key, (compared = this.compare(a, b, key, slices)));
    const c = await compared;
    const listed = cell ? c.points.filter((p) => gridCell(p.a) === cell[0] && gridCell(p.b) === cell[1]) : c.points;
    const { page: at, total, items } = this.pageOf(listed, page);
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
      both_solve: this.pageOf(c.bothSolve, solvePage),
      both_fail: this.pageOf(c.bothFail, failPage),
    };
  }

  /** Page `page` of a list (the last one when it asks for more), its files named for the page. */
  private pageOf<T extends TaskRef>(list: readonly T[], page: number): { page: number; total: number; items: T[] } {
    const at = Math.min(Math.max(0, page), Math.max(0, Math.ceil(list.length / COMPARE_PAGE) - 1));
    return {
      page: at,
      total: list.length,
      items: list.slice(at * COMPARE_PAGE, (at + 1) * COMPARE_PAGE).map((x) => ({ ...x, file: this.name(x.file) })),
    };
  }

  private async compare(a: string, b: string, key: string, slices: TimeSlices | undefined): Promise<Compared> {
    const grid = Array.from({ length: COMPARE_GRID }, () => new Array<number>(COMPARE_GRID).fill(0));
    const points: (TaskRef & { a: number; b: number })[] = [];
    const bothSolve: TaskRef[] = [];
    const bothFail: TaskRef[] = [];
    let tasks = 0;
    let aHigher = 0;
    let bHigher = 0;
    for (const results of this.files) {
      const m = compareFile(results, a, b, key);
      tasks += m.tasks;
      aHigher += m.a_higher;
      bHigher += m.b_higher;
      for (const p of m.points ?? []) {
        points.push(p);
        const row = at(grid, gridCell(p.a));
        row[gridCell(p.b)] = (row[gridCell(p.b)] ?? 0) + 1;
      }
      for (const r of m.both_solve) bothSolve.push(r);
      for (const r of m.both_fail) bothFail.push(r);
      if (slices?.due) await slices.next();
    }
    // Largest difference first; ties keep the dataset's order (sort is stable).
    points.sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b));
    return { points, grid, tasks, a_higher: aHigher, b_higher: bHigher, bothSolve, bothFail };
  }
}

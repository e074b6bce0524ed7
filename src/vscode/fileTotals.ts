import type * as vscode from 'vscode';
import type { Band } from '../core/stats';
import { emptyBands } from '../core/overview/dataset/modelCounts';
import type { TaskFacts } from './taskFacts';
import type { IndexedFile, IndexedTask } from './taskIndex';

/** One model's fresh runs of a file's tasks: band counts, runs without samples, all runs. */
export interface ModelBands {
  readonly model: string;
  readonly counts: Readonly<Record<Band, number>>;
  readonly none: number;
  readonly run: number;
}

/** What the vtask view counts of a file, or of a folder (its files added up). */
export interface Totals {
  readonly tasks: number;
  readonly cases: number;
  readonly failing: number;
  readonly errors: number;
  /** Tasks the filter shows (all of them without one). */
  readonly shown: number;
}

export interface FileTotals extends Totals {
  /** Per model, the model with the most runs first (the one the file's band bar shows). */
  readonly models: readonly ModelBands[];
}

/** Which tasks a filter shows; undefined: all. */
export type Shown = ((uri: vscode.Uri, t: IndexedTask, audit: readonly number[]) => boolean) | undefined;

/** A file's counts as the view shows them. */
export function fileTotals(f: IndexedFile, facts: TaskFacts, shown: Shown): FileTotals {
  const models = new Map<string, { counts: Record<Band, number>; none: number; run: number }>();
  const audit = shown ? facts.auditLines(f.uri) : [];
  let cases = 0;
  let failing = 0;
  let visible = 0;
  for (const t of f.tasks) {
    cases += t.cases;
    failing += facts.failingCases(f.uri, t.id);
    if (!shown || shown(f.uri, t, audit)) visible++;
    for (const [model, band] of facts.bands(f.uri, t)) {
      let m = models.get(model);
      if (!m) models.set(model, (m = { counts: emptyBands(), none: 0, run: 0 }));
      m.run++;
      if (band) m.counts[band]++;
      else m.none++;
    }
  }
  const ranked = [...models]
    .map(([model, m]) => ({ model, ...m }))
    .sort((a, b) => b.run - a.run || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  return { tasks: f.tasks.length, cases, failing, errors: f.errors, shown: visible, models: ranked };
}

/** Files' counts added up (a folder's). */
export function addTotals(all: Iterable<Totals>): Totals {
  const sum = { tasks: 0, cases: 0, failing: 0, errors: 0, shown: 0 };
  for (const t of all) {
    sum.tasks += t.tasks;
    sum.cases += t.cases;
    sum.failing += t.failing;
    sum.errors += t.errors;
    sum.shown += t.shown;
  }
  return sum;
}

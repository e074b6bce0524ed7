// What the dashboard's page gets of the statistics: files named as the workspace names them,
// without the per-task results (they stay with the extension, which pages them).
import type { DatasetStatsView } from '../../base/dashboardProtocol';
import type { DatasetStats, TaskRef } from './types';

/**
 * The statistics as the page gets them: every file named as `name` says (workspace-relative),
 * without the per-task results and comparisons (the page asks for a comparison a page at a time).
 */
export function relativise(s: DatasetStats, name: (file: string) => string): DatasetStatsView {
  const ref = <T extends TaskRef>(r: T): T => ({ ...r, file: name(r.file) });
  const { results: _results, comparisons: _comparisons, ...rest } = s;
  return {
    ...rest,
    totals: { ...s.totals, kinds: { ...s.totals.kinds }, cases: { ...s.totals.cases }, bands: { ...s.totals.bands } },
    per_file: s.per_file.map((f) => ({ ...f, file: name(f.file) })),
    models: Object.fromEntries(
      Object.entries(s.models).map(([m, st]) => [
        m,
        { ...st, histogram: [...st.histogram], changed: st.changed.map(ref) },
      ]),
    ),
    duplicates: s.duplicates.map((d) => ({ ...d, a: ref(d.a), b: ref(d.b) })),
    contamination: s.contamination.map(ref),
  };
}

import type { SampleView } from '../core/base/panelProtocol';

export type SampleFilter = 'all' | 'pass' | 'fail' | 'flipped' | 'errors';
export type SampleSort = 'index' | 'score-asc' | 'score-desc' | 'length-desc';

export const FILTERS: readonly { id: SampleFilter; label: string }[] = [
  { id: 'all', label: 'All' },
  { id: 'pass', label: 'Pass' },
  { id: 'fail', label: 'Fail' },
  { id: 'flipped', label: 'Flipped' },
  { id: 'errors', label: 'Errors' },
];

export const SORTS: readonly { id: SampleSort; label: string }[] = [
  { id: 'index', label: 'Sample order' },
  { id: 'score-asc', label: 'Lowest score first' },
  { id: 'score-desc', label: 'Highest score first' },
  { id: 'length-desc', label: 'Longest first' },
];

export interface ListQuery {
  readonly filter: SampleFilter;
  readonly sort: SampleSort;
  /** Case-insensitive text searched in the answer, the reasoning and the verdict's reason. */
  readonly search: string;
}

const matches: Record<SampleFilter, (s: SampleView) => boolean> = {
  all: () => true,
  pass: (s) => s.pass,
  // Errors are verdicts the verifier could not give; they are not wrong answers.
  fail: (s) => !s.pass && !s.error,
  flipped: (s) => s.flip !== undefined,
  errors: (s) => s.error !== undefined,
};

/** How many samples each filter keeps, for the filter buttons' counts. */
export function filterCounts(samples: readonly SampleView[]): Record<SampleFilter, number> {
  const counts = { all: 0, pass: 0, fail: 0, flipped: 0, errors: 0 };
  for (const s of samples) for (const f of FILTERS) if (matches[f.id](s)) counts[f.id]++;
  return counts;
}

/** The samples a query keeps, in its order. */
export function applyQuery(samples: readonly SampleView[], q: ListQuery): SampleView[] {
  const needle = q.search.trim().toLowerCase();
  const kept = samples.filter(
    (s) =>
      matches[q.filter](s) &&
      (!needle || [s.text, s.reasoning ?? '', s.reason].some((t) => t.toLowerCase().includes(needle))),
  );
  const by: Record<SampleSort, (a: SampleView, b: SampleView) => number> = {
    index: (a, b) => a.index - b.index,
    'score-asc': (a, b) => a.score - b.score || a.index - b.index,
    'score-desc': (a, b) => b.score - a.score || a.index - b.index,
    'length-desc': (a, b) => b.text.length - a.text.length || a.index - b.index,
  };
  return kept.sort(by[q.sort]);
}

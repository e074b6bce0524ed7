// `vtask diff`: two sets of runs of one dataset compared task by task. A side is either a
// selection of the run log (a model's latest runs, or its latest runs up to a date) or the
// cached samples verified by one version of the task files; what differs is counted per
// verifier kind: tasks whose band flipped and, when both sides verified the same samples,
// samples whose verdict flipped. Pure: the CLI reads the runs (diffCommand.ts).
import type { Band } from '../../stats';
import type { RunRecord } from './runLog';

/** A task of the dataset, as both sides name it. */
export interface DiffTask {
  readonly file: string;
  readonly task: string;
  /** Its top-level verifier kind (`math`, `code`...); `invalid` when it has errors. */
  readonly kind: string;
}

/** What a sample's verifier said: undecided when it could not say (an `error` verdict). */
export type Outcome = 'pass' | 'fail' | 'undecided';

/** One side's run of one task. */
export interface DiffRun {
  readonly band: Band;
  readonly pass_rate: number;
  /** Per sample, in the order of the cache: only when the side verified the samples itself. */
  readonly outcomes?: readonly Outcome[];
}

export interface BandFlip extends DiffTask {
  readonly from: Band;
  readonly to: Band;
  readonly pass_rate_a: number;
  readonly pass_rate_b: number;
}

export interface SampleFlip extends DiffTask {
  /** The sample's index among the task's samples. */
  readonly sample: number;
  readonly from: Outcome;
  readonly to: Outcome;
}

export interface KindCounts {
  /** Tasks with a run on both sides. */
  tasks: number;
  band_flips: number;
  sample_flips: number;
}

export interface DatasetDiff {
  readonly a: string;
  readonly b: string;
  /** Tasks with a run on both sides, and on one side only. */
  readonly tasks: number;
  readonly only_a: number;
  readonly only_b: number;
  readonly band_flips: readonly BandFlip[];
  readonly sample_flips: readonly SampleFlip[];
  readonly kinds: Readonly<Record<string, KindCounts>>;
  /** Tasks that flipped: their band, or the verdict of one of their samples. What `--max-flips` bounds. */
  readonly flips: number;
  /** Files a side has no version of (not at its git revision, say), and why: their tasks have no run there. */
  readonly unread?: readonly UnreadFile[];
}

export interface UnreadFile {
  readonly side: 'a' | 'b';
  readonly file: string;
  readonly reason: string;
}

/** The key of a task in the maps `diffRuns` takes. */
export function diffKey(file: string, task: string): string {
  return JSON.stringify([file, task]);
}

/**
 * Side A against side B over `tasks` (in the dataset's order), runs keyed by `diffKey`. Samples
 * are compared index by index, over the samples both sides have.
 */
export function diffRuns(
  tasks: readonly DiffTask[],
  a: ReadonlyMap<string, DiffRun>,
  b: ReadonlyMap<string, DiffRun>,
  labels: { readonly a: string; readonly b: string },
): DatasetDiff {
  let compared = 0;
  let onlyA = 0;
  let onlyB = 0;
  let flips = 0;
  const bandFlips: BandFlip[] = [];
  const sampleFlips: SampleFlip[] = [];
  const kinds: Record<string, KindCounts> = {};
  for (const t of tasks) {
    const ra = a.get(diffKey(t.file, t.task));
    const rb = b.get(diffKey(t.file, t.task));
    if (!ra || !rb) {
      if (ra) onlyA++;
      if (rb) onlyB++;
      continue;
    }
    compared++;
    const k = (kinds[t.kind] ??= { tasks: 0, band_flips: 0, sample_flips: 0 });
    k.tasks++;
    let flipped = false;
    if (ra.band !== rb.band) {
      bandFlips.push({ ...t, from: ra.band, to: rb.band, pass_rate_a: ra.pass_rate, pass_rate_b: rb.pass_rate });
      k.band_flips++;
      flipped = true;
    }
    const n = Math.min(ra.outcomes?.length ?? 0, rb.outcomes?.length ?? 0);
    for (let i = 0; i < n; i++) {
      const from = ra.outcomes?.[i] as Outcome;
      const to = rb.outcomes?.[i] as Outcome;
      if (from === to) continue;
      sampleFlips.push({ ...t, sample: i, from, to });
      k.sample_flips++;
      flipped = true;
    }
    if (flipped) flips++;
  }
  return {
    a: labels.a,
    b: labels.b,
    tasks: compared,
    only_a: onlyA,
    only_b: onlyB,
    band_flips: bandFlips,
    sample_flips: sampleFlips,
    kinds,
    flips,
  };
}

/** A side named in the run log: `model:NAME` (its latest runs) or `model:NAME@DATE` (its latest runs up to DATE). */
export interface RunSelection {
  readonly model: string;
  /** ISO 8601: runs that finished at or before it. */
  readonly until?: string;
}

/**
 * `model:NAME`, `model:NAME@DATE` (DATE `YYYY-MM-DD`, through that day in UTC, or an ISO 8601
 * time), or a bare NAME for `model:NAME`; a message saying what is wrong otherwise.
 */
export function parseSelection(s: string): RunSelection | string {
  const body = s.startsWith('model:') ? s.slice('model:'.length) : s;
  const at = body.lastIndexOf('@');
  const model = at < 0 ? body : body.slice(0, at);
  if (!model) return `'${s}' names no model: write model:NAME or model:NAME@DATE`;
  if (at < 0) return { model };
  const date = body.slice(at + 1);
  const until = /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T23:59:59.999Z` : date;
  const ms = Date.parse(until);
  if (!/^\d{4}-\d{2}-\d{2}/.test(date) || Number.isNaN(ms))
    return `'${s}': ${date} is not a date (YYYY-MM-DD or an ISO 8601 time)`;
  return { model, until: new Date(ms).toISOString() };
}

/**
 * The runs a selection names: for each task `keyOf` knows (by the log's file and task), the
 * selected model's run that finished last, up to the selection's date.
 */
export function selectRuns(
  records: Iterable<RunRecord>,
  sel: RunSelection,
  keyOf: (file: string, task: string) => string | undefined,
): Map<string, DiffRun & { readonly at: string }> {
  const out = new Map<string, DiffRun & { readonly at: string }>();
  for (const r of records) {
    if (r.model !== sel.model || (sel.until !== undefined && r.at > sel.until)) continue;
    const key = keyOf(r.file, r.task);
    if (key === undefined) continue;
    const was = out.get(key);
    // Later in the log is later; `at` decides between runs whose lines came in another order.
    if (!was || r.at >= was.at) out.set(key, { band: r.band, pass_rate: r.pass_rate, at: r.at });
  }
  return out;
}

// The shapes `vtask stats --json`, the HTML report, the tree view and the dashboard share.
// Spec §5 fixes `files`, `tasks`, `per_file`, `models`, `duplicates` and `contamination`.
import type { Band } from '../../stats';

/** Where a task is: its file (as given or relative to the workspace), its id, its 0-based line. */
export interface TaskRef {
  readonly file: string;
  readonly task: string;
  readonly line?: number;
}

/** A pair of tasks whose prompts are the same or nearly so. */
export interface DuplicatePair {
  readonly a: TaskRef;
  readonly b: TaskRef;
  /** Jaccard similarity of the prompts' words and 2-word shingles, measured exactly, 0..1 (1 for exact duplicates). */
  readonly similarity: number;
  readonly exact: boolean;
}

/** A task whose prompt shares a long n-gram with a benchmark's prompt. */
export interface ContaminationHit extends TaskRef {
  /** The benchmark row (0-based line of a JSONL or text file, row index of a Parquet file). */
  readonly benchmark_row: number;
  /** The overlapping span, as written in the task's prompt. */
  readonly overlap: string;
  readonly benchmark?: string;
}

/** Pass-rate histogram bin: tasks whose pass rate is in [from, to) (the last bin includes 1). */
export interface HistogramBin {
  readonly from: number;
  readonly to: number;
  readonly tasks: number;
}

export type BandCounts = Readonly<Record<Band, number>>;

/** What the cache says of one model over the dataset. */
export interface ModelStats {
  /** Tasks with a run of this model. */
  readonly tasks: number;
  readonly samples: number;
  readonly histogram: readonly HistogramBin[];
  readonly bands: BandCounts;
  /** Share of GRPO groups with a learning signal (rewards not all equal), over its tasks. */
  readonly signal_share: number;
  /** Tasks whose band differs from this model's previous run of them. */
  readonly changed: readonly (TaskRef & { readonly from: Band | null; readonly to: Band | null })[];
  /** Runs left out because the task changed since (its run key differs): `vtask run` re-verifies them. */
  readonly stale?: number;
  /** Tokens of its runs, summed over those whose endpoint reported them; absent when none did. */
  readonly tokens?: { readonly prompt: number; readonly completion: number };
  /** Dollars, summed over the runs whose profile has a `price`; absent when none did. */
  readonly cost?: number;
  /** Runs of the built-in demo model on tasks it cannot do (in no band: they say nothing of the task); absent when none. */
  readonly builtin_cannot?: number;
}

/** One task's result for one model, for the comparison and the tree. */
export interface TaskModelResult extends TaskRef {
  readonly model: string;
  readonly samples: number;
  readonly pass_rate: number;
  readonly band: Band | null;
}

/** Counts of one file, or of the whole dataset (`totals`). */
export interface FileStats {
  readonly file: string;
  /** Every task written with an id, valid or not. */
  readonly tasks: number;
  /** Tasks with validation errors (not in `kinds`, not run, not compared). */
  readonly invalid_tasks?: number;
  /** Tasks per verifier kind (the top-level kind; composite kinds count once as `all`, `any`...). */
  readonly kinds: Readonly<Record<string, number>>;
  /** Cases written and, where they were run, how they came out. */
  readonly cases: {
    readonly total: number;
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
  };
  readonly tasks_without_cases: number;
  /** Validation errors in the file (its valid tasks still count). */
  readonly errors: number;
  /** Per model: band counts of this file's tasks with a cached run. */
  readonly bands: Readonly<Record<string, BandCounts>>;
}

/** `vtask stats --json`; the dashboard renders the same object. */
export interface DatasetStats {
  readonly files: number;
  /** The total number of tasks. */
  readonly tasks: number;
  readonly totals: Omit<FileStats, 'file'>;
  readonly per_file: readonly FileStats[];
  /** Keyed by model label (the profile name, or the model name of an ad-hoc profile). */
  readonly models: Readonly<Record<string, ModelStats>>;
  /** Per task and model, for the comparison and the dashboard's links (absent with `--no-tasks`). */
  readonly results?: readonly TaskModelResult[];
  /** Each pair of models, when there are two or more (see compare.ts). */
  readonly comparisons?: readonly ModelComparison[];
  readonly duplicates: readonly DuplicatePair[];
  readonly contamination: readonly ContaminationHit[];
}

/** Model A against model B over the tasks both ran. */
export interface ModelComparison {
  readonly a: string;
  readonly b: string;
  /** Tasks with a run of both. */
  readonly tasks: number;
  /** Tasks where A's pass rate is higher, and where B's is. */
  readonly a_higher: number;
  readonly b_higher: number;
  /** Per task, A's and B's pass rates (the scatter plot); absent in `--json` output. */
  readonly points?: readonly (TaskRef & { readonly a: number; readonly b: number })[];
  /** The tasks that separate them most, largest difference first (at most 20). */
  readonly separating: readonly (TaskRef & { readonly a: number; readonly b: number })[];
  /** Tasks both always solve, and both never solve. */
  readonly both_solve: readonly TaskRef[];
  readonly both_fail: readonly TaskRef[];
}

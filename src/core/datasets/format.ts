import type { ChatMessage } from '../base/chat';
import type { TaskSpec } from '../taskfile/resolve';

/** What a cached run says about a task, carried into each exported row's metadata. */
export interface RunSummary {
  readonly model: string;
  readonly samples: number;
  readonly pass_rate: number;
  readonly band: string | null;
}

/** How a row names an agent task's environment (see agentRows.ts). */
export interface EnvironmentRef {
  /** The environment's `run`, relative to the output file's folder, with `/` separators. */
  readonly environment: string;
  /** The reset arguments as JSON text: one column type for every task, whatever its args. */
  readonly environment_args: string;
  readonly max_turns: number;
}

/** One task on its way to a row. */
export interface ExportTask {
  /** The task file, as the user named it (relative paths stay relative). */
  readonly file: string;
  readonly task: TaskSpec;
  /** Position of the row in the output (after curation). */
  readonly index: number;
  readonly split?: string;
  readonly run?: RunSummary;
  /** An agent task's environment, by reference from the output file. */
  readonly agent?: EnvironmentRef;
}

export interface ExportSettings {
  /** The vtask version that wrote the row: a trainer can tell which verifiers scored it. */
  readonly version: string;
  /** `conversational` or `plain` prompts where a format has both (TRL). */
  readonly promptStyle: 'conversational' | 'plain';
  /** open-instruct: route every row to the vtask verifier of the Python package. */
  readonly viaVtask: boolean;
}

export type RowResult = { readonly row: Record<string, unknown> } | { readonly error: string };

/** A task read back from a row: enough to write it into a task file. */
export interface ImportedTask {
  readonly id: string;
  readonly messages: readonly ChatMessage[];
  readonly verify: unknown;
  readonly tags?: readonly string[];
  readonly meta?: Readonly<Record<string, unknown>>;
  /** An agent task's environment as the row references it (`run` relative to the row file). */
  readonly environment?: { readonly run: string; readonly args?: Readonly<Record<string, unknown>> };
  readonly max_turns?: number;
}

export type ImportResult = { readonly task: ImportedTask } | { readonly error: string };

/** A Parquet column: its schema elements (the first names the column) and how a row fills it. */
export interface ParquetColumn {
  readonly name: string;
  readonly schema: readonly Record<string, unknown>[];
}

/** One training format: how a task becomes a row and a row a task. */
export interface DatasetFormat {
  readonly name: string;
  /** Which file types the format's trainer reads. */
  readonly outputs: readonly ('jsonl' | 'parquet')[];
  /**
   * The only extension under which the trainer reads JSON lines, when it is not `.jsonl`: verl
   * picks its reader by the file's extension (`.parquet`, or `.json` read as JSON lines) and
   * cannot load a `.jsonl` file.
   */
  readonly jsonLinesExtension?: '.json';
  /** The Parquet columns, in order; rows are written with exactly these. */
  readonly columns: (settings: ExportSettings) => readonly ParquetColumn[];
  toRow(t: ExportTask, settings: ExportSettings): RowResult;
  /** `n` is the row's position in its file (0-based), for ids of rows that have none. */
  fromRow(row: Record<string, unknown>, n: number): ImportResult;
  /**
   * True when the format's reward path sends an agent sample's trajectory to `vtask serve`
   * (TRL: the reward function reads the rollouts' environments), so `trajectory` and `state`
   * checks score there as in a run.
   */
  readonly rewardsTrajectories?: boolean;
}

// A dataset's tasks in order (file by file, each file's tasks in order) for the model results
// and the prompt checks, made from the files' summaries when asked: an object per task beside
// the summaries' rows held as much again (a million tasks, about 90 MB).
import type { FileSummary } from './summary';
import type { TaskRef } from './types';
import { at, must } from '../../util/must';

/** A task of the dataset, in the dataset's order. */
export interface DatasetTask {
  readonly ref: TaskRef;
  /** Index of its file. */
  readonly file: number;
  /** The run key its runs must be recorded under to describe it as it is. */
  readonly runKey: string;
  /** False when the task has errors: its runs are not counted. */
  readonly valid: boolean;
}

/** Items read by index, as an array gives them (`at`). */
export interface Indexed<T> {
  readonly length: number;
  at(i: number): T | undefined;
}

export class TaskTable implements Indexed<DatasetTask> {
  /** Per file, the index of its first task; then the number of tasks. */
  readonly firstTask: readonly number[];

  /** `files` as they are shown, and each one's summary. */
  constructor(
    private readonly files: readonly string[],
    private readonly summaries: readonly FileSummary[],
  ) {
    const first = [0];
    for (const s of summaries) first.push(at(first, first.length - 1) + s.tasks.length);
    this.firstTask = first;
  }

  get length(): number {
    return at(this.firstTask, this.firstTask.length - 1);
  }

  at(i: number): DatasetTask | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    // The last file whose first task is at or before i.
    let lo = 0;
    let hi = this.summaries.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (at(this.firstTask, mid) <= i) lo = mid;
      else hi = mid - 1;
    }
    const row = must(at(this.summaries, lo).tasks.at(i - at(this.firstTask, lo)), 'a file has the tasks counted');
    const ref: TaskRef = { file: at(this.files, lo), task: row.id, line: row.line };
    return { ref, file: lo, runKey: row.runKey, valid: row.kind !== null };
  }
}

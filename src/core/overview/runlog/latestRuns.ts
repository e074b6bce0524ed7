// The runs dataset statistics report: for each task of the dataset and each model, its latest
// record in the run log and the band of the one before. The log is read once (`readTasksRuns`:
// the latest two records of each file, task and model) and only the tasks of the dataset, by
// the models asked for, are kept.
import { readTasksRuns, taskName, type TaskRun } from './runLog';

/** A task's key in the map `readLatestRuns` takes: its file (as the log names it) and id. */
export function latestRunName(file: string, task: string): string {
  return taskName(file, task);
}

/** One (task, model) of the log: its latest run, and the band of the one before if any. */
export type LatestRun = TaskRun;

/**
 * The latest run of each (task, model) in the log of `cacheDir`, for the tasks `tasks` names
 * (keyed by `latestRunName`, to the task's index) and the models `wanted` keeps, in the order
 * the log first names each (task, model).
 */
export function readLatestRuns(
  cacheDir: string,
  tasks: ReadonlyMap<string, number>,
  wanted?: (model: string) => boolean,
): LatestRun[] {
  return readTasksRuns(cacheDir, tasks, wanted);
}

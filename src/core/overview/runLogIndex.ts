// The run log (`readRunLog`) by file and task: the vtask view asks for one task's runs of every
// model, the dashboard for one file's. Keys are parsed once per reading of the log, in slices.
import type { TimeSlices } from '../util/slices';
import type { RunLogEntry } from './runLog';

/** A task's latest runs, by model label. */
export type RunsByModel = ReadonlyMap<string, RunLogEntry>;
/** Runs by file (as the log names it: relative to the folder holding the cache folder), then task id. */
export type RunLogIndex = ReadonlyMap<string, ReadonlyMap<string, RunsByModel>>;

/** The entries of a read run log, by file and task. */
export async function indexRunLog(entries: ReadonlyMap<string, RunLogEntry>, slices?: TimeSlices): Promise<RunLogIndex> {
  const byFile = new Map<string, Map<string, Map<string, RunLogEntry>>>();
  for (const [key, entry] of entries) {
    // `runLogKey`: the file, task and model as a JSON array.
    const [file, task, model] = JSON.parse(key) as [string, string, string];
    let tasks = byFile.get(file);
    if (!tasks) byFile.set(file, (tasks = new Map()));
    let models = tasks.get(task);
    if (!models) tasks.set(task, (models = new Map()));
    models.set(model, entry);
    if (slices?.due) await slices.next();
  }
  return byFile;
}

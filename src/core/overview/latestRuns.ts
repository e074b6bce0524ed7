// The runs dataset statistics report: for each task of the dataset and each model, its latest
// and previous record in the run log. A log of 100,000 tasks and two models has 200,000 records
// or more, so they are picked by name where they lie in the log's bytes (no line copied, no
// record parsed into an object, no UTF-8 decoded) and only the fields of the latest and
// previous run of a task of the dataset, by a model asked for, are read.
import type { Band } from '../stats';
import { fieldsAt, forEachRecord, latin1Of, logNames, modelAt, namesAt, readRunLogBytes, type RunFields } from './runLog';
import { at } from '../util/must';

/** A task's key in the map `readLatestRuns` takes: its file (as the log names it) and id as the log's bytes hold them. */
export function latestRunName(file: string, task: string): string {
  return latin1Of(logNames(file, task));
}

/** One (task, model) of the log: its latest run, and the band of the one before if any. */
export interface LatestRun {
  /** The task's index in the caller's list. */
  readonly task: number;
  readonly model: string;
  readonly latest: RunFields;
  readonly previousBand: Band | undefined;
}

/**
 * The latest run of each (task, model) in the log of `cacheDir`, for the tasks `tasks` names
 * (keyed by `latestRunName`, to the task's index) and the models `wanted` keeps, in the order
 * the log first names each (task, model). As `readRunLog` does, a line equal to the latest or
 * the previous one of its task and model (a record copied twice by a compaction) is the same run.
 */
export function readLatestRuns(cacheDir: string, tasks: ReadonlyMap<string, number>, wanted?: (model: string) => boolean): LatestRun[] {
  const text = readRunLogBytes(cacheDir);
  // One more than the largest index (the tasks of other cache folders have the others).
  let n = 1;
  for (const i of tasks.values()) n = Math.max(n, i + 1);
  const models: string[] = [];
  // A model as written (a JSON string) to its index in `models`, or -1 when it is not wanted.
  const modelIndex = new Map<string, number>();
  // Per model, per task: where its latest and previous record start in the text (-1: none).
  const latestAt: Int32Array[] = [];
  const previousAt: Int32Array[] = [];
  // (model, task) pairs as `model * n + task`, in the order the log first names them.
  const order: number[] = [];
  forEachRecord(text, (start, m, k) => {
    const task = taskOf(tasks, namesAt(text, start, m));
    if (task === undefined) return;
    const written = modelAt(text, m, k);
    let model = modelIndex.get(written);
    if (model === undefined) modelIndex.set(written, (model = indexOfModel(written, models, wanted, latestAt, previousAt, n)));
    if (model < 0) return;
    const latest = at(latestAt, model);
    const previous = at(previousAt, model);
    const was = at(latest, task);
    if (was < 0) {
      latest[task] = start;
      order.push(model * n + task);
    } else if (!sameLine(text, start, was) && !(previous[task] !== -1 && sameLine(text, start, at(previous, task)))) {
      previous[task] = was;
      latest[task] = start;
    }
  });
  return order.map((slot) => {
    const model = Math.floor(slot / n);
    const task = slot - model * n;
    const before = at((previousAt[model] as Int32Array), task);
    return {
      task,
      model: at(models, model),
      latest: fieldsAt(text, at((latestAt[model] as Int32Array), task)),
      previousBand: before < 0 ? undefined : fieldsAt(text, before).band,
    };
  });
}

/**
 * The task named `names`; names written with other escapes than `JSON.stringify`'s (by hand, by
 * another tool) are read and written again first.
 */
function taskOf(tasks: ReadonlyMap<string, number>, names: string): number | undefined {
  const task = tasks.get(names);
  if (task !== undefined || !names.includes('\\')) return task;
  try {
    const { file, task: id } = JSON.parse(`{"file":${utf8Of(names)}}`) as { file: unknown; task: unknown };
    return typeof file === 'string' && typeof id === 'string' ? tasks.get(latestRunName(file, id)) : undefined;
  } catch {
    return undefined;
  }
}

/** The index of a model first met as `written`, its tables made; -1 when it is not wanted or not a name. */
function indexOfModel(written: string, models: string[], wanted: ((model: string) => boolean) | undefined, latestAt: Int32Array[], previousAt: Int32Array[], n: number): number {
  let name: unknown;
  try {
    name = JSON.parse(utf8Of(written));
  } catch {
    return -1;
  }
  if (typeof name !== 'string' || (wanted && !wanted(name))) return -1;
  // The same name written with other escapes is the same model.
  const known = models.indexOf(name);
  if (known >= 0) return known;
  models.push(name);
  latestAt.push(new Int32Array(n).fill(-1));
  previousAt.push(new Int32Array(n).fill(-1));
  return models.length - 1;
}

/** Whether the lines starting at `a` and `b` are the same text. */
function sameLine(text: string, a: number, b: number): boolean {
  const ea = text.indexOf('\n', a);
  const eb = text.indexOf('\n', b);
  return ea - a === eb - b && text.startsWith(text.slice(b, eb), a);
}

/** Text read from the log's bytes (`readRunLogBytes`), decoded. */
function utf8Of(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

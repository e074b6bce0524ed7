import { digestHex } from '../util/digest';
import type { TaskEntry, TaskFile } from '../taskfile/parse';
import type { ChunkedText, TaskStream } from '../taskfile/stream';
import { toJS } from '../base/ynode';

/**
 * What a task's results were made from. A run (samples and their verdicts) depends on what is
 * sampled and how it is verified: the task without its cases, and the file's shared keys
 * (models, defaults). The case results depend on the verifier and the cases: the whole task.
 * Comments, layout and the cases themselves do not touch a run, so editing them (or adding a
 * sample as a case) keeps its results fresh.
 */
export interface ResultKeys {
  readonly run: string;
  readonly cases: string;
}

const hash = (s: string): string => digestHex('sha1', s);

/**
 * What a run key is made from besides the task: the file's parts outside the tasks (and its text,
 * for a task that could not be read). A parsed file has them, and so has a streamed one.
 */
export type KeyedFile = Pick<TaskFile, 'parts'> &
  // Its text, or (a file read a block at a time) the text of one task.
  ({ readonly text: string } | { taskText(entry: TaskEntry): string });

const sharedKeys = new WeakMap<KeyedFile, string>();
const byEntry = new WeakMap<TaskEntry, { file: string; keys: ResultKeys }>();

/** The keys of one task of a file (memoised per parsed entry: lenses ask on every refresh). */
export function resultKeysOf(file: KeyedFile, entry: TaskEntry): ResultKeys {
  let shared = sharedKeys.get(file);
  if (shared === undefined) sharedKeys.set(file, (shared = JSON.stringify(file.parts.map((p) => toJS(p.node)))));
  const memo = byEntry.get(entry);
  if (memo?.file === shared) return memo.keys;
  let keys: ResultKeys;
  if (entry.node) {
    const { cases, ...rest } = toJS(entry.node) as Record<string, unknown>;
    const run = hash(JSON.stringify([shared, rest]));
    keys = { run, cases: hash(JSON.stringify([run, cases ?? null])) };
  } else {
    // A task YAML could not read: its text is all there is to tell versions apart.
    const own = 'text' in file ? file.text.slice(entry.offset, entry.offset + entry.length) : file.taskText(entry);
    const text = hash(shared + own.trimEnd());
    keys = { run: text, cases: text };
  }
  byEntry.set(entry, { file: shared, keys });
  return keys;
}

/** The keys of every task of a file that has an id, by id. */
export function resultKeys(file: TaskFile): Map<string, ResultKeys> {
  return new Map(file.tasks.filter((t) => t.id !== undefined).map((t) => [t.id as string, resultKeysOf(file, t)]));
}

/** The key of a task's run: what it is sampled and verified with (not its cases or comments). */
export function taskRunKey(file: KeyedFile, entry: TaskEntry): string {
  return resultKeysOf(file, entry).run;
}

/** The key of a task's case results: the whole task. */
export function taskCasesKey(file: TaskFile, entry: TaskEntry): string {
  return resultKeysOf(file, entry).cases;
}

const streamedParts = new WeakMap<object, KeyedFile>();

/**
 * The run key of a task of a streamed file (`streamTaskFile`), the one `parseTaskFile` gives it.
 * Once the stream fell back to the whole-file parse, every task is keyed by that parse: tasks
 * read before the fallback are keyed again from `stream.whole` (by their index).
 */
export function streamedRunKey(stream: Pick<TaskStream, 'parts' | 'whole'>, text: string, entry: TaskEntry): string {
  return streamedResultKeys(stream, text, entry).run;
}

/** Both keys of a task of a streamed file, the ones `parseTaskFile` gives it (see streamedRunKey). */
export function streamedResultKeys(
  stream: Pick<TaskStream, 'parts' | 'whole'>,
  text: string | ChunkedText,
  entry: TaskEntry,
): ResultKeys {
  const whole = stream.whole;
  if (whole) return resultKeysOf(whole, whole.tasks[entry.index] ?? entry);
  let keyed = streamedParts.get(stream);
  if (!keyed)
    streamedParts.set(
      stream,
      (keyed =
        typeof text === 'string'
          ? { text, parts: stream.parts }
          : { parts: stream.parts, taskText: (e) => text.taskText(e.index).slice(0, e.length) }),
    );
  return resultKeysOf(keyed, entry);
}

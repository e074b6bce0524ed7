// A task file read one task at a time, for files too large to hold as trees: the export of a
// 100,000-task file keeps one task's tree at a time instead of all of them. The text is split
// into chunks as the editor's parser does; the header and the keys after the tasks (where
// `defaults` may be) are parsed first, then each task is parsed, checked and resolved when it
// is reached, and dropped once the caller moves on. Layouts the chunks cannot carry (anchors
// shared between tasks, flow-style lists) fall back to the whole-file parse, which gives the
// same tasks with the same issues: only memory differs.
import { shiftIssue, type Issue } from '../base/issues';
import { splitTaskFile } from './chunks';
import { textLimitIssue } from './limits';
import { duplicateTopKeys, inheritedFrom, notTaskFile, parsePartChunk, parseTaskChunk, parseWholeFile, taskFileIssues, type FilePart, type TaskEntry, type TaskFile } from './parse';
import { defaultsOf, resolveTask, runnableTasks, type TaskSpec } from './resolve';
import { LineIndex } from './text';

export interface StreamedTask {
  readonly entry: TaskEntry;
  /** The task ready to run; undefined when it has errors of its own or of the file's. */
  readonly spec: TaskSpec | undefined;
  /** The task's issues with absolute offsets, the file-level ones (a repeated id) included. */
  readonly issues: readonly Issue[];
}

export interface TaskStream {
  readonly lines: LineIndex;
  /** Issues outside the tasks (header, keys after the tasks, limits), absolute offsets. */
  readonly fileIssues: readonly Issue[];
  /** The tasks in file order; each is parsed when reached. Iterate once. */
  readonly tasks: Iterable<StreamedTask>;
}

export function streamTaskFile(text: string): TaskStream {
  const lines = new LineIndex(text);
  const tooLarge = textLimitIssue(text, lines);
  if (tooLarge) return { lines, fileIssues: [tooLarge], tasks: [] };
  const chunks = splitTaskFile(text, lines);
  if (!chunks) return fromWhole(parseWholeFile(text), 0);
  const parts: FilePart[] = [];
  const fileIssues: Issue[] = [];
  for (const chunk of chunks) {
    if (chunk.kind === 'task') continue;
    const parsed = parsePartChunk(chunk.text, chunk.kind === 'tail');
    if (parsed.needsWhole) return fromWhole(parseWholeFile(text), 0);
    parts.push({ offset: chunk.start, node: parsed.node?.type === 'map' ? parsed.node : null });
    for (const i of parsed.issues) fileIssues.push(shiftIssue(i, chunk.start));
  }
  fileIssues.push(...duplicateTopKeys(parts));
  const notTask = notTaskFile(parts);
  if (notTask) return { lines, fileIssues: [notTask], tasks: [] };
  const inherited = inheritedFrom(parts);
  const defaults = defaultsOf(parts);
  function* tasks(): Generator<StreamedTask> {
    const firstById = new Map<string, number>();
    let index = 0;
    for (const chunk of chunks as NonNullable<typeof chunks>) {
      if (chunk.kind !== 'task') continue;
      const parsed = parseTaskChunk(chunk.text);
      if (parsed.needsWhole || !parsed.summary) {
        // An alias to an anchor in another task: from here on, the whole-file parse (the tasks
        // already given are the same in both).
        yield* fromWhole(parseWholeFile(text), index).tasks;
        return;
      }
      const s = parsed.summary;
      const entry: TaskEntry = { ...s, offset: chunk.start, length: parsed.length, node: parsed.node?.type === 'map' ? parsed.node : null, issues: parsed.issues, index };
      const own = parsed.issues.map((i) => shiftIssue(i, chunk.start));
      const issues = [...own, ...taskFileIssues(entry, lines, firstById, inherited)];
      const ok = !issues.some((i) => i.severity === 'error') && entry.node !== null;
      yield { entry, spec: ok ? resolveTask(entry, defaults) : undefined, issues };
      index++;
    }
  }
  return { lines, fileIssues, tasks: { [Symbol.iterator]: tasks } };
}

/** The stream of a file parsed whole, from task `from` on. */
function fromWhole(file: TaskFile, from: number): TaskStream {
  if (file.issues.some((i) => i.code === 'not-a-task-file')) return { lines: file.lines, fileIssues: file.issues, tasks: [] };
  const specs = new Map(runnableTasks(file).tasks.map((t) => [t.index, t]));
  const inside = (i: Issue, t: TaskEntry): boolean => i.start >= t.offset && i.start < t.offset + Math.max(1, t.length);
  const fileIssues = file.issues.filter((i) => !file.tasks.some((t) => inside(i, t)));
  function* tasks(): Generator<StreamedTask> {
    for (const entry of file.tasks.slice(from)) yield { entry, spec: specs.get(entry.index), issues: file.issues.filter((i) => inside(i, entry)) };
  }
  return { lines: file.lines, fileIssues, tasks: { [Symbol.iterator]: tasks } };
}

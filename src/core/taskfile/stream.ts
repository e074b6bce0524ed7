// A task file read one task at a time, for files too large to hold as trees: the export of a
// 100,000-task file keeps one task's tree at a time instead of all of them. The text is split
// into chunks as the editor's parser does; the header and the keys after the tasks (where
// `defaults` may be) are parsed first, then each task is parsed, checked and resolved when it
// is reached, and dropped once the caller moves on. Layouts the chunks cannot carry (anchors
// shared between tasks, flow-style lists) fall back to the whole-file parse, which gives the
// same tasks with the same issues: only memory differs.
import { shiftIssue, type Issue } from '../base/issues';
import { getPair } from '../base/ynode';
import { taskChunk, taskLayout, type Chunk, type TaskLayout } from './chunks';
import { IdIndex } from './idIndex';
import { LIMITS, textLimitIssue } from './limits';
import {
  duplicateTopKeys,
  inheritedFrom,
  notTaskFile,
  parsePartChunk,
  parseTaskChunk,
  parseWholeFile,
  taskFileIssues,
  type FilePart,
  type TaskEntry,
  type TaskFile,
} from './parse';
import { defaultsOf, resolveTask, runnableTasks, type TaskSpec } from './resolve';
import { LineIndex } from './text';
import type { TaskSummary } from './validate';
import { at } from '../util/must';

export interface StreamedTask {
  /** The task's place and summary; its tree (`node`) is null when it was parsed in a thread. */
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
  readonly tasks: AsyncIterable<StreamedTask>;
  /**
   * The file outside its tasks (the header, keys after the tasks) as `parseTaskFile` reads it:
   * with a task, what the task's run key is made from (`taskRunKey({ text, parts }, entry)`).
   */
  readonly parts: readonly FilePart[];
  /**
   * The whole-file parse, once the stream fell back to it (see the top of this file). A run key
   * is then made from it for every task, those given before the fallback included.
   */
  readonly whole: TaskFile | undefined;
}

/** One task chunk parsed, checked and resolved, as plain data that can cross threads. */
export interface PlainTask {
  readonly issues: readonly Issue[];
  readonly summary?: TaskSummary;
  readonly length: number;
  /** True when the chunk uses an alias whose anchor is outside it. */
  readonly needsWhole?: boolean;
  /** The task resolved as if it started at offset 0, when it has no errors of its own. */
  readonly spec?: TaskSpec;
}

/** Parses task chunks somewhere else (worker threads), in order. */
export type ChunkBatchParser = (texts: readonly string[], defaults: Record<string, unknown>) => Promise<PlainTask[]>;

/** Tasks per batch handed to a batch parser, and batches in flight: what bounds memory. */
const BATCH = 500;
const AHEAD = 4;
/** Below this many tasks, handing chunks to threads costs more than it saves. */
const MIN_TASKS_FOR_BATCHES = 1500;

/** Parses, checks and resolves one task chunk (the body of a parse worker). */
export function parseTaskPlain(text: string, defaults: Record<string, unknown>): PlainTask {
  return plainOf(parseTaskChunk(text), defaults);
}

/** A task file split into its chunks, the task chunks' texts given in order. */
export interface ChunkedText {
  readonly lines: LineIndex;
  readonly layout: TaskLayout;
  readonly header: string;
  readonly tail: string | undefined;
  /** Task chunk `i`'s text; `i` never goes back (a file read from disk reads on). */
  taskText(i: number): string;
  /** The text from `start` to `end`, wherever the reading is (read again from disk when passed: rarely asked for). */
  textAt(start: number, end: number): string;
  /** The whole text, for the whole-file parse (an alias to an anchor in another task). */
  whole(): string;
}

/**
 * The tasks of `text`, one at a time. With `parseBatch`, large files have their task chunks
 * parsed in batches elsewhere (worker threads), a few batches ahead, results in file order.
 */
export function streamTaskFile(text: string, parseBatch?: ChunkBatchParser): TaskStream {
  const lines = new LineIndex(text);
  const tooLarge = textLimitIssue(text, lines);
  if (tooLarge) return { lines, fileIssues: [tooLarge], tasks: fromList([]), parts: [], whole: undefined };
  const layout = taskLayout(text, lines);
  if (!layout) return fromWhole(parseWholeFile(text), 0);
  return streamChunks(
    {
      lines,
      layout,
      header: text.slice(0, layout.headerEnd),
      tail: layout.tailStart === undefined ? undefined : text.slice(layout.tailStart),
      taskText: (i) => taskChunk(text, layout, i).text,
      textAt: (start, end) => text.slice(start, end),
      whole: () => text,
    },
    parseBatch,
  );
}

/** The tasks of a file split into chunks (see streamTaskFile). */
export function streamChunks(source: ChunkedText, parseBatch?: ChunkBatchParser): TaskStream {
  const { lines, layout } = source;
  const parts: FilePart[] = [];
  const fileIssues: Issue[] = [];
  const outside: Chunk[] = [{ kind: 'header', start: 0, text: source.header }];
  if (layout.tailStart !== undefined && source.tail !== undefined)
    outside.push({ kind: 'tail', start: layout.tailStart, text: source.tail });
  for (const chunk of outside) {
    const parsed = parsePartChunk(chunk.text, chunk.kind === 'tail');
    // As `parseTaskFile`: a second `tasks:` after the list only makes sense in the whole document.
    if (parsed.needsWhole || (chunk.kind === 'tail' && parsed.node?.type === 'map' && getPair(parsed.node, 'tasks')))
      return fromWhole(parseWholeFile(source.whole()), 0);
    parts.push({ offset: chunk.start, node: parsed.node?.type === 'map' ? parsed.node : null });
    for (const i of parsed.issues) fileIssues.push(shiftIssue(i, chunk.start));
  }
  fileIssues.push(...duplicateTopKeys(parts));
  const notTask = notTaskFile(parts);
  if (notTask) return { lines, fileIssues: [notTask], tasks: fromList([]), parts, whole: undefined };
  let whole: TaskFile | undefined;
  const inherited = inheritedFrom(parts);
  const defaults = defaultsOf(parts);
  const count = layout.taskCount;
  const batched = parseBatch && count >= MIN_TASKS_FOR_BATCHES ? parseBatch : undefined;
  async function* tasks(): AsyncGenerator<StreamedTask> {
    const firstById = new IdIndex((offset) => idOfTaskAt(source, offset), count);
    // The file's one allowance of expanded alias nodes, spent task by task (as parseTaskFile does).
    let left = LIMITS.aliasNodes;
    const local = (index: number): { plain: PlainTask; node: TaskEntry['node'] } => {
      const p = parseTaskChunk(source.taskText(index), Math.max(0, left));
      left -= p.expanded ?? 0;
      const plain = plainOf(p, defaults);
      return { plain, node: p.node?.type === 'map' ? p.node : null };
    };
    const pending: Promise<PlainTask[]>[] = [];
    const request = (b: number): void => {
      if (batched && b * BATCH < count) {
        const texts: string[] = [];
        for (let i = b * BATCH; i < Math.min(count, (b + 1) * BATCH); i++) texts.push(source.taskText(i));
        pending.push(batched(texts, defaults));
      }
    };
    for (let b = 0; b < AHEAD; b++) request(b);
    for (let index = 0, b = 0; index < count; b++) {
      const plains = batched ? await (pending.shift() as Promise<PlainTask[]>) : undefined;
      request(b + AHEAD);
      const end = Math.min(count, (b + 1) * BATCH);
      for (; index < end; index++) {
        const start = layout.taskStarts[index] ?? 0;
        const { plain, node } = plains ? { plain: at(plains, index - b * BATCH), node: null } : local(index);
        if (plain.needsWhole || !plain.summary) {
          // An alias to an anchor in another task: from here on, the whole-file parse (the tasks
          // already given are the same in both).
          await Promise.allSettled(pending);
          whole = parseWholeFile(source.whole());
          yield* fromWhole(whole, index).tasks;
          return;
        }
        const entry: TaskEntry = {
          ...plain.summary,
          offset: start,
          length: plain.length,
          node,
          issues: plain.issues,
          index,
        };
        const issues = [
          ...plain.issues.map((i) => shiftIssue(i, start)),
          ...taskFileIssues(entry, lines, firstById, inherited),
        ];
        const ok = plain.spec !== undefined && !issues.some((i) => i.severity === 'error');
        yield { entry, spec: ok ? placed(plain.spec as TaskSpec, index, start) : undefined, issues };
      }
    }
  }
  return {
    lines,
    fileIssues,
    tasks: { [Symbol.asyncIterator]: tasks },
    get parts() {
      return whole?.parts ?? parts;
    },
    get whole() {
      return whole;
    },
  };
}

/** The id of the task whose text holds `offset`, read again: what a match in the id index is confirmed by. */
function idOfTaskAt(source: ChunkedText, offset: number): string | undefined {
  const starts = source.layout.taskStarts;
  let lo = 0;
  let hi = source.layout.taskCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return parseTaskChunk(source.textAt(starts[lo] ?? 0, starts[lo + 1] ?? 0)).summary?.id;
}

function plainOf(p: ReturnType<typeof parseTaskChunk>, defaults: Record<string, unknown>): PlainTask {
  if (p.needsWhole || !p.summary) return { issues: [], length: p.length, needsWhole: true };
  const node = p.node?.type === 'map' ? p.node : null;
  const ok = node !== null && !p.issues.some((i) => i.severity === 'error');
  const spec = ok
    ? resolveTask({ ...p.summary, offset: 0, length: p.length, node, issues: p.issues, index: 0 }, defaults)
    : undefined;
  return { issues: p.issues, summary: p.summary, length: p.length, ...(spec ? { spec } : {}) };
}

/** A spec resolved at offset 0, moved to its place in the file. */
function placed(spec: TaskSpec, index: number, offset: number): TaskSpec {
  return { ...spec, index, offset, cases: spec.cases.map((c) => ({ ...c, offset: c.offset + offset })) };
}

async function* listed<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const i of items) yield i;
}

function fromList<T>(items: readonly T[]): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => listed(items) };
}

/**
 * The stream of a file already parsed whole (dataset rows read as tasks: each row is its own
 * small task, so there is nothing to stream), for the readers that take a stream.
 */
export function streamParsed(file: TaskFile): TaskStream {
  return fromWhole(file, 0);
}

/** The stream of a file parsed whole, from task `from` on. */
function fromWhole(file: TaskFile, from: number): TaskStream {
  if (file.issues.some((i) => i.code === 'not-a-task-file'))
    return { lines: file.lines, fileIssues: file.issues, tasks: fromList([]), parts: file.parts, whole: file };
  const specs = new Map(runnableTasks(file).tasks.map((t) => [t.index, t]));
  const inside = (i: Issue, t: TaskEntry): boolean => i.start >= t.offset && i.start < t.offset + Math.max(1, t.length);
  const fileIssues = file.issues.filter((i) => !file.tasks.some((t) => inside(i, t)));
  const items = file.tasks
    .slice(from)
    .map((entry) => ({ entry, spec: specs.get(entry.index), issues: file.issues.filter((i) => inside(i, entry)) }));
  return { lines: file.lines, fileIssues, tasks: fromList(items), parts: file.parts, whole: file };
}

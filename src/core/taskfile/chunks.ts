import type { LineIndex } from './text';

/** A piece of a task file that can be parsed on its own. */
export interface Chunk {
  readonly kind: 'header' | 'task' | 'tail';
  readonly start: number;
  readonly text: string;
}

const SPACE = 32;
const TAB = 9;
const HASH = 35;
const DASH = 45;
const CR = 13;
const NL = 10;
const DOT = 46;
const PERCENT = 37;

/**
 * Where a task file's chunks are: its header ends at `headerEnd` (after `tasks:`), task `i`
 * spans `taskStarts[i]` to `taskStarts[i + 1]`, and the last task ends where the tail (the
 * top-level keys after the tasks) starts, or at the end of the text. Offsets in a typed array,
 * 4 bytes a task: a streamed file of a million tasks makes each chunk's text when it is reached
 * instead of holding a million of them.
 */
export interface TaskLayout {
  readonly headerEnd: number;
  /** Start offsets of the tasks, then the end of the last one (`taskCount + 1` values). */
  readonly taskStarts: Uint32Array;
  readonly taskCount: number;
  /** Where the keys after the tasks start; undefined when nothing follows the tasks. */
  readonly tailStart: number | undefined;
}

/**
 * Splits a task file into its header (up to and including `tasks:`), one chunk per task
 * item, and the top-level keys after the tasks, by indentation alone. Parsing chunks instead
 * of the whole file makes re-validation after an edit proportional to the edited task.
 * Returns null when the layout is anything but the plain block style this relies on
 * (flow-style tasks, several documents, directives, tabs, odd indentation); the caller then
 * parses the whole file, which is always correct, only slower.
 */
export function splitTaskFile(text: string, lines: LineIndex): Chunk[] | null {
  const layout = taskLayout(text, lines);
  if (!layout) return null;
  const chunks: Chunk[] = [{ kind: 'header', start: 0, text: text.slice(0, layout.headerEnd) }];
  for (let i = 0; i < layout.taskCount; i++) chunks.push(taskChunk(text, layout, i));
  if (layout.tailStart !== undefined)
    chunks.push({ kind: 'tail', start: layout.tailStart, text: text.slice(layout.tailStart) });
  return chunks;
}

/** Task chunk `i` of a layout. */
export function taskChunk(text: string, layout: TaskLayout, i: number): Chunk {
  const start = layout.taskStarts[i] ?? text.length;
  return { kind: 'task', start, text: text.slice(start, layout.taskStarts[i + 1] ?? text.length) };
}

/**
 * The layout `splitTaskFile` splits by, or null (see there). Runs on every keystroke's
 * re-validation, so it reads characters instead of making a string per line.
 */
export function taskLayout(text: string, lines: LineIndex): TaskLayout | null {
  const count = lines.lineCount;
  const startOf = (n: number): number => (n < count ? lines.lineStart(n) : text.length);

  let tasksLine = -1;
  for (let n = 0; n < count; n++) {
    const s = lines.lineStart(n);
    const c = text.charCodeAt(s);
    if (c === PERCENT || isMarker(text, s)) return null;
    if (c === 116 /* t */ && text.startsWith('tasks', s) && isTasksLine(text, s + 5, startOf(n + 1))) {
      tasksLine = n;
      break;
    }
  }
  if (tasksLine === -1) return null;

  const headerEnd = startOf(tasksLine + 1);
  let starts = new Uint32Array(1024);
  let tasks = 0;
  const open = (n: number): void => {
    if (tasks + 1 >= starts.length) {
      const bigger = new Uint32Array(starts.length * 2);
      bigger.set(starts);
      starts = bigger;
    }
    starts[tasks++] = startOf(n);
  };
  const done = (end: number, tailStart: number | undefined): TaskLayout => {
    starts[tasks] = end;
    return { headerEnd, taskStarts: starts.subarray(0, tasks + 1), taskCount: tasks, tailStart };
  };
  let itemIndent = -1;
  for (let n = tasksLine + 1; n < count; n++) {
    const s = lines.lineStart(n);
    let i = s;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL || c === CR || Number.isNaN(c) || c === HASH) continue; // blank or comment
    // YAML forbids tabs in indentation: the line stays with its task, whose parse reports it.
    if (c === TAB) {
      if (tasks === 0) return null;
      continue;
    }
    if (i === s && (c === PERCENT || isMarker(text, s))) return null;
    const indent = i - s;
    const next = text.charCodeAt(i + 1);
    const isItem = c === DASH && (next === SPACE || next === TAB || next === NL || next === CR || Number.isNaN(next));
    if (itemIndent === -1) {
      if (indent === 0 && !isItem) return done(s, s); // `tasks:` is empty; more top-level keys follow.
      if (!isItem) return null;
      itemIndent = indent;
      open(n);
    } else if (indent === itemIndent && isItem) {
      open(n);
    } else if (indent === 0 && !isItem) {
      return done(s, s);
    } else if (indent <= itemIndent) {
      return null;
    }
  }
  return done(text.length, undefined);
}

/** `---` or `...` at the start of a line: a document marker. */
function isMarker(text: string, s: number): boolean {
  const c = text.charCodeAt(s);
  if (c !== DASH && c !== DOT) return false;
  if (text.charCodeAt(s + 1) !== c || text.charCodeAt(s + 2) !== c) return false;
  const d = text.charCodeAt(s + 3);
  return Number.isNaN(d) || d === SPACE || d === TAB || d === NL || d === CR;
}

/** After `tasks` at column 0: optional spaces, `:`, then nothing but a comment. */
function isTasksLine(text: string, i: number, end: number): boolean {
  while (i < end && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
  if (text.charCodeAt(i) !== 58 /* : */) return false;
  i++;
  while (i < end && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
  const c = text.charCodeAt(i);
  return i >= end || c === NL || c === CR || c === HASH;
}

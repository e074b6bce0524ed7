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
  const scanner = new LayoutScanner();
  for (let n = 0; n < count && scanner.reading; n++) {
    const s = lines.lineStart(n);
    scanner.line(text, s, n + 1 < count ? lines.lineStart(n + 1) : text.length, s);
  }
  return scanner.layout(text.length);
}

/**
 * Finds a task file's layout a line at a time, so that a file read a block at a time
 * (fileStream.ts) is split as its whole text would be.
 */
export class LayoutScanner {
  private state: 'header' | 'tasks' | 'tail' | 'refused' = 'header';
  private headerEnd = 0;
  private itemIndent = -1;
  private starts = new Uint32Array(1024);
  private tasks = 0;
  private tailStart: number | undefined;

  /** False once more lines cannot change the layout. */
  get reading(): boolean {
    return this.state === 'header' || this.state === 'tasks';
  }

  /** True from the first key after the tasks on. */
  get inTail(): boolean {
    return this.state === 'tail';
  }

  /** True from the line after `tasks:` until the keys after the tasks. */
  get inTasks(): boolean {
    return this.state === 'tasks';
  }

  /**
   * Reads one line: `text` from `s` to `e` (the next line's start, or the end of the text), at
   * `offset` in the file. Lines come in order, each whole.
   */
  line(text: string, s: number, e: number, offset: number): void {
    if (this.state === 'header') {
      const c = text.charCodeAt(s);
      if (c === PERCENT || isMarker(text, s)) this.state = 'refused';
      else if (c === 116 /* t */ && text.startsWith('tasks', s) && isTasksLine(text, s + 5, e)) {
        this.state = 'tasks';
        this.headerEnd = offset + (e - s);
      }
      return;
    }
    if (this.state !== 'tasks') return;
    let i = s;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL || c === CR || Number.isNaN(c) || c === HASH) return; // blank or comment
    // YAML forbids tabs in indentation: the line stays with its task, whose parse reports it.
    if (c === TAB) {
      if (this.tasks === 0) this.state = 'refused';
      return;
    }
    if (i === s && (c === PERCENT || isMarker(text, s))) {
      this.state = 'refused';
      return;
    }
    const indent = i - s;
    const next = text.charCodeAt(i + 1);
    const isItem = c === DASH && (next === SPACE || next === TAB || next === NL || next === CR || Number.isNaN(next));
    if (this.itemIndent === -1) {
      if (indent === 0 && !isItem)
        this.tail(offset); // `tasks:` is empty; more top-level keys follow.
      else if (!isItem) this.state = 'refused';
      else {
        this.itemIndent = indent;
        this.open(offset);
      }
    } else if (indent === this.itemIndent && isItem) {
      this.open(offset);
    } else if (indent === 0 && !isItem) {
      this.tail(offset);
    } else if (indent <= this.itemIndent) {
      this.state = 'refused';
    }
  }

  /** The layout of the lines read, a text of `length` characters; null for one the chunks cannot carry. */
  layout(length: number): TaskLayout | null {
    if (this.state === 'header' || this.state === 'refused') return null;
    this.starts[this.tasks] = this.tailStart ?? length;
    return {
      headerEnd: this.headerEnd,
      taskStarts: this.starts.subarray(0, this.tasks + 1),
      taskCount: this.tasks,
      tailStart: this.tailStart,
    };
  }

  private open(offset: number): void {
    if (this.tasks + 1 >= this.starts.length) {
      const bigger = new Uint32Array(this.starts.length * 2);
      bigger.set(this.starts);
      this.starts = bigger;
    }
    this.starts[this.tasks++] = offset;
  }

  private tail(offset: number): void {
    this.state = 'tail';
    this.tailStart = offset;
  }
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

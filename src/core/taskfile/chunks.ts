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
 * Splits a task file into its header (up to and including `tasks:`), one chunk per task
 * item, and the top-level keys after the tasks, by indentation alone. Parsing chunks instead
 * of the whole file makes re-validation after an edit proportional to the edited task.
 * Returns null when the layout is anything but the plain block style this relies on
 * (flow-style tasks, several documents, directives, tabs, odd indentation); the caller then
 * parses the whole file, which is always correct, only slower. Runs on every keystroke's
 * re-validation, so it reads characters instead of making a string per line.
 */
export function splitTaskFile(text: string, lines: LineIndex): Chunk[] | null {
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

  const chunks: Chunk[] = [{ kind: 'header', start: 0, text: text.slice(0, startOf(tasksLine + 1)) }];
  let itemIndent = -1;
  let current = -1;
  const close = (endLine: number): void => {
    if (current !== -1)
      chunks.push({ kind: 'task', start: startOf(current), text: text.slice(startOf(current), startOf(endLine)) });
    current = -1;
  };
  const tail = (n: number): Chunk[] => {
    close(n);
    chunks.push({ kind: 'tail', start: startOf(n), text: text.slice(startOf(n)) });
    return chunks;
  };
  for (let n = tasksLine + 1; n < count; n++) {
    const s = lines.lineStart(n);
    let i = s;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL || c === CR || Number.isNaN(c) || c === HASH) continue; // blank or comment
    // YAML forbids tabs in indentation: the line stays with its task, whose parse reports it.
    if (c === TAB) {
      if (current === -1) return null;
      continue;
    }
    if (i === s && (c === PERCENT || isMarker(text, s))) return null;
    const indent = i - s;
    const next = text.charCodeAt(i + 1);
    const isItem = c === DASH && (next === SPACE || next === TAB || next === NL || next === CR || Number.isNaN(next));
    if (itemIndent === -1) {
      if (indent === 0 && !isItem) return tail(n); // `tasks:` is empty; more top-level keys follow.
      if (!isItem) return null;
      itemIndent = indent;
      current = n;
    } else if (indent === itemIndent && isItem) {
      close(n);
      current = n;
    } else if (indent === 0 && !isItem) {
      return tail(n);
    } else if (indent <= itemIndent) {
      return null;
    }
  }
  close(count);
  return chunks;
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

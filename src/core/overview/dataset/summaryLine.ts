// The first line of a remembered summary file (statsMemo.ts), `{"tasks":[row,row,...],"errors":N,
// "casesRun":B}`, read a block at a time: each row is cut out and decoded alone (rowBytes.ts) and
// goes straight into the typed rows, so a million tasks are never one string nor an array of a
// million objects, and the prompts line after it is never read. Braces, brackets, quotes and backslashes are ASCII,
// never part of a multi-byte UTF-8 character, so the bytes are scanned as they are.
import { fileBlocks } from '../../util/fileBlocks';
import type { FileSummary } from './summary';
import { RowDecoder } from './rowBytes';
import { isCounts, TaskRows, type TaskRow } from './taskRows';

const BLOCK = 1 << 20;
/** The line's start as the memo writes it. */
const HEAD = Buffer.from('{"tasks":[');
/** What may follow the rows (`"errors":N,"casesRun":B}`) is short; a longer tail is no summary. */
const TAIL_MAX = 1 << 12;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const NEWLINE = 0x0a;

/**
 * The summary on the first line of `file`. Throws when the line is not one as the memo writes it:
 * cut short, not JSON, a row that is not a row, or `errors` that is not a number.
 */
export function readSummaryLine(file: string): FileSummary {
  const tasks = new TaskRows();
  try {
    const decoder = new RowDecoder(tasks);
    const tail = scanRows(file, (bytes, from, to, at) => {
      if (!decoder.decode(bytes, from, to)) tasks.push(parsedRow(bytes.toString('utf8', from, to), at));
    });
    const rest: unknown = JSON.parse(`{"tasks":[]${tail}`);
    if (typeof rest !== 'object' || rest === null) throw new Error('not a summary');
    const { errors, casesRun }: Record<string, unknown> = { ...rest };
    if (typeof errors !== 'number' || typeof casesRun !== 'boolean') throw new Error('not a summary');
    tasks.trim();
    return { tasks, errors, casesRun };
  } catch (e) {
    // Rows past the first few thousand are in a scratch folder: not left behind.
    tasks.close();
    throw e;
  }
}

/** Scanning state: in the head, before a row or `]`, before a row, after a row, in a row, in the tail. */
type State = 'head' | 'first' | 'value' | 'after' | 'row' | 'tail';

/** A row's bytes, from `from` to `to` of `bytes` (valid only during the call), and its offset in the file. */
type AddRow = (bytes: Buffer, from: number, to: number, at: number) => void;

/** Gives each row of the line's `tasks` to `add`, in order; returns the text after the rows' `]` up to the newline. */
function scanRows(file: string, add: AddRow): string {
  let state: State = 'head';
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** A row or the tail begun in an earlier block: its bytes so far, copied out of the reused block. */
  const carried = new Carry();
  for (const { bytes, at } of fileBlocks(file, 0, BLOCK)) {
    let from = 0;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] ?? 0;
      if (state === 'row') {
        // No JSON string holds a raw newline: the line ends here, whatever a broken row says.
        if (c === NEWLINE) throw new Error(`the summary line ends inside a row at byte ${at + i}`);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
        else if (c === BRACE_OPEN || c === BRACKET_OPEN) depth++;
        else if ((c === BRACE_CLOSE || c === BRACKET_CLOSE) && --depth === 0) {
          if (carried.length === 0) add(bytes, from, i + 1, at + from);
          else {
            const start = at - carried.length;
            const row = carried.with(bytes, from, i + 1);
            add(row, 0, row.length, start);
          }
          carried.clear();
          state = 'after';
        }
      } else if (state === 'tail') {
        if (c === NEWLINE) return carried.with(bytes, from, i).toString('utf8');
        if (carried.length + i - from > TAIL_MAX) throw new Error(`no end of the summary line by byte ${at + i}`);
      } else if (state === 'head') {
        if (c !== HEAD[at + i]) throw new Error(`not a remembered summary at byte ${at + i}`);
        if (at + i === HEAD.length - 1) state = 'first';
      } else if (c === BRACE_OPEN && state !== 'after') {
        state = 'row';
        depth = 1;
        from = i;
      } else if (c === BRACKET_CLOSE && state !== 'value') {
        state = 'tail';
        from = i + 1;
      } else if (c === COMMA && state === 'after') state = 'value';
      else throw new Error(`not a row of a remembered summary at byte ${at + i}`);
    }
    if (state === 'row' || state === 'tail') carried.with(bytes, from, bytes.length);
  }
  throw new Error('the summary line ends early');
}

/** Bytes carried from one block to the next, in one buffer that grows and is reused. */
class Carry {
  private bytes = Buffer.allocUnsafe(1 << 12);
  length = 0;

  /** Appends `bytes` from `from` to `to`; all bytes carried so far (valid until the next call). */
  with(bytes: Buffer, from: number, to: number): Buffer {
    const n = this.length + to - from;
    if (n > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(n, this.bytes.length * 2));
      this.bytes.copy(bigger, 0, 0, this.length);
      this.bytes = bigger;
    }
    bytes.copy(this.bytes, this.length, from, to);
    this.length = n;
    return this.bytes.subarray(0, n);
  }

  clear(): void {
    this.length = 0;
  }
}

function parsedRow(text: string, at: number): TaskRow {
  const row: unknown = JSON.parse(text);
  if (!isRow(row)) throw new Error(`not a task row at byte ${at}`);
  return row;
}

const isCount = (v: unknown): boolean => Number.isInteger(v) && Number(v) >= 0 && Number(v) < 2 ** 32;

/** A row as TaskRows.jsonElements writes it; anything else is no row (the file is summarised again). */
function isRow(v: unknown): v is TaskRow {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o: Record<string, unknown> = { ...v };
  return (
    typeof o.id === 'string' &&
    isCount(o.line) &&
    (o.kind === null || typeof o.kind === 'string') &&
    isCount(o.cases) &&
    typeof o.runKey === 'string' &&
    (o.outcome === undefined || isCounts(o.outcome))
  );
}

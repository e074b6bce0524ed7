// The first line of a remembered summary file (statsMemo.ts), `{"tasks":[row,row,...],"errors":N,
// "casesRun":B}`, read a block at a time: each row is cut out and parsed alone and goes straight
// into the typed rows, so a million tasks are never one string nor an array of a million objects,
// and the prompts line after it is never read. Braces, brackets, quotes and backslashes are ASCII,
// never part of a multi-byte UTF-8 character, so the bytes are scanned as they are.
import { fileBlocks } from '../../util/fileBlocks';
import type { FileSummary } from './summary';
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
    const tail = scanRows(file, (row) => tasks.push(row));
    const rest: unknown = JSON.parse(`{"tasks":[]${tail}`);
    if (typeof rest !== 'object' || rest === null) throw new Error('not a summary');
    const { errors, casesRun }: Record<string, unknown> = { ...rest };
    if (typeof errors !== 'number' || typeof casesRun !== 'boolean') throw new Error('not a summary');
    return { tasks, errors, casesRun };
  } catch (e) {
    // Rows past the first few thousand are in a scratch folder: not left behind.
    tasks.close();
    throw e;
  }
}

/** Scanning state: in the head, before a row or `]`, before a row, after a row, in a row, in the tail. */
type State = 'head' | 'first' | 'value' | 'after' | 'row' | 'tail';

/** Gives each row of the line's `tasks` to `add`, in order; returns the text after the rows' `]` up to the newline. */
function scanRows(file: string, add: (row: TaskRow) => void): string {
  let state: State = 'head';
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** A row or the tail begun in an earlier block: its bytes so far, copied out of the reused block. */
  let pieces: Buffer[] = [];
  let kept = 0;
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
          add(parsedRow(joined(pieces, bytes, from, i + 1), at + from));
          pieces = [];
          state = 'after';
        }
      } else if (state === 'tail') {
        if (c === NEWLINE) return joined(pieces, bytes, from, i);
        if (kept + i - from > TAIL_MAX) throw new Error(`no end of the summary line by byte ${at + i}`);
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
    if (state === 'row' || state === 'tail') {
      const rest = bytes.subarray(from);
      pieces.push(Buffer.from(rest));
      kept = state === 'tail' ? kept + rest.length : 0;
    }
  }
  throw new Error('the summary line ends early');
}

/** The text of the earlier `pieces` and then `bytes` from `from` to `to`. */
function joined(pieces: Buffer[], bytes: Buffer, from: number, to: number): string {
  if (pieces.length === 0) return bytes.toString('utf8', from, to);
  return Buffer.concat([...pieces, bytes.subarray(from, to)]).toString('utf8');
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

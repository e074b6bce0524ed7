// A benchmark's prompts, to look for in a dataset's tasks: JSONL rows (`prompt`, `question`,
// `problem`, or the user messages of `messages`), the same columns in Parquet, or plain text with
// one prompt per non-empty line. Memory stays bounded whatever the file: lines are read in
// chunks, and a row over MAX_ROW_CHARS is cut (text) or skipped (JSONL) with a note.
import fs from 'node:fs';
import { errorMessage } from '../../base/errorMessage';
import { isRecord } from '../../base/record';
import { readRows, rowFileType } from '../../datasets/rowFiles';

/** One benchmark prompt: its 0-based line (JSONL, text) or row index (Parquet) and its text. */
export interface BenchmarkRow {
  readonly row: number;
  readonly text: string;
}

export interface Benchmark {
  readonly rows: BenchmarkRow[];
  /** What was skipped or cut, with where. */
  readonly notes: string[];
}

/** The longest row read (characters, or bytes of a JSONL line): longer ones are cut or skipped. */
export const MAX_ROW_CHARS = 1 << 20;

const PROMPT_FIELDS = ['prompt', 'question', 'problem'] as const;

/** The prompt text of a row, or why there is none. */
export function rowPrompt(row: Record<string, unknown>): { text: string } | { error: string } {
  for (const f of PROMPT_FIELDS) {
    const v = row[f];
    if (typeof v === 'string') return { text: v };
    // Some benchmarks store the prompt as chat messages under `prompt`.
    if (Array.isArray(v)) return userText(v, f);
  }
  if (Array.isArray(row.messages)) return userText(row.messages, 'messages');
  return {
    error: `no \`prompt\`, \`question\`, \`problem\` or \`messages\` (columns: ${Object.keys(row).slice(0, 8).join(', ') || 'none'})`,
  };
}

/** The user messages' text, joined by blank lines; content may be text or a list of text parts. */
function userText(messages: unknown[], field: string): { text: string } | { error: string } {
  const parts: string[] = [];
  for (const m of messages) {
    if (!isRecord(m)) return { error: `\`${field}\` holds something that is not a message` };
    const { role, content } = m;
    if (role !== 'user') continue;
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content))
      for (const p of content) if (isRecord(p) && typeof p.text === 'string') parts.push(p.text);
  }
  if (!parts.length) return { error: `\`${field}\` has no user message with text` };
  return { text: parts.join('\n\n') };
}

/**
 * Reads a benchmark's prompts. Throws an Error naming the file and the line (or Parquet row) of
 * the first row that cannot be read: a benchmark read in part would hide contamination.
 */
export async function readBenchmark(file: string): Promise<Benchmark> {
  const type = rowFileType(file);
  const rows: BenchmarkRow[] = [];
  const notes: string[] = [];
  if (type === 'parquet') {
    try {
      for await (const r of readRows(file, 'parquet')) {
        const p = rowPrompt(r.row ?? {});
        if ('error' in p) throw new Error(`${file}: ${r.where}: ${p.error}`);
        rows.push({ row: r.n, text: cut(p.text, file, r.where, notes) });
      }
    } catch (e) {
      const msg = errorMessage(e);
      throw new Error(msg.startsWith(file) ? msg : `${file}: not a readable Parquet file: ${msg}`);
    }
    return { rows, notes };
  }
  for (const { line, text, cutAt } of boundedLines(file)) {
    if (!text.trim()) continue;
    const where = `line ${line + 1}`;
    if (type !== 'jsonl') {
      rows.push({ row: line, text: cutAt === undefined ? text : noteCut(text, file, where, notes) });
      continue;
    }
    if (cutAt !== undefined) {
      notes.push(`${file}: ${where}: skipped, longer than ${MAX_ROW_CHARS.toLocaleString('en')} bytes`);
      continue;
    }
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file}: ${where}: not JSON: ${errorMessage(e)}`);
    }
    if (!isRecord(row)) throw new Error(`${file}: ${where}: not a JSON object`);
    const p = rowPrompt(row);
    if ('error' in p) throw new Error(`${file}: ${where}: ${p.error}`);
    rows.push({ row: line, text: cut(p.text, file, where, notes) });
  }
  return { rows, notes };
}

function cut(text: string, file: string, where: string, notes: string[]): string {
  return text.length > MAX_ROW_CHARS ? noteCut(text.slice(0, MAX_ROW_CHARS), file, where, notes) : text;
}

function noteCut(text: string, file: string, where: string, notes: string[]): string {
  notes.push(`${file}: ${where}: cut to its first ${MAX_ROW_CHARS.toLocaleString('en')} characters`);
  return text;
}

/**
 * Lines of a UTF-8 file (0-based), read in 1 MB chunks. A line longer than MAX_ROW_CHARS bytes
 * yields its first MAX_ROW_CHARS bytes with `cutAt` set, and the rest of it is passed over
 * without being kept.
 */
function* boundedLines(file: string): Generator<{ line: number; text: string; cutAt?: number }> {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw new Error(`${file}: cannot be read: ${errorMessage(e)}`);
  }
  try {
    const chunk = Buffer.alloc(1 << 20);
    const decoder = new TextDecoder('utf-8');
    let parts: Buffer[] = [];
    let held = 0;
    let over = false;
    let line = 0;
    const finish = (): { line: number; text: string; cutAt?: number } => {
      let text = decoder.decode(Buffer.concat(parts, Math.min(held, MAX_ROW_CHARS)));
      if (text.endsWith('\r')) text = text.slice(0, -1);
      const out = over ? { line, text, cutAt: MAX_ROW_CHARS } : { line, text };
      parts = [];
      held = 0;
      over = false;
      line++;
      return out;
    };
    const keep = (b: Buffer): void => {
      if (held + b.length > MAX_ROW_CHARS) {
        over = true;
        b = b.subarray(0, Math.max(0, MAX_ROW_CHARS - held));
      }
      if (b.length) parts.push(Buffer.from(b));
      held += b.length;
    };
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      let from = 0;
      for (let nl = chunk.indexOf(10, from); nl !== -1 && nl < n; nl = chunk.indexOf(10, from)) {
        keep(chunk.subarray(from, nl));
        yield finish();
        from = nl + 1;
      }
      if (from < n) keep(chunk.subarray(from, n));
    }
    if (held || over) yield finish();
  } finally {
    fs.closeSync(fd);
  }
}

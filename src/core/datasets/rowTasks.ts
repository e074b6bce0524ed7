// Dataset rows (JSONL) read as tasks, so the editor gives each row what it gives a task of a
// task file: a lens, a pass-rate decoration, the panel. The format is told once per file from
// its first rows (as `vtask import` tells it); each row is mapped by that format's importer and
// the task it gives is validated as a task of a task file would be. A row that cannot become a
// task gets an issue on its line saying why; a JSONL file that is no dataset gets nothing.
import { isRecord } from '../base/record';
import { errorMessage } from '../base/errorMessage';
import type { Issue } from '../base/issues';
import type { Span, YNode, YPair } from '../base/ynode';
import type { TaskEntry, TaskFile } from '../taskfile/parse';
import { LineIndex } from '../taskfile/text';
import { ChunkValidator, type TaskSummary } from '../taskfile/validate';
import { cut } from '../util/cut';
import type { ImportResult } from './format';
import { DETECT_ROWS } from './detectFormat';
import { detectFormat, IMPORT_FORMATS } from './formats';
import { taskObject } from './importDataset';
import { at } from '../util/must';

/** Rows mapped to tasks at a time: bounds the work of one parse (an editor re-parses per edit). */
export const MAX_ROW_TASKS = 1000;

/** A JSONL file read as tasks: a TaskFile (one task per mapped row) plus what was read. */
export interface RowTaskFile extends TaskFile {
  /** The import format the rows are in, or undefined when the file is not a dataset. */
  readonly format: string | undefined;
  /** Rows (non-blank lines) in the file. */
  readonly rows: number;
  /** Zero-based line ranges [from, to) whose rows were read; the whole file when it is small. */
  readonly window: readonly Span[];
}

export interface RowWindow {
  /**
   * Zero-based line ranges [from, to) to read rows from when the file has more rows than
   * `maxRows` (the editor passes what is visible); the first rows when absent.
   */
  readonly ranges?: readonly Span[];
  readonly maxRows?: number;
}

type Parsed = { readonly value: Record<string, unknown> } | { readonly error: string };

/** A row mapped to a task, before it is placed in the file (offsets relative to its line). */
interface MappedRow {
  readonly id: string;
  readonly node: YNode;
  readonly summary: TaskSummary;
  readonly issues: readonly Issue[];
}

/**
 * Reads JSONL text as tasks. Keep one per open document: rows whose text did not change keep
 * their parse and their tree, so an edit re-maps only the rows it touched, and the trees'
 * identity lets the resolved tasks be reused.
 */
export class RowTaskParser {
  private parsed = new Map<string, Parsed>();
  private mapped = new Map<string, MappedRow | { readonly error: string }>();

  parse(text: string, window: RowWindow = {}): RowTaskFile {
    const lines = new LineIndex(text);
    const nextParsed = new Map<string, Parsed>();
    const nextMapped = new Map<string, MappedRow | { readonly error: string }>();
    const lineText = (l: number): string => {
      const end = l + 1 < lines.lineCount ? lines.lineStart(l + 1) - 1 : text.length;
      const s = text.slice(lines.lineStart(l), end);
      return s.endsWith('\r') ? s.slice(0, -1) : s;
    };
    const read = (s: string): Parsed => {
      const hit = nextParsed.get(s) ?? this.parsed.get(s) ?? parseRow(s);
      nextParsed.set(s, hit);
      return hit;
    };
    const empty = (format: string | undefined, rows: number, ranges: readonly Span[]): RowTaskFile => ({
      text,
      lines,
      parts: [],
      tasks: [],
      issues: [],
      chunked: true,
      format,
      rows,
      window: ranges,
    });

    // Row numbers count non-blank lines (as `vtask import` does): ids of rows without one use them.
    const rowBefore = new Uint32Array(lines.lineCount + 1);
    for (let l = 0; l < lines.lineCount; l++)
      rowBefore[l + 1] =
        at(rowBefore, l) +
        (isBlank(text, lines.lineStart(l), l + 1 < lines.lineCount ? lines.lineStart(l + 1) : text.length) ? 0 : 1);
    const rows = at(rowBefore, lines.lineCount);

    let format: string | undefined;
    for (let l = 0, seen = 0; l < lines.lineCount && seen < DETECT_ROWS && !format; l++) {
      if (rowBefore[l + 1] === rowBefore[l]) continue;
      seen++;
      const p = read(lineText(l));
      if ('value' in p) format = detectFormat(p.value);
    }
    const importer = format ? IMPORT_FORMATS.get(format) : undefined;
    if (!format || !importer) {
      this.parsed = nextParsed;
      return empty(undefined, rows, []);
    }

    const ranges = windowOf(lines.lineCount, rows, rowBefore, window);
    const tasks: TaskEntry[] = [];
    const issues: Issue[] = [];
    const firstLineOf = new Map<string, number>();
    for (const [from, to] of ranges) {
      for (let l = from; l < to; l++) {
        if (rowBefore[l + 1] === rowBefore[l]) continue;
        const s = lineText(l);
        const offset = lines.lineStart(l);
        const n = at(rowBefore, l);
        const p = read(s);
        if ('error' in p) {
          issues.push(rowIssue(offset, s.length, p.error));
          continue;
        }
        const key = `${format}\0${n}\0${s}`;
        let m = nextMapped.get(key) ?? this.mapped.get(key) ?? mapRow(importer(p.value, n), s, format);
        if ('error' in m) {
          nextMapped.set(key, m);
          issues.push(rowIssue(offset, s.length, m.error));
          continue;
        }
        // A repeated id is renamed as `vtask import` renames it: results are kept per id.
        let id = m.id;
        const first = firstLineOf.get(id);
        if (first !== undefined) {
          let k = 2;
          while (firstLineOf.has(`${m.id}-${k}`)) k++;
          id = `${m.id}-${k}`;
          m = withId(m, id, s);
          issues.push({
            code: 'duplicate-id',
            severity: 'warning',
            message: `the id \`${cut(m.id)}\` is already used on line ${first + 1}: this row is shown as \`${cut(id)}\``,
            start: offset,
            end: offset + Math.max(1, s.length),
          });
        } else nextMapped.set(key, m);
        firstLineOf.set(id, l);
        for (const i of m.issues) issues.push({ ...i, start: i.start + offset, end: i.end + offset });
        const { summary } = m;
        tasks.push({
          ...summary,
          id,
          offset,
          length: s.length,
          node: m.node.type === 'map' ? m.node : null,
          issues: m.issues,
          index: tasks.length,
        });
      }
    }
    this.parsed = nextParsed;
    this.mapped = nextMapped;
    issues.sort((a, b) => a.start - b.start);
    return { text, lines, parts: [], tasks, issues, chunked: true, format, rows, window: ranges };
  }
}

/** Reads JSONL text as tasks (no cache): for one-off reads and tests. */
export function parseRowTasks(text: string, window?: RowWindow): RowTaskFile {
  return new RowTaskParser().parse(text, window);
}

/** Whether a parsed file came from dataset rows rather than a task file. */
export function isRowTaskFile(file: TaskFile): file is RowTaskFile {
  return 'window' in file;
}

function parseRow(s: string): Parsed {
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch (e) {
    return { error: `not JSON: ${errorMessage(e)}` };
  }
  return isRecord(v) ? { value: v } : { error: 'not a JSON object: a dataset row is an object of columns' };
}

function rowIssue(offset: number, length: number, message: string): Issue {
  return { code: 'bad-row', severity: 'error', message, start: offset, end: offset + Math.max(1, length) };
}

/** The importer's task as a task-file tree over the row's line, validated as a task is. */
function mapRow(result: ImportResult, line: string, format: string): MappedRow | { readonly error: string } {
  if ('error' in result) return { error: `this row cannot be read as a ${format} task: ${result.error}` };
  return withId(
    {
      id: result.task.id,
      node: plainNode(taskObject(result.task), [0, line.length]),
      summary: { anchor: [0, line.length], hasPrompt: true, hasVerify: true, caseCount: 0 },
      issues: [],
    },
    result.task.id,
    line,
  );
}

/**
 * The row's task under `id`, validated. Every node spans the whole line (a row has no YAML to
 * point into), so each problem underlines the row; fixes are dropped, since they would replace
 * the JSON with YAML.
 */
function withId(m: MappedRow, id: string, line: string): MappedRow {
  const obj = m.node.type === 'map' ? m.node : undefined;
  const span: Span = [0, line.length];
  const node: YNode = obj
    ? {
        ...obj,
        items: obj.items.map((p) =>
          String(p.key.value) === 'id' ? { ...p, value: { type: 'scalar', value: id, span, style: 'quoted' } } : p,
        ),
      }
    : m.node;
  const v = new ChunkValidator(line);
  const summary = { ...v.task(node, span), anchor: span };
  const issues = v.issues.map(({ fixes: _fixes, ...i }): Issue => ({
    ...i,
    message: `the task this row gives: ${i.message}`,
    start: 0,
    end: Math.max(1, line.length),
  }));
  return { id, node, summary, issues };
}

/** A plain value as a tree whose every node spans `span`. */
function plainNode(value: unknown, span: Span): YNode {
  if (Array.isArray(value)) return { type: 'seq', items: value.map((v) => plainNode(v, span)), span, flow: true };
  if (value && typeof value === 'object') {
    const items: YPair[] = Object.entries(value).map(([k, v]) => ({
      key: { type: 'scalar', value: k, span, style: 'quoted' },
      value: plainNode(v, span),
      span,
    }));
    return { type: 'map', items, span, flow: true };
  }
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
  return { type: 'scalar', value: scalar, span, style: typeof value === 'string' ? 'quoted' : 'plain' };
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * The line ranges to read: every line when the file has few rows; else the requested ranges,
 * merged and cut so that they hold at most `maxRows` rows (the first rows when none is asked).
 */
function windowOf(lineCount: number, rows: number, rowBefore: Uint32Array, window: RowWindow): Span[] {
  const max = window.maxRows ?? MAX_ROW_TASKS;
  if (rows <= max) return [[0, lineCount]];
  const whole: Span = [0, lineCount];
  const asked = (window.ranges?.length ? window.ranges : [whole])
    .map(([a, b]): Span => [Math.max(0, Math.min(a, lineCount)), Math.max(0, Math.min(b, lineCount))])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of asked) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const out: Span[] = [];
  let budget = max;
  for (const [a, b] of merged) {
    if (budget <= 0) break;
    const have = at(rowBefore, b) - at(rowBefore, a);
    if (have <= budget) {
      out.push([a, b]);
      budget -= have;
      continue;
    }
    // The first `budget` rows of this range.
    let end = a;
    while (end < b && at(rowBefore, end) - at(rowBefore, a) < budget) end++;
    out.push([a, end]);
    budget = 0;
  }
  return out;
}

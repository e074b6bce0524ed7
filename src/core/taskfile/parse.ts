import { parseDocument, type YAMLError } from 'yaml';
import { splitTaskFile, type Chunk } from './chunks';
import { shiftIssue, type Issue } from './issues';
import { LineIndex } from './text';
import { ChunkValidator, type TaskSummary } from './validate';
import { fromYaml as fromYamlNode, getPair, type Span, type YMap, type YNode } from './ynode';

/** One task of a file: its tree (offsets relative to `offset`) and what validation found. */
export interface TaskEntry extends TaskSummary {
  /** Absolute offset of the start of the task's text; every span inside is relative to it. */
  readonly offset: number;
  /** Length of the task's text, so `offset + length` ends it. */
  readonly length: number;
  readonly node: YMap | null;
  /** Issues inside the task, relative to `offset`. */
  readonly issues: readonly Issue[];
  /** Zero-based position in the file's task list. */
  readonly index: number;
}

/** A part of the file outside the tasks: the header, or top-level keys after the tasks. */
export interface FilePart {
  readonly offset: number;
  readonly node: YMap | null;
}

/** A parsed task file. Parsing never throws: whatever could be read, plus issues. */
export interface TaskFile {
  readonly text: string;
  readonly lines: LineIndex;
  readonly parts: readonly FilePart[];
  readonly tasks: readonly TaskEntry[];
  /** Every issue in the file with absolute offsets, in order. */
  readonly issues: readonly Issue[];
  /** True when the file was parsed in per-task chunks (the fast path). */
  readonly chunked: boolean;
}

interface ParsedChunk {
  readonly node: YNode | null;
  readonly issues: readonly Issue[];
  readonly summary?: TaskSummary;
  readonly length: number;
}

/**
 * Parses task files and remembers each chunk's result by its text, so re-parsing after an
 * edit only does work for the tasks whose text changed. Use one parser per open document.
 */
export class TaskFileParser {
  // Task chunks by their text; header and tail chunks are few and parsed afresh.
  private cache = new Map<string, ParsedChunk>();

  parse(text: string): TaskFile {
    const lines = new LineIndex(text);
    const chunks = splitTaskFile(text, lines);
    const next = new Map<string, ParsedChunk>();
    const result = chunks ? this.parseChunks(text, lines, chunks, next) : parseWhole(text, lines);
    this.cache = next;
    return result;
  }

  private parseChunks(text: string, lines: LineIndex, chunks: readonly Chunk[], next: Map<string, ParsedChunk>): TaskFile {
    const parts: FilePart[] = [];
    const tasks: TaskEntry[] = [];
    const issues: Issue[] = [];
    for (const chunk of chunks) {
      let parsed: ParsedChunk;
      if (chunk.kind === 'task') {
        parsed = next.get(chunk.text) ?? this.cache.get(chunk.text) ?? parseTaskChunk(chunk.text);
        next.set(chunk.text, parsed);
      } else parsed = parsePartChunk(chunk.text, chunk.kind === 'tail');
      for (const i of parsed.issues) issues.push(shiftIssue(i, chunk.start));
      const summary = parsed.summary;
      if (summary) {
        tasks.push({
          id: summary.id,
          anchor: summary.anchor,
          hasPrompt: summary.hasPrompt,
          hasVerify: summary.hasVerify,
          caseCount: summary.caseCount,
          offset: chunk.start,
          length: parsed.length,
          node: parsed.node?.type === 'map' ? parsed.node : null,
          issues: parsed.issues,
          index: tasks.length,
        });
      } else {
        parts.push({ offset: chunk.start, node: parsed.node?.type === 'map' ? parsed.node : null });
      }
    }
    return finish(text, lines, parts, tasks, issues, true);
  }
}

/** Parses a whole file at once (no cache). */
export function parseTaskFile(text: string): TaskFile {
  return new TaskFileParser().parse(text);
}

function yamlIssues(errors: readonly YAMLError[], warnings: readonly YAMLError[]): Issue[] {
  const out: Issue[] = [];
  for (const [list, severity] of [[errors, 'error'], [warnings, 'warning']] as const) {
    for (const e of list) {
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      out.push({ code: 'yaml-syntax', severity, message: message.charAt(0).toLowerCase() + message.slice(1), start: e.pos[0], end: Math.max(e.pos[1], e.pos[0] + 1) });
    }
  }
  return out;
}

const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false, strict: true } as const;

function parseTaskChunk(text: string): ParsedChunk {
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings);
  const root = fromYamlNode(doc.contents, 0);
  const item = root?.type === 'seq' ? (root.items[0] ?? null) : null;
  const v = new ChunkValidator(text);
  const itemSpan: Span = [0, Math.min(text.length, text.indexOf('-') + 1 || 1)];
  const summary = v.task(item, itemSpan);
  return { node: item, issues: [...issues, ...v.issues].sort(byStart), summary, length: text.length };
}

function parsePartChunk(text: string, tail: boolean): ParsedChunk {
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings);
  const root = fromYamlNode(doc.contents, 0);
  const v = new ChunkValidator(text);
  v.file(root, tail);
  return { node: root, issues: [...issues, ...v.issues].sort(byStart), length: text.length };
}

function parseWhole(text: string, lines: LineIndex): TaskFile {
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings);
  const root = fromYamlNode(doc.contents, 0);
  const v = new ChunkValidator(text);
  v.file(root, false);
  issues.push(...v.issues);
  const tasks: TaskEntry[] = [];
  const seq = root?.type === 'map' ? getPair(root, 'tasks')?.value : null;
  const rawSeq = doc.contents && 'get' in doc.contents ? (doc.contents as { get(k: string, keep: true): unknown }).get('tasks', true) : null;
  if (seq?.type === 'seq' && rawSeq && typeof rawSeq === 'object' && 'items' in rawSeq) {
    (rawSeq as { items: unknown[] }).items.forEach((raw, index) => {
      const abs = seq.items[index];
      const offset = abs ? abs.span[0] : 0;
      const node = fromYamlNode(raw, offset);
      const tv = new ChunkValidator(text.slice(offset));
      const summary = tv.task(node, [0, 1]);
      const end = index + 1 < seq.items.length ? (seq.items[index + 1]?.span[0] ?? text.length) : (abs?.span[1] ?? text.length);
      tasks.push({ ...summary, offset, length: end - offset, node: node?.type === 'map' ? node : null, issues: tv.issues, index });
      for (const i of tv.issues) issues.push(shiftIssue(i, offset));
    });
  }
  return finish(text, lines, [{ offset: 0, node: root?.type === 'map' ? root : null }], tasks, issues, false);
}


/** File-level checks that need every task: duplicate ids, and what `defaults` supplies. */
function finish(text: string, lines: LineIndex, parts: FilePart[], tasks: TaskEntry[], issues: Issue[], chunked: boolean): TaskFile {
  const defaults = parts.map((p) => (p.node ? getPair(p.node, 'defaults')?.value : undefined)).find((d) => d?.type === 'map') as YMap | undefined;
  const inheritsPrompt = Boolean(defaults && (getPair(defaults, 'prompt') || getPair(defaults, 'messages')));
  const inheritsVerify = Boolean(defaults && getPair(defaults, 'verify'));
  const firstById = new Map<string, TaskEntry>();
  for (const t of tasks) {
    const at = (span: Span): [number, number] => [t.offset + span[0], t.offset + span[1]];
    const [s, e] = at(t.anchor);
    const name = t.id !== undefined ? `task \`${t.id}\`` : 'this task';
    if (t.id !== undefined) {
      const first = firstById.get(t.id);
      if (first) {
        const line = lines.position(first.offset + first.anchor[0]).line + 1;
        issues.push({ code: 'duplicate-id', severity: 'error', message: `duplicate task id \`${t.id}\`: it is already used on line ${line}`, start: s, end: e });
      } else firstById.set(t.id, t);
    }
    if (!t.hasPrompt && !inheritsPrompt && t.node) issues.push({ code: 'missing-key', severity: 'error', message: `${name} has no \`prompt\` or \`messages\``, start: s, end: e });
    if (!t.hasVerify && !inheritsVerify && t.node) issues.push({ code: 'missing-key', severity: 'error', message: `${name} has no \`verify\`: give it a verifier, such as \`math: { answer: "72" }\``, start: s, end: e });
  }
  issues.sort(byStart);
  return { text, lines, parts, tasks, issues, chunked };
}

function byStart(a: Issue, b: Issue): number {
  return a.start - b.start || a.end - b.end;
}

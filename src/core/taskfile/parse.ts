import { parseDocument, type YAMLError } from 'yaml';
import { splitTaskFile, type Chunk } from './chunks';
import { readPlainYaml } from './plainYaml';
import { shiftIssue, type Issue } from '../base/issues';
import { LIMITS, limitIssue, textLimitIssue } from './limits';
import { cut } from '../util/cut';
import { closest } from '../base/suggest';
import { LineIndex } from './text';
import { ChunkValidator, type FileRef, type TaskSummary } from './validate';
import {
  aliasNodesMessage,
  aliasScope,
  fromYaml as fromYamlNode,
  type AliasScope,
  getPair,
  type Span,
  type YMap,
  type YNode,
} from '../base/ynode';

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
  /** Files the part names (a `script` in `defaults`), offsets relative to `offset`. */
  readonly files?: readonly FileRef[];
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

/** What parsing one task chunk yields, without its tree: plain data that can cross threads. */
export interface ChunkResult {
  readonly issues: readonly Issue[];
  readonly summary?: TaskSummary;
  readonly length: number;
  /** True when the chunk uses an alias whose anchor is outside it. */
  readonly needsWhole?: boolean;
  /** Nodes its aliases expanded to: the file's allowance (LIMITS.aliasNodes) covers all chunks. */
  readonly expanded?: number;
}

/** Parses and validates one task chunk, keeping only plain data (for worker threads). */
export function parseTaskChunkPlain(text: string, budget?: number): ChunkResult {
  const { issues, summary, length, needsWhole, expanded } = parseTaskChunk(text, budget);
  return needsWhole ? { issues, summary, length, needsWhole } : { issues, summary, length, expanded };
}

/**
 * Parses task chunks in order within one allowance of expanded alias nodes, so a file of many
 * small alias bombs costs no more than one: once it is spent, the next alias overflows at once.
 */
export function parseTaskChunksPlain(texts: readonly string[]): ChunkResult[] {
  let left = LIMITS.aliasNodes;
  return texts.map((t) => {
    const r = parseTaskChunkPlain(t, Math.max(0, left));
    left -= r.expanded ?? 0;
    return r;
  });
}

export interface ParsedChunk {
  readonly node: YNode | null;
  /** True when the chunk uses an alias whose anchor is outside it. */
  readonly needsWhole?: boolean;
  readonly issues: readonly Issue[];
  readonly summary?: TaskSummary;
  readonly length: number;
  /** A part's files (a task's are in its summary). */
  readonly files?: readonly FileRef[];
  /** Nodes its aliases expanded to (see ChunkResult). */
  readonly expanded?: number;
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
    const tooLarge = textLimitIssue(text, lines);
    if (tooLarge) return refused(text, lines, tooLarge);
    const chunks = splitTaskFile(text, lines);
    const next = new Map<string, ParsedChunk>();
    const result = chunks ? this.parseChunks(text, lines, chunks, next) : parseWhole(text, lines);
    this.cache = next;
    return result;
  }

  /**
   * Like `parse`, with the task chunks parsed by `parseChunks` (for example in worker threads,
   * for the CLI on large files). The tasks then carry no tree (`node` is null), only issues and
   * summaries: enough for checking, not for editing.
   */
  async parseWith(text: string, parseChunks: (texts: string[]) => Promise<ChunkResult[]>): Promise<TaskFile> {
    const lines = new LineIndex(text);
    const tooLarge = textLimitIssue(text, lines);
    if (tooLarge) return refused(text, lines, tooLarge);
    const chunks = splitTaskFile(text, lines);
    if (!chunks) return parseWhole(text, lines);
    const taskTexts = chunks.filter((c) => c.kind === 'task').map((c) => c.text);
    const results = await parseChunks(taskTexts);
    const pre = new Map<string, ParsedChunk>();
    taskTexts.forEach((t, i) => {
      const r = results[i];
      if (r) pre.set(t, { ...r, node: null });
    });
    return this.parseChunks(text, lines, chunks, pre);
  }

  private parseChunks(
    text: string,
    lines: LineIndex,
    chunks: readonly Chunk[],
    next: Map<string, ParsedChunk>,
  ): TaskFile {
    const parts: FilePart[] = [];
    const tasks: TaskEntry[] = [];
    const issues: Issue[] = [];
    // What is left of the file's allowance of expanded alias nodes (one for all its chunks).
    let left = LIMITS.aliasNodes;
    for (const chunk of chunks) {
      let parsed: ParsedChunk;
      if (chunk.kind === 'task') {
        parsed = next.get(chunk.text) ?? this.cache.get(chunk.text) ?? parseTaskChunk(chunk.text, Math.max(0, left));
        next.set(chunk.text, parsed);
      } else parsed = parsePartChunk(chunk.text, chunk.kind === 'tail', Math.max(0, left));
      // Anchors shared between tasks only resolve in the whole document, and a second
      // `tasks:` after the first list only makes sense there.
      if (parsed.needsWhole) return parseWhole(text, lines);
      left -= parsed.expanded ?? 0;
      if (left < 0) {
        // A result cut short by what earlier chunks spent is no result to keep for next time.
        next.delete(chunk.text);
        const own = parsed.issues.find((i) => i.code === 'too-large');
        return refused(text, lines, own ? shiftIssue(own, chunk.start) : limitIssue(chunk.start, aliasNodesMessage()));
      }
      if (chunk.kind === 'tail' && parsed.node?.type === 'map' && getPair(parsed.node, 'tasks'))
        return parseWhole(text, lines);
      for (const i of parsed.issues) issues.push(shiftIssue(i, chunk.start));
      const summary = parsed.summary;
      if (summary) {
        tasks.push({
          id: summary.id,
          anchor: summary.anchor,
          hasPrompt: summary.hasPrompt,
          hasVerify: summary.hasVerify,
          caseCount: summary.caseCount,
          ...(summary.files ? { files: summary.files } : {}),
          offset: chunk.start,
          length: parsed.length,
          node: parsed.node?.type === 'map' ? parsed.node : null,
          issues: parsed.issues,
          index: tasks.length,
        });
      } else {
        parts.push({
          offset: chunk.start,
          node: parsed.node?.type === 'map' ? parsed.node : null,
          ...(parsed.files?.length ? { files: parsed.files } : {}),
        });
      }
    }
    issues.push(...duplicateTopKeys(parts));
    return finish(text, lines, parts, tasks, issues, true);
  }
}

/** Parses a whole file at once (no cache). */
export function parseTaskFile(text: string): TaskFile {
  return new TaskFileParser().parse(text);
}

/** Parses as one YAML document, never in chunks: the reference the chunked path must agree with. */
export function parseWholeFile(text: string): TaskFile {
  const lines = new LineIndex(text);
  const tooLarge = textLimitIssue(text, lines);
  return tooLarge ? refused(text, lines, tooLarge) : parseWhole(text, lines);
}

const TOP_KEYS = ['vtask', 'defaults', 'models', 'tasks'];

/**
 * One error for text that is not a task file at all (a README, a config file given by mistake):
 * its YAML errors and unknown keys would be dozens of lines that say nothing useful. It is one
 * whose first top-level key is no task-file key nor a misspelling of one (`vtsak:` is a typo,
 * `name:` or a line of prose is another kind of file). Blanks and comments are a file being started.
 */
export function notTaskFile(parts: readonly FilePart[]): Issue | undefined {
  const first = parts[0]?.node?.items[0]?.key;
  if (!first) return undefined;
  const name = String(first.value);
  if (TOP_KEYS.includes(name) || closest(name, TOP_KEYS)) return undefined;
  return {
    code: 'not-a-task-file',
    severity: 'error',
    message: 'not a task file: a task file starts with `vtask: 1` and lists its `tasks:`',
    start: 0,
    end: 1,
  };
}

/** A file over a limit: the one issue, and nothing parsed. */
function refused(text: string, lines: LineIndex, issue: Issue): TaskFile {
  return { text, lines, parts: [], tasks: [], issues: [issue], chunked: false };
}

/** The broken limit of a conversion as an issue, with the syntax errors (the rest is unreliable). */
function overflowIssues(aliases: AliasScope, syntax: readonly Issue[]): Issue[] | undefined {
  const o = aliases.overflow;
  return o
    ? [
        ...syntax.filter((i) => i.severity === 'error'),
        limitIssue(o.span[0], o.message, Math.max(o.span[1], o.span[0] + 1)),
      ].sort(byStart)
    : undefined;
}

function yamlIssues(errors: readonly YAMLError[], warnings: readonly YAMLError[], length: number): Issue[] {
  const out: Issue[] = [];
  for (const [list, severity] of [
    [errors, 'error'],
    [warnings, 'warning'],
  ] as const) {
    for (const e of list) {
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      const start = Math.min(e.pos[0], length);
      out.push({
        code: 'yaml-syntax',
        severity,
        message: message.charAt(0).toLowerCase() + message.slice(1),
        start,
        end: Math.min(Math.max(e.pos[1], start + 1), length),
      });
    }
  }
  return out;
}

const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false, strict: true } as const;

/** Parses and validates one task chunk; its aliases may expand to `budget` nodes at most. */
export function parseTaskChunk(text: string, budget: number = LIMITS.aliasNodes): ParsedChunk {
  const itemSpan: Span = [0, Math.min(text.length, text.indexOf('-') + 1 || 1)];
  // Most tasks are plain YAML: read without the `yaml` package, they have no syntax issues.
  const plain = readPlainYaml(text);
  if (plain) {
    const item = plain.type === 'seq' ? (plain.items[0] ?? null) : null;
    const v = new ChunkValidator(text);
    const summary = v.task(item, itemSpan);
    return { node: item, issues: [...v.issues].sort(byStart), summary, length: text.length, expanded: 0 };
  }
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings, text.length);
  const aliases = aliasScope(doc, budget);
  const root = fromYamlNode(doc.contents, 0, aliases);
  if (aliases.unresolved) return { node: null, issues: [], length: text.length, needsWhole: true };
  const item = root?.type === 'seq' ? (root.items[0] ?? null) : null;
  const v = new ChunkValidator(text);
  const summary = v.task(item, itemSpan);
  const expanded = aliases.expandedNodes;
  const over = overflowIssues(aliases, issues);
  if (over)
    return {
      node: item,
      issues: over,
      summary: { ...summary, hasPrompt: true, hasVerify: true },
      length: text.length,
      expanded,
    };
  const tabs = tabIndents(text);
  if (tabs.length > 0) {
    // A tab in the indentation derails the YAML parser for the rest of the task; the tab is
    // the one thing to fix, so it is the one thing reported.
    return {
      node: item,
      issues: tabs,
      summary: { ...summary, hasPrompt: true, hasVerify: true },
      length: text.length,
      expanded,
    };
  }
  if (doc.errors.length > 0) {
    // What the parser salvaged from broken YAML is not what the author wrote: checking it
    // would only add errors that go away with the syntax error. Report the syntax alone.
    const salvaged: TaskSummary = { ...summary, hasPrompt: true, hasVerify: true };
    return { node: item, issues: issues.sort(byStart), summary: salvaged, length: text.length, expanded };
  }
  return { node: item, issues: [...issues, ...v.issues].sort(byStart), summary, length: text.length, expanded };
}

export function parsePartChunk(text: string, tail: boolean, budget: number = LIMITS.aliasNodes): ParsedChunk {
  const plain = readPlainYaml(text);
  if (plain) return validatedPart(text, tail, plain, [], 0);
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings, text.length);
  const aliases = aliasScope(doc, budget);
  const root = fromYamlNode(doc.contents, 0, aliases);
  if (aliases.unresolved) return { node: null, issues: [], length: text.length, needsWhole: true };
  const expanded = aliases.expandedNodes;
  const over = overflowIssues(aliases, issues);
  if (over) return { node: null, issues: over, length: text.length, expanded };
  return validatedPart(text, tail, root, issues, expanded);
}

/** A header or tail chunk's tree checked as the top level of a file. */
function validatedPart(
  text: string,
  tail: boolean,
  root: YNode | null,
  issues: readonly Issue[],
  expanded: number,
): ParsedChunk {
  const v = new ChunkValidator(text);
  v.file(root, tail);
  return {
    node: root,
    issues: [...issues, ...v.issues].sort(byStart),
    length: text.length,
    expanded,
    ...(v.files.length ? { files: v.files } : {}),
  };
}

function parseWhole(text: string, lines: LineIndex): TaskFile {
  const doc = parseDocument(text, YAML_OPTIONS);
  const issues = yamlIssues(doc.errors, doc.warnings, text.length);
  const aliases = aliasScope(doc);
  const root = fromYamlNode(doc.contents, 0, aliases);
  const over = overflowIssues(aliases, issues);
  if (over) return { text, lines, parts: [], tasks: [], issues: over, chunked: false };
  const syntaxErrors = issues.filter((i) => i.severity === 'error');
  // A tab in the indentation derails the parser for everything after it: report only the tabs.
  const tabs = tabIndents(text);
  if (tabs.length) issues.splice(0, issues.length, ...tabs);
  // Missing anchors inside tasks are reported with their task; the rest here.
  const rootMissing = aliases.missing.splice(0);
  const v = new ChunkValidator(text);
  v.file(root, false);
  const tasks: TaskEntry[] = [];
  const seq = root?.type === 'map' ? getPair(root, 'tasks')?.value : null;
  const rawSeq =
    doc.contents && 'get' in doc.contents
      ? (doc.contents as { get(k: string, keep: true): unknown }).get('tasks', true)
      : null;
  if (seq?.type === 'seq' && rawSeq && typeof rawSeq === 'object' && 'items' in rawSeq) {
    // The tasks are converted again one by one: a subset of the root, so within the same budget.
    aliases.expansions = 0;
    aliases.expandedNodes = 0;
    (rawSeq as { items: unknown[] }).items.forEach((raw, index) => {
      const abs = seq.items[index];
      const offset = abs ? itemStart(text, abs.span[0]) : 0;
      const node = fromYamlNode(raw, offset, aliases);
      const tv = new ChunkValidator(text.slice(offset));
      for (const m of aliases.missing.splice(0))
        tv.report(
          'bad-value',
          m.span,
          `the alias \`*${m.name}\` names no anchor: write \`&${m.name}\` on a value before it`,
        );
      let summary = tv.task(node, [0, 1]);
      const next = seq.items[index + 1];
      const end = next ? itemStart(text, next.span[0]) : (abs?.span[1] ?? text.length);
      // As in the chunked parse: a task with a syntax error reports only that error.
      const broken = tabs.length > 0 || syntaxErrors.some((e) => e.start >= offset && e.start < end);
      if (broken) summary = { ...summary, hasPrompt: true, hasVerify: true };
      const own = broken ? [] : tv.issues;
      tasks.push({
        ...summary,
        offset,
        length: end - offset,
        node: node?.type === 'map' ? node : null,
        issues: own,
        index,
      });
      for (const i of own) issues.push(shiftIssue(i, offset));
    });
  }
  for (const m of rootMissing) {
    if (!tasks.some((t) => m.span[0] >= t.offset && m.span[0] < t.offset + t.length))
      v.report(
        'bad-value',
        m.span,
        `the alias \`*${m.name}\` names no anchor: write \`&${m.name}\` on a value before it`,
      );
  }
  if (!tabs.length) issues.push(...v.issues);
  return finish(
    text,
    lines,
    [{ offset: 0, node: root?.type === 'map' ? root : null, ...(v.files.length ? { files: v.files } : {}) }],
    tasks,
    issues,
    false,
  );
}

/** Top-level keys given both before and after the tasks (one part each cannot see it). */
export function duplicateTopKeys(parts: readonly FilePart[]): Issue[] {
  const seen = new Set<string>();
  const out: Issue[] = [];
  for (const part of parts) {
    for (const p of part.node?.items ?? []) {
      const k = String(p.key.value);
      if (seen.has(k) && part !== parts[0])
        out.push({
          code: 'duplicate-key',
          severity: 'error',
          message: `\`${k}\` is given twice in the file`,
          start: part.offset + p.key.span[0],
          end: part.offset + p.key.span[1],
        });
      seen.add(k);
    }
  }
  return out;
}

/** What `defaults` in a file's parts supplies to every task. */
export interface Inherited {
  readonly prompt: boolean;
  readonly verify: boolean;
}

export function inheritedFrom(parts: readonly FilePart[]): Inherited {
  const defaults = parts
    .map((p) => (p.node ? getPair(p.node, 'defaults')?.value : undefined))
    .find((d) => d?.type === 'map') as YMap | undefined;
  return {
    prompt: Boolean(defaults && (getPair(defaults, 'prompt') || getPair(defaults, 'messages'))),
    verify: Boolean(defaults && getPair(defaults, 'verify')),
  };
}

/** Where each task id was first used (the offset of its task), as far as the tasks read so far go. */
export interface FirstById {
  get(id: string): number | undefined;
  set(id: string, offset: number): void;
}

/**
 * The file-level issues of one task, given the tasks before it (`firstById`, which it extends):
 * a repeated id, and a prompt or verifier that neither the task nor `defaults` gives.
 */
export function taskFileIssues(t: TaskEntry, lines: LineIndex, firstById: FirstById, inherited: Inherited): Issue[] {
  const out: Issue[] = [];
  const s = t.offset + t.anchor[0];
  const e = t.offset + t.anchor[1];
  const name = t.id !== undefined ? `task \`${cut(t.id)}\`` : 'this task';
  if (t.id !== undefined) {
    const first = firstById.get(t.id);
    if (first !== undefined) {
      const line = lines.position(first).line + 1;
      out.push({
        code: 'duplicate-id',
        severity: 'error',
        message: `duplicate task id \`${cut(t.id)}\`: it is already used on line ${line}`,
        start: s,
        end: e,
      });
    } else firstById.set(t.id, s);
  }
  if (!t.hasPrompt && !inherited.prompt)
    out.push({
      code: 'missing-key',
      severity: 'error',
      message: `${name} has no \`prompt\` or \`messages\``,
      start: s,
      end: e,
    });
  if (!t.hasVerify && !inherited.verify)
    out.push({
      code: 'missing-key',
      severity: 'error',
      message: `${name} has no \`verify\`: give it a verifier, such as \`math: { answer: "72" }\``,
      start: s,
      end: e,
    });
  return out;
}

/** File-level checks that need every task: duplicate ids, and what `defaults` supplies. */
function finish(
  text: string,
  lines: LineIndex,
  parts: FilePart[],
  tasks: TaskEntry[],
  issues: Issue[],
  chunked: boolean,
): TaskFile {
  const inherited = inheritedFrom(parts);
  const firstById = new Map<string, number>();
  for (const t of tasks) issues.push(...taskFileIssues(t, lines, firstById, inherited));
  const notTask = notTaskFile(parts);
  if (notTask) return { text, lines, parts, tasks, issues: [notTask], chunked };
  issues.sort(byStart);
  return { text, lines, parts, tasks, issues, chunked };
}

/** One issue per line whose indentation contains a tab. */
function tabIndents(text: string): Issue[] {
  const out: Issue[] = [];
  // Lines end at `\n` only: `^` with the `m` flag would also match after U+2028 inside a value.
  for (const m of text.matchAll(/(?<=^|\n)[ ]*\t/g)) {
    const at = (m.index ?? 0) + m[0].length - 1;
    out.push({
      code: 'yaml-syntax',
      severity: 'error',
      message: 'tabs are not allowed as indentation',
      start: at,
      end: at + 1,
    });
  }
  return out;
}

/**
 * A block item starts at its line (`  - id: ...`), as in the chunked parse; a flow item where it
 * is. Reads back only over the item's own indentation and dash, never to the line's start: on a
 * one-line file (JSON) that would make the whole-file parse quadratic in the number of tasks.
 */
function itemStart(text: string, nodeStart: number): number {
  let i = nodeStart - 1;
  while (i >= 0 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i--;
  if (i < 0 || text.charCodeAt(i) !== 45 /* - */) return nodeStart;
  i--;
  while (i >= 0 && text.charCodeAt(i) === 32) i--;
  return i < 0 || text.charCodeAt(i) === 10 ? i + 1 : nodeStart;
}

function byStart(a: Issue, b: Issue): number {
  return a.start - b.start || a.end - b.end;
}

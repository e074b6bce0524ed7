import type { NodePath } from '../base/nodePath';
import { splitTaskFile, type Chunk } from '../taskfile/chunks';
import { parseTaskFile, type TaskFile } from '../taskfile/parse';
import { LineIndex } from '../taskfile/text';
import {
  describe,
  getPair,
  keyName,
  toJS,
  type Span,
  type YMap,
  type YNode,
  type YPair,
  type YScalar,
  type YSeq,
} from '../base/ynode';
import { columnAt, eolOf, lineEndAt, lineStartAt, nextLineAt } from './lines';
import { formatPath, isAliasNode, locate, type Located, type Step } from './locate';
import { replaceAt, same, snapEntry, snapItems, snapPairs, toSnap, type Snap } from './snapshot';
import {
  blockItem,
  blockNested,
  blockPair,
  blockScalar,
  doubleQuoted,
  flowPair,
  flowText,
  inlineScalar,
  plainOk,
  plainValue,
  singleOk,
  singleQuoted,
  type Scalar,
} from './render';
import { plural } from '../util/plural';
import { at, must } from '../util/must';

/**
 * Edits a task file for the task panel's form: each change becomes one text edit on just the
 * affected YAML node, so comments and layout elsewhere stay as they are. Every edit is applied
 * to a copy and re-parsed before it is returned: the task must read back exactly as intended,
 * every other task unchanged, with no new syntax error. What fails that check is not returned.
 */

export type { NodePath } from '../base/nodePath';
export type { Scalar } from './render';

/** Replace `length` characters at `offset` (absolute, in `file.text`) with `text`. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly text: string;
}

export type EditResult = { readonly edit: TextEdit } | { readonly error: string };

export function applyEdit(text: string, e: TextEdit): string {
  return text.slice(0, e.offset) + e.text + text.slice(e.offset + e.length);
}

/**
 * Sets the scalar at `path`. `old` is the value the caller last saw: when the file now says
 * something else, the edit is refused rather than overwriting a change the caller never saw.
 */
export function setScalar(file: TaskFile, taskIndex: number, path: NodePath, old: Scalar, value: Scalar): EditResult {
  if (path.length === 0) return { error: 'the path is empty: name the value to set' };
  const at = locate(file, taskIndex, path);
  if ('error' in at) return at;
  const step = lastStep(at);
  const node = step.node;
  const name = `\`${formatPath(path)}\``;
  if (node.type !== 'scalar') return { error: `${name} is ${describe(node)}, not a single value` };
  if (!same(node.value, old))
    return {
      error: `the file changed: ${name} is now ${describe(node)}, not ${describe(scalar(old))}; reload and try again`,
    };
  if (same(node.value, value)) return { edit: { offset: at.base + node.span[0], length: 0, text: '' } };
  const flow = inFlow(at.steps.slice(0, -1));
  const expected = replaceAt(snapEntry(file.text, at.entry), path, () => value);
  return checked(file, taskIndex, scalarEdits(file.text, at.base, step, value, flow), expected, `set ${name}`);
}

/** Appends `item` (text, a number, or a mapping or list of them) to the list at `path`. */
export function appendItem(file: TaskFile, taskIndex: number, path: NodePath, item: unknown): EditResult {
  const at = locate(file, taskIndex, path);
  if ('error' in at) return at;
  const seq = lastStep(at).node;
  if (seq.type !== 'seq') return { error: `\`${formatPath(path)}\` is ${describe(seq)}, not a list` };
  const snapItem = toSnap(item);
  if (snapItem === undefined) return { error: ONLY_PLAIN };
  const edits: TextEdit[] = [];
  for (const quoteAll of [false, true]) {
    const e = appendEdit(file.text, at.base, seq, item, quoteAll);
    if (typeof e === 'string') return { error: `cannot add to \`${formatPath(path)}\`: ${e}` };
    edits.push(e);
  }
  const expected = replaceAt(snapEntry(file.text, at.entry), path, (s) => [...snapItems(s), snapItem]);
  return checked(file, taskIndex, edits, expected, `add to \`${formatPath(path)}\``);
}

/**
 * Removes the list item at `path` (its last segment is the index): a block item with its whole
 * lines, a flow item with one adjacent comma. Removing the only item of a block list leaves `[]`.
 */
export function removeItem(file: TaskFile, taskIndex: number, path: NodePath): EditResult {
  const index = path[path.length - 1];
  if (typeof index !== 'number') return { error: 'the path must end with the index of the item to remove' };
  const listPath = path.slice(0, -1);
  const at = locate(file, taskIndex, listPath);
  if ('error' in at) return at;
  const step = lastStep(at);
  const seq = step.node;
  const where = `\`${formatPath(listPath)}\``;
  if (seq.type !== 'seq') return { error: `${where} is ${describe(seq)}, not a list` };
  if (!Number.isInteger(index) || !seq.items[index])
    return { error: `${where} has no item ${index} (it has ${seq.items.length})` };
  const e = removeEdit(file.text, at, step, seq, index);
  if (typeof e === 'string') return { error: `cannot remove item ${index} of ${where}: ${e}` };
  const expected = replaceAt(snapEntry(file.text, at.entry), listPath, (s) =>
    snapItems(s).filter((_, i) => i !== index),
  );
  return checked(file, taskIndex, [e], expected, `remove item ${index} of ${where}`);
}

/**
 * Adds `{response, expect}` to the task's `cases`, creating `cases:` as the task's last key when
 * absent. An agent sample's case starts with its tool calls, `calls: [{tool: {args}}]`, which
 * the case replays in the environment.
 */
export function addCase(
  file: TaskFile,
  taskIndex: number,
  response: string,
  expect: 'pass' | 'fail',
  calls?: readonly unknown[],
): EditResult {
  const at = locate(file, taskIndex, []);
  if ('error' in at) return at;
  const task = at.steps[0]?.node;
  if (task?.type !== 'map') return { error: 'the task is not a mapping' };
  const pair = getPair(task, 'cases');
  const item = calls ? { calls, response, expect } : { response, expect };
  if (pair?.value?.type === 'seq') return appendItem(file, taskIndex, ['cases'], item);
  const text = file.text;
  const eol = eolOf(text);
  const before = snapEntry(text, at.entry);
  const caseSnap = toSnap(item);
  if (caseSnap === undefined) return { error: ONLY_PLAIN };
  const edits: TextEdit[] = [];
  let expected: Snap;
  if (pair) {
    // Only `cases:` with nothing after it can take a first item; `cases: ~` or a mapping is the author's to fix.
    const v = pair.value;
    if (!v || v.type !== 'scalar' || v.value !== null || v.span[0] !== v.span[1])
      return { error: `\`cases\` is ${describe(v)}, not a list` };
    const dashCol = columnAt(text, at.base + pair.key.span[0]) + 2;
    const offset = lineEndAt(text, at.base + pair.key.span[1]);
    for (const quoteAll of [false, true])
      edits.push({ offset, length: 0, text: eol + blockItem(item, dashCol, 1, eol, { quoteAll, flowMaps: false }) });
    expected = replaceAt(before, ['cases'], () => [caseSnap]);
  } else {
    for (const quoteAll of [false, true]) {
      const render = (keyCol: number | null): string =>
        keyCol === null
          ? flowPair('cases', [item], quoteAll)
          : 'cases:' + eol + blockItem(item, keyCol + 2, 1, eol, { quoteAll, flowMaps: false });
      edits.push(...pairEdits(text, at.base, task, render));
    }
    expected = withPair(before, [], 'cases', [caseSnap]);
  }
  return checked(file, taskIndex, edits, expected, 'add the case');
}

/** Adds `key: value` to the mapping at `path` (the task's own mapping when path is []). Error when the key exists or the node is not a mapping. */
export function addKey(file: TaskFile, taskIndex: number, path: NodePath, key: string, value: unknown): EditResult {
  const at = locate(file, taskIndex, path);
  if ('error' in at) return at;
  const map = lastStep(at).node;
  const where = named(path);
  if (map.type !== 'map') return { error: `${where} is ${describe(map)}, not a mapping` };
  if (getPair(map, key)) return { error: `${where} already has the key \`${key}\`` };
  const snapValue = toSnap(value);
  if (snapValue === undefined) return { error: ONLY_PLAIN };
  const eol = eolOf(file.text);
  const edits: TextEdit[] = [];
  for (const quoteAll of [false, true]) {
    edits.push(
      ...pairEdits(file.text, at.base, map, (keyCol) =>
        keyCol === null ? flowPair(key, value, quoteAll) : blockPair(key, value, keyCol, eol, quoteAll),
      ),
    );
  }
  return checked(
    file,
    taskIndex,
    edits,
    withPair(snapEntry(file.text, at.entry), path, key, snapValue),
    `add \`${key}\` to ${where}`,
  );
}

/**
 * Removes the key (and its value, comments on its lines) from the mapping at `path`. `old` is
 * the value the caller saw (compared deep-equal to the current plain value; mismatch → error
 * that the file changed). A block pair goes with its whole lines, a flow pair with one adjacent
 * comma; the last key of a mapping leaves `{}`, as a key with nothing after it reads as null.
 */
export function removeKey(file: TaskFile, taskIndex: number, path: NodePath, key: string, old: unknown): EditResult {
  const at = locate(file, taskIndex, path);
  if ('error' in at) return at;
  const step = lastStep(at);
  const map = step.node;
  const where = named(path);
  if (map.type !== 'map') return { error: `${where} is ${describe(map)}, not a mapping` };
  const index = map.items.findIndex((p) => keyName(p) === key);
  const pair = map.items[index];
  if (!pair) return { error: `${where} has no key \`${key}\`` };
  if (!same(toJS(pair.value), old))
    return {
      error: `the file changed: \`${formatPath([...path, key])}\` is now ${describe(pair.value)}, not ${shown(old)}; reload and try again`,
    };
  const e = removePairEdit(file.text, at, step, map, index);
  if (typeof e === 'string') return { error: `cannot remove \`${key}\` from ${where}: ${e}` };
  const expected = replaceAt(snapEntry(file.text, at.entry), path, (s) => ({
    pairs: snapPairs(s).filter((_, i) => i !== index),
  }));
  return checked(file, taskIndex, [e], expected, `remove \`${key}\` from ${where}`);
}

/**
 * Gives the key of the mapping at `path` another value, where it is: the key keeps its place
 * among its siblings. In a block mapping the value is written in block style (`blockNested`),
 * comments after it stay; in a flow mapping on one line. `old` is the value the caller saw.
 */
export function replaceValue(
  file: TaskFile,
  taskIndex: number,
  path: NodePath,
  key: string,
  old: unknown,
  value: unknown,
): EditResult {
  const at = locate(file, taskIndex, path);
  if ('error' in at) return at;
  const map = lastStep(at).node;
  const where = named(path);
  if (map.type !== 'map') return { error: `${where} is ${describe(map)}, not a mapping` };
  const index = map.items.findIndex((p) => keyName(p) === key);
  const pair = map.items[index];
  const span = pairSpans(file.text, at.base, map)[index];
  if (!pair || !span) return { error: `${where} has no key \`${key}\` whose value can be replaced` };
  if (!same(toJS(pair.value), old))
    return {
      error: `the file changed: \`${formatPath([...path, key])}\` is now ${describe(pair.value)}, not ${shown(old)}; reload and try again`,
    };
  const snapValue = toSnap(value);
  if (snapValue === undefined) return { error: ONLY_PLAIN };
  const eol = eolOf(file.text);
  const keyCol = columnAt(file.text, span[0]);
  const edits: TextEdit[] = [];
  for (const quoteAll of [false, true]) {
    const text = map.flow
      ? flowPair(key, value, quoteAll)
      : `${inlineScalar(key, false, quoteAll)}:${blockNested(value, keyCol, eol, quoteAll)}`;
    edits.push({ offset: span[0], length: span[1] - span[0], text });
  }
  const expected = replaceAt(snapEntry(file.text, at.entry), [...path, key], () => snapValue);
  return checked(file, taskIndex, edits, expected, `replace \`${key}\` of ${where}`);
}

const ONLY_PLAIN = 'only text, numbers, true/false, null, lists and mappings can be added';

/** `snap` with the pair `key: value` added last to the mapping at `path`. */
function withPair(snap: Snap, path: NodePath, key: string, value: Snap): Snap {
  return replaceAt(snap, path, (s) => ({ pairs: [...snapPairs(s), [key, value] as const] }));
}

/** The value the caller saw, for messages. */
function shown(v: unknown): string {
  if (Array.isArray(v)) return 'the list that was shown';
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    return describe(scalar(v));
  return typeof v === 'object' ? 'the mapping that was shown' : 'what was shown';
}

/** `path` for messages: `verify.math`, or the task. */
function named(path: NodePath): string {
  return path.length === 0 ? 'the task' : `\`${formatPath(path)}\``;
}

/**
 * The first edit that passes the self-check, or an error saying why the last one failed: the
 * edited text must parse with no new syntax error, the task must read back as `expected` and
 * every other task as before.
 */
function checked(
  file: TaskFile,
  taskIndex: number,
  edits: readonly TextEdit[],
  expected: Snap,
  what: string,
): EditResult {
  const chunks = file.chunked ? splitTaskFile(file.text, file.lines) : null;
  let why = 'nothing to try';
  const tried = new Set<string>();
  for (const edit of edits) {
    const key = `${edit.offset}:${edit.length}:${edit.text}`;
    if (tried.has(key)) continue;
    tried.add(key);
    const problem =
      (chunks ? checkChunk(file, chunks, taskIndex, edit, expected) : undefined) ??
      checkWhole(file, taskIndex, edit, expected);
    if (problem === '') return { edit };
    why = problem;
  }
  return { error: `could not ${what} safely: ${why}` };
}

/**
 * The fast check for files read in per-task chunks (most files): when every other chunk is
 * the same text, the chunked parse reads them the same, so only the edited task is parsed.
 * '' when the edit passes, undefined when this check does not apply.
 */
function checkChunk(
  file: TaskFile,
  chunks: readonly Chunk[],
  taskIndex: number,
  edit: TextEdit,
  expected: Snap,
): string | undefined {
  const text = applyEdit(file.text, edit);
  const after = splitTaskFile(text, new LineIndex(text));
  if (!after || after.length !== chunks.length) return undefined;
  let task = -1;
  let target: [Chunk, Chunk] | undefined;
  for (let i = 0; i < chunks.length; i++) {
    const a = at(chunks, i);
    const b = at(after, i);
    if (a.kind !== b.kind) return undefined;
    if (a.kind === 'task' && ++task === taskIndex) target = [a, b];
    else if (a.text !== b.text) return undefined;
  }
  if (!target) return undefined;
  // A chunk is parsed on its own, exactly as it would be in the file.
  const header = 'tasks:' + eolOf(file.text);
  const mini = parseTaskFile(header + target[1].text);
  const entry = mini.tasks[0];
  if (!mini.chunked || mini.tasks.length !== 1 || !entry) return undefined;
  const errors = syntaxErrors(mini);
  if (errors.length > 0 && errors.length > syntaxErrors(parseTaskFile(header + target[0].text)).length)
    return `it would add a YAML syntax error (${errors[0]?.message})`;
  return same(snapEntry(mini.text, entry), expected) ? '' : 'the task would not read back as intended';
}

/** The check for any file: parse all of it again and compare every task. */
function checkWhole(file: TaskFile, taskIndex: number, edit: TextEdit, expected: Snap): string {
  const text = applyEdit(file.text, edit);
  const after = parseTaskFile(text);
  if (after.tasks.length !== file.tasks.length)
    return `the file would have ${plural(after.tasks.length, 'task')} instead of ${file.tasks.length}`;
  const errors = syntaxErrors(after);
  // Counted the same way for the old text, so a file that already has errors can still be edited.
  if (errors.length > 0 && errors.length > syntaxErrors(parseTaskFile(file.text)).length)
    return `it would add a YAML syntax error (${errors[0]?.message})`;
  const changed = after.tasks.findIndex(
    (t, i) => !same(snapEntry(text, t), i === taskIndex ? expected : snapEntry(file.text, at(file.tasks, i))),
  );
  if (changed === -1) return '';
  return changed === taskIndex ? 'the task would not read back as intended' : `task ${changed + 1} would change too`;
}

function syntaxErrors(file: TaskFile): TaskFile['issues'] {
  return file.issues.filter((i) => i.code === 'yaml-syntax' && i.severity === 'error');
}

function scalar(value: Scalar): YScalar {
  return { type: 'scalar', value, span: [0, 0], style: 'plain' };
}

/** The step a located path ends at: `locate` starts every path at the task's own node. */
function lastStep(located: Located): Step {
  return must(located.steps.at(-1), 'a located path has a step');
}

function inFlow(steps: readonly Step[]): boolean {
  return steps.some((s) => s.node.type !== 'scalar' && s.node.flow);
}

/** Inserts whole lines after the line where `end` falls (or right at `end` when it starts a line). */
function insertLines(text: string, end: number, lines: string, eol: string): TextEdit {
  return text[end - 1] === '\n'
    ? { offset: end, length: 0, text: lines + eol }
    : { offset: lineEndAt(text, end), length: 0, text: eol + lines };
}

/**
 * The ways to write `value` over the scalar of `step`, best first: the node's own style when
 * the value allows it (a block scalar stays one, plain stays plain, single quotes stay), a
 * block scalar for multi-line text in block context, and always a double-quoted fallback.
 */
function scalarEdits(text: string, base: number, step: Step, value: Scalar, flow: boolean): TextEdit[] {
  const node = step.node as YScalar;
  let s = base + node.span[0];
  let e = base + node.span[1];
  const eol = eolOf(text);
  // `key:` with no value yet (the parser may place the empty value at a comment after it):
  // the value goes right after the colon, with a space.
  let pad = '';
  if (s === e) {
    while (s > 0 && (text[s - 1] === ' ' || text[s - 1] === '\t')) s--;
    if (/[:-]/.test(text[s - 1] ?? '')) pad = ' ';
    else s = e;
    e = s;
  }
  // A block scalar's span runs from its header to its last line break: the header's comment
  // and that break are kept around whatever replaces it.
  let headerRest = '';
  let brk = '';
  if (node.style === 'block') {
    const hEnd = lineEndAt(text, s);
    const header = /^[|>][0-9+-]*/.exec(text.slice(s, hEnd))?.[0] ?? '';
    headerRest = text.slice(s + header.length, hEnd);
    brk = /\r?\n$/.exec(text.slice(s, e))?.[0] ?? '';
  }
  const inline = (t: string): TextEdit => ({ offset: s, length: e - s, text: pad + t + headerRest + brk });
  if (typeof value !== 'string') return [inline(plainValue(value))];

  const block = (): TextEdit | undefined => {
    const ownerCol = step.pair
      ? columnAt(text, base + step.pair.key.span[0])
      : step.parent
        ? columnAt(text, base + step.parent.span[0])
        : 0;
    let contentCol = ownerCol + 2;
    let end = e;
    let after = headerRest;
    if (node.style === 'block') {
      // Keep the old content's indentation: from its indicator, else from its first line.
      const m = /^[|>]([1-9]?)[+-]?([1-9]?)/.exec(text.slice(s, s + 4));
      const digit = Number(m?.[1] || m?.[2] || 0);
      const firstLine = /^( *)\S/m.exec(text.slice(nextLineAt(text, s), e));
      if (digit) contentCol = ownerCol + digit;
      else if (firstLine && (firstLine[1] ?? '').length > ownerCol) contentCol = (firstLine[1] ?? '').length;
    } else {
      // The new header takes the old value's place; what followed it on the line (a comment) stays after the header.
      end = lineEndAt(text, e);
      after = text.slice(e, end);
      if (!/^[ \t]*(#.*)?$/.test(after)) return undefined;
    }
    const b = blockScalar(value, ownerCol, contentCol, eol);
    return (
      b && {
        offset: s,
        length: end - s,
        text: pad + b.header + after + eol + b.body + (node.style === 'block' ? brk : ''),
      }
    );
  };

  const out: (TextEdit | undefined)[] = [];
  if (!flow && (node.style === 'block' || value.includes('\n'))) out.push(block());
  if (node.style === 'quoted' && text[s] === "'" && singleOk(value)) out.push(inline(singleQuoted(value)));
  if (node.style === 'plain' && plainOk(value, flow)) out.push(inline(value));
  out.push(inline(doubleQuoted(value)));
  return out.filter((x): x is TextEdit => x !== undefined);
}

/** Absolute [start, end) of each item; null for an alias of a collection, whose own text the tree does not locate. */
function itemSpans(text: string, base: number, seq: YSeq): ([number, number] | null)[] {
  let lower = seq.span[0];
  return seq.items.map((c) => {
    if (isAliasNode(text, base, c, lower) && c.type !== 'scalar') return null;
    lower = Math.max(lower, c.span[1]);
    return [base + c.span[0], base + c.span[1]];
  });
}

function appendEdit(text: string, base: number, seq: YSeq, item: unknown, quoteAll: boolean): TextEdit | string {
  const spans = itemSpans(text, base, seq);
  const last = spans[spans.length - 1];
  if (seq.flow) {
    const rendered = flowText(item, quoteAll);
    if (spans.length === 0) {
      const open = base + seq.span[0];
      const close = base + seq.span[1] - 1;
      const inner = text.slice(open + 1, close);
      return /^[ \t]*$/.test(inner)
        ? { offset: open + 1, length: inner.length, text: rendered }
        : { offset: close, length: 0, text: rendered };
    }
    if (!last) return 'its last item is an alias';
    return { offset: last[1], length: 0, text: `, ${rendered}` };
  }
  // A block list: a new `- ` line at the column of the others, as far from the dash as theirs.
  const dashCol = columnAt(text, base + seq.span[0]);
  let gap = 1;
  if (last) {
    const ls = lineStartAt(text, last[0]);
    const between = text.slice(ls + dashCol + 1, last[0]);
    if (text[ls + dashCol] === '-' && /^ +$/.test(between)) gap = between.length;
  }
  const lastNode = seq.items[seq.items.length - 1];
  const flowMaps = Boolean(last && lastNode?.type === 'map' && lastNode.flow);
  return insertLines(
    text,
    base + seq.span[1],
    blockItem(item, dashCol, gap, eolOf(text), { quoteAll, flowMaps }),
    eolOf(text),
  );
}

function removeEdit(text: string, at: Located, step: Step, seq: YSeq, index: number): TextEdit | string {
  const spans = itemSpans(text, at.base, seq);
  const span = spans[index];
  if (!span) return 'it is an alias of a list or mapping';
  if (seq.flow) return flowRemoveEdit(text, spans, index, span, 'item');
  const seqStart = at.base + seq.span[0];
  const dashCol = columnAt(text, seqStart);
  // The item's lines: from the line of its dash (props such as `&a` may sit there, and the
  // item may start on the next line) through the line where it ends.
  let from: number | undefined;
  for (let ls = lineStartAt(text, span[0]); ; ls = lineStartAt(text, ls - 1)) {
    if (
      /^ *-(\s|$)/.test(text.slice(ls, ls + dashCol + 2)) &&
      text.slice(ls, ls + dashCol).trim() === '' &&
      ls + dashCol < span[0]
    ) {
      from = ls;
      break;
    }
    if (ls <= lineStartAt(text, seqStart)) break;
  }
  if (from === undefined) return 'its line also holds other content';
  const to = text[span[1] - 1] === '\n' ? span[1] : nextLineAt(text, span[1]);
  if (seq.items.length === 1) {
    if (!step.pair) return 'it is the only item of a list inside a list';
    return emptyAfterKey(text, at.base, step.pair, from, to, '[]');
  }
  return removeLines(text, from, to);
}

/**
 * Removes item `index` (at `span`) of a flow list or mapping whose items are at `spans`
 * (null for an alias of a collection), with one adjacent comma.
 */
function flowRemoveEdit(
  text: string,
  spans: readonly (Span | null)[],
  index: number,
  span: Span,
  noun: string,
): TextEdit | string {
  const next = spans[index + 1];
  const prev = spans[index - 1];
  if (index + 1 < spans.length)
    return next ? { offset: span[0], length: next[0] - span[0], text: '' } : `the next ${noun} is an alias`;
  if (index > 0)
    return prev ? { offset: prev[1], length: span[1] - prev[1], text: '' } : `the previous ${noun} is an alias`;
  // The only item: a trailing comma goes with it, as `[,]` would not parse.
  const comma = /^\s*,/.exec(text.slice(span[1]))?.[0].length ?? 0;
  return { offset: span[0], length: span[1] + comma - span[0], text: '' };
}

/**
 * Takes out lines [from, to) that hold a key's only item or pair: without them the key would
 * read as null, so it gets `empty` (`[]` or `{}`) after its colon, keeping the key line's comment.
 */
function emptyAfterKey(
  text: string,
  base: number,
  pair: YPair,
  from: number,
  to: number,
  empty: string,
): TextEdit | string {
  const colon = text.indexOf(':', base + pair.key.span[1]) + 1;
  if (colon === 0 || colon > from) return 'it has no key line';
  return { offset: colon, length: to - colon, text: ` ${empty}` + text.slice(colon, from) };
}

/** Removes whole lines [from, to); at the end of a file without a final line break, the break before them goes instead. */
function removeLines(text: string, from: number, to: number): TextEdit {
  if (to === text.length && !text.endsWith('\n') && from > 0) from -= text[from - 2] === '\r' ? 2 : 1;
  return { offset: from, length: to - from, text: '' };
}

/**
 * Absolute end of the last content of `node`: for a block collection that of its last item,
 * as the collection's own span also takes in the comments and blank lines after it.
 */
function contentEnd(text: string, base: number, node: YNode): number {
  if (node.type === 'scalar' || node.flow) return base + node.span[1];
  if (node.type === 'map') {
    const pair = node.items[node.items.length - 1];
    if (!pair) return base + node.span[1];
    // An alias is one token, so one of a collection (whose span is its anchor's) is on its key's line.
    if (!pair.value || (pair.value.type !== 'scalar' && isAliasNode(text, base, pair.value, pair.key.span[1])))
      return base + pair.key.span[1];
    return contentEnd(text, base, pair.value);
  }
  const last = node.items[node.items.length - 1];
  const lower = node.items[node.items.length - 2]?.span[1] ?? node.span[0];
  if (!last || (last.type !== 'scalar' && isAliasNode(text, base, last, lower))) return base + node.span[1];
  return contentEnd(text, base, last);
}

/**
 * `end` moved past the comment lines right after its line that are indented deeper than `col`:
 * they belong to what ends there, not to a key at `col` or before it. A line start when it moved.
 */
function pastComments(text: string, end: number, col: number): number {
  let out = end;
  for (let ls = text[end - 1] === '\n' ? end : nextLineAt(text, end); ls < text.length; ls = nextLineAt(text, ls)) {
    const indent = /^ *#/.exec(text.slice(ls, lineEndAt(text, ls)))?.[0].length;
    if (indent === undefined || indent - 1 <= col) break;
    out = nextLineAt(text, ls);
  }
  return out;
}

/** Absolute [start, end) of each pair, from its key to the end of its value's content; null for a value that is an alias of a collection. */
function pairSpans(text: string, base: number, map: YMap): (Span | null)[] {
  return map.items.map((p) => {
    if (p.value && p.value.type !== 'scalar' && isAliasNode(text, base, p.value, p.key.span[1])) return null;
    return [base + p.key.span[0], p.value ? contentEnd(text, base, p.value) : base + p.key.span[1]];
  });
}

/**
 * Ways to add a pair to `map`, best first. `render(keyCol)` writes the pair: for a block
 * mapping whose keys are at `keyCol`, from the key on (it may span lines); for a flow mapping
 * (keyCol null) on one line. A flow pair goes after the last one, else before the closing
 * brace (`{}` becomes `{ key: value }`); a block pair goes on a new line after the mapping's
 * last line of content, so the blank lines and comments that follow stay after it.
 */
function pairEdits(text: string, base: number, map: YMap, render: (keyCol: number | null) => string): TextEdit[] {
  if (!map.flow) {
    const keyCol = columnAt(text, base + (map.items[0]?.key.span[0] ?? map.span[0]));
    return [
      insertLines(
        text,
        pastComments(text, contentEnd(text, base, map), keyCol),
        ' '.repeat(keyCol) + render(keyCol),
        eolOf(text),
      ),
    ];
  }
  const pair = render(null);
  const edits: TextEdit[] = [];
  const last = pairSpans(text, base, map)[map.items.length - 1];
  if (last) edits.push({ offset: last[1], length: 0, text: `, ${pair}` });
  const close = base + map.span[1] - 1;
  let i = close;
  while (i > 0 && /\s/.test(text[i - 1] ?? '')) i--;
  if (text[i - 1] === '{') edits.push({ offset: i, length: close - i, text: ` ${pair} ` });
  else edits.push({ offset: i, length: 0, text: `${text[i - 1] === ',' ? ' ' : ', '}${pair}` });
  return edits;
}

function removePairEdit(text: string, at: Located, step: Step, map: YMap, index: number): TextEdit | string {
  const spans = pairSpans(text, at.base, map);
  const span = spans[index];
  const pair = map.items[index] as YPair;
  if (map.flow) {
    if (!span) return 'its value is an alias of a list or mapping';
    // The only pair: `{ a: 1 }` becomes `{}`, unless comments inside must stay.
    const open = at.base + map.span[0] + 1;
    const close = at.base + map.span[1] - 1;
    if (map.items.length === 1 && /^[\s,]*$/.test(text.slice(open, span[0]) + text.slice(span[1], close)))
      return { offset: open, length: close - open, text: '' };
    return flowRemoveEdit(text, spans, index, span, 'value');
  }
  const start = at.base + pair.key.span[0];
  const end = pastComments(text, span?.[1] ?? at.base + pair.key.span[1], columnAt(text, start));
  // The pair's lines: from its key's line through the line where its content ends, with the comments under it.
  const from = lineStartAt(text, start);
  const to = text[end - 1] === '\n' ? end : nextLineAt(text, end);
  if (map.items.length === 1) {
    if (step.pair) return emptyAfterKey(text, at.base, step.pair, from, to, '{}');
    // The only key of a list item: `- {}`, up to the line break after the content.
    return {
      offset: start,
      length: lineEndAt(text, text[end - 1] === '\n' ? lineStartAt(text, end - 1) : end) - start,
      text: '{}',
    };
  }
  if (text.slice(from, start).trim() !== '') {
    // `- key: value` on the dash's line: the next key moves up to take its place.
    const next = map.items[index + 1];
    if (index !== 0 || !next) return 'its line also holds other content';
    return { offset: start, length: at.base + next.key.span[0] - start, text: '' };
  }
  return removeLines(text, from, to);
}

import type { NodePath } from '../base/nodePath';
import type { TaskEntry, TaskFile } from '../taskfile/parse';
import { describe, keyName, type YMap, type YNode, type YPair, type YSeq } from '../base/ynode';

/** One node on the way down a path, and how it hangs from its parent. */
export interface Step {
  readonly node: YNode;
  readonly parent?: YMap | YSeq;
  /** The pair whose value the node is, for map values. */
  readonly pair?: YPair;
}

/** Where a path leads inside a task: `steps[0]` is the task's mapping. */
export interface Located {
  readonly entry: TaskEntry;
  /** Absolute offset that the task's spans are relative to. */
  readonly base: number;
  readonly steps: readonly Step[];
}

export const ALIAS_ERROR = 'this value comes from an anchor; edit it there';

/** `verify.constraints[0].num_words`, for messages. */
export function formatPath(path: NodePath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out || 'the task';
}

/**
 * True when `child` stands for an alias. The tree puts a copy of the anchored node in the
 * alias's place: a scalar keeps the alias's span (so its text starts with `*`), a collection
 * keeps the anchor's span, which lies before `lower`, the end of what precedes the child
 * (its key, or the previous item): an anchor always comes before its aliases.
 */
export function isAliasNode(text: string, base: number, child: YNode, lower: number): boolean {
  if (child.type === 'scalar' && child.style === 'alias') return true;
  return child.span[0] < lower || text.charCodeAt(base + child.span[0]) === 42; /* * */
}

/** Follows `path` from the task's mapping, refusing aliases; the error names the segment that failed. */
export function locate(file: TaskFile, taskIndex: number, path: NodePath): Located | { error: string } {
  const entry = file.tasks[taskIndex];
  if (!Number.isInteger(taskIndex) || !entry) return { error: `there is no task ${taskIndex} (the file has ${file.tasks.length} task${file.tasks.length === 1 ? '' : 's'})` };
  if (!entry.node) return { error: `task ${taskIndex + 1} could not be read: fix its syntax first` };
  const base = entry.offset;
  const steps: Step[] = [{ node: entry.node }];
  let node: YNode = entry.node;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] as string | number;
    const where = formatPath(path.slice(0, i));
    let step: Step;
    let lower: number;
    if (typeof seg === 'string' && node.type === 'map') {
      const pair = node.items.find((p) => keyName(p) === seg);
      if (!pair) return { error: `${where} has no key \`${seg}\`` };
      if (!pair.value) return { error: `\`${formatPath(path.slice(0, i + 1))}\` has no value` };
      step = { node: pair.value, parent: node, pair };
      lower = pair.key.span[1];
    } else if (typeof seg === 'number' && node.type === 'seq') {
      const item = Number.isInteger(seg) ? node.items[seg] : undefined;
      if (!item) return { error: `${where} has no item ${seg} (it has ${node.items.length})` };
      step = { node: item, parent: node };
      lower = seg > 0 ? (node.items[seg - 1] as YNode).span[1] : node.span[0];
    } else {
      return { error: `${where} is ${describe(node)}, so it has no ${typeof seg === 'number' ? `item ${seg}` : `key \`${seg}\``}` };
    }
    if (isAliasNode(file.text, base, step.node, lower)) return { error: `\`${formatPath(path.slice(0, i + 1))}\`: ${ALIAS_ERROR}` };
    steps.push(step);
    node = step.node;
  }
  return { entry, base, steps };
}

/**
 * A task's content as plain data for comparing before and after an edit: mappings keep their
 * pairs in order (duplicates too), and aliases are a marker instead of the anchored value, so
 * editing an anchor does not read as a change at every alias.
 */
export type Snap = null | string | number | boolean | readonly Snap[] | { readonly pairs: readonly (readonly [string, Snap])[] } | { readonly alias: 'resolved' | 'missing' };

export function snapshot(text: string, base: number, node: YNode): Snap {
  if (node.type === 'scalar') return node.style === 'alias' ? { alias: 'missing' } : node.value;
  const child = (c: YNode, lower: number): Snap => (isAliasNode(text, base, c, lower) ? (c.type === 'scalar' && c.style === 'alias' ? { alias: 'missing' } : { alias: 'resolved' }) : snapshot(text, base, c));
  if (node.type === 'seq') {
    let lower = node.span[0];
    return node.items.map((c) => {
      const s = child(c, lower);
      lower = Math.max(lower, c.span[1]);
      return s;
    });
  }
  return { pairs: node.items.map((p) => [keyName(p), p.value ? child(p.value, p.key.span[1]) : null] as const) };
}

export function snapEntry(text: string, entry: TaskEntry): Snap {
  return entry.node ? snapshot(text, entry.offset, entry.node) : null;
}

/** Plain data (strings, numbers, booleans, null, arrays, plain objects) as a Snap; undefined for anything else. */
export function toSnap(v: unknown): Snap | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const items = v.map(toSnap);
    return items.every((x) => x !== undefined) ? (items as Snap[]) : undefined;
  }
  if (typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    const pairs: (readonly [string, Snap])[] = [];
    for (const [k, x] of Object.entries(v)) {
      const s = toSnap(x);
      if (s === undefined) return undefined;
      pairs.push([k, s]);
    }
    return { pairs };
  }
  return undefined;
}

/** `snap` with the value at `path` replaced by `fn(old value)`; the path is known to exist. */
export function replaceAt(snap: Snap, path: NodePath, fn: (old: Snap) => Snap): Snap {
  if (path.length === 0) return fn(snap);
  const [seg, ...rest] = path;
  if (Array.isArray(snap)) return snap.map((x: Snap, i) => (i === seg ? replaceAt(x, rest, fn) : x));
  if (snap && typeof snap === 'object' && 'pairs' in snap) {
    const at = snap.pairs.findIndex(([k]) => k === seg);
    return { pairs: snap.pairs.map(([k, x], i) => [k, i === at ? replaceAt(x, rest, fn) : x] as const) };
  }
  return snap;
}

/** Deep equality of Snaps; NaN equals NaN, as a file that says `.nan` twice means the same. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function lineStartAt(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** The end of the line holding `pos`, before its `\n` or `\r\n`. */
export function lineEndAt(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  if (i === -1) return text.length;
  return i > pos && text[i - 1] === '\r' ? i - 1 : i;
}

/** Just after the line break that ends the line holding `pos` (or the end of the text). */
export function nextLineAt(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  return i === -1 ? text.length : i + 1;
}

export function columnAt(text: string, pos: number): number {
  return pos - lineStartAt(text, pos);
}

/** The file's line break, so inserted lines match (CRLF files stay CRLF). */
export function eolOf(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

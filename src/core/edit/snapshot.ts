// Snapshots of a task's content, to check that an edit changed only what it meant to.
import type { NodePath } from '../base/nodePath';
import { keyName, type YNode } from '../base/ynode';
import type { TaskEntry } from '../taskfile/parse';
import { isAliasNode } from './locate';
import { isRecord } from '../base/record';

/**
 * A task's content as plain data for comparing before and after an edit: mappings keep their
 * pairs in order (duplicates too), and aliases are a marker instead of the anchored value, so
 * editing an anchor does not read as a change at every alias.
 */
export type Snap =
  | null
  | string
  | number
  | boolean
  | readonly Snap[]
  | { readonly pairs: readonly (readonly [string, Snap])[] }
  | { readonly alias: 'resolved' | 'missing' };

export function snapshot(text: string, base: number, node: YNode): Snap {
  if (node.type === 'scalar') return node.style === 'alias' ? { alias: 'missing' } : node.value;
  const child = (c: YNode, lower: number): Snap =>
    isAliasNode(text, base, c, lower)
      ? c.type === 'scalar' && c.style === 'alias'
        ? { alias: 'missing' }
        : { alias: 'resolved' }
      : snapshot(text, base, c);
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
    const items: Snap[] = [];
    for (const x of v) {
      const s = toSnap(x);
      if (s === undefined) return undefined;
      items.push(s);
    }
    return items;
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

/** A mapping's Snap. */
export type SnapMap = Extract<Snap, { readonly pairs: unknown }>;

/** The items of a list Snap, at a path the edit found a list at; anything else is a fault of the edit, said here. */
export function snapItems(s: Snap): readonly Snap[] {
  if (Array.isArray(s)) return s;
  throw new Error(`expected a list in the snapshot, not ${JSON.stringify(s)}`);
}

/** The pairs of a mapping Snap, at a path the edit found a mapping at. */
export function snapPairs(s: Snap): SnapMap['pairs'] {
  if (s !== null && typeof s === 'object' && 'pairs' in s) return s.pairs;
  throw new Error(`expected a mapping in the snapshot, not ${JSON.stringify(s)}`);
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
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => same(a[k], b[k]));
}

import { isAlias, isMap, isPair, isScalar, isSeq, type Node as YamlNode, type Pair } from 'yaml';

/**
 * A small, plain tree over what the `yaml` package parsed, with source ranges relative to the
 * start of the chunk it came from. Keeping ranges relative lets the editor reuse the tree of a
 * task whose text did not change even when an edit above it moved it.
 */
export type YNode = YMap | YSeq | YScalar;

/** [start, end) offsets, relative to the owning chunk. */
export type Span = readonly [number, number];

export interface YScalar {
  readonly type: 'scalar';
  readonly value: string | number | boolean | null;
  readonly span: Span;
  /** How the scalar was written: quoted and block scalars are always strings. */
  readonly style: 'plain' | 'quoted' | 'block';
}

export interface YPair {
  readonly key: YScalar;
  /** Null when the key has no value at all (`key:` at the end of a map). */
  readonly value: YNode | null;
  readonly span: Span;
}

export interface YMap {
  readonly type: 'map';
  readonly items: readonly YPair[];
  readonly span: Span;
  readonly flow: boolean;
}

export interface YSeq {
  readonly type: 'seq';
  readonly items: readonly YNode[];
  readonly span: Span;
  readonly flow: boolean;
}

/** Converts a `yaml` node into a YNode whose offsets are shifted by `-base`. */
export function fromYaml(node: unknown, base: number): YNode | null {
  if (node === null || node === undefined) return null;
  const n = node as YamlNode;
  const r = n.range ?? [base, base, base];
  const span: Span = [r[0] - base, r[1] - base];
  if (isMap(n)) {
    const items: YPair[] = [];
    for (const p of n.items) items.push(pairFromYaml(p, base));
    return { type: 'map', items, span, flow: Boolean(n.flow) };
  }
  if (isSeq(n)) {
    const items: YNode[] = [];
    for (const it of n.items) {
      const c = fromYaml(it, base);
      items.push(c ?? { type: 'scalar', value: null, span: [span[0], span[0]], style: 'plain' });
    }
    return { type: 'seq', items, span, flow: Boolean(n.flow) };
  }
  if (isScalar(n)) {
    const v = n.value;
    const value = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : v === null || v === undefined ? null : String(v);
    const t = n.type;
    const style = t === 'QUOTE_DOUBLE' || t === 'QUOTE_SINGLE' ? 'quoted' : t === 'BLOCK_FOLDED' || t === 'BLOCK_LITERAL' ? 'block' : 'plain';
    return { type: 'scalar', value: typeof value === 'bigint' ? Number(value) : value, span, style };
  }
  if (isAlias(n)) {
    // Aliases are resolved by value in toJS; in the tree they read as their source text.
    return { type: 'scalar', value: `*${n.source}`, span, style: 'plain' };
  }
  return null;
}

function pairFromYaml(p: Pair<unknown, unknown>, base: number): YPair {
  const keyNode = isPair(p) ? p.key : null;
  const k = fromYaml(keyNode, base);
  const value = fromYaml(p.value, base);
  const key: YScalar =
    k === null
      ? { type: 'scalar', value: null, span: value ? [value.span[0], value.span[0]] : [0, 0], style: 'plain' }
      : k.type === 'scalar'
        ? k
        : { type: 'scalar', value: '[complex key]', span: k.span, style: 'plain' };
  const end = value ? value.span[1] : key.span[1];
  return { key, value, span: [key.span[0], end] };
}

/** The key of a pair as a string (YAML allows numbers and booleans as keys). */
export function keyName(p: YPair): string {
  return String(p.key.value);
}

export function getPair(map: YMap, key: string): YPair | undefined {
  for (const p of map.items) if (keyName(p) === key) return p;
  return undefined;
}

export function get(map: YMap, key: string): YNode | null | undefined {
  return getPair(map, key)?.value;
}

/** Plain JavaScript value of a node, as validators see it. */
export function toJS(node: YNode | null | undefined): unknown {
  if (!node) return null;
  switch (node.type) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toJS);
    case 'map': {
      const o: Record<string, unknown> = {};
      for (const p of node.items) o[keyName(p)] = toJS(p.value);
      return o;
    }
  }
}

/** Follows a path of keys and indices; returns the deepest node reached and the pair of the last key. */
export function resolvePath(root: YNode, path: readonly PropertyKey[]): { node: YNode; pair?: YPair; rest: PropertyKey[] } {
  let node: YNode = root;
  let pair: YPair | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (node.type === 'map' && typeof seg === 'string') {
      const p = getPair(node, seg);
      if (!p) return { node, pair, rest: path.slice(i) };
      pair = p;
      if (!p.value) return { node, pair, rest: path.slice(i + 1) };
      node = p.value;
    } else if (node.type === 'seq' && typeof seg === 'number' && node.items[seg]) {
      pair = undefined;
      node = node.items[seg];
    } else {
      return { node, pair, rest: path.slice(i) };
    }
  }
  return { node, pair, rest: [] };
}

/** Short description of a node for messages: `string "ten"`, `a list`, `a mapping`. */
export function describe(node: YNode | null | undefined): string {
  if (!node) return 'nothing';
  if (node.type === 'map') return 'a mapping';
  if (node.type === 'seq') return 'a list';
  const v = node.value;
  if (v === null) return 'null';
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? v.slice(0, 37) + '...' : v)}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `the integer ${v}` : `the number ${v}`;
  return `the boolean ${v}`;
}

import {
  isAlias,
  isDocument,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Alias,
  type Node as YamlNode,
  type Pair,
} from 'yaml';
import { LIMITS } from './limits';

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
  readonly style: 'plain' | 'quoted' | 'block' | 'alias';
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

/** Resolves aliases while converting; records when one points outside the parsed text. */
export interface AliasScope {
  /** What each alias of the document names: the last node before it with that anchor. */
  readonly targets: ReadonlyMap<Alias, YamlNode>;
  /** Nodes that expanding aliases may produce before conversion stops (see LIMITS). */
  readonly budget: number;
  unresolved: boolean;
  /** Aliases that name no anchor, with their spans (relative to the base they were read at). */
  readonly missing: { name: string; span: Span }[];
  /** Aliases being expanded, so a recursive anchor (`&a [*a]`) cannot loop. */
  readonly expanding: Set<unknown>;
  /** Alias uses expanded so far, and nodes they produced (see LIMITS). */
  expansions: number;
  expandedNodes: number;
  /** Current nesting depth while converting. */
  depth: number;
  /** The first limit broken, where: conversion stops expanding and nesting past it. */
  overflow?: { readonly span: Span; readonly message: string };
}

/**
 * An alias scope over a parsed document. `budget` is what is left of the whole file's
 * allowance of expanded nodes when the document is one piece of a file.
 */
export function aliasScope(doc: unknown, budget: number = LIMITS.aliasNodes): AliasScope {
  return {
    targets: aliasTargets(doc),
    budget,
    unresolved: false,
    missing: [],
    expanding: new Set(),
    expansions: 0,
    expandedNodes: 0,
    depth: 0,
  };
}

/**
 * Every alias of a document with the node it names, in one walk in document order. The `yaml`
 * package's `Alias.resolve` walks the document up to the alias each time it is called, which
 * makes a file with many aliases quadratic (minutes for a megabyte); this is linear.
 */
function aliasTargets(doc: unknown): Map<Alias, YamlNode> {
  const targets = new Map<Alias, YamlNode>();
  const anchors = new Map<string, YamlNode>();
  // An explicit stack (children pushed in reverse) keeps document order without recursion,
  // so a deeply nested document cannot exhaust the call stack here.
  const stack: unknown[] = [isDocument(doc) ? doc.contents : doc];
  while (stack.length > 0) {
    const n = stack.pop();
    if (isAlias(n)) {
      const target = anchors.get(n.source);
      if (target) targets.set(n, target);
    } else if (isPair(n)) {
      stack.push(n.value, n.key);
    } else if (isMap(n) || isSeq(n) || isScalar(n)) {
      // The anchor is set before the children are seen: `&a [*a]` names itself (and is refused).
      if (n.anchor) anchors.set(n.anchor, n);
      if (!isScalar(n)) for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i]);
    }
  }
  return targets;
}

/** The error of a file whose aliases, together, expand past LIMITS.aliasNodes. */
export function aliasNodesMessage(): string {
  return `aliases in this file expand to more than ${LIMITS.aliasNodes} values: use fewer aliases or smaller anchors`;
}

/** Records the first broken limit; later ones follow from it and would only repeat it. */
function overflow(scope: AliasScope, span: Span, message: string): void {
  scope.overflow ??= { span, message };
}

/** Converts a `yaml` node into a YNode whose offsets are shifted by `-base`. */
export function fromYaml(node: unknown, base: number, aliases?: AliasScope): YNode | null {
  if (node === null || node === undefined) return null;
  const n = node as YamlNode;
  const r = n.range ?? [base, base, base];
  const span: Span = [r[0] - base, r[1] - base];
  if (aliases && aliases.expanding.size > 0 && ++aliases.expandedNodes > aliases.budget) {
    overflow(aliases, span, aliasNodesMessage());
    return { type: 'scalar', value: null, span, style: 'plain' };
  }
  if ((isMap(n) || isSeq(n)) && aliases && aliases.depth >= LIMITS.depth) {
    overflow(aliases, span, `values nest more than ${LIMITS.depth} levels deep: flatten this value`);
    return { type: 'scalar', value: null, span, style: 'plain' };
  }
  if (isMap(n)) {
    const items: YPair[] = [];
    if (aliases) aliases.depth++;
    for (const p of n.items) items.push(pairFromYaml(p, base, aliases));
    if (aliases) aliases.depth--;
    return { type: 'map', items, span, flow: Boolean(n.flow) };
  }
  if (isSeq(n)) {
    const items: YNode[] = [];
    if (aliases) aliases.depth++;
    for (const it of n.items) {
      const c = fromYaml(it, base, aliases);
      items.push(c ?? { type: 'scalar', value: null, span: [span[0], span[0]], style: 'plain' });
    }
    if (aliases) aliases.depth--;
    return { type: 'seq', items, span, flow: Boolean(n.flow) };
  }
  if (isScalar(n)) {
    const v = n.value;
    const value =
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? v
        : v === null || v === undefined
          ? null
          : String(v);
    const t = n.type;
    const style =
      t === 'QUOTE_DOUBLE' || t === 'QUOTE_SINGLE'
        ? 'quoted'
        : t === 'BLOCK_FOLDED' || t === 'BLOCK_LITERAL'
          ? 'block'
          : 'plain';
    return { type: 'scalar', value: typeof value === 'bigint' ? Number(value) : value, span, style };
  }
  if (isAlias(n)) {
    // An alias reads as the node its anchor names; where that is unknown here, the caller
    // learns it (and parses a larger piece of text) instead of validating `*name` as text.
    const target = aliases && !aliases.expanding.has(n) ? aliases.targets.get(n) : undefined;
    if (!target || !aliases) {
      if (aliases) {
        aliases.unresolved = true;
        aliases.missing.push({ name: n.source, span });
      }
      return { type: 'scalar', value: `*${n.source}`, span, style: 'alias' };
    }
    // vtask expands aliases itself (the `yaml` package's own alias cap applies only to its
    // toJS), so it bounds them here: an alias bomb of nine anchors of nine aliases is 9^9 values.
    if (++aliases.expansions > LIMITS.aliases) {
      overflow(
        aliases,
        span,
        `more than ${LIMITS.aliases} aliases are expanded here (\`*${n.source}\`): use fewer aliases`,
      );
      return { type: 'scalar', value: `*${n.source}`, span, style: 'alias' };
    }
    if (aliases.overflow) return { type: 'scalar', value: `*${n.source}`, span, style: 'alias' };
    aliases.expanding.add(n);
    const resolved = fromYaml(target, base, aliases);
    aliases.expanding.delete(n);
    return resolved && resolved.type === 'scalar' ? { ...resolved, span } : resolved;
  }
  return null;
}

function pairFromYaml(p: Pair<unknown, unknown>, base: number, aliases?: AliasScope): YPair {
  const keyNode = isPair(p) ? p.key : null;
  const k = fromYaml(keyNode, base, aliases);
  const value = fromYaml(p.value, base, aliases);
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
export function resolvePath(
  root: YNode,
  path: readonly PropertyKey[],
): { node: YNode; pair?: YPair; rest: PropertyKey[] } {
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

/**
 * The expression tree the math verifier works on. It is our own (not mathjs's) so that the
 * parser can cap depth and size, and so that comparisons can tell an exact `2/3` from a
 * written decimal `0.67` (the `approx` flag on numbers).
 */
import type { Rational } from './rational';

export type Node =
  /** `base` marks a numeral written in another base (1011_2): its value, and the base it was written in. */
  | { readonly t: 'num'; readonly v: Rational; readonly approx: boolean; readonly base?: number }
  | { readonly t: 'sym'; readonly name: string; readonly sub?: Node }
  | { readonly t: 'const'; readonly name: 'pi' | 'e' | 'inf' }
  | { readonly t: 'add'; readonly args: readonly Node[] }
  | { readonly t: 'mul'; readonly args: readonly Node[] }
  | { readonly t: 'neg'; readonly arg: Node }
  | { readonly t: 'div'; readonly num: Node; readonly den: Node }
  | { readonly t: 'pow'; readonly base: Node; readonly exp: Node }
  | { readonly t: 'pm'; readonly a: Node | null; readonly b: Node; readonly sign: 1 | -1 }
  | { readonly t: 'fn'; readonly name: string; readonly args: readonly Node[] }
  | { readonly t: 'call'; readonly name: string; readonly args: readonly Node[] }
  | { readonly t: 'percent'; readonly arg: Node }
  | {
      readonly t: 'bigop';
      readonly op: 'sum' | 'prod';
      readonly v: string;
      readonly lo: Node;
      readonly hi: Node;
      readonly body: Node;
    }
  | { readonly t: 'rel'; readonly ops: readonly RelOp[]; readonly args: readonly Node[] }
  | { readonly t: 'tuple'; readonly items: readonly Node[] }
  | { readonly t: 'list'; readonly items: readonly Node[] }
  | { readonly t: 'set'; readonly items: readonly Node[] }
  | { readonly t: 'interval'; readonly lo: Node; readonly hi: Node; readonly loOpen: boolean; readonly hiOpen: boolean }
  | { readonly t: 'union'; readonly items: readonly Node[] }
  | { readonly t: 'ratio'; readonly items: readonly Node[] }
  | { readonly t: 'matrix'; readonly rows: readonly (readonly Node[])[] }
  | { readonly t: 'text'; readonly s: string };

export type RelOp = '=' | '<' | '<=' | '>' | '>=' | '!=' | 'in' | 'approx';

/** The children of a node, for generic walks (size, free symbols, printing guards). */
export function children(n: Node): readonly Node[] {
  switch (n.t) {
    case 'add':
    case 'mul':
    case 'fn':
    case 'call':
      return n.args;
    case 'neg':
    case 'percent':
      return [n.arg];
    case 'div':
      return [n.num, n.den];
    case 'pow':
      return [n.base, n.exp];
    case 'pm':
      return n.a ? [n.a, n.b] : [n.b];
    case 'bigop':
      return [n.lo, n.hi, n.body];
    case 'rel':
      return n.args;
    case 'tuple':
    case 'list':
    case 'set':
    case 'union':
    case 'ratio':
      return n.items;
    case 'interval':
      return [n.lo, n.hi];
    case 'matrix':
      return n.rows.flat();
    case 'sym':
      return n.sub ? [n.sub] : [];
    default:
      return [];
  }
}

/** Iterative (never recursive) check, so hostile trees cannot overflow the stack here. */
export function someNode(root: Node, pred: (n: Node) => boolean): boolean {
  const stack: Node[] = [root];
  for (let n = stack.pop(); n; n = stack.pop()) {
    if (pred(n)) return true;
    for (const c of children(n)) stack.push(c);
  }
  return false;
}

/** Free symbols, excluding variables bound by sums and products. */
export function freeSymbols(root: Node, bound: ReadonlySet<string> = new Set()): Set<string> {
  const out = new Set<string>();
  const walk = (n: Node, b: ReadonlySet<string>, depth: number): void => {
    if (depth > 400) return;
    if (n.t === 'sym') {
      if (!n.sub && !b.has(n.name)) out.add(n.name);
      if (n.sub) walk(n.sub, b, depth + 1);
      return;
    }
    if (n.t === 'bigop') {
      walk(n.lo, b, depth + 1);
      walk(n.hi, b, depth + 1);
      walk(n.body, new Set([...b, n.v]), depth + 1);
      return;
    }
    for (const c of children(n)) walk(c, b, depth + 1);
  };
  walk(root, bound, 0);
  return out;
}

export const num = (v: Rational, approx = false): Node => ({ t: 'num', v, approx });

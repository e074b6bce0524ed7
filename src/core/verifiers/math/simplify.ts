/**
 * The second stage for pairs that evaluation could not decide: mathjs's `simplify` of the
 * difference. Imported only by the worker, so mathjs (large, and synchronous without a
 * time limit) never loads in the extension host or the CLI's main thread.
 */
import type { Node } from './ast';

// Only simplify's factory is pulled in (about a third of mathjs, and a third of its load time).
// mathjs's types are published as an ES module; esbuild bundles the import either way.
// @ts-expect-error TS1479: an ES module imported from CommonJS, which only the type checker minds.
import { create, simplifyDependencies } from 'mathjs';

const math = (create as typeof import('mathjs', { with: { 'resolution-mode': 'import' } }).create)({
  simplifyDependencies,
} as never);

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Our tree as mathjs expression text; unknown functions stay symbolic. */
export function toMathjs(n: Node): string {
  const p = (x: Node): string => `(${toMathjs(x)})`;
  switch (n.t) {
    case 'num':
      return n.v.d === 1n ? n.v.n.toString() : `(${n.v.n}/${n.v.d})`;
    case 'sym': {
      const base = n.name.replace(/^\\/, '').replace(/'/g, '_prime');
      const name = n.sub ? `${base}_${toMathjs(n.sub).replace(/[^A-Za-z0-9]/g, '_')}` : base;
      return NAME.test(name) ? name : `v_${[...name].map((ch) => ch.charCodeAt(0)).join('_')}`;
    }
    case 'const':
      return n.name === 'inf' ? 'Infinity' : n.name;
    case 'neg':
      return `-${p(n.arg)}`;
    case 'add':
      return n.args.map(p).join(' + ');
    case 'mul':
      return n.args.map(p).join(' * ');
    case 'div':
      return `${p(n.num)} / ${p(n.den)}`;
    case 'pow':
      return `${p(n.base)} ^ ${p(n.exp)}`;
    case 'percent':
      return `${p(n.arg)} / 100`;
    case 'fn': {
      const a = n.args.map(toMathjs);
      switch (n.name) {
        case 'root':
          return `(${a[0]}) ^ (1 / (${a[1]}))`;
        case 'ln':
          return `log(${a[0]})`;
        case 'logb':
          return `log(${a[0]}, ${a[1]})`;
        case 'binom':
          return `combinations(${a[0]}, ${a[1]})`;
        case 'arcsin':
        case 'arccos':
        case 'arctan':
          return `a${n.name.slice(3)}(${a[0]})`;
        default:
          return `${n.name}(${a.join(', ')})`;
      }
    }
    case 'call':
      return `${n.name.replace(/[^A-Za-z0-9]/g, '_')}_f(${n.args.map(toMathjs).join(', ')})`;
    default:
      throw new Error(`cannot simplify ${n.t}`);
  }
}

/** True when a − b simplifies to 0; 'undecided' otherwise (simplify cannot prove inequality). */
export function simplifyEqual(a: Node, b: Node): boolean | 'undecided' {
  try {
    const r = math.simplify(`(${toMathjs(a)}) - (${toMathjs(b)})`);
    const s = r.toString();
    return s === '0' ? true : 'undecided';
  } catch {
    return 'undecided';
  }
}

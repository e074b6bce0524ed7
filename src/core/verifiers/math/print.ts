/** A readable one-line form of a tree for verdict details ("normalized"), depth- and length-bounded. */
import type { Node } from './ast';
import { at } from '../../util/must';

const OPS: Record<string, string> = {
  '=': '=',
  '<': '<',
  '<=': '≤',
  '>': '>',
  '>=': '≥',
  '!=': '≠',
  in: '∈',
  approx: '≈',
};

export function printNode(n: Node, max = 200): string {
  const s = print(n, 0);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

function print(n: Node, depth: number): string {
  if (depth > 60) return '…';
  const p = (x: Node): string => print(x, depth + 1);
  const wrap = (x: Node): string => (['add', 'neg', 'pm', 'rel'].includes(x.t) ? `(${p(x)})` : p(x));
  switch (n.t) {
    case 'num':
      if (n.base) return `${n.v.n.toString(n.base)}_${n.base}`;
      return n.v.d === 1n ? n.v.n.toString() : n.approx ? String(Number(n.v.n) / Number(n.v.d)) : `${n.v.n}/${n.v.d}`;
    case 'sym':
      return n.sub ? `${n.name}_${wrap(n.sub)}` : n.name;
    case 'const':
      return n.name === 'pi' ? 'π' : n.name === 'inf' ? '∞' : 'e';
    case 'neg':
      return `-${wrap(n.arg)}`;
    case 'add':
      return n.args.map((a, i) => (i > 0 && a.t === 'neg' ? `- ${wrap(a.arg)}` : (i > 0 ? '+ ' : '') + p(a))).join(' ');
    case 'mul':
      return n.args.map(wrap).join('·');
    case 'div':
      return `${wrap(n.num)}/${wrap(n.den)}`;
    case 'pow':
      return `${wrap(n.base)}^${wrap(n.exp)}`;
    case 'pm':
      return `${n.a ? p(n.a) + ' ' : ''}${n.sign > 0 ? '±' : '∓'} ${wrap(n.b)}`;
    case 'fn':
      return n.name === 'factorial' ? `${wrap(at(n.args, 0))}!` : `${n.name}(${n.args.map(p).join(', ')})`;
    case 'call':
      return `${n.name}(${n.args.map(p).join(', ')})`;
    case 'percent':
      return `${wrap(n.arg)}%`;
    case 'bigop':
      return `${n.op}(${n.v}=${p(n.lo)}..${p(n.hi)}, ${p(n.body)})`;
    case 'rel':
      return n.args.map((a, i) => (i > 0 ? ` ${OPS[at(n.ops, i - 1)]} ` : '') + p(a)).join('');
    case 'tuple':
      return `(${n.items.map(p).join(', ')})`;
    case 'list':
      return n.items.map(p).join(', ');
    case 'set':
      return `{${n.items.map(p).join(', ')}}`;
    case 'interval':
      return `${n.loOpen ? '(' : '['}${p(n.lo)}, ${p(n.hi)}${n.hiOpen ? ')' : ']'}`;
    case 'union':
      return n.items.map(p).join(' ∪ ');
    case 'ratio':
      return n.items.map(p).join(':');
    case 'matrix':
      return `[${n.rows.map((r) => `[${r.map(p).join(', ')}]`).join(', ')}]`;
    case 'text':
      return `"${n.s}"`;
  }
}

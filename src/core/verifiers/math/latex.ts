/**
 * LaTeX (and plain-text math) → expression tree. A focused recursive-descent parser rather
 * than a general LaTeX engine: it reads what models write in final answers, and refuses
 * (throws ParseError) on anything else, so an unreadable answer is reported as unparsed
 * instead of being matched by some number inside it. Nesting depth and token count are
 * capped, so 10,000 nested `\frac{` or 5,000 parentheses are refused without a stack overflow.
 */
import { children, someNode, type Node, type RelOp } from './ast';
import { fromDecimal, rat, type Rational } from './rational';
import { at, must } from '../../util/must';

/**
 * An answer the parser refuses. Expected (most wrong answers are prose or half an expression),
 * so it is made without a stack trace: capturing one cost more than the parse that failed. It
 * is still an Error (`instanceof`, `name`, `message`); its constructor only skips Error's own.
 */
export class ParseError {
  readonly name = 'ParseError';
  constructor(readonly message: string) {}
}
Object.setPrototypeOf(ParseError.prototype, Error.prototype);

/** Deepest nesting the parser follows; far below what would overflow the JS stack. */
export const MAX_DEPTH = 120;
const MAX_TOKENS = 8_000;

type Tok =
  | { k: 'num'; s: string }
  | { k: 'id'; s: string } // one letter
  | { k: 'word'; s: string } // a run of letters that is no known name
  | { k: 'cmd'; s: string } // \name (without the backslash)
  | { k: 'text'; s: string } // \text{...} and friends, content kept
  | { k: 'begin'; s: string }
  | { k: 'end'; s: string }
  | { k: 'op'; s: string }; // punctuation and operators

const FUNCS = new Set([
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'arcsin',
  'arccos',
  'arctan',
  'sinh',
  'cosh',
  'tanh',
  'ln',
  'log',
  'exp',
  'lg',
  'arccot',
  'arcsec',
  'arccsc',
  'sqrt',
  'det',
  'max',
  'min',
  'gcd',
  'lcm',
  'floor',
  'ceil',
]);
const WORD_FUNCS = new Set([...FUNCS, 'abs']);
const CONNECTORS = new Set(['and', 'or', 'und', 'et']);
const GREEK = new Set([
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'varepsilon',
  'zeta',
  'eta',
  'theta',
  'vartheta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'rho',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'varphi',
  'chi',
  'psi',
  'omega',
  'Gamma',
  'Delta',
  'Theta',
  'Lambda',
  'Xi',
  'Sigma',
  'Phi',
  'Psi',
  'Omega',
]);
/** Letters read as function names when followed by `(`: f(x), g(2), P(x), W(n). */
const CALL_LETTERS = new Set(['f', 'g', 'h', 'F', 'G', 'H', 'P', 'Q', 'W']);
const TEXT_CMDS = new Set([
  'text',
  'textbf',
  'textit',
  'textrm',
  'textnormal',
  'mbox',
  'mathrm',
  'textsf',
  'texttt',
  'operatorname',
  'hbox',
  'emph',
]);
const UNWRAP_CMDS = new Set([
  'mathbf',
  'boldsymbol',
  'mathit',
  'mathsf',
  'bm',
  'overline',
  'vec',
  'hat',
  'bar',
  'tilde',
  'widehat',
  'overrightarrow',
  'mathbb',
  'mathcal',
  'boxed',
  'fbox',
  'underline',
  'pmb',
  'textup',
  'ensuremath',
]);
const REL: Record<string, RelOp> = {
  '=': '=',
  '==': '=',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
  '!=': '!=',
  le: '<=',
  leq: '<=',
  leqslant: '<=',
  ge: '>=',
  geq: '>=',
  geqslant: '>=',
  lt: '<',
  gt: '>',
  ne: '!=',
  neq: '!=',
  in: 'in',
  approx: 'approx',
  simeq: 'approx',
  equiv: '=',
  Rightarrow: '=',
  implies: '=',
  to: 'approx',
};

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = s.length;
  const readGroup = (): string => {
    // Brace-matched content of a `{...}` right at i (after whitespace), or '' when absent.
    while (i < n && s[i] === ' ') i++;
    if (s[i] !== '{') return '';
    let depth = 0;
    const start = i + 1;
    for (; i < n; i++) {
      const c = s[i];
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        i++;
        return s.slice(start, i - 1);
      }
    }
    throw new ParseError('unbalanced braces');
  };
  while (i < n) {
    if (out.length > MAX_TOKENS) throw new ParseError('answer too long');
    const c = at(s, i);
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      // The pattern matches every string (perhaps empty), so there is always a first match.
      let lit = /^\d*(?:\.\d+)?/.exec(s.slice(i, i + 4000))?.[0] ?? '';
      if (lit === '' || lit === '.') lit = c;
      // "5." at the end of a sentence: the dot is punctuation.
      out.push({ k: 'num', s: lit });
      i += lit.length;
      if (s[i] === '.' && !/[0-9]/.test(s[i + 1] ?? '')) i++;
      continue;
    }
    if (/[a-zA-Z]/.test(c)) {
      let j = i;
      while (j < n && /[a-zA-Z]/.test(at(s, j))) j++;
      let w = s.slice(i, j);
      // "1orW(x)": a connector glued to the next name (models drop spaces).
      const glued = /^(or|and)(?=[A-Z])/.exec(w);
      if (glued) j = i + glued[0].length;
      w = s.slice(i, j);
      i = j;
      if (w.length === 1) out.push({ k: 'id', s: w });
      else if (WORD_FUNCS.has(w)) out.push({ k: 'cmd', s: w });
      else if (w === 'pi') out.push({ k: 'cmd', s: 'pi' });
      else if (w === 'inf' || w === 'infty' || w === 'oo' || w === 'infinity') out.push({ k: 'cmd', s: 'infty' });
      else if (CONNECTORS.has(w.toLowerCase())) out.push({ k: 'op', s: ',' });
      else if (
        w.length === 2 &&
        !/^(?:cm|mm|km|kg|mg|ml|ft|in|hr|am|pm|is|of|to|be|it|as|at|by|we|so|if|on|no|ok|sq)$/.test(w)
      ) {
        // Two letters are a product in math mode (ab, xy, AB), except the few words above.
        out.push({ k: 'id', s: at(w, 0) }, { k: 'id', s: at(w, 1) });
      } else out.push({ k: 'word', s: w });
      continue;
    }
    if (c === '\\') {
      const m = /^\\([a-zA-Z]+|.)/.exec(s.slice(i, i + 40));
      if (!m) {
        i++;
        continue;
      }
      const name = at(m, 1);
      i += m[0].length;
      if (TEXT_CMDS.has(name)) {
        const content = readGroup();
        // \text{ and } between values separates them like a comma.
        out.push(
          /^\s*(?:,|;|and|or|,\s*and|,\s*or)?\s*$/i.test(content) ? { k: 'op', s: ',' } : { k: 'text', s: content },
        );
        continue;
      }
      if (name === 'begin' || name === 'end') {
        const env = readGroup().replace(/\*$/, '');
        if (name === 'begin' && env === 'array') readGroup();
        out.push({ k: name, s: env });
        continue;
      }
      if (name === '{' || name === '}') {
        out.push({ k: 'op', s: name === '{' ? '\\{' : '\\}' });
        continue;
      }
      if (name === '%') {
        out.push({ k: 'op', s: '%' });
        continue;
      }
      if (name === '\\') {
        out.push({ k: 'op', s: '\\\\' });
        continue;
      }
      if (name === '|') {
        out.push({ k: 'op', s: '|' });
        continue;
      }
      if (name === ' ' || name === ',' || name === ';' || name === '!') continue;
      out.push({ k: 'cmd', s: name });
      continue;
    }
    const two = s.slice(i, i + 2);
    if (two === '<=' || two === '>=' || two === '!=' || two === '==') {
      out.push({ k: 'op', s: two });
      i += 2;
      continue;
    }
    if (c === '*' && s[i + 1] === '*') {
      out.push({ k: 'op', s: '^' });
      i += 2;
      continue;
    }
    if ("+-*/^_()[]{},;=<>!|&:'".includes(c)) {
      out.push({ k: 'op', s: c });
      i++;
      continue;
    }
    if (c === '.' || c === '?' || c === '"') {
      i++;
      continue;
    }
    throw new ParseError(`unexpected character ${JSON.stringify(c)}`);
  }
  return out;
}

const isOp = (t: Tok | undefined, s: string): boolean => !!t && t.k === 'op' && t.s === s;
const isCmd = (t: Tok | undefined, s: string): boolean => !!t && t.k === 'cmd' && t.s === s;

function relOf(t: Tok | undefined): RelOp | undefined {
  if (!t) return undefined;
  if (t.k === 'op' && REL[t.s]) return REL[t.s];
  if (t.k === 'cmd' && Object.prototype.hasOwnProperty.call(REL, t.s)) return REL[t.s];
  return undefined;
}

const numNode = (v: Rational, approx = false): Node => ({ t: 'num', v, approx });

/** A plain decimal integer (digits only) as `parseMath` reads it without a base. */
export function integerNode(digits: string): Node {
  return literal(digits);
}

function literal(s: string): Node {
  const [ip, fp] = s.split('.');
  const v = fromDecimal(ip ?? '0', fp ?? '');
  if (!v) throw new ParseError('number too long');
  return numNode(v, fp !== undefined);
}

export interface ParseOptions {
  /** Integers written without a base subscript are numerals in this base (the task's `base`). */
  readonly base?: number;
}

/** One-letter units written in \\text{} after a number (5\\text{ m}, 2\\,\\text{L}), dropped like unit words. */
const UNIT_LETTERS = /^[mgsLlKAVWNJhCFTHBbt]$/;

class Parser {
  private i = 0;
  private depth = 0;
  private absDepth = 0;
  /** Set when a unit (trailing words) was dropped, so details can say so. */
  units: string[] = [];

  constructor(
    private readonly toks: Tok[],
    private readonly opts: ParseOptions = {},
  ) {}

  private peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  private next(): Tok | undefined {
    return this.toks[this.i++];
  }
  private expectOp(s: string): void {
    const t = this.next();
    if (!isOp(t, s)) throw new ParseError(`expected ${s}`);
  }
  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new ParseError('nested too deeply');
  }
  private leave(): void {
    this.depth--;
  }

  parseAll(): Node {
    const node = this.parseList(new Set());
    if (this.i < this.toks.length) throw new ParseError(`unexpected ${describe(this.peek())}`);
    return node;
  }

  /** Comma/semicolon/"and" separated items; `;` groups bind looser than `,`. */
  private parseList(closers: ReadonlySet<string>): Node {
    const groups: Node[][] = [[]];
    let sawSemicolon = false;
    for (;;) {
      const t = this.peek();
      if (!t || (t.k === 'op' && closers.has(t.s)) || t.k === 'end' || isOp(t, '\\\\') || isOp(t, '&')) break;
      if (isOp(t, ',')) {
        this.next();
        continue;
      }
      if (isOp(t, ';')) {
        this.next();
        sawSemicolon = true;
        groups.push([]);
        continue;
      }
      at(groups, groups.length - 1).push(this.parseRelation());
      const after = this.peek();
      if (
        after &&
        !(
          after.k === 'op' &&
          (closers.has(after.s) || after.s === ',' || after.s === ';' || after.s === '\\\\' || after.s === '&')
        ) &&
        after.k !== 'end'
      ) {
        throw new ParseError(`unexpected ${describe(after)}`);
      }
    }
    const nonEmpty = groups.filter((g) => g.length > 0);
    if (nonEmpty.length === 0) throw new ParseError('empty answer');
    const asNode = (g: Node[]): Node => (g.length === 1 ? at(g, 0) : { t: 'list', items: g });
    if (sawSemicolon && nonEmpty.length > 1) return { t: 'list', items: nonEmpty.map(asNode) };
    return asNode(nonEmpty.flat());
  }

  private parseRelation(): Node {
    const args = [this.parseRatio()];
    const ops: RelOp[] = [];
    for (;;) {
      const op = relOf(this.peek());
      if (!op) break;
      this.next();
      ops.push(op);
      args.push(this.parseRatio());
    }
    return ops.length ? { t: 'rel', ops, args } : at(args, 0);
  }

  private parseRatio(): Node {
    const items = [this.parseUnion()];
    while (isOp(this.peek(), ':')) {
      this.next();
      if (!this.peek() || relOf(this.peek()) || isOp(this.peek(), ',')) break;
      items.push(this.parseUnion());
    }
    return items.length > 1 ? { t: 'ratio', items } : at(items, 0);
  }

  private parseUnion(): Node {
    const items = [this.parseAdd()];
    for (;;) {
      const t = this.peek();
      if (!t) break;
      if (isCmd(t, 'cup')) {
        this.next();
        items.push(this.parseAdd());
      } else if (isCmd(t, 'cap') || isCmd(t, 'setminus')) {
        this.next();
        const rhs = this.parseAdd();
        const lhs = must(items.pop(), 'the first operand is on the list');
        items.push({ t: 'fn', name: t.s, args: [lhs, rhs] });
      } else break;
    }
    return items.length > 1 ? { t: 'union', items } : at(items, 0);
  }

  private parseAdd(): Node {
    let terms: Node[] = [];
    let pm: Node | null = null;
    const first = this.peek();
    if (isCmd(first, 'pm') || isCmd(first, 'mp')) {
      this.next();
      terms.push({ t: 'pm', a: null, b: this.parseMul(), sign: first?.s === 'mp' ? -1 : 1 });
    } else terms.push(this.parseMul());
    for (;;) {
      const t = this.peek();
      if (isOp(t, '+')) {
        this.next();
        terms.push(this.parseMul());
      } else if (isOp(t, '-')) {
        this.next();
        terms.push({ t: 'neg', arg: this.parseMul() });
      } else if (isCmd(t, 'pm') || isCmd(t, 'mp')) {
        this.next();
        const a: Node = terms.length === 1 ? at(terms, 0) : { t: 'add', args: terms };
        pm = { t: 'pm', a, b: this.parseMul(), sign: t?.s === 'mp' ? -1 : 1 };
        terms = [pm];
      } else break;
    }
    return terms.length === 1 ? at(terms, 0) : { t: 'add', args: terms };
  }

  private startsFactor(t: Tok | undefined): boolean {
    if (!t) return false;
    if (t.k === 'num' || t.k === 'id' || t.k === 'begin') return true;
    if (t.k === 'cmd')
      return (
        !relOf(t) &&
        !['cup', 'cap', 'setminus', 'pm', 'mp', 'cdot', 'times', 'div', 'ldots', 'dots', 'cdots'].includes(t.s)
      );
    if (t.k === 'op') return t.s === '(' || t.s === '\\{' || (t.s === '|' && this.absDepth === 0) || t.s === '{';
    return false;
  }

  private parseMul(): Node {
    let acc = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (isOp(t, '*') || isCmd(t, 'cdot') || isCmd(t, 'times') || isCmd(t, 'ast')) {
        this.next();
        acc = mulOf(acc, this.parseUnary());
      } else if (isOp(t, '/') || isCmd(t, 'div')) {
        this.next();
        acc = { t: 'div', num: acc, den: this.parseUnary() };
      } else if (t && (t.k === 'word' || t.k === 'text')) {
        // Words after a value are units or nouns ("15 cm^2", "125 miles", "3 hours"): dropped.
        // A text group holding a number or a connector is handled by the primary/list parsers.
        if (t.k === 'text' && textRole(t.s) !== 'unit' && !this.unitLetter(t.s, acc)) {
          if (textRole(t.s) === 'number') throw new ParseError('two numbers side by side');
          break;
        }
        // Prose ("No valid answer here") is not a text answer: only one word or \text{} is.
        // Units follow numbers ("3 hours"); words after bare letters ("I do not know") are prose.
        if (acc.t === 'text' || !someNode(acc, (x) => x.t === 'num')) throw new ParseError('prose, not an answer');
        this.next();
        this.units.push(t.s.trim());
        this.skipUnitTail(acc);
      } else if (this.startsFactor(t)) {
        const mixed = this.mixedNumber(acc);
        if (mixed) {
          acc = mixed;
          continue;
        }
        // Two numbers side by side ("2 3", "\\frac{37}{56}1") are a typo or a trick, never a product.
        if (t?.k === 'num') throw new ParseError('two numbers side by side');
        acc = mulOf(acc, this.parsePostfix());
      } else break;
    }
    return acc;
  }

  /** After a unit: its power (m^2, s^{-1}) and a product or quotient with another unit (kg\\cdot\\text{m}, \\text{m}/\\text{s}). */
  private skipUnitTail(acc: Node): void {
    if (isOp(this.peek(), '^')) {
      if (this.peek(1)?.k === 'num') this.i += 2;
      else if (isOp(this.peek(1), '{') && this.peek(2)?.k === 'num' && isOp(this.peek(3), '}')) this.i += 4;
      else if (
        isOp(this.peek(1), '{') &&
        isOp(this.peek(2), '-') &&
        this.peek(3)?.k === 'num' &&
        isOp(this.peek(4), '}')
      )
        this.i += 5;
    }
    const op = this.peek();
    const next = this.peek(1);
    if (
      (isCmd(op, 'cdot') || isOp(op, '/')) &&
      next?.k === 'text' &&
      (textRole(next.s) === 'unit' || this.unitLetter(next.s, acc))
    )
      this.i++;
  }

  /** A one-letter \\text{} group after a plain number is a unit (5\\text{ m}), not a variable. */
  private unitLetter(text: string, acc: Node): boolean {
    return (
      UNIT_LETTERS.test(text.trim()) &&
      someNode(acc, (x) => x.t === 'num') &&
      !someNode(acc, (x) => x.t === 'sym' || x.t === 'call')
    );
  }

  /**
   * A whole number followed by a proper fraction of whole numbers is a mixed number:
   * 3\\frac{1}{2}, 3\\frac12 and 3 1/2 are 7/2 (and -3\\frac{1}{2} is -7/2), not products.
   */
  private mixedNumber(acc: Node): Node | null {
    const whole = acc.t === 'neg' ? acc.arg : acc;
    if (whole.t !== 'num' || whole.approx || whole.base || whole.v.d !== 1n || whole.v.n < 0n) return null;
    const int = (k: number): bigint | null => {
      const t = this.peek(k);
      return t?.k === 'num' && /^\d+$/.test(t.s) ? BigInt(t.s) : null;
    };
    let num: bigint | null = null;
    let den: bigint | null = null;
    let len = 0;
    const next = this.peek(1);
    if (isCmd(this.peek(), 'frac')) {
      if (isOp(next, '{') && isOp(this.peek(3), '}') && isOp(this.peek(4), '{') && isOp(this.peek(6), '}'))
        [num, den, len] = [int(2), int(5), 7];
      else if (next?.k === 'num' && /^\d\d$/.test(next.s))
        [num, den, len] = [BigInt(at(next.s, 0)), BigInt(at(next.s, 1)), 2];
    } else if (isOp(this.peek(1), '/')) [num, den, len] = [int(0), int(2), 3];
    if (num === null || den === null || num <= 0n || num >= den) return null;
    const after = this.peek(len);
    if (isOp(after, '^') || isOp(after, '_') || isOp(after, '!')) return null;
    this.i += len;
    const v = rat(whole.v.n * den + num, den);
    if (!v) throw new ParseError('number too long');
    const n = numNode(v);
    return acc.t === 'neg' ? { t: 'neg', arg: n } : n;
  }

  private parseUnary(): Node {
    const t = this.peek();
    if (isOp(t, '-')) {
      this.next();
      this.enter();
      const arg = this.parseUnary();
      this.leave();
      return { t: 'neg', arg };
    }
    if (isOp(t, '+')) {
      this.next();
      return this.parseUnary();
    }
    if (isCmd(t, 'pm') || isCmd(t, 'mp')) {
      this.next();
      return { t: 'pm', a: null, b: this.parseUnary(), sign: t?.s === 'mp' ? -1 : 1 };
    }
    return this.parsePostfix();
  }

  /** The argument of ^ or _: a braced group or a single token (x^2, x^-1, a_n). */
  private parseScript(): Node {
    this.enter();
    try {
      const t = this.peek();
      if (isOp(t, '{')) return this.parseBraced();
      if (isOp(t, '-')) {
        this.next();
        return { t: 'neg', arg: this.parseScript() };
      }
      if (t?.k === 'num') {
        this.next();
        // `x^23` in LaTeX is x^2·3, but models mean x^{23}; plain text readers agree.
        return literal(t.s);
      }
      return this.parsePrimary();
    } finally {
      this.leave();
    }
  }

  private parsePostfix(): Node {
    let base = this.parsePrimary();
    for (;;) {
      const t = this.peek();
      if (isOp(t, '^')) {
        this.next();
        const exp = this.parseScript();
        base = { t: 'pow', base, exp };
      } else if (isOp(t, '_')) {
        this.next();
        const sub = this.parseScript();
        base = subscript(base, sub);
      } else if (isOp(t, '!') && !isOp(this.peek(1), '=')) {
        this.next();
        base = { t: 'fn', name: 'factorial', args: [base] };
      } else if (isOp(t, '%')) {
        this.next();
        base = { t: 'percent', arg: base };
      } else if (isOp(t, "'")) {
        this.next();
        if (base.t === 'sym') base = { ...base, name: base.name + "'" };
        else throw new ParseError('unexpected prime');
      } else if (
        isOp(t, '(') &&
        base.t === 'sym' &&
        (CALL_LETTERS.has(base.name) || base.sub) &&
        !base.name.includes("'x")
      ) {
        this.next();
        this.enter();
        const inner = this.parseList(new Set([')']));
        this.leave();
        this.expectOp(')');
        base = { t: 'call', name: symKey(base), args: inner.t === 'list' ? inner.items : [inner] };
      } else break;
    }
    return base;
  }

  private parseBraced(): Node {
    this.expectOp('{');
    this.enter();
    const inner = this.peek() && isOp(this.peek(), '}') ? null : this.parseList(new Set(['}']));
    this.leave();
    this.expectOp('}');
    if (!inner) throw new ParseError('empty group');
    return inner;
  }

  /** A function argument: (x), {x}, or one factor (\sin x, \ln 2). */
  private parseFnArg(): Node {
    const t = this.peek();
    if (isOp(t, '(') || isOp(t, '{')) return this.parsePostfix();
    this.enter();
    const a = this.parsePostfix();
    let acc = a;
    // \sin 2x: the argument runs over a coefficient and following letters.
    while (this.peek()?.k === 'id' && (acc.t === 'num' || acc.t === 'sym' || acc.t === 'mul'))
      acc = mulOf(acc, this.parsePostfix());
    this.leave();
    return acc;
  }

  private fracArg(): Node {
    const t = this.peek();
    if (t?.k === 'num' && !t.s.includes('.') && t.s.length > 1) {
      // \frac12: the first digit is the numerator; the rest stays for the denominator.
      this.toks[this.i] = { k: 'num', s: t.s.slice(1) };
      return literal(at(t.s, 0));
    }
    if (isOp(t, '{')) return this.parseBraced();
    this.enter();
    const r = this.parsePrimary();
    this.leave();
    return r;
  }

  private parsePrimary(): Node {
    const t = this.next();
    if (!t) throw new ParseError('unexpected end');
    this.enter();
    try {
      return this.primaryOf(t);
    } finally {
      this.leave();
    }
  }

  private primaryOf(t: Tok): Node {
    switch (t.k) {
      case 'num':
        // With the task's base, integers are numerals in it; a subscript names its own base.
        if (this.opts.base && /^\d+$/.test(t.s) && !isOp(this.peek(), '_')) return inBase(t.s, this.opts.base);
        return literal(t.s);
      case 'id':
        if (t.s === 'e' && !isOp(this.peek(), '_')) return { t: 'const', name: 'e' };
        return { t: 'sym', name: t.s };
      case 'word':
        // A lone word (a text answer such as "odd" or "Evelyn"); words after values are units.
        return { t: 'text', s: t.s };
      case 'text': {
        const role = textRole(t.s);
        if (role === 'number' || role === 'letter') return new Parser(tokenize(t.s.trim()), this.opts).parseAll();
        return { t: 'text', s: t.s.trim() };
      }
      case 'begin':
        return this.parseEnv(t.s);
      case 'end':
        throw new ParseError(`unexpected \\end{${t.s}}`);
      case 'op':
        return this.primaryOp(t.s);
      case 'cmd':
        return this.primaryCmd(t.s);
    }
  }

  private primaryOp(s: string): Node {
    if (s === '(' || s === '[') {
      const inner = this.parseList(new Set([')', ']']));
      const close = this.next();
      if (!close || close.k !== 'op' || (close.s !== ')' && close.s !== ']'))
        throw new ParseError('unbalanced brackets');
      const items = inner.t === 'list' ? inner.items : [inner];
      if (items.length === 1 && inner.t !== 'list') {
        if (s === '(' && close.s === ')') return inner;
        if (s === '[' && close.s === ']' && inner.t !== 'num' && inner.t !== 'sym') return inner;
      }
      if (items.length === 2 && (s === '[' || close.s === ']')) {
        return { t: 'interval', lo: at(items, 0), hi: at(items, 1), loOpen: s === '(', hiOpen: close.s === ')' };
      }
      if (
        (items.length === 2 && s === '(' && items.some((x) => x.t === 'const' && x.name === 'inf')) ||
        (items.length === 2 && items.some((x) => x.t === 'neg' && x.arg.t === 'const' && x.arg.name === 'inf'))
      ) {
        return { t: 'interval', lo: at(items, 0), hi: at(items, 1), loOpen: true, hiOpen: true };
      }
      return { t: 'tuple', items };
    }
    if (s === '\\{' || s === '{') {
      const closer = s === '{' ? '}' : '\\}';
      if (isOp(this.peek(), closer)) {
        this.next();
        return { t: 'set', items: [] };
      }
      const inner = this.parseList(new Set([closer]));
      this.expectOp(closer);
      if (s === '{' && inner.t !== 'list') return inner;
      return { t: 'set', items: inner.t === 'list' ? inner.items : [inner] };
    }
    if (s === '|') {
      this.absDepth++;
      const inner = this.parseAdd();
      this.absDepth--;
      this.expectOp('|');
      return { t: 'fn', name: 'abs', args: [inner] };
    }
    throw new ParseError(`unexpected ${s}`);
  }

  private primaryCmd(name: string): Node {
    if (name === 'frac' || name === 'over') {
      const num = this.fracArg();
      const den = this.fracArg();
      return { t: 'div', num, den };
    }
    if (name === 'binom' || name === 'choose') {
      const a = this.fracArg();
      const b = this.fracArg();
      return { t: 'fn', name: 'binom', args: [a, b] };
    }
    if (name === 'sqrt') {
      let index: Node | null = null;
      if (isOp(this.peek(), '[')) {
        this.next();
        index = this.parseAdd();
        this.expectOp(']');
      }
      const arg = isOp(this.peek(), '(') ? this.parsePostfix() : this.fracArg();
      return index ? { t: 'fn', name: 'root', args: [arg, index] } : { t: 'fn', name: 'sqrt', args: [arg] };
    }
    if (name === 'pi') return { t: 'const', name: 'pi' };
    if (name === 'infty' || name === 'infin') return { t: 'const', name: 'inf' };
    if (name === 'ldots' || name === 'dots' || name === 'cdots' || name === 'dotsc' || name === 'vdots')
      return { t: 'sym', name: '…' };
    if (name === 'emptyset' || name === 'varnothing' || name === 'O') return { t: 'set', items: [] };
    if (name === 'lfloor' || name === 'lceil') {
      const inner = this.parseAdd();
      const close = this.next();
      if (!close || close.k !== 'cmd' || (close.s !== 'rfloor' && close.s !== 'rceil'))
        throw new ParseError('unbalanced floor');
      return { t: 'fn', name: name === 'lfloor' ? 'floor' : 'ceil', args: [inner] };
    }
    if (name === 'langle') {
      const inner = this.parseList(new Set());
      const close = this.next();
      if (!close || close.k !== 'cmd' || close.s !== 'rangle') throw new ParseError('unbalanced angle brackets');
      return { t: 'tuple', items: inner.t === 'list' ? inner.items : [inner] };
    }
    if (name === 'sum' || name === 'prod') return this.parseBigOp(name);
    if (UNWRAP_CMDS.has(name)) return this.fracArg();
    if (GREEK.has(name)) return { t: 'sym', name };
    if (FUNCS.has(name) || name === 'abs') return this.parseFunction(name);
    if (name === 'mathrm' || name === 'operatorname') return this.fracArg();
    // Unknown commands act as named symbols (\zzz), so identical answers still compare equal.
    return { t: 'sym', name: '\\' + name };
  }

  private parseFunction(name: string): Node {
    let power: Node | null = null;
    let base: Node | null = null;
    for (let k = 0; k < 2; k++) {
      if (isOp(this.peek(), '^')) {
        this.next();
        power = this.parseScript();
      } else if (isOp(this.peek(), '_')) {
        this.next();
        base = this.parseScript();
      }
    }
    const arg = this.parseFnArg();
    const args = arg.t === 'list' || arg.t === 'tuple' ? [...arg.items] : [arg];
    let call: Node;
    if (name === 'log' && base) call = { t: 'fn', name: 'logb', args: [at(args, 0), base] };
    else if (name === 'lg') call = { t: 'fn', name: 'log10', args };
    else call = { t: 'fn', name: name === 'log' ? 'ln' : name, args };
    // \sin^{-1} is the inverse function, not a reciprocal.
    if (
      power &&
      power.t === 'neg' &&
      power.arg.t === 'num' &&
      power.arg.v.n === 1n &&
      power.arg.v.d === 1n &&
      /^(sin|cos|tan)$/.test(name)
    ) {
      return { t: 'fn', name: 'arc' + name, args };
    }
    return power ? { t: 'pow', base: call, exp: power } : call;
  }

  private parseBigOp(op: 'sum' | 'prod'): Node {
    let lo: Node | null = null;
    let hi: Node | null = null;
    let v = '';
    for (let k = 0; k < 2; k++) {
      if (isOp(this.peek(), '_')) {
        this.next();
        const sub = this.parseScript();
        if (sub.t === 'rel' && sub.ops[0] === '=' && sub.args[0]?.t === 'sym') {
          v = symKey(sub.args[0]);
          lo = at(sub.args, 1);
        } else throw new ParseError('unsupported sum bounds');
      } else if (isOp(this.peek(), '^')) {
        this.next();
        hi = this.parseScript();
      }
    }
    if (!lo || !hi) throw new ParseError('sum without bounds');
    this.enter();
    const body = this.parseMul();
    this.leave();
    return { t: 'bigop', op, v, lo, hi, body };
  }

  private parseEnv(env: string): Node {
    if (!/^(?:p|b|B|v|V|small)?matrix$|^array$/.test(env)) throw new ParseError(`unsupported environment ${env}`);
    const rows: Node[][] = [[]];
    for (;;) {
      const t = this.peek();
      if (!t) throw new ParseError(`unclosed ${env}`);
      if (t.k === 'end') {
        this.next();
        break;
      }
      if (isOp(t, '&')) {
        this.next();
        continue;
      }
      if (isOp(t, '\\\\')) {
        this.next();
        rows.push([]);
        continue;
      }
      at(rows, rows.length - 1).push(this.parseRelation());
    }
    const full = rows.filter((r) => r.length > 0);
    if (full.length === 0) throw new ParseError('empty matrix');
    const width = at(full, 0).length;
    if (full.some((r) => r.length !== width)) throw new ParseError('ragged matrix');
    const m: Node = { t: 'matrix', rows: full };
    return env === 'vmatrix' ? { t: 'fn', name: 'det', args: [m] } : m;
  }
}

function describe(t: Tok | undefined): string {
  if (!t) return 'end';
  return t.k === 'cmd' ? `\\${t.s}` : JSON.stringify(t.s);
}

function mulOf(a: Node, b: Node): Node {
  if (a.t === 'mul') return { t: 'mul', args: [...a.args, b] };
  return { t: 'mul', args: [a, b] };
}

/** What a \text{...} group means: a number, a single letter, a connector or a unit/word. */
function textRole(s: string): 'number' | 'letter' | 'connector' | 'unit' {
  const x = s.trim();
  if (/^[+-]?(\d+(\.\d+)?|\.\d+)$/.test(x)) return 'number';
  if (/^[a-zA-Z]$/.test(x)) return 'letter';
  if (x === '' || /^(,|and|or|;)$/i.test(x) || /^(,\s*)?(and|or)\b/i.test(x)) return 'connector';
  return 'unit';
}

export function symKey(n: Node): string {
  if (n.t === 'sym') return n.sub ? `${n.name}_${printKey(n.sub)}` : n.name;
  return printKey(n);
}

function printKey(n: Node): string {
  if (n.t === 'num') return n.v.d === 1n ? n.v.n.toString() : `${n.v.n}/${n.v.d}`;
  if (n.t === 'sym') return symKey(n);
  return JSON.stringify(n, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** A numeral in a base: its value, marked with the base so that 1011_2 never equals 11. */
function inBase(digits: string, radix: number): Node {
  if (radix < 2 || radix > 36 || ![...digits].every((d) => parseInt(d, 36) < radix))
    throw new ParseError(`digits do not fit base ${radix}`);
  let v = 0n;
  for (const d of digits) v = v * BigInt(radix) + BigInt(parseInt(d, 36));
  const r = rat(v);
  if (!r) throw new ParseError('number too long');
  return radix === 10 ? numNode(r) : { t: 'num', v: r, approx: false, base: radix };
}

/** x_1, a_{37}, F_{n-k-1}; on a number a subscript is a base (204_5). */
function subscript(base: Node, sub: Node): Node {
  if (base.t === 'num' && !base.approx && sub.t === 'num' && sub.v.d === 1n) {
    // The digits as written: a numeral already read in the task's base is re-read in its own.
    const digits = base.base ? base.v.n.toString(base.base) : base.v.n.toString();
    return inBase(digits, Number(sub.v.n));
  }
  // Subscripts are names (S_{MBCN}, v_{max}), so words there are not prose.
  if (sub.t === 'text') sub = { t: 'sym', name: sub.s };
  if (base.t === 'sym' && !base.sub) return { t: 'sym', name: base.name, sub };
  if (base.t === 'const' && base.name === 'e') return { t: 'sym', name: 'e', sub };
  throw new ParseError('unexpected subscript');
}

/**
 * Words are an answer only on their own ("odd", "Evelyn", an item of a list): inside
 * arithmetic they mean the text was prose, which must be reported as unparsed.
 */
function checkText(n: Node, itemLevel: boolean, depth: number): void {
  if (depth > MAX_DEPTH * 4) throw new ParseError('nested too deeply');
  if (n.t === 'text') {
    if (!itemLevel) throw new ParseError('words mixed with math');
    return;
  }
  const itemish = n.t === 'list' || n.t === 'set' || n.t === 'tuple';
  for (const c of children(n)) checkText(c, itemish, depth + 1);
}

/** Evaluators recurse over the tree: bound its depth (x^2^2^2... chains bypass the parser's own count). */
const MAX_TREE_DEPTH = 200;

function treeDepth(root: Node): number {
  let max = 0;
  const stack: [Node, number][] = [[root, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [n, d] = top;
    if (d > max) max = d;
    if (max > MAX_TREE_DEPTH) return max;
    for (const c of children(n)) stack.push([c, d + 1]);
  }
  return max;
}

export interface Parsed {
  readonly node: Node;
  /** Words dropped after values ("cm", "miles"). */
  readonly units: readonly string[];
}

/** Why an answer with nothing to parse is not read. */
export const EMPTY_ANSWER = 'empty answer';

/** Parses prepared text (see normalize.ts) into a tree, or throws ParseError. */
export function parseMath(s: string, opts: ParseOptions = {}): Parsed {
  const toks = tokenize(s);
  if (toks.length === 0) throw new ParseError(EMPTY_ANSWER);
  const p = new Parser(toks, opts);
  const node = p.parseAll();
  checkText(node, true, 0);
  if (treeDepth(node) > MAX_TREE_DEPTH) throw new ParseError('nested too deeply');
  return { node, units: p.units };
}

/**
 * Three evaluators over the tree: exact (BigInt rationals, refusing oversized results), float
 * (at a point, NaN outside the domain) and log-magnitude (for values a float cannot hold,
 * such as 1000000! or 2^(2^20)). All recursion is depth-capped by the parser's MAX_DEPTH
 * bound on tree depth, and every loop spends steps from the caller's budget: a count of
 * work, not of time, so the same pair gets the same verdict however busy the machine is.
 */
import type { Node } from './ast';
import * as R from './rational';
import type { Rational } from './rational';
import { at } from '../../util/must';

export class TimeoutError extends Error {}

/** Steps left; shared by every comparison that one budget pays for. */
export interface StepCounter {
  left: number;
}

export interface Budget {
  /** Evaluation gives up (throws TimeoutError) once these steps are spent. */
  readonly steps: StepCounter;
}

export const stepBudget = (steps: number): StepCounter => ({ left: steps });

const MAX_FACTORIAL = 3000;

export function tick(b: Budget): void {
  // One step per node evaluated (and per round of a long loop): cheap to count, and
  // proportional to the work done.
  if (--b.steps.left < 0) throw new TimeoutError('step budget exceeded');
}

/** The exact rational value of a closed expression, or null (irrational, symbolic, too large). */
export function exact(n: Node, b: Budget): Rational | null {
  tick(b);
  switch (n.t) {
    case 'num':
      return n.v;
    case 'neg': {
      const v = exact(n.arg, b);
      return v && R.neg(v);
    }
    case 'add': {
      let acc: Rational | null = R.ZERO;
      for (const a of n.args) {
        const v = exact(a, b);
        if (!v || !acc) return null;
        acc = R.add(acc, v);
      }
      return acc;
    }
    case 'mul': {
      let acc: Rational | null = R.ONE;
      for (const a of n.args) {
        const v = exact(a, b);
        if (!v || !acc) return null;
        acc = R.mul(acc, v);
      }
      return acc;
    }
    case 'div': {
      const x = exact(n.num, b);
      const y = exact(n.den, b);
      return x && y ? R.div(x, y) : null;
    }
    case 'percent': {
      const x = exact(n.arg, b);
      return x && R.div(x, { n: 100n, d: 1n });
    }
    case 'pow': {
      const e = exact(n.exp, b);
      if (!e) return null;
      const x = exact(n.base, b);
      if (!x) return null;
      if (e.d === 1n) return R.powInt(x, e.n);
      if (e.d > 64n || x.n < 0n) return null;
      const q = Number(e.d);
      const rn = R.intRoot(x.n, q);
      const rd = R.intRoot(x.d, q);
      return rn !== null && rd !== null ? R.powInt({ n: rn, d: rd }, e.n) : null;
    }
    case 'fn':
      return exactFn(n.name, n.args, b);
    default:
      return null;
  }
}

function exactFn(name: string, args: readonly Node[], b: Budget): Rational | null {
  const x = args[0] ? exact(args[0], b) : null;
  if (!x) return null;
  switch (name) {
    case 'sqrt':
    case 'root': {
      const k =
        name === 'sqrt'
          ? R.ONE.n * 2n
          : (() => {
              const v = args[1] ? exact(args[1], b) : null;
              return v && v.d === 1n ? v.n : 0n;
            })();
      if (k < 2n || k > 64n) return null;
      const rn = R.intRoot(x.n, Number(k));
      const rd = R.intRoot(x.d, Number(k));
      return rn !== null && rd !== null ? R.rat(rn, rd) : null;
    }
    case 'abs':
      return x.n < 0n ? R.neg(x) : x;
    case 'factorial': {
      if (x.d !== 1n || x.n < 0n || x.n > BigInt(MAX_FACTORIAL)) return null;
      let acc = 1n;
      for (let i = 2n; i <= x.n; i++) {
        acc *= i;
        if ((i & 255n) === 0n) tick(b);
      }
      return R.rat(acc);
    }
    case 'binom': {
      const k = args[1] ? exact(args[1], b) : null;
      if (!k || x.d !== 1n || k.d !== 1n || x.n < 0n || x.n > 20000n) return null;
      if (k.n < 0n || k.n > x.n) return R.ZERO;
      let acc = 1n;
      const kk = k.n < x.n - k.n ? k.n : x.n - k.n;
      for (let i = 1n; i <= kk; i++) acc = (acc * (x.n - kk + i)) / i;
      return R.rat(acc);
    }
    case 'floor':
    case 'ceil': {
      const q = x.n / x.d;
      const r = x.n % x.d;
      if (r === 0n) return R.rat(q);
      return R.rat(name === 'floor' ? (x.n < 0n ? q - 1n : q) : x.n < 0n ? q : q + 1n);
    }
    default:
      return null;
  }
}

/** A deterministic stand-in value for f(x), a_{37}, F_{n-k-1}: the same inputs give the same value. */
export function opaque(name: string, args: readonly number[]): number {
  let h = 2166136261;
  const key = name + ':' + args.map((a) => (Number.isFinite(a) ? a.toPrecision(10) : String(a))).join(',');
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return 0.5 + ((h >>> 0) % 1_000_003) / 500_000;
}

export type Env = ReadonlyMap<string, number>;

/** The float value at a point; NaN outside the domain (√ of a negative, log of 0, ...). */
export function approx(n: Node, env: Env, b: Budget): number {
  tick(b);
  switch (n.t) {
    case 'num':
      return R.toNumber(n.v);
    case 'sym':
      if (n.sub) return opaque(n.name, [approx(n.sub, env, b)]);
      return env.get(n.name) ?? opaque(n.name, []);
    case 'const':
      return n.name === 'pi' ? Math.PI : n.name === 'e' ? Math.E : Infinity;
    case 'neg':
      return -approx(n.arg, env, b);
    case 'add':
      return n.args.reduce((s, a) => s + approx(a, env, b), 0);
    case 'mul':
      return n.args.reduce((s, a) => s * approx(a, env, b), 1);
    case 'div':
      return approx(n.num, env, b) / approx(n.den, env, b);
    case 'percent':
      return approx(n.arg, env, b) / 100;
    case 'pow': {
      const x = approx(n.base, env, b);
      const e = approx(n.exp, env, b);
      if (x < 0 && !Number.isInteger(e)) {
        // A real odd root of a negative number: x^(1/3) and x^(2/3) are defined.
        const ex = exact(n.exp, b);
        if (ex && ex.d % 2n === 1n) return (ex.n % 2n === 0n ? 1 : -1) * Math.pow(-x, e);
        return NaN;
      }
      return Math.pow(x, e);
    }
    case 'fn':
      return approxFn(
        n.name,
        n.args.map((a) => approx(a, env, b)),
      );
    case 'call':
      return opaque(
        'call:' + n.name,
        n.args.map((a) => approx(a, env, b)),
      );
    case 'bigop': {
      const lo = approx(n.lo, env, b);
      const hi = approx(n.hi, env, b);
      if (
        !Number.isFinite(lo) ||
        !Number.isFinite(hi) ||
        Math.abs(lo - Math.round(lo)) > 1e-9 ||
        Math.abs(hi - Math.round(hi)) > 1e-9
      )
        return NaN;
      if (hi - lo > 10_000) return NaN;
      let acc = n.op === 'sum' ? 0 : 1;
      const inner = new Map(env);
      for (let k = Math.round(lo); k <= Math.round(hi); k++) {
        inner.set(n.v, k);
        const v = approx(n.body, inner, b);
        acc = n.op === 'sum' ? acc + v : acc * v;
        if ((k & 127) === 0) tick(b);
      }
      return acc;
    }
    default:
      return NaN;
  }
}

function approxFn(name: string, a: number[]): number {
  const x = a[0] ?? NaN;
  switch (name) {
    case 'sqrt':
      return x < 0 ? NaN : Math.sqrt(x);
    case 'root': {
      const k = a[1] ?? NaN;
      if (x < 0) return Number.isInteger(k) && k % 2 === 1 ? -Math.pow(-x, 1 / k) : NaN;
      return Math.pow(x, 1 / k);
    }
    case 'sin':
      return Math.sin(x);
    case 'cos':
      return Math.cos(x);
    case 'tan':
      return Math.tan(x);
    case 'sec':
      return 1 / Math.cos(x);
    case 'csc':
      return 1 / Math.sin(x);
    case 'cot':
      return 1 / Math.tan(x);
    case 'arcsin':
      return Math.asin(x);
    case 'arccos':
      return Math.acos(x);
    case 'arctan':
      return Math.atan(x);
    case 'arccot':
      return Math.atan(1 / x);
    case 'sinh':
      return Math.sinh(x);
    case 'cosh':
      return Math.cosh(x);
    case 'tanh':
      return Math.tanh(x);
    case 'exp':
      return Math.exp(x);
    case 'ln':
      return x <= 0 ? NaN : Math.log(x);
    case 'log10':
      return x <= 0 ? NaN : Math.log10(x);
    case 'logb': {
      const base = a[1] ?? NaN;
      return x <= 0 || base <= 0 || base === 1 ? NaN : Math.log(x) / Math.log(base);
    }
    case 'abs':
      return Math.abs(x);
    case 'floor':
      return Math.floor(x);
    case 'ceil':
      return Math.ceil(x);
    case 'factorial':
      if (x < 0 && Number.isInteger(x)) return NaN;
      return x > 171 ? Infinity : Math.exp(lgamma(x + 1));
    case 'binom': {
      const k = a[1] ?? NaN;
      return Math.round(Math.exp(lgamma(x + 1) - lgamma(k + 1) - lgamma(x - k + 1)));
    }
    case 'max':
      return Math.max(...a);
    case 'min':
      return Math.min(...a);
    default:
      return opaque('fn:' + name, a);
  }
}

/** ln Γ(x) for x > 0 (Lanczos), used for factorials in float and log space. */
export function lgamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  x -= 1;
  let s = at(c, 0);
  for (let i = 1; i < g + 2; i++) s += at(c, i) / (x + i);
  const t = x + g + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s);
}

export interface LogValue {
  readonly ln: number;
  readonly sign: 1 | -1;
}

/**
 * ln|value| and sign of a closed expression whose float value overflows or underflows
 * (2^{2^{20}}, 1/1000000!). Null when it cannot be told (sums that cancel, towers whose
 * logarithm itself overflows, like 10^{10^{10^{10}}}).
 */
export function logValue(n: Node, b: Budget): LogValue | null {
  tick(b);
  switch (n.t) {
    case 'num':
      return n.v.n === 0n ? null : { ln: R.logAbs(n.v), sign: n.v.n < 0n ? -1 : 1 };
    case 'const':
      return n.name === 'inf' ? null : { ln: Math.log(n.name === 'pi' ? Math.PI : Math.E), sign: 1 };
    case 'neg': {
      const v = logValue(n.arg, b);
      return v && { ln: v.ln, sign: v.sign === 1 ? -1 : 1 };
    }
    case 'percent': {
      const v = logValue(n.arg, b);
      return v && { ln: v.ln - Math.log(100), sign: v.sign };
    }
    case 'mul':
    case 'div': {
      const parts =
        n.t === 'mul'
          ? n.args.map((a) => [a, 1] as const)
          : ([
              [n.num, 1],
              [n.den, -1],
            ] as const);
      let ln = 0;
      let sign: 1 | -1 = 1;
      for (const [a, k] of parts) {
        const v = logValue(a, b);
        if (!v) return null;
        ln += k * v.ln;
        if (v.sign < 0) sign = sign > 0 ? -1 : 1;
      }
      return Number.isFinite(ln) ? { ln, sign } : null;
    }
    case 'pow': {
      const base = logValue(n.base, b);
      const e = approx(n.exp, new Map(), b);
      if (!base || !Number.isFinite(e)) return null;
      if (base.sign < 0 && !Number.isInteger(e)) return null;
      const ln = e * base.ln;
      const sign = base.sign < 0 && Math.abs(e % 2) === 1 ? -1 : 1;
      return Number.isFinite(ln) ? { ln, sign } : null;
    }
    case 'fn': {
      if (n.name === 'sqrt' && n.args[0]) {
        const v = logValue(n.args[0], b);
        return v && v.sign > 0 ? { ln: v.ln / 2, sign: 1 } : null;
      }
      if (n.name === 'factorial' && n.args[0]) {
        const x = approx(n.args[0], new Map(), b);
        return Number.isFinite(x) && x >= 0 ? { ln: lgamma(x + 1), sign: 1 } : null;
      }
      const x = approx(n, new Map(), b);
      return Number.isFinite(x) && x !== 0 ? { ln: Math.log(Math.abs(x)), sign: x < 0 ? -1 : 1 } : null;
    }
    case 'add': {
      const all = n.args.map((a) => logValue(a, b));
      const vs = all.filter((v): v is LogValue => v !== null);
      if (vs.length < all.length) return null;
      const top = Math.max(...vs.map((v) => v.ln));
      let s = 0;
      for (const v of vs) s += v.sign * Math.exp(v.ln - top);
      // Heavy cancellation makes the result meaningless in floats: undecided.
      if (Math.abs(s) < 1e-9) return null;
      return { ln: top + Math.log(Math.abs(s)), sign: s < 0 ? -1 : 1 };
    }
    default:
      return null;
  }
}

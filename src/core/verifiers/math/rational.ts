/**
 * Exact rationals on BigInt. mathjs's Fraction type is limited to safe-ish sizes and its
 * BigNumber is decimal, so exact comparisons such as 1/2^99 against 1/2^98 or
 * (2^2005+1)/(3·2^2006) against 1/(3·2^2006) are done here, with a size cap so a hostile
 * answer (2^(10^10)) is refused rather than computed.
 */
export interface Rational {
  readonly n: bigint;
  readonly d: bigint; // always > 0, gcd(n, d) = 1
}

/** Largest intermediate size, in bits, before exact arithmetic gives up (returns null). */
export const MAX_BITS = 40_000;

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function bits(x: bigint): number {
  if (x < 0n) x = -x;
  return x === 0n ? 0 : x.toString(16).length * 4;
}

export function rat(n: bigint, d: bigint = 1n): Rational | null {
  if (d === 0n) return null;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  const r = g > 1n ? { n: n / g, d: d / g } : { n, d };
  if (bits(r.n) > MAX_BITS || bits(r.d) > MAX_BITS) return null;
  return r;
}

export const ZERO: Rational = { n: 0n, d: 1n };
export const ONE: Rational = { n: 1n, d: 1n };

export const add = (a: Rational, b: Rational): Rational | null => rat(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Rational, b: Rational): Rational | null => rat(a.n * b.d - b.n * a.d, a.d * b.d);
export const mul = (a: Rational, b: Rational): Rational | null => rat(a.n * b.n, a.d * b.d);
export const div = (a: Rational, b: Rational): Rational | null => (b.n === 0n ? null : rat(a.n * b.d, a.d * b.n));
export const neg = (a: Rational): Rational => ({ n: -a.n, d: a.d });
export const eq = (a: Rational, b: Rational): boolean => a.n === b.n && a.d === b.d;
export const isInt = (a: Rational): boolean => a.d === 1n;
export const cmp = (a: Rational, b: Rational): number => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};

/** a^k for an integer k, refusing results larger than MAX_BITS before computing them. */
export function powInt(a: Rational, k: bigint): Rational | null {
  if (k === 0n) return ONE;
  if (a.n === 0n) return k > 0n ? ZERO : null;
  const abs = k < 0n ? -k : k;
  // ±1 to any power stays small, whatever the exponent (1^(10^100)).
  if (a.d === 1n && (a.n === 1n || a.n === -1n)) return a.n === 1n || abs % 2n === 0n ? ONE : a;
  const size = Math.max(bits(a.n), bits(a.d));
  if (abs > BigInt(MAX_BITS) || Number(abs) * (size - 3) > MAX_BITS) return null;
  const r = rat(a.n ** abs, a.d ** abs);
  if (!r) return null;
  return k < 0n ? div(ONE, r) : r;
}

/** Exact integer k-th root of a non-negative bigint, or null when it is not a perfect power. */
export function intRoot(x: bigint, k: number): bigint | null {
  if (x < 0n)
    return k % 2 === 1
      ? (() => {
          const r = intRoot(-x, k);
          return r === null ? null : -r;
        })()
      : null;
  if (x < 2n) return x;
  const kb = BigInt(k);
  // Newton's method from an over-estimate; converges in O(log) steps.
  let r = 1n << BigInt(Math.ceil(bits(x) / k) + 1);
  for (;;) {
    const next = ((kb - 1n) * r + x / r ** (kb - 1n)) / kb;
    if (next >= r) break;
    r = next;
  }
  return r ** kb === x ? r : null;
}

export function toNumber(a: Rational): number {
  const v = Number(a.n) / Number(a.d);
  if (Number.isFinite(v) && v !== 0) return v;
  if (a.n === 0n) return 0;
  // Both parts overflow or the quotient underflows: scale by shifting.
  const shift = bits(a.n) - bits(a.d);
  const sn = shift > 0 ? a.n >> BigInt(Math.max(0, shift - 60)) : a.n << BigInt(Math.max(0, -shift + 60));
  const m = Number(sn) / Number(a.d);
  return m * 2 ** (shift > 0 ? Math.max(0, shift - 60) : -Math.max(0, -shift + 60));
}

/** log(|a|), exact enough for comparing huge or tiny magnitudes. */
export function logAbs(a: Rational): number {
  const ln = (x: bigint): number => {
    if (x < 0n) x = -x;
    const b = bits(x);
    if (b < 1000) return Math.log(Number(x));
    const shift = BigInt(b - 60);
    return Math.log(Number(x >> shift)) + Number(shift) * Math.LN2;
  };
  return ln(a.n) - ln(a.d);
}

export function fromDecimal(intPart: string, frac: string): Rational | null {
  const digits = (intPart || '0') + frac;
  if (digits.length > 4000) return null;
  return rat(BigInt(digits), 10n ** BigInt(frac.length));
}

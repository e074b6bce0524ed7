/** How a program's output and return values are compared with the expected ones. */
import { isRecord } from '../../base/record';
import { plural } from '../../util/plural';
import { at } from '../../util/must';

/** Lines with trailing whitespace (and `\r`) removed, trailing empty lines dropped. */
export function outputLines(text: string): string[] {
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function quote(s: string, max = 80): string {
  const t = s.length > max ? `${s.slice(0, max)}…` : s;
  return `'${t}'`;
}

/**
 * Compares output line by line after trimming trailing whitespace; blank lines at the end do
 * not count. Too few or too many lines fail. Returns undefined when equal, else what differs.
 */
export function compareOutput(expected: string, actual: string): string | undefined {
  const e = outputLines(expected);
  const a = outputLines(actual);
  const n = Math.min(e.length, a.length);
  for (let i = 0; i < n; i++) {
    if (e[i] !== a[i]) {
      const where = e.length > 1 || a.length > 1 ? ` at line ${i + 1}` : '';
      return `expected ${quote(at(e, i))}, got ${quote(at(a, i))}${where}`;
    }
  }
  if (a.length < e.length) {
    return a.length === 0
      ? `expected ${quote(at(e, 0))}, got no output`
      : `expected ${plural(e.length, 'line')}, got ${a.length} (missing ${quote(at(e, a.length))})`;
  }
  if (a.length > e.length)
    return `expected ${plural(e.length, 'line')}, got ${a.length} (extra ${quote(at(a, e.length))})`;
  return undefined;
}

/**
 * Tolerance for numbers in call results: equal when |a - b| <= 1e-9 * max(1, |a|, |b|), that is
 * relative for large values and absolute (1e-9) near zero, so 0.1 + 0.2 equals 0.3. Values that
 * differ only below 1e-9 near zero count as equal: check those with `asserts`.
 */
export const FLOAT_TOLERANCE = 1e-9;

function numbersEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= FLOAT_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Deep equality of JSON-like values: numbers within the tolerance, arrays in order, objects by
 * key (order-free). Integers and floats compare by value (3 equals 3.0).
 */
export function deepEqual(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number' && typeof actual === 'number') return numbersEqual(expected, actual);
  if (expected === null || actual === null || typeof expected !== 'object' || typeof actual !== 'object')
    return expected === actual;
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
    return expected.every((v, i) => deepEqual(v, actual[i]));
  }
  const ek = Object.keys(expected);
  const ak = Object.keys(actual);
  if (ek.length !== ak.length) return false;
  if (!isRecord(expected) || !isRecord(actual)) return false;
  return ek.every((k) => Object.prototype.hasOwnProperty.call(actual, k) && deepEqual(expected[k], actual[k]));
}

/** JSON for messages, with non-finite numbers spelled out. */
export function show(v: unknown, max = 80): string {
  let s: string;
  try {
    s =
      JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)) ??
      'undefined';
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

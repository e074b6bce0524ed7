// The gold answer a verifier holds, when it holds one, and answers of the same shape that are
// wrong: what the hedge and wrong-answer probes are made of. A `math` gold that cannot be
// parsed is a finding of its own: the verifier then refuses every response, right or wrong.
import { parseGold } from '../verifiers/math/answer';
import { verifierLeaves } from './verifierParts';
import { verifierKind } from '../util/verifierKind';
import { isRecord } from '../base/record';
import { NUMBER_WORDS_TO_19, TENS_WORDS } from '../util/numberWords';

export interface Gold {
  readonly kind: 'math' | 'match';
  readonly text: string;
  /** `match`'s mode (`normalized` when unset); `math` for math. */
  readonly mode: string;
  /** Writes an answer the way the verifier reads it: `\boxed{x}`, `<answer>x</answer>`, `x`. */
  readonly wrap: (x: string) => string;
  readonly boxed: boolean;
}

/**
 * The first gold answer of a `math` or `match` verifier, looking inside `all` (not `any`, whose
 * other parts may pass a response on their own).
 */
export function goldOf(verify: unknown): Gold | undefined {
  if (!isRecord(verify)) return undefined;
  const kind = verifierKind(verify);
  const p = verify[kind ?? ''];
  if (kind === 'all') {
    // `all: [...]` or `all: { of: [...] }`: a gold answer any part holds is the task's.
    const parts = Array.isArray(p) ? p : isRecord(p) ? p.of : undefined;
    for (const child of Array.isArray(parts) ? parts : []) {
      const g = goldOf(child);
      if (g) return g;
    }
    return undefined;
  }
  if (kind === 'math' && isRecord(p)) {
    const a = first(p);
    return a === undefined
      ? undefined
      : { kind: 'math', text: a, mode: 'math', wrap: (x) => `\\boxed{${x}}`, boxed: true };
  }
  if (kind === 'match' && isRecord(p)) {
    const m = p;
    const mode = typeof m.mode === 'string' ? m.mode : 'normalized';
    const a = first(m);
    if (a === undefined || mode === 'regex') return undefined;
    const tag = typeof m.tag === 'string' ? m.tag : undefined;
    return { kind: 'match', text: a, mode, wrap: (x) => (tag ? `<${tag}>${x}</${tag}>` : x), boxed: false };
  }
  return undefined;
}

/** The `math` parts none of whose gold answers parses, with the first one and why. */
export function unparseableGolds(verify: unknown): { gold: string; why: string }[] {
  return verifierLeaves(verify).flatMap((l) => {
    if (l.kind !== 'math') return [];
    const raws = (Array.isArray(l.params.answers) ? l.params.answers : [l.params.answer]).filter(
      (a): a is string | number => typeof a === 'string' || typeof a === 'number',
    );
    const parsed = raws.map((raw) => ({ raw, parsed: parseGold(raw).parsed }));
    const bad = parsed[0];
    if (!bad || bad.parsed.ok || parsed.some((g) => g.parsed.ok)) return [];
    return [{ gold: String(bad.raw), why: bad.parsed.error }];
  });
}

function first(p: Record<string, unknown>): string | undefined {
  const a = p.answer ?? (Array.isArray(p.answers) ? p.answers[0] : undefined);
  return typeof a === 'string' || typeof a === 'number' ? String(a) : undefined;
}

/** An answer of the same shape as `g` that is not `g`: 72 → 73, \frac{3}{4} → \frac{3}{5}, Paris → Lyon. */
export function wrongLike(g: string): string {
  const t = g.trim();
  if (/^-?\d+$/.test(t)) return String(BigInt(t) + 1n);
  // A decimal changes in its whole part: a change in the last digit may be within tolerance.
  if (/^-?\d*\.\d+$/.test(t))
    return t.replace(/^(-?)(\d*)/, (_, sign: string, whole: string) => sign + String(Number(whole || '0') + 1));
  // Any number inside (a fraction, an interval, an equation): change the last one, where the
  // value usually is (`x = 11` → `x = 12`), but not a subscript (`204_5`, `a_{3}`).
  const numbers = [...t.matchAll(/(?<![\dA-Za-z.])\d+(?![\d.])/g)].filter((m) => !/_\{?$/.test(t.slice(0, m.index)));
  const last = numbers.at(-1);
  if (last?.index !== undefined)
    return t.slice(0, last.index) + String(BigInt(last[0]) + 1n) + t.slice(last.index + last[0].length);
  if (/^[A-Z]$/.test(t)) return t === 'Z' ? 'A' : String.fromCharCode(t.charCodeAt(0) + 1);
  // LaTeX without numbers (`\frac{\pi r}{h+r}`): another value of the same kind.
  if (/[\\{}^]/.test(t)) return `${t} + 1`;
  const words = t.split(/\s+/);
  const other = words.at(-1)?.toLowerCase() === 'lyon' ? 'Nantes' : 'Lyon';
  return [...words.slice(0, -1), other].join(' ');
}

/** English words for 0..999 (`72` → `seventy-two`); undefined outside that range. */
export function numberWords(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0 || n > 999) return undefined;
  if (n < 20) return NUMBER_WORDS_TO_19[n];
  if (n < 100) return TENS_WORDS[Math.floor(n / 10)] + (n % 10 ? `-${NUMBER_WORDS_TO_19[n % 10]}` : '');
  const rest = n % 100;
  return `${NUMBER_WORDS_TO_19[Math.floor(n / 100)]} hundred${rest ? ` and ${numberWords(rest)}` : ''}`;
}

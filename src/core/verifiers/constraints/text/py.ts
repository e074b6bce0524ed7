import { at } from '../../../util/must';
import { trimOldest } from '../../../util/trimOldest';
/*
 * Python string semantics the peers' checkers rely on, written for JavaScript strings.
 * The peers are Python: `str.split()`, `str.strip(chars)`, `str.isupper()`, `len()` (code
 * points, not UTF-16 units), `\w` and `\b` (Unicode-aware, where JavaScript's are ASCII-only)
 * all differ from their closest JavaScript counterparts on some input, so the checks use these.
 */

/** Python's `str.isspace()` set (JavaScript's `\s` adds U+FEFF and lacks U+001C-U+001F, U+0085). */
export const PY_SPACE_CLASS =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const SPACE_RE = new RegExp(`[${PY_SPACE_CLASS}]`, 'u');
const SPLIT_RE = new RegExp(`[${PY_SPACE_CLASS}]+`, 'u');
const LEAD_RE = new RegExp(`^[${PY_SPACE_CLASS}]+`, 'u');
const TRAIL_RE = new RegExp(`[${PY_SPACE_CLASS}]+$`, 'u');

/** Python's `string.punctuation`. */
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const PUNCT_SET = new Set(PUNCTUATION);
/** `string.digits`. */
export const DIGITS = '0123456789';

/** A character class body for Python's `\w` in a `u`-flag JavaScript pattern. */
export const W = '[\\p{L}\\p{N}_]';
/** Python's Unicode `\b` for a `u`-flag JavaScript pattern. */
export const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

export function isSpace(ch: string): boolean {
  return SPACE_RE.test(ch);
}

/**
 * Remembers the last few results of a pure function of one string: a verdict runs many
 * instructions (and in loose mode eight variants) over the same response, and sentence
 * splitting or tokenising a long response once is enough. Results are shared: never mutate them.
 */
export function memo<T>(fn: (s: string) => T, size = 16): (s: string) => T {
  const cache = new Map<string, T>();
  return (s: string): T => {
    const hit = cache.get(s);
    if (hit !== undefined) return hit;
    const v = fn(s);
    trimOldest(cache, size - 1);
    cache.set(s, v);
    return v;
  };
}

/** `s.split()` with no argument: runs of whitespace separate, no empty items. Shared result: do not mutate. */
export const pySplit = memo((s: string): readonly string[] => {
  const t = pyStrip(s);
  return t === '' ? [] : t.split(SPLIT_RE);
}) as (s: string) => string[];

/** `s.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(LEAD_RE, '').replace(TRAIL_RE, '');
}

/** `s.strip(chars)`, `s.lstrip(chars)`, `s.rstrip(chars)` for a set of characters. */
const charSets = new Map<string, ReadonlySet<string>>();

export function stripChars(s: string, chars: string, side: 'both' | 'left' | 'right' = 'both'): string {
  let set = charSets.get(chars);
  if (!set) {
    set = new Set(chars);
    if (charSets.size < 64) charSets.set(chars, set);
  }
  let a = 0;
  let b = s.length;
  if (side !== 'right') while (a < b && set.has(at(s, a))) a++;
  if (side !== 'left') while (b > a && set.has(at(s, b - 1))) b--;
  return s.slice(a, b);
}

/** `s.strip(string.punctuation + ' ')`, the peers' usual word cleaning. */
export function stripPunctSpace(s: string, side: 'both' | 'left' | 'right' = 'both'): string {
  return stripChars(s, PUNCTUATION + ' ', side);
}

/** `s.translate(str.maketrans('', '', string.punctuation))`. */
export function removePunctuation(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (PUNCT_SET.has(at(s, i))) {
      out += s.slice(start, i);
      start = i + 1;
    }
  }
  return start === 0 ? s : out + s.slice(start);
}

const LOWER_OR_TITLE = /[\p{Lowercase}\p{Lt}]/u;
const UPPER_OR_TITLE = /[\p{Uppercase}\p{Lt}]/u;
const UPPER = /\p{Uppercase}/u;
const LOWER = /\p{Lowercase}/u;

/** `s.isupper()`: at least one cased character and no lowercase or titlecase one. */
export function isUpper(s: string): boolean {
  return UPPER.test(s) && !LOWER_OR_TITLE.test(s);
}

/** `s.islower()`: at least one cased character and no uppercase or titlecase one. */
export function isLower(s: string): boolean {
  return LOWER.test(s) && !UPPER_OR_TITLE.test(s);
}

export function isAlpha(ch: string): boolean {
  return /^\p{L}+$/u.test(ch);
}

export function isAlnumChar(ch: string): boolean {
  return /^[\p{L}\p{N}]$/u.test(ch);
}

/** `s.isdigit()` for the common case (decimal digits of any script). */
export function isDigits(s: string): boolean {
  return /^\p{Nd}+$/u.test(s);
}

/** Code points: Python's `len()`, indexing and `[::-1]` work on these. */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

export function pyLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++;
    else {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      n++;
    }
  }
  return n;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Occurrences of a literal phrase, case-insensitive, non-overlapping (`len(re.findall(kw, s, re.I))`). */
export function countLiteral(haystack: string, needle: string, wholeWord = false): number {
  if (needle === '') return 0;
  const src = wholeWord ? `${B}${escapeRegExp(needle)}${B}` : escapeRegExp(needle);
  const re = new RegExp(src, 'giu');
  let n = 0;
  while (re.exec(haystack) !== null) n++;
  return n;
}

/** `unicodedata.normalize('NFKD', s).encode('ascii', 'ignore').decode()`. */
export function asciiFold(s: string): string {
  return s.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
}

/** `re.findall(r"\w+", s)` count, as nltk's `RegexpTokenizer(r"\w+")` does it. */
export function countWordTokens(s: string): number {
  const re = /[\p{L}\p{N}_]+/gu;
  let n = 0;
  while (re.exec(s) !== null) n++;
  return n;
}

export function wordTokens(s: string): string[] {
  return s.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

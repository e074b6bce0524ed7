// The one reading of a prompt that duplicate and contamination detection share: words as a
// person would compare them. Unicode compatibility forms (NFKC: full-width letters, ligatures,
// superscript digits) and case are folded, typographic quotes and dashes become their ASCII
// forms, punctuation separates words and is dropped. Two kinds of character are kept because
// dropping them would change the task: digits (with a `.` or `,` between digits, so `3.14`
// stays one number) and the arithmetic operators (`17+25` and `17*25` are different questions).
// A hyphen or dash is a minus only before a number (`17-25`, `x - 3`, `-5`); elsewhere
// (`well-known`, `this — that`) it is punctuation. An apostrophe inside a word is dropped
// (`don’t`, `don't` and `dont` are one word).
import { must } from '../../util/must';

/** A prompt as words: each word normalised, with its span in the original text. */
export interface PromptWords {
  readonly words: string[];
  /** UTF-16 offset of each word's first character in the original text. */
  readonly starts: number[];
  /** UTF-16 offset just after each word's last character in the original text. */
  readonly ends: number[];
}

const enum Kind {
  Sep = 0,
  Word = 1,
  Digit = 2,
  Op = 3,
  Apostrophe = 4,
  Point = 5,
}

/** ASCII operators kept as one-character words (the rest of Unicode's math symbols are too). */
const ASCII_OPS = '+-*/=<>^%|~';

const ASCII_KIND: readonly Kind[] = Array.from({ length: 128 }, (_, c): Kind => {
  const ch = String.fromCharCode(c);
  return /[a-zA-Z]/.test(ch)
    ? Kind.Word
    : /\d/.test(ch)
      ? Kind.Digit
      : ASCII_OPS.includes(ch)
        ? Kind.Op
        : ch === "'"
          ? Kind.Apostrophe
          : ch === '.' || ch === ','
            ? Kind.Point
            : Kind.Sep;
});

/** `kinds[i]`, which the caller knows is there (an ASCII code, a character of a mapped code point). */
function kindAt(kinds: readonly Kind[], i: number): Kind {
  const k = kinds[i];
  if (k === undefined) throw new RangeError(`index ${i} is outside the ${kinds.length} kinds`);
  return k;
}

/** Typographic forms NFKC keeps as they are, folded to the ASCII a keyboard types. */
const FOLD: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u2035': "'",
  '\u02bc': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u2036': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2043': '-',
  '\u2212': '-',
  '\ufe58': '-',
  '\ufe63': '-',
  '\u00d7': '*',
  '\u00f7': '/',
  '\u2044': '/',
  '\u2215': '/',
  '\u00df': 'ss',
};

/** One non-ASCII code point, normalised: its characters and their kinds. */
interface Mapped {
  readonly text: string;
  readonly kinds: readonly Kind[];
}

const mappedCache = new Map<number, Mapped>();

function kindOf(ch: string): Kind {
  const c = ch.charCodeAt(0);
  if (c < 128) return kindAt(ASCII_KIND, c);
  if (/\p{N}/u.test(ch)) return Kind.Digit;
  if (/[\p{L}\p{M}]/u.test(ch)) return Kind.Word;
  if (/\p{Sm}/u.test(ch)) return Kind.Op;
  return Kind.Sep;
}

function mapCodePoint(cp: number): Mapped {
  let m = mappedCache.get(cp);
  if (m) return m;
  let text = '';
  for (const ch of String.fromCodePoint(cp).normalize('NFKC').toLowerCase()) text += FOLD[ch] ?? ch;
  const chars = [...text];
  m = { text: chars.join(''), kinds: chars.map(kindOf) };
  // The cache only grows with distinct characters seen; bound it for hostile text all the same.
  if (mappedCache.size < 65_536) mappedCache.set(cp, m);
  return m;
}

/**
 * Splits `text` into normalised words. With `offsets: false` the spans are not recorded (the
 * duplicate finder needs only the words).
 */
export function promptWords(text: string, offsets = true): PromptWords {
  const words: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let cur = '';
  let curStart = 0;
  let curEnd = 0;
  let lastDigit = false;
  let nonAscii = false;
  /** A `'`, `.` or `,` seen after a word: kept (`.`, `,` between digits), dropped (`'` inside a word) or ending it. */
  let pending = '';
  const end = (): void => {
    if (cur) {
      words.push(nonAscii ? cur.normalize('NFKC') : cur);
      if (offsets) {
        starts.push(curStart);
        ends.push(curEnd);
      }
    }
    cur = '';
    pending = '';
    nonAscii = false;
    lastDigit = false;
  };
  /** Adds characters of one kind (a run of word characters, or one character) spanning `from`..`to`. */
  const add = (piece: string, kind: Kind, firstDigit: boolean, endsDigit: boolean, from: number, to: number): void => {
    switch (kind) {
      case Kind.Word:
      case Kind.Digit:
        if (pending) {
          if (pending !== "'" && !(lastDigit && firstDigit)) end();
          else if (pending !== "'") cur += pending;
          pending = '';
        }
        if (!cur) curStart = from;
        cur += piece;
        if (piece.charCodeAt(0) >= 128) nonAscii = true;
        curEnd = to;
        lastDigit = endsDigit;
        return;
      case Kind.Apostrophe:
        if (cur && !pending) pending = "'";
        else end();
        return;
      case Kind.Point:
        if (cur && !pending && lastDigit) pending = piece;
        else end();
        return;
      case Kind.Op:
        end();
        words.push(piece);
        if (offsets) {
          starts.push(from);
          ends.push(to);
        }
        return;
      default:
        end();
    }
  };
  const n = text.length;
  /** A dash is a minus when a number follows it (spaces between allowed). */
  const minus = (j: number): Kind => {
    while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
    const d = text.charCodeAt(j);
    return d >= 48 && d <= 57 ? Kind.Op : Kind.Sep;
  };
  for (let i = 0; i < n;) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const kind = kindAt(ASCII_KIND, c);
      if (kind !== Kind.Word && kind !== Kind.Digit) {
        add(text.charAt(i), c === 45 ? minus(i + 1) : kind, false, false, i, i + 1);
        i++;
        continue;
      }
      // A run of ASCII letters and digits is sliced whole: most prompts are mostly this.
      let j = i + 1;
      let upper = c >= 65 && c <= 90;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d >= 128) break;
        const k = ASCII_KIND[d];
        if (k !== Kind.Word && k !== Kind.Digit) break;
        if (d >= 65 && d <= 90) upper = true;
      }
      const run = text.slice(i, j);
      add(
        upper ? run.toLowerCase() : run,
        kind,
        kind === Kind.Digit,
        ASCII_KIND[text.charCodeAt(j - 1)] === Kind.Digit,
        i,
        j,
      );
      i = j;
      continue;
    }
    const cp = must(text.codePointAt(i), 'i is inside the text');
    const width = cp > 0xffff ? 2 : 1;
    const m = mapCodePoint(cp);
    let k = 0;
    for (const ch of m.text) {
      let kind = kindAt(m.kinds, k++);
      if (ch === '-') kind = minus(i + width);
      add(ch, kind, kind === Kind.Digit, kind === Kind.Digit, i, i + width);
    }
    i += width;
  }
  end();
  return { words, starts, ends };
}

/** The prompt as compared: its normalised words joined by single spaces. */
export function normalisePromptText(text: string): string {
  return promptWords(text, false).words.join(' ');
}

/** A 32-bit hash of a string (FNV-1a, then mixed), the same on every run and platform. */
export function hashString(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** MurmurHash3's finaliser: spreads every input bit over the whole word. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether a normalised word is (or holds) a number. */
export function isNumberWord(w: string): boolean {
  let ascii = true;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
    if (c >= 128) ascii = false;
  }
  return !ascii && /\p{N}/u.test(w);
}

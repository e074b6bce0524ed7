// A reader for the plain subset of YAML most task files are written in: block mappings and
// lists, one-line flow mappings and lists, one-line plain and quoted scalars, comment lines. It
// gives the tree the `yaml` package and `fromYaml` (base/ynode.ts) give, with the same values,
// styles and ranges, in a small fraction of the time (the `yaml` package builds a token
// stream, a CST and a Document per chunk; checking 10,000 tasks was nearly all that). On
// anything else (anchors, tags, block or multi-line scalars, comments after a value, tabs,
// unusual indentation, anything broken) it gives up, returning undefined, and the caller
// parses with `yaml`, which also reports the errors: this reader never has to describe one.
import type { YMap, YNode, YPair, YScalar, YSeq } from '../base/ynode';

const NL = 10;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;

/** Deeper than this, give up: the `yaml` path enforces the depth limit and its message. */
const MAX_DEPTH = 32;
/** Longer keys are left to `yaml` (implicit keys have a length limit there). */
const MAX_KEY = 200;

/** A letter or `_`: what a plain key starts with (never a digit, `-` or `.`: numbers, lists). */
function isKeyStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** What a plain key goes on with: letters, digits, `_`, `.`, `/`, `-`. */
function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 47 || c === DASH;
}

/** Thrown to give up; caught once at the top (a preallocated value: no stack is captured). */
const GIVE_UP = { giveUp: true };

/** The root node of `text` read as the plain subset, or undefined when it is not in it. */
export function readPlainYaml(text: string): YNode | undefined {
  // Tabs, carriage returns and a BOM each have rules of their own: `yaml` handles them.
  if (text.includes('\t') || text.includes('\r') || text.charCodeAt(0) === 0xfeff) return undefined;
  try {
    return new Reader(text).document();
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

class Reader {
  private depth = 0;
  /** The root node's column. */
  private rootCol = 0;
  /** The end of the last node read, trailing spaces and its line break included (`yaml`'s range[2]). */
  private end = 0;
  /** The start of the first line not yet read. */
  private next = 0;

  constructor(private readonly text: string) {}

  document(): YNode {
    const start = this.skipBlank(0);
    if (start >= this.text.length) giveUp();
    const indent = this.indentAt(start);
    this.rootCol = indent;
    const node = this.block(start + indent, indent);
    // Anything left but blank lines and comments (a line less indented than the root) is not plain.
    if (this.skipBlank(this.next) < this.text.length) giveUp();
    return node;
  }

  private lineEnd(p: number): number {
    const i = this.text.indexOf('\n', p);
    return i === -1 ? this.text.length : i;
  }

  /** The start of the line after the one holding `p` (the text's end on the last line). */
  private lineAfter(p: number): number {
    const e = this.lineEnd(p);
    return e < this.text.length ? e + 1 : e;
  }

  private indentAt(lineStart: number): number {
    let i = lineStart;
    while (this.text.charCodeAt(i) === SPACE) i++;
    return i - lineStart;
  }

  /**
   * From a line's start, the start of the first line that is neither blank nor a comment. A
   * comment indented deeper than the line after it (or, at the end, than the root) is one
   * `yaml` attaches to the node before it, stretching that node's range: it gives up on those.
   */
  private skipBlank(p: number): number {
    const t = this.text;
    let comment = -1;
    while (p < t.length) {
      let i = p;
      while (t.charCodeAt(i) === SPACE) i++;
      const c = t.charCodeAt(i);
      if (c !== NL && c !== HASH && i < t.length) {
        if (comment > i - p) giveUp();
        return p;
      }
      if (c === HASH && i - p > comment) comment = i - p;
      p = this.lineAfter(i);
    }
    if (comment > this.rootCol) giveUp();
    return t.length;
  }

  /** A block node whose first line's content starts at `p`, in column `col`. */
  private block(p: number, col: number): YNode {
    if (++this.depth > MAX_DEPTH) giveUp();
    const t = this.text;
    const node =
      t.charCodeAt(p) === DASH && t.charCodeAt(p + 1) === SPACE ? this.blockSeq(p, col) : this.blockMap(p, col);
    this.depth--;
    return node;
  }

  private blockSeq(start: number, col: number): YSeq {
    const t = this.text;
    const items: YNode[] = [];
    let p = start;
    for (;;) {
      // `p` is at a `- `: the item's content follows on the same line.
      let c = p + 1;
      while (t.charCodeAt(c) === SPACE) c++;
      const e = t.charCodeAt(c);
      if (c >= t.length || e === NL || e === HASH || (e === DASH && t.charCodeAt(c + 1) === SPACE)) giveUp();
      const itemCol = col + (c - p);
      items.push(this.isKeyAt(c) ? this.block(c, itemCol) : this.inlineToLineEnd(c));
      const line = this.skipBlank(this.next);
      if (line >= t.length) break;
      const indent = this.indentAt(line);
      if (indent < col) break;
      p = line + indent;
      if (indent > col || t.charCodeAt(p) !== DASH || t.charCodeAt(p + 1) !== SPACE) giveUp();
    }
    return { type: 'seq', items, span: [start, this.end], flow: false };
  }

  private blockMap(start: number, col: number): YMap {
    const t = this.text;
    const items: YPair[] = [];
    let p = start;
    for (;;) {
      const key = this.key(p);
      const colon = key.span[1];
      let v = colon + 1;
      while (t.charCodeAt(v) === SPACE) v++;
      let value: YNode;
      if (v >= t.length || t.charCodeAt(v) === NL) {
        if (v !== colon + 1) giveUp(); // spaces after a bare `key:`
        const from = this.lineAfter(colon);
        const line = this.skipBlank(from);
        const indent = line < t.length ? this.indentAt(line) : -1;
        if (indent > col) {
          const q = line + indent;
          if (!(t.charCodeAt(q) === DASH && t.charCodeAt(q + 1) === SPACE) && !this.isKeyAt(q)) giveUp();
          value = this.block(q, indent);
        } else {
          if (indent === col && t.charCodeAt(line + indent) === DASH) giveUp(); // a list at the key's column
          // `yaml` stretches an empty value's range over the comment lines after it.
          const hash = t.indexOf('#', from);
          if (hash !== -1 && hash < line) giveUp();
          value = { type: 'scalar', value: null, span: [colon + 1, colon + 1], style: 'plain' };
          this.end = colon + 1;
          this.next = this.lineAfter(colon);
        }
      } else value = this.inlineToLineEnd(v);
      items.push({ key, value, span: [key.span[0], value.span[1]] });
      const line = this.skipBlank(this.next);
      if (line >= t.length) break;
      const indent = this.indentAt(line);
      if (indent < col) break;
      p = line + indent;
      if (indent > col || !this.isKeyAt(p)) giveUp();
    }
    return { type: 'map', items, span: [start, this.end], flow: false };
  }

  /** Whether a plain key and `: ` (or `:` at the line's end) start at `p`. */
  private isKeyAt(p: number): boolean {
    const t = this.text;
    if (!isKeyStart(t.charCodeAt(p))) return false;
    let i = p + 1;
    while (isKeyChar(t.charCodeAt(i))) i++;
    const after = t.charCodeAt(i + 1);
    return t.charCodeAt(i) === COLON && (i + 1 >= t.length || after === SPACE || after === NL);
  }

  /** The plain key at `p` (isKeyAt holds); its span ends at the colon. */
  private key(p: number): YScalar {
    if (!this.isKeyAt(p)) giveUp();
    const end = this.text.indexOf(':', p);
    if (end - p > MAX_KEY) giveUp();
    const raw = this.text.slice(p, end);
    // `null:` or `true:` are keys of other types.
    if (typeof plainValue(raw) !== 'string') giveUp();
    return { type: 'scalar', value: raw, span: [p, end], style: 'plain' };
  }

  /** A value that starts at `p` and ends its line (trailing spaces allowed, nothing else). */
  private inlineToLineEnd(p: number): YNode {
    const t = this.text;
    const c = t.charCodeAt(p);
    let node: YNode;
    if (c === 0x22 /* " */ || c === 0x27 /* ' */ || c === 0x7b /* { */ || c === 0x5b /* [ */) {
      node = this.flowValue(p);
      let i = node.span[1];
      while (t.charCodeAt(i) === SPACE) i++;
      if (i < t.length && t.charCodeAt(i) !== NL) giveUp();
    } else node = this.blockPlain(p);
    this.next = this.lineAfter(node.span[1]);
    this.end = this.next;
    return node;
  }

  /** A plain scalar in block context: the rest of the line, trailing spaces off. */
  private blockPlain(p: number): YScalar {
    const t = this.text;
    if (!plainStart(t, p, false)) giveUp();
    let e = this.lineEnd(p);
    while (t.charCodeAt(e - 1) === SPACE) e--;
    const raw = t.slice(p, e);
    // A `: ` makes it a mapping (an error here), ` #` starts a comment: both left to `yaml`.
    if (raw.includes(': ') || raw.includes(' #') || raw.endsWith(':')) giveUp();
    // A more indented line after it would continue the scalar: the caller's next line gives up.
    return { type: 'scalar', value: plainValue(raw), span: [p, e], style: 'plain' };
  }

  /** A quoted scalar, or a flow mapping or list, on one line. */
  private flowValue(p: number): YNode {
    if (++this.depth > MAX_DEPTH) giveUp();
    const c = this.text.charCodeAt(p);
    const node =
      c === 0x22
        ? this.doubleQuoted(p)
        : c === 0x27
          ? this.singleQuoted(p)
          : c === 0x7b
            ? this.flowMap(p)
            : c === 0x5b
              ? this.flowSeq(p)
              : this.flowPlain(p);
    this.depth--;
    return node;
  }

  private skipSpaces(p: number): number {
    while (this.text.charCodeAt(p) === SPACE) p++;
    return p;
  }

  private flowMap(start: number): YMap {
    const t = this.text;
    const items: YPair[] = [];
    let p = this.skipSpaces(start + 1);
    if (t.charCodeAt(p) !== 0x7d /* } */) {
      for (;;) {
        if (!this.isFlowKeyAt(p)) giveUp();
        const key = this.key(p);
        const value = this.flowValue(this.skipSpaces(key.span[1] + 1));
        items.push({ key, value, span: [key.span[0], value.span[1]] });
        p = this.skipSpaces(value.span[1]);
        if (t.charCodeAt(p) === 0x2c /* , */) {
          p = this.skipSpaces(p + 1);
          if (t.charCodeAt(p) === 0x7d) giveUp(); // a trailing comma
          continue;
        }
        if (t.charCodeAt(p) !== 0x7d) giveUp();
        break;
      }
    }
    return { type: 'map', items, span: [start, p + 1], flow: true };
  }

  /** A key in a flow mapping: `key: ` (a colon without a space would be part of the key). */
  private isFlowKeyAt(p: number): boolean {
    return this.isKeyAt(p) && this.text.charCodeAt(this.text.indexOf(':', p) + 1) === SPACE;
  }

  private flowSeq(start: number): YSeq {
    const t = this.text;
    const items: YNode[] = [];
    let p = this.skipSpaces(start + 1);
    if (t.charCodeAt(p) !== 0x5d /* ] */) {
      for (;;) {
        const item = this.flowValue(p);
        items.push(item);
        p = this.skipSpaces(item.span[1]);
        if (t.charCodeAt(p) === 0x2c) {
          p = this.skipSpaces(p + 1);
          if (t.charCodeAt(p) === 0x5d) giveUp();
          continue;
        }
        if (t.charCodeAt(p) !== 0x5d) giveUp();
        break;
      }
    }
    return { type: 'seq', items, span: [start, p + 1], flow: true };
  }

  /** A plain scalar inside a flow collection: up to `,`, `]` or `}`; no `:` or `#` at all. */
  private flowPlain(p: number): YScalar {
    const t = this.text;
    if (!plainStart(t, p, true)) giveUp();
    let e = p;
    for (;;) {
      const c = t.charCodeAt(e);
      if (e >= t.length || c === NL || c === COLON || c === HASH) giveUp();
      if (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x5b || c === 0x7b) break;
      e++;
    }
    while (t.charCodeAt(e - 1) === SPACE) e--;
    if (e === p) giveUp();
    return { type: 'scalar', value: plainValue(t.slice(p, e)), span: [p, e], style: 'plain' };
  }

  private doubleQuoted(start: number): YScalar {
    const t = this.text;
    let out = '';
    let from = start + 1;
    for (let i = from; ; i++) {
      const c = t.charCodeAt(i);
      if (i >= t.length || c === NL) giveUp();
      if (c === 0x22) {
        out += t.slice(from, i);
        return { type: 'scalar', value: out, span: [start, i + 1], style: 'quoted' };
      }
      if (c !== 0x5c /* \ */) continue;
      out += t.slice(from, i);
      const esc = t.charAt(i + 1);
      if (esc === 'u') {
        const hex = t.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) giveUp();
        out += String.fromCharCode(parseInt(hex, 16));
        i += 5;
      } else {
        const s = ESCAPES[esc];
        if (s === undefined) giveUp();
        out += s;
        i++;
      }
      from = i + 1;
    }
  }

  private singleQuoted(start: number): YScalar {
    const t = this.text;
    let out = '';
    let from = start + 1;
    for (let i = from; ; i++) {
      const c = t.charCodeAt(i);
      if (i >= t.length || c === NL) giveUp();
      if (c !== 0x27) continue;
      out += t.slice(from, i);
      if (t.charCodeAt(i + 1) !== 0x27) return { type: 'scalar', value: out, span: [start, i + 1], style: 'quoted' };
      out += "'";
      i++;
      from = i + 1;
    }
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '0': '\0',
};

/**
 * Whether a plain scalar may start at `p`: not on an indicator. A `-` may start one before a
 * character that could go on with it: not a space, and in a flow collection not `,[]{}` either
 * (`[-]` is a block list inside a flow one to `yaml`: an error).
 */
function plainStart(t: string, p: number, flow: boolean): boolean {
  const c = t.charAt(p);
  if (c === '-') {
    const n = t.charAt(p + 1);
    return n !== '' && n !== ' ' && n !== '\n' && !(flow && ',[]{}'.includes(n));
  }
  return c !== '' && !'?:,[]{}#&*!|>\'"%@`'.includes(c);
}

const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** Other numbers of the core schema (hex, octal, infinities, NaN): left to `yaml`. */
const OTHER_NUMBER = /^(?:0x|0o|[-+]?\.inf|[-+]?\.Inf|[-+]?\.INF|\.nan|\.NaN|\.NAN)/;

/** The value of a plain scalar under YAML 1.2's core schema, as the `yaml` package gives it. */
function plainValue(raw: string): string | number | boolean | null {
  const c = raw.charCodeAt(0);
  // Most values start with a letter that no null, boolean or number starts with.
  const digitLike = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
  if (!digitLike && !'~nNtTfF'.includes(raw.charAt(0))) return raw;
  if (NULL.test(raw)) return null;
  if (BOOL.test(raw)) return raw.charCodeAt(0) === 116 || raw.charCodeAt(0) === 84;
  if (!digitLike) return raw;
  if (OTHER_NUMBER.test(raw)) giveUp();
  if (INT.test(raw)) {
    if (raw.length > 15) giveUp(); // past 2^53, or a BigInt: left to `yaml`
    return Number(raw);
  }
  if (FLOAT.test(raw)) return parseFloat(raw);
  return raw;
}

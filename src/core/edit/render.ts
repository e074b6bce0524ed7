import { isScalar, parseDocument } from 'yaml';
import { isRecord } from '../base/record';

/**
 * How values are written as YAML text for the task editor's edits. Every rendering here is a
 * first guess: the caller re-parses the edited file and falls back to a double-quoted string
 * (or gives up) when the text does not read back as the value, so the rules can stay simple.
 */

export type Scalar = string | number | boolean | null;

/** Characters YAML accepts unescaped (c-printable), without tab, line breaks, BOM and U+2028/9. */
const PRINTABLE = /^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]*$/u;

/** A number, boolean or null as YAML's core schema reads it back. */
export function plainValue(v: number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (Number.isNaN(v)) return '.nan';
  if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
  return String(v);
}

/** True when `s` can be written without quotes and still read back as this very string. */
export function plainOk(s: string, flow: boolean): boolean {
  if (s === '' || s !== s.trim() || !PRINTABLE.test(s)) return false;
  // Indicators at the start, `: ` and ` #` anywhere, and in flow collections the flow
  // indicators, all change how the text parses.
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s) || /: | #|:$/.test(s)) return false;
  if (flow && /[,[\]{}]/.test(s)) return false;
  // Text that reads as another type (`50`, `true`, `null`, `0x1f`, `.inf`) must be quoted.
  const doc = parseDocument(s, { strict: true });
  return doc.errors.length === 0 && isScalar(doc.contents) && doc.contents.value === s;
}

/** True when `s` fits in single quotes on one line. */
export function singleOk(s: string): boolean {
  return PRINTABLE.test(s);
}

export function singleQuoted(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A YAML double-quoted string: escapes whatever YAML would not take literally. */
export function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) out += '\\x' + c.toString(16).padStart(2, '0');
    // Lone surrogates, the BOM, line/paragraph separators and non-characters are not printable.
    else if (
      (c >= 0xd800 && c <= 0xdfff) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0xfeff ||
      c === 0xfffe ||
      c === 0xffff
    )
      out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** True when `s` can be a literal block scalar: printable, at least one visible character, no CR. */
export function canBlock(s: string): boolean {
  // A line starting with a tab (after the indentation) reads as a tab in the indentation.
  return /\S/.test(s) && !/^ *\t/m.test(s) && s.split('\n').every((line) => PRINTABLE.test(line.replace(/\t/g, ' ')));
}

/**
 * A literal block scalar for `s`: the header (`|`, `|-` or `|+`, with an indentation indicator
 * when the first line starts with a space, which would otherwise be read as indentation) and
 * the content lines indented to `contentCol`. `ownerCol` is the column of the key or dash that
 * owns the scalar: the indicator counts from there. Undefined when `s` cannot be one.
 */
export function blockScalar(
  s: string,
  ownerCol: number,
  contentCol: number,
  eol: string,
): { header: string; body: string } | undefined {
  if (!canBlock(s)) return undefined;
  const breaks = /\n*$/.exec(s)?.[0].length ?? 0;
  const chomp = breaks === 0 ? '-' : breaks === 1 ? '' : '+';
  // The last line break is the one chomping keeps or strips; the rest are empty lines.
  const core = breaks === 0 ? s : s.slice(0, -1);
  const lines = core.split('\n');
  const first = lines.find((l) => l !== '') ?? '';
  let indicator = '';
  if (first.startsWith(' ')) {
    const n = contentCol - ownerCol;
    if (n < 1 || n > 9) return undefined;
    indicator = String(n);
  }
  const pad = ' '.repeat(contentCol);
  return { header: `|${indicator}${chomp}`, body: lines.map((l) => (l === '' ? '' : pad + l)).join(eol) };
}

/** A scalar on one line: plain when that reads back, else double-quoted. */
export function inlineScalar(v: Scalar, flow: boolean, quoteAll: boolean): string {
  if (typeof v !== 'string') return plainValue(v);
  return !quoteAll && plainOk(v, flow) ? v : doubleQuoted(v);
}

/** A value in flow style on one line: `{ k: v }`, `[a, b]`, or a scalar. */
export function flowText(v: unknown, quoteAll: boolean): string {
  if (Array.isArray(v)) return v.length ? `[${v.map((x) => flowText(x, quoteAll)).join(', ')}]` : '[]';
  if (isRecord(v)) {
    const entries = Object.entries(v);
    return entries.length ? `{ ${entries.map(([k, x]) => flowPair(k, x, quoteAll)).join(', ')} }` : '{}';
  }
  return inlineScalar(v as Scalar, true, quoteAll);
}

/** `key: value` in a flow mapping. */
export function flowPair(k: string, v: unknown, quoteAll: boolean): string {
  return `${inlineScalar(k, true, quoteAll)}: ${flowText(v, quoteAll)}`;
}

/**
 * A value after `key: ` or `- ` in block context, owned by the key or dash at `ownerCol`: a
 * multi-line string as a block scalar (header, then its indented lines), a list or mapping in
 * flow style, anything else on one line.
 */
export function blockValue(v: unknown, ownerCol: number, eol: string, quoteAll: boolean): string {
  if (typeof v === 'string' && v.includes('\n') && !quoteAll) {
    const b = blockScalar(v, ownerCol, ownerCol + 2, eol);
    if (b) return `${b.header}${eol}${b.body}`;
  }
  return Array.isArray(v) || isRecord(v) ? flowText(v, quoteAll) : inlineScalar(v as Scalar, false, quoteAll);
}

/** `key: value` in a block mapping whose keys are at `keyCol`, without the indentation; the value as `blockValue` writes it. */
export function blockPair(k: string, v: unknown, keyCol: number, eol: string, quoteAll: boolean): string {
  return `${inlineScalar(k, false, quoteAll)}: ${blockValue(v, keyCol, eol, quoteAll)}`;
}

/**
 * What follows `key:` for a block key at `keyCol`, written to be read: a scalar on the key's
 * line, a non-empty mapping or list as block lines indented under the key (nested ones too),
 * a list's mappings as `- k: v` items. A whole verifier reads as it would be typed.
 */
export function blockNested(v: unknown, keyCol: number, eol: string, quoteAll: boolean): string {
  const col = keyCol + 2;
  if (isRecord(v) && Object.keys(v).length) return blockPairs(v, col, eol + ' '.repeat(col), eol, quoteAll);
  if (!Array.isArray(v) || !v.length) return ` ${blockValue(v, keyCol, eol, quoteAll)}`;
  const lead = `${eol}${' '.repeat(col)}- `;
  return v
    .map((x) =>
      isRecord(x) && Object.keys(x).length
        ? blockPairs(x, col + 2, lead, eol, quoteAll)
        : lead + blockValue(x, col, eol, quoteAll),
    )
    .join('');
}

/** The pairs of a mapping whose keys are at `col`, each on its own line; the first one after `lead` (a new line, or a list item's dash). */
function blockPairs(v: Record<string, unknown>, col: number, lead: string, eol: string, quoteAll: boolean): string {
  return Object.entries(v)
    .map(
      ([k, x], i) =>
        `${i === 0 ? lead : eol + ' '.repeat(col)}${inlineScalar(k, false, quoteAll)}:${blockNested(x, col, eol, quoteAll)}`,
    )
    .join('');
}

export interface ItemStyle {
  /** Quote every string and never use block scalars: the fallback when the first try fails. */
  readonly quoteAll: boolean;
  /** Write a mapping item as `- { k: v }`, as the list's other items are. */
  readonly flowMaps: boolean;
}

/**
 * A block sequence item: `- ` at `dashCol` (followed by `gap` spaces, as the list's other
 * items), a mapping's keys aligned under its first key, nested collections in flow style and
 * multi-line strings as block scalars. Lines are joined with `eol`, without a final break.
 */
export function blockItem(v: unknown, dashCol: number, gap: number, eol: string, style: ItemStyle): string {
  const lead = ' '.repeat(dashCol) + '-' + ' '.repeat(gap);
  const keyCol = dashCol + 1 + gap;
  if (isRecord(v) && Object.keys(v).length > 0 && !(style.flowMaps && !hasMultiline(v))) {
    return Object.entries(v)
      .map(([k, x], i) => `${i === 0 ? lead : ' '.repeat(keyCol)}${blockPair(k, x, keyCol, eol, style.quoteAll)}`)
      .join(eol);
  }
  return lead + blockValue(v, dashCol, eol, style.quoteAll);
}

function hasMultiline(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\n');
  if (Array.isArray(v)) return v.some(hasMultiline);
  return isRecord(v) && Object.values(v).some(hasMultiline);
}

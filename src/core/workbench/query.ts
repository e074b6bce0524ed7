// The workbench's query language, typed in one box: `band:too_hard kind:math findings>0
// model:strong rate<0.2 label:!checked` plus free words, which search the prompts. Parsed here,
// with no I/O, into terms the index tests row by row; a query that cannot be read is an error
// that says what is wrong and where (a 0-based character position), never a silent empty match.
import { BANDS } from '../stats';

/** Fields compared as text: `field:value` (a substring for id, file; exact for the others), `field:!value` negates. */
export const TEXT_FIELDS = ['band', 'kind', 'model', 'label', 'id', 'file'] as const;
/** Fields compared as numbers: `field<0.2`, `field>=3`, `field=0`. */
export const NUMBER_FIELDS = ['rate', 'samples', 'signal', 'cases', 'failing', 'findings', 'tokens', 'cost'] as const;

export type TextField = (typeof TEXT_FIELDS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
const COMPARISONS = ['<', '<=', '>', '>=', '='] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** `band:too_hard`, `label:!checked`. */
export interface TextTerm {
  readonly field: TextField;
  readonly value: string;
  readonly negated: boolean;
  /** Where the term starts in the query. */
  readonly at: number;
}

/** `rate<0.2`, `findings>0`. */
export interface NumberTerm {
  readonly field: NumberField;
  readonly op: Comparison;
  readonly value: number;
  readonly at: number;
}

export interface Query {
  readonly text: readonly TextTerm[];
  readonly numbers: readonly NumberTerm[];
  /** The model whose band, rate, samples, signal, tokens and cost the terms test; any model when absent. */
  readonly model?: string;
  /** Free words and quoted phrases, lower-cased: each must occur in the prompt, the id or the file. */
  readonly words: readonly string[];
}

export type QueryResult = { readonly query: Query } | { readonly error: string; readonly at: number };

/** The values `band:` takes: the bands, and `none` for a task without a run. */
export const BAND_VALUES: readonly string[] = [...BANDS, 'none'];

/** The empty query: every row. */
export const EMPTY_QUERY: Query = { text: [], numbers: [], words: [] };

const FIELD_RE = /^([a-z]+)(:|<=|>=|<|>|=)/;

/** Reads a query; an empty or blank one is every row. */
export function parseQuery(input: string): QueryResult {
  const text: TextTerm[] = [];
  const numbers: NumberTerm[] = [];
  const words: string[] = [];
  let model: string | undefined;
  let i = 0;
  while (i < input.length) {
    if (/\s/.test(input.charAt(i))) {
      i++;
      continue;
    }
    const at = i;
    const token = readToken(input, i);
    if ('error' in token) return token;
    i = token.end;
    const m = FIELD_RE.exec(token.raw);
    if (!m) {
      // A free word or phrase; a word that looks like a field with no known name is an error
      // (a typo such as `bnad:too_hard` would otherwise search the prompts for it).
      const looks = /^([a-z]+)(:|<|>|=)/i.exec(token.raw);
      if (looks?.[1] !== undefined && !token.quoted) return { error: unknownField(looks[1]), at };
      const word = token.value.toLowerCase().trim();
      if (word) words.push(word);
      continue;
    }
    const [, name = '', op = ''] = m;
    const rawValue = token.value.slice(name.length + op.length);
    const valueAt = at + name.length + op.length;
    const textField = TEXT_FIELDS.find((f) => f === name);
    const numberField = NUMBER_FIELDS.find((f) => f === name);
    if (textField) {
      if (op !== ':')
        return {
          error: `\`${name}\` is compared as text: write \`${name}:value\` or \`${name}:!value\`, not \`${op}\``,
          at: at + name.length,
        };
      const negated = rawValue.startsWith('!');
      const value = negated ? rawValue.slice(1) : rawValue;
      if (!value) return { error: `\`${name}:\` needs a value after it`, at: valueAt + (negated ? 1 : 0) };
      if (name === 'band' && !BAND_VALUES.includes(value))
        return { error: `\`${value}\` is no band: one of ${BAND_VALUES.join(', ')}`, at: valueAt + (negated ? 1 : 0) };
      if (name === 'model') {
        if (negated) return { error: '`model:` picks the model the other terms test; it cannot be negated', at };
        if (model !== undefined && model !== value)
          return { error: `one model per query: \`model:${model}\` is already given`, at };
        model = value;
        continue;
      }
      text.push({ field: textField, value, negated, at });
      continue;
    }
    if (numberField) {
      const comparison = COMPARISONS.find((c) => c === op);
      if (comparison === undefined)
        return {
          error: `\`${name}\` is a number: compare it with <, <=, >, >= or =, as in \`${name}>0\``,
          at: at + name.length,
        };
      const value = numberOf(rawValue);
      if (value === undefined)
        return {
          error: `\`${name}${op}\` needs a number after it${rawValue ? `, not \`${rawValue}\`` : ''}`,
          at: valueAt,
        };
      numbers.push({ field: numberField, op: comparison, value, at });
      continue;
    }
    return { error: unknownField(name), at };
  }
  return { query: { text, numbers, words, ...(model !== undefined ? { model } : {}) } };
}

function unknownField(name: string): string {
  return `\`${name}\` is no field: the fields are ${[...TEXT_FIELDS, ...NUMBER_FIELDS].join(', ')}`;
}

/** `0.2`, `20%` (a rate), `1e3`; undefined for anything else. */
function numberOf(s: string): number | undefined {
  const pct = s.endsWith('%');
  const body = pct ? s.slice(0, -1) : s;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(body)) return undefined;
  const n = Number(body);
  return pct ? n / 100 : n;
}

/**
 * One whitespace-separated token; a `"` opens a quoted part that may hold spaces (`"two words"`,
 * `label:"needs review"`), `\"` is a quote inside it.
 */
function readToken(
  input: string,
  start: number,
): { raw: string; value: string; quoted: boolean; end: number } | { error: string; at: number } {
  let i = start;
  let value = '';
  let quoted = false;
  while (i < input.length && !/\s/.test(input.charAt(i))) {
    if (input[i] !== '"') {
      value += input[i++];
      continue;
    }
    quoted = true;
    const open = i++;
    for (;;) {
      if (i >= input.length) return { error: 'a quote is opened here and never closed', at: open };
      if (input[i] === '\\' && input[i + 1] === '"') {
        value += '"';
        i += 2;
      } else if (input[i] === '"') {
        i++;
        break;
      } else value += input[i++];
    }
  }
  // A field's name is read from the raw text (a quoted `"rate<0.2"` is a phrase, not a term).
  const raw = input.slice(start, i);
  return { raw: raw.startsWith('"') ? '' : raw, value, quoted, end: i };
}

/** Whether `x` compares to `value` as `op` says. */
export function compare(x: number, op: Comparison, value: number): boolean {
  switch (op) {
    case '<':
      return x < value;
    case '<=':
      return x <= value;
    case '>':
      return x > value;
    case '>=':
      return x >= value;
    case '=':
      return x === value;
  }
}

/**
 * String-level normalisation applied before parsing. These are the rewrites that are easier on
 * text than on a tree: escape accidents, spacing commands, thousands separators, unit words,
 * percent and degree signs. Every regex here is linear (no nested quantifiers) because the
 * input is model output and may be hostile.
 */
import { must } from '../../util/must';

/** Longest answer (after extraction) that is parsed at all; longer ones are reported as unparsed. */
export const MAX_ANSWER_CHARS = 20_000;

/** Commands the parser knows, used to repair `\\frac` written with a doubled backslash. */
const KNOWN_COMMANDS =
  'frac|dfrac|tfrac|cfrac|sqrt|left|right|le|ge|leq|geq|lt|gt|neq|ne|pi|cdot|times|infty|text|textbf|mathrm|boxed|in|cup|cap|pm|mp|sin|cos|tan|ln|log|binom|begin|end|approx|quad|qquad|sum|prod|alpha|beta|gamma|theta|mbox';
const DOUBLE_BACKSLASH = new RegExp(`(?<!\\\\)\\\\\\\\(?=(?:${KNOWN_COMMANDS})(?![a-zA-Z]))`, 'g');

export interface PrepareOptions {
  /** Read `1,5` as the list 1, 5 rather than the decimal 1.5 (used when the gold answer is a list). */
  readonly preferList?: boolean;
}

export function prepare(input: string, opts: PrepareOptions = {}): string {
  let s = input;
  // JSON/Python escape accidents: "\frac" written unescaped arrives as form feed + "rac",
  // "\boxed" as backspace + "oxed". These control characters never occur in real answers.
  s = s.replace(/\f(?=rac)/g, '\\f').replace(/\x08(?=oxed)/g, '\\b');
  // `\\frac` (a doubled backslash before a known command) is the same accident one level up.
  s = s.replace(DOUBLE_BACKSLASH, '\\');
  // Unicode operators that models emit outside LaTeX.
  s = s
    .replace(/[−–]/g, '-')
    .replace(/×/g, '\\times ')
    .replace(/·/g, '\\cdot ')
    .replace(/÷/g, '/')
    .replace(/≤/g, '\\le ')
    .replace(/≥/g, '\\ge ')
    .replace(/≠/g, '\\ne ')
    .replace(/π/g, '\\pi ')
    .replace(/∞/g, '\\infty ')
    .replace(/√/g, '\\sqrt')
    .replace(/∪/g, '\\cup ')
    .replace(/±/g, '\\pm ')
    .replace(/°/g, '')
    .replace(/[²]/g, '^2')
    .replace(/[³]/g, '^3')
    .replace(/[€£¥]/g, '');
  // LaTeX thousands separators: `14{,}916`, `14 {, }916`, `11,\! 111`.
  s = s.replace(/(\d)\s*\{\s*,\s*\}\s*(?=\d{3}(?!\d))/g, '$1');
  s = s.replace(/(\d),\s*\\!\s*(?=\d{3}(?!\d))/g, '$1');
  // Sizing and spacing commands carry no meaning.
  s = s
    .replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg)(?![a-zA-Z])\s*(\.(?![0-9]))?/g, '')
    .replace(/\\(?:displaystyle|textstyle|scriptstyle|limits|nolimits|middle)(?![a-zA-Z])/g, '')
    .replace(/\\q?quad(?![a-zA-Z])/g, ' ')
    .replace(/\\q?quad/g, ' ')
    .replace(/\\hspace\*?\{[^{}]{0,20}\}/g, ' ')
    .replace(/(?<!\\)\\[!,;:> ]/g, ' ')
    .replace(/~/g, ' ');
  s = repeatingDecimals(s);
  s = s
    .replace(/\\(?:dfrac|tfrac|cfrac)(?![a-zA-Z])/g, '\\frac')
    .replace(/\\(?:dbinom|tbinom)(?![a-zA-Z])/g, '\\binom');
  // Degrees are dropped (90^\circ is 90), as every peer grader does.
  s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|\\degree|\^\s*\{\s*\\text\{\s*o\s*\}\s*\}/g, '');
  // Currency signs; `$` delimiters were already removed by extraction, stray ones are noise.
  s = s.replace(/\\\$/g, ' ').replace(/\$/g, ' ');
  // Percent spelt out becomes the percent sign, which the parser reads as a postfix operator.
  s = s.replace(/\s*\b(?:percentage|percent|pct)\b/gi, '\\%');
  s = s.replace(/\\%|%/g, '\\%');
  // Plain thousands separators: a comma followed by exactly three digits, after a non-zero
  // integer part, repeated: 7,425,000 and 1,000.99. `0,111` stays a decimal comma.
  // A bracketed pair such as (12,102) is a pair, not twelve thousand one hundred and two.
  s = s.replace(
    /(^|[^\d.,])([1-9]\d{0,2}(?:,\d{3})+)(?![\d])(?!,\d)/g,
    (m: string, pre: string, n: string, at: number, all: string) =>
      /[([]\s*$/.test(all.slice(0, at) + pre) && /^\s*[)\]]/.test(all.slice(at + m.length)) && n.split(',').length === 2
        ? m
        : pre + n.replace(/,/g, ''),
  );
  // Space as a thousands separator: `1 000`, `12 345 678`.
  s = s.replace(
    /(^|[^\d.\s]\s*|^\s*)([1-9]\d{0,2}(?: \d{3})+)(?![\d.,]?\d)/g,
    (_m, pre: string, n: string) => pre + n.replace(/ /g, ''),
  );
  // A decimal comma (1,5 = 1.5) only when the whole answer is one such number: inside a list
  // or a tuple the comma separates values, and a list-shaped gold answer asks for the list.
  if (!opts.preferList) s = s.replace(/^(\s*[+-]?\d+),(\d+)(?=\s*(?:\\%)?\s*(?:[a-zA-Z\\][a-zA-Z\\{}\s]*)?$)/, '$1.$2');
  return s;
}

/** The exact value of int.fixed(repeat)(repeat)… as a fraction in LaTeX. */
function repeatingValue(int: string, fixed: string, repeat: string): string {
  const head = BigInt(int + fixed || '0');
  const num = BigInt(int + fixed + repeat) - head;
  const den = 10n ** BigInt(fixed.length) * (10n ** BigInt(repeat.length) - 1n);
  return `(\\frac{${num}}{${den}})`;
}

/** The shortest block that ends `digits` repeated (three times for one digit, twice for longer), or null. */
function repeatingTail(digits: string): { fixed: string; repeat: string } | null {
  for (let p = 1; p <= 6 && p * 2 <= digits.length; p++) {
    const block = digits.slice(-p);
    let copies = 1;
    while (digits.length >= (copies + 1) * p && digits.slice(-(copies + 1) * p, -copies * p) === block) copies++;
    if (copies >= (p === 1 ? 3 : 2)) return { fixed: digits.slice(0, digits.length - copies * p), repeat: block };
  }
  return null;
}

/**
 * Repeating decimals become exact fractions: 0.\overline{36} and 0.\bar{3} (bar over the
 * repetend), 0.(36) (the repetend in parentheses), 0.1\dot{6} and 0.\dot{1}4285\dot{7} (dots
 * over its first and last digits), and 0.333… / 0.1666... when the digits before the dots
 * repeat (a digit three times, a longer block twice); 3.14… repeats nothing and stays a
 * decimal approximation.
 */
function repeatingDecimals(input: string): string {
  let s = input.replace(
    /(\d*)\.(\d{0,30})\\(?:overline|bar)\s*(?:\{\s*(\d{1,30})\s*\}|(\d))/g,
    (_m, i: string, f: string, r1?: string, r2?: string) =>
      repeatingValue(i, f, must(r1 ?? r2, 'one of the two forms matched')),
  );
  s = s.replace(/(\d*)\.(\d{0,30})\((\d{1,30})\)/g, (_m, i: string, f: string, r: string) => repeatingValue(i, f, r));
  s = s.replace(
    /(\d*)\.(\d{0,30})\\dot\s*\{?\s*(\d)\s*\}?(?:(\d{0,30})\\dot\s*\{?\s*(\d)\s*\}?)?/g,
    (_m, i: string, f: string, a: string, mid?: string, b?: string) =>
      repeatingValue(i, f, b === undefined ? a : a + (mid ?? '') + b),
  );
  s = s.replace(/(\d*)\.(\d{3,40})\s*(?:\\[lc]?dots(?![a-zA-Z])|\.\.\.|…)/g, (m: string, i: string, f: string) => {
    const t = repeatingTail(f);
    return t ? repeatingValue(i, t.fixed, t.repeat) : m;
  });
  return s;
}

/** Text answers ("Evelyn", "(C)", "odd") compare case-insensitively without punctuation. */
export function normText(s: string): string {
  return s
    .toLowerCase()
    .replace(/\\text\w*\{([^{}]*)\}/g, '$1')
    .replace(/[\s.,;:!?()[\]{}"'`*$\\]+/g, '');
}

/*
 * Word tokens as nltk's `word_tokenize` gives them: Punkt sentences, each split by the
 * Treebank rules of `NLTKWordTokenizer` (quotes become `` and '', punctuation and brackets
 * are split off, a sentence's final period is split off, contractions such as n't, 's, 'll
 * and "cannot" are split). IFEval's capital-word count and several IFBench and open-instruct
 * checks count these tokens.
 */
import { B, memo, W } from './py';
import { sentences } from './punkt';
import { at } from '../../../util/must';

type Rule = readonly [RegExp, string];

const STARTING_QUOTES: readonly Rule[] = [
  [/([«“‘„]|`+)/gu, ' $1 '],
  [/^"/u, '``'],
  [/(``)/gu, ' $1 '],
  [/([ ([{<])("|'{2})/gu, '$1 `` '],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${W})${B}`, 'giu'), '$1 $2'],
];

const PUNCTUATION_RULES: readonly Rule[] = [
  [/([:,])([^\d])/gu, ' $1 $2'],
  [/([:,])$/u, ' $1 '],
  [/\.{2,}/gu, ' $& '],
  [/[;@#$%&]/gu, ' $& '],
];

const PUNCTUATION_AFTER: readonly Rule[] = [
  [/[?!]/gu, ' $& '],
  [/([^'])' /gu, "$1 ' "],
  [/[*]/gu, ' $& '],
];

const ENDING_QUOTES: readonly Rule[] = [
  [/([»”’])/gu, ' $1 '],
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, '$1 $2 '],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, '$1 $2 '],
];

/** Each contraction rule with a literal that must occur (lowercased) for it to apply: most text skips them all. */
const CONTRACTIONS: readonly (readonly [string, RegExp])[] = [
  ['cannot', new RegExp(`${B}(can)(not)${B}`, 'giu')],
  ["d'ye", new RegExp(`${B}(d)('ye)${B}`, 'giu')],
  ['gimme', new RegExp(`${B}(gim)(me)${B}`, 'giu')],
  ['gonna', new RegExp(`${B}(gon)(na)${B}`, 'giu')],
  ['gotta', new RegExp(`${B}(got)(ta)${B}`, 'giu')],
  ['lemme', new RegExp(`${B}(lem)(me)${B}`, 'giu')],
  ["more'n", new RegExp(`${B}(more)('n)${B}`, 'giu')],
  ['wanna', new RegExp(`${B}(wan)(na)(?=\\s)`, 'giu')],
  ["'tis", new RegExp(` ('t)(is)${B}`, 'giu')],
  ["'twas", new RegExp(` ('t)(was)${B}`, 'giu')],
];

const CLOSERS = new Set([']', ')', '}', '>', '"', "'"]);

/**
 * The rule `([^\.])(\.)([\]\)}>"\']*)\s*$` → `\1 \2 \3 `: a final period (not part of an
 * ellipsis) is split off, with closing brackets and quotes after it. Written as a scan from the
 * end, since the regular expression backtracks badly on long runs of periods and spaces.
 */
function splitFinalPeriod(text: string, spaced: boolean): string {
  let end = text.length;
  while (end > 0 && /\s/u.test(at(text, end - 1))) end--;
  let k = end;
  while (k > 0 && CLOSERS.has(at(text, k - 1))) k--;
  if (k < 2 || text[k - 1] !== '.' || text[k - 2] === '.') return text;
  const closers = text.slice(k, end);
  return `${text.slice(0, k - 1)} .${spaced ? ' ' : ''}${closers} `;
}

function apply(text: string, rules: readonly Rule[]): string {
  for (const [re, sub] of rules) text = text.replace(re, sub);
  return text;
}

/** One sentence through the Treebank rules. */
export function treebankTokens(text: string): string[] {
  text = text.includes("'") ? apply(text, STARTING_QUOTES) : apply(text, STARTING_QUOTES.slice(0, 4));
  text = splitFinalPeriod(text, true);
  text = apply(text, PUNCTUATION_RULES);
  text = splitFinalPeriod(text, false);
  text = apply(text, PUNCTUATION_AFTER);
  text = text.replace(/[\][(){}<>]/gu, ' $& ');
  text = text.replace(/--/gu, ' -- ');
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES);
  const lower = text.toLowerCase();
  for (const [lit, re] of CONTRACTIONS) if (lower.includes(lit)) text = text.replace(re, ' $1 $2 ');
  return text.split(/\s+/u).filter((t) => t !== '');
}

/** `nltk.word_tokenize(text)`. Shared result: do not mutate. */
export const wordTokenize = memo((text: string): string[] => {
  const out: string[] = [];
  for (const s of sentences(text)) for (const t of treebankTokens(s)) out.push(t);
  return out;
});

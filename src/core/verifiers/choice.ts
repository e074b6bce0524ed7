import * as z from 'zod';
import { field, type Fields } from '../schema/fields';
import { defineKind, type KindParams } from './kind';
import { verdict, type Verdict } from './verdict';
import { at } from '../util/must';

const letter = z.string().regex(/^[A-Z]$/, 'must be one capital letter');

/** The parameters of `choice`: validated against this table, typed by it. */
const choiceFields = {
  answer: field(letter, 'The right option, one capital letter.', 'B', true),
  options: field(z.array(letter).min(2), 'The options offered. Default `[A, B, C, D, E]`.', ['A', 'B', 'C', 'D']),
} satisfies Fields;

export const choiceKind = defineKind({
  kind: 'choice',
  summary: 'Exactly one option is chosen and it is the right one.',
  doc: 'Reads the chosen letter from `\\boxed{B}`, `Answer: B` / `the answer is B`, `I pick B`, a response opening with it (`B. Because…`, `(B)`, `**B**`), a bold `**B**` or `(B)`. A letter followed by another word (`A good approach…`) is not a choice. Naming two options fails.',
  fields: choiceFields,
  validate(ctx) {
    const a = ctx.param('answer');
    const o = ctx.param('options');
    if (a?.type === 'scalar' && o?.type === 'seq' && !o.items.some((i) => i.type === 'scalar' && i.value === a.value)) {
      ctx.report('bad-value', a, `the answer \`${String(a.value)}\` is not one of the options`);
    }
  },
  snippet: '{ answer: ${1|A,B,C,D,E|} }',
  check: (response, params) => checkChoice(response, params),
});

/**
 * Words that may follow a chosen letter in prose ("B because…", "C is correct"). After any other
 * lowercase word the letter is more likely an article or a pronoun ("A good approach is…",
 * "I think…"), or a second option follows ("B or C"), and it is not read as a choice.
 */
const AFTER_LETTER = new Set([
  'because',
  'since',
  'as',
  'is',
  'was',
  'seems',
  'appears',
  'fits',
  'matches',
  'which',
  'would',
  'should',
  'must',
  'here',
  'there',
]);

/** True when the text after a letter leaves it a choice, not the start of a word or of a phrase. */
function endsChoice(after: string): boolean {
  const next = /^[ \t]+([a-z]+)/.exec(after);
  return !next || AFTER_LETTER.has(at(next, 1));
}

/**
 * Finds the options a response chooses, from the most explicit form present: a box, then an
 * answer or choice phrase ("Answer: B", "the answer is **B**", "I pick C) 5"), then a response
 * that opens with a letter ("A. Because…", "(B)", "**C**"), then a letter said to be right ("B
 * is valid"), then a bold letter, then
 * parenthesised letters. Reading only the strongest form keeps "(A) is wrong because..." in an
 * explanation from counting as a choice when the answer line says B; a letter followed by
 * another word ("A good approach…") is not read at all.
 */
export function chosenOptions(response: string, options: readonly string[]): { letters: string[]; source: string } {
  const L = `[${options.join('')}]`;
  // A letter as it is written when chosen: in parentheses, bold, or both; never part of a word.
  const marked = String.raw`\**\(?\**(${L})\**\)?\**(?![\p{L}\p{N}])`;
  const forms: [string, RegExp, boolean][] = [
    ['boxed', new RegExp(String.raw`\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*\(?(${L})\)?\s*\}?\s*\}`, 'gu'), false],
    [
      'answer line',
      new RegExp(
        String.raw`(?:\b(?:[Aa]nswer|ANSWER)|\b(?:[Cc]orrect|[Rr]ight|[Bb]est) (?:option|choice))(?:\s+is\b)?[\s*:=-]*${marked}`,
        'gu',
      ),
      true,
    ],
    [
      'choice phrase',
      new RegExp(
        String.raw`\b(?:I(?:'d|'ll| would| will)?|[Ww]e(?:'d|'ll| would| will)?) (?:pick|choose|select|go with|go for)(?: option| answer| choice)?\s+${marked}`,
        'gu',
      ),
      true,
    ],
    ['leading letter', new RegExp(String.raw`^\s*${marked}(?=[.):\s]|$)`, 'gu'), true],
    [
      'stated',
      new RegExp(
        String.raw`(?<![\p{L}\p{N}])(${L}) is (?:the )?(?:valid|correct|right|true|answer)(?![\p{L}\p{N}])`,
        'gu',
      ),
      false,
    ],
    ['bold', new RegExp(String.raw`\*\*\(?(${L})\)?[.):]?\*\*`, 'gu'), false],
    ['parenthesised', new RegExp(String.raw`\((${L})\)`, 'gu'), false],
  ];
  // Letters listed after a chosen one ("Answer: A, B or C") are chosen too: a hedge, not a choice of A.
  const more = new RegExp(String.raw`^(?:\s*(?:,|/|&|\bor\b|\band\b)\s*${marked})+`, 'u');
  const listed = new RegExp(marked, 'gu');
  for (const [source, re, guarded] of forms) {
    const letters = new Set<string>();
    for (const m of response.matchAll(re)) {
      const after = response.slice((m.index ?? 0) + m[0].length);
      const list = guarded ? more.exec(after)?.[0] : undefined;
      if (guarded && list === undefined && !endsChoice(after)) continue;
      letters.add(m[1] ?? '');
      for (const x of list?.matchAll(listed) ?? []) letters.add(x[1] ?? '');
    }
    const chosen = [...letters].filter((l) => options.includes(l));
    if (chosen.length) return { letters: chosen, source };
  }
  return { letters: [], source: 'none' };
}

function checkChoice(response: string, p: KindParams<typeof choiceFields>): Verdict {
  const options = p.options ?? ['A', 'B', 'C', 'D', 'E'];
  const { letters, source } = chosenOptions(response, options);
  const details = { chosen: letters, source, expected: p.answer, options };
  if (letters.length === 0) return verdict(false, `no option (${options.join(', ')}) was chosen`, details);
  if (letters.length > 1)
    return verdict(false, `several options were chosen (${letters.join(', ')}); expected only ${p.answer}`, details);
  return letters[0] === p.answer
    ? verdict(true, `chose ${p.answer} (${source})`, details)
    : verdict(false, `chose ${letters[0]} (${source}), expected ${p.answer}`, details);
}

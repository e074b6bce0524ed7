import { z } from 'zod';
import { field } from '../schema/fields';
import type { VerifierKind } from './kind';
import { verdict, type Verdict } from './verdict';

const letter = z.string().regex(/^[A-Z]$/, 'must be one capital letter');

export const choiceKind: VerifierKind = {
  kind: 'choice',
  summary: 'Exactly one option is chosen and it is the right one.',
  doc: 'Reads the chosen letter from `\\boxed{B}`, `Answer: B`, `(B)` or a lone letter. Naming two options fails.',
  fields: {
    answer: field(letter, 'The right option, one capital letter.', 'B', true),
    options: field(z.array(letter).min(2), 'The options offered. Default `[A, B, C, D, E]`.', ['A', 'B', 'C', 'D']),
  },
  validate(ctx) {
    const a = ctx.param('answer');
    const o = ctx.param('options');
    if (a?.type === 'scalar' && o?.type === 'seq' && !o.items.some((i) => i.type === 'scalar' && i.value === a.value)) {
      ctx.report('bad-value', a, `the answer \`${String(a.value)}\` is not one of the options`);
    }
  },
  snippet: '{ answer: ${1|A,B,C,D,E|} }',
  check: (response, params) => checkChoice(response, params as { answer: string; options?: string[] }),
};

/**
 * Finds the options a response chooses, from the most explicit form present: a box, then an
 * answer line, then parenthesised letters, then a response that is only a letter. Reading
 * only the strongest form keeps "(A) is wrong because..." in an explanation from counting
 * as a choice when the answer line says B.
 */
export function chosenOptions(response: string, options: readonly string[]): { letters: string[]; source: string } {
  const set = options.join('');
  const L = `[${set}]`;
  const forms: [string, RegExp][] = [
    ['boxed', new RegExp(String.raw`\\boxed\{\s*(?:\\text\{)?\(?(${L})\)?\}?\s*\}`, 'g')],
    ['answer line', new RegExp(String.raw`(?:[Ff]inal [Aa]nswer|[Aa]nswer|ANSWER)\s*(?:is|:)?\s*[:\-]?\s*\**\(?(${L})\)?(?![A-Za-z])`, 'g')],
    ['parenthesised', new RegExp(String.raw`\((${L})\)`, 'g')],
    ['letter', new RegExp(String.raw`^\s*\**\(?(${L})[).:]?\**\s*$`, 'g')],
  ];
  for (const [source, re] of forms) {
    const letters = [...new Set([...response.matchAll(re)].map((m) => (m[1] ?? '').toUpperCase()).filter((l) => options.includes(l)))];
    if (letters.length) return { letters, source };
  }
  return { letters: [], source: 'none' };
}

function checkChoice(response: string, p: { answer: string; options?: string[] }): Verdict {
  const options = p.options ?? ['A', 'B', 'C', 'D', 'E'];
  const { letters, source } = chosenOptions(response, options);
  const details = { chosen: letters, source, expected: p.answer, options };
  if (letters.length === 0) return verdict(false, `no option (${options.join(', ')}) was chosen`, details);
  if (letters.length > 1) return verdict(false, `several options were chosen (${letters.join(', ')}); expected only ${p.answer}`, details);
  return letters[0] === p.answer ? verdict(true, `chose ${p.answer} (${source})`, details) : verdict(false, `chose ${letters[0]} (${source}), expected ${p.answer}`, details);
}

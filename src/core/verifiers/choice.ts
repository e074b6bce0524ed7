import { z } from 'zod';
import { field } from '../schema/fields';
import type { VerifierKind } from './kind';

const letter = z.string().regex(/^[A-Z]$/, 'an option is one capital letter');

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
};

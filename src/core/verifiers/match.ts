import { z } from 'zod';
import { field } from '../schema/fields';
import { exactlyOneOf, type VerifierKind } from './kind';

export const matchModes = ['exact', 'normalized', 'contains', 'regex'] as const;

export const matchKind: VerifierKind = {
  kind: 'match',
  summary: 'The final answer matches the expected text.',
  doc: [
    'Modes: `exact`; `normalized` (the default: case, whitespace, punctuation and articles folded);',
    '`contains`; `regex` (the answer is a JavaScript regular expression that must match).',
    'With `tag: answer` only the text inside the last `<answer>...</answer>` is compared.',
  ].join('\n'),
  fields: {
    answer: field(z.union([z.string(), z.number()]), 'The expected answer (a pattern in `regex` mode).', 'Paris'),
    answers: field(z.array(z.union([z.string(), z.number()])).min(1), 'Several acceptable answers; any may match.', ['Paris', 'paris, france']),
    mode: field(z.enum(matchModes), 'How to compare: `exact`, `normalized` (default), `contains` or `regex`.', 'normalized'),
    tag: field(z.string().regex(/^[A-Za-z][\w-]*$/), 'Read the answer from the last `<tag>...</tag>` of the response.', 'answer'),
  },
  validate(ctx) {
    exactlyOneOf(ctx, ['answer', 'answers'], '`match`');
    const mode = ctx.param('mode');
    if (mode?.type === 'scalar' && mode.value === 'regex') {
      const answers = ctx.param('answers');
      const nodes = [ctx.param('answer'), ...(answers?.type === 'seq' ? answers.items : [])];
      for (const n of nodes) {
        if (n && n.type === 'scalar' && typeof n.value === 'string') {
          try {
            new RegExp(n.value, 'u');
          } catch (e) {
            ctx.report('bad-value', n, `not a valid regular expression: ${(e as Error).message}`);
          }
        }
      }
    }
  },
  snippet: '{ answer: "${1:Paris}"${2:, tag: answer} }',
};

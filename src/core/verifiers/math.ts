import * as z from 'zod';
import { field } from '../schema/fields';
import { exactlyOneOf, type VerifierKind } from './kind';
import { checkMath, type MathParams } from './math/checkMath';

const answer = z.union([z.string(), z.number()]);

export const mathKind: VerifierKind = {
  kind: 'math',
  summary: 'The final answer is mathematically equivalent to the gold answer.',
  doc: [
    'Extracts the last `\\boxed{}` (or an answer line, or the last number), normalises LaTeX,',
    'thousands separators, percent and units, and compares exactly where both sides are exact:',
    'fractions, roots, π, sets, intervals, tuples, matrices, equations. A relative tolerance',
    'applies only when a side is a decimal approximation (so 0.67 is not 2/3).',
  ].join('\n'),
  fields: {
    answer: field(answer, 'The gold answer, as LaTeX or plain text: `72`, `\\frac{3}{4}`, `(1, 2]`, `x^2+1`.', '72'),
    answers: field(z.array(answer).min(1), 'Several acceptable gold answers; any may match.', ['72', '72.0']),
    tolerance: field(
      z.number().gt(0).lt(1),
      'Relative tolerance, used only when a side is a decimal approximation. Default 1e-6.',
      0.01,
    ),
  },
  validate(ctx) {
    exactlyOneOf(ctx, ['answer', 'answers'], '`math`');
  },
  snippet: '{ answer: "${1:72}" }',
  check: (response, params, ctx) => checkMath(response, params as MathParams, ctx),
};

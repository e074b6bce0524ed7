import * as z from 'zod';
import type { YScalar } from '../base/ynode';
import { field } from '../schema/fields';
import { exactlyOneOf, type ParamsContext, type VerifierKind } from './kind';
import { parseGold } from './math/answer';
import { checkMath, type MathParams } from './math/checkMath';

const answer = z.union([z.string(), z.number()]);

const PLAIN_NUMBER = /^\s*-?\d+(?:\.\d+)?\s*$/;

/**
 * A gold answer the verifier cannot read would fail every sample: it is an error where it is
 * written, with the parser's reason, never a silent zero.
 */
function checkGolds(ctx: ParamsContext): void {
  const baseNode = ctx.param('base');
  const base = baseNode?.type === 'scalar' && typeof baseNode.value === 'number' && Number.isInteger(baseNode.value) && baseNode.value >= 2 && baseNode.value <= 36 ? baseNode.value : undefined;
  const one = ctx.param('answer');
  const many = ctx.param('answers');
  const nodes: YScalar[] = [];
  if (one?.type === 'scalar') nodes.push(one);
  if (many?.type === 'seq') for (const n of many.items) if (n.type === 'scalar') nodes.push(n);
  for (const n of nodes) {
    if (typeof n.value !== 'string' && typeof n.value !== 'number') continue;
    // Plain numbers (most golds) always parse: skip the parser, which the editor runs on every edit.
    if (base === undefined && PLAIN_NUMBER.test(String(n.value))) continue;
    const { parsed } = parseGold(n.value, base);
    if (!parsed.ok) ctx.report('bad-value', n, `the math verifier cannot read the gold answer \`${String(n.value)}\` (${parsed.error}): every sample would score 0`);
  }
}

export const mathKind: VerifierKind = {
  kind: 'math',
  summary: 'The final answer is mathematically equivalent to the gold answer.',
  doc: [
    'Extracts the last `\\boxed{}` (or an answer line, or the last number), normalises LaTeX,',
    'thousands separators, percent and units, and compares exactly where both sides are exact:',
    'fractions, mixed numbers, repeating decimals, roots, π, sets, intervals, tuples, matrices,',
    'equations. A relative tolerance applies only when a side is a decimal approximation (so 0.67',
    'is not 2/3).',
  ].join('\n'),
  fields: {
    answer: field(answer, 'The gold answer, as LaTeX or plain text: `72`, `\\frac{3}{4}`, `(1, 2]`, `x^2+1`.', '72'),
    answers: field(z.array(answer).min(1), 'Several acceptable gold answers; any may match.', ['72', '72.0']),
    tolerance: field(
      z.number().gt(0).lt(1),
      'Relative tolerance, used only when a side is a decimal approximation. Default 1e-6.',
      0.01,
    ),
    precision: field(
      z.number().int().min(0).max(15),
      'Compare decimal approximations rounded to this many decimal places instead of by `tolerance` (3.1416 equals π with `precision: 4`).',
      4,
    ),
    strict: field(z.boolean(), 'With `false`, an answer in one variable may name it differently (`y = 2t+1` for `x = 2t+1`). Default true.', false),
    last_number: field(z.boolean(), 'With `false`, a response without a `\\boxed{}` or an answer line has no answer (no falling back to its last number). Default true.', false),
    set_relation: field(z.boolean(), 'With `false`, a gold interval or set does not accept an inequality (`x > 2` for `(2, \\infty)`). Default true.', false),
    base: field(
      z.number().int().min(2).max(36),
      'The base the task\'s integers are written in: `204` then reads as `204_5` with `base: 5`. Without it a numeral in another base equals only that numeral (`1011_2`, never `11`).',
      2,
    ),
  },
  validate(ctx) {
    exactlyOneOf(ctx, ['answer', 'answers'], '`math`');
    checkGolds(ctx);
  },
  snippet: '{ answer: "${1:72}" }',
  check: (response, params, ctx) => checkMath(response, params as MathParams, ctx),
};

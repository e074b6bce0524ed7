import type { YScalar } from '../base/ynode';
import { defineKind, exactlyOneOf, type ParamsContext } from './kind';
import { parseGold } from './math/answer';
import { checkMath, mathFields } from './math/checkMath';

const PLAIN_NUMBER = /^\s*-?\d+(?:\.\d+)?\s*$/;

/**
 * A gold answer the verifier cannot read would fail every sample: it is an error where it is
 * written, with the parser's reason, never a silent zero.
 */
function checkGolds(ctx: ParamsContext): void {
  const baseNode = ctx.param('base');
  const base =
    baseNode?.type === 'scalar' &&
    typeof baseNode.value === 'number' &&
    Number.isInteger(baseNode.value) &&
    baseNode.value >= 2 &&
    baseNode.value <= 36
      ? baseNode.value
      : undefined;
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
    if (!parsed.ok)
      ctx.report(
        'bad-value',
        n,
        `the math verifier cannot read the gold answer \`${String(n.value)}\` (${parsed.error}): every sample would score 0`,
      );
  }
}

export const mathKind = defineKind({
  kind: 'math',
  summary: 'The final answer is mathematically equivalent to the gold answer.',
  doc: [
    'Extracts the last `\\boxed{}` (or an answer line, or the last number), normalises LaTeX,',
    'thousands separators, percent and units, and compares exactly where both sides are exact:',
    'fractions, mixed numbers, repeating decimals, roots, π, sets, intervals, tuples, matrices,',
    'equations. A relative tolerance applies only when a side is a decimal approximation (so 0.67',
    'is not 2/3).',
  ].join('\n'),
  fields: mathFields,
  validate(ctx) {
    exactlyOneOf(ctx, ['answer', 'answers'], '`math`');
    checkGolds(ctx);
  },
  snippet: '{ answer: "${1:72}" }',
  check: (response, params, ctx) => checkMath(response, params, ctx),
});

import { z } from 'zod';
import { field, strictObjectOf, type Fields } from '../schema/fields';
import type { ParamsContext, VerifierKind } from './kind';

/** Validates each item of the `of` list as a verifier of its own. */
function validateChildren(ctx: ParamsContext): void {
  const of = ctx.param('of');
  if (of?.type === 'seq') for (const item of of.items) ctx.verifier(item, item);
}

const children = z.array(z.unknown()).min(1);

export const allKind: VerifierKind = {
  kind: 'all',
  summary: 'Every verifier in the list passes; `score` is the mean.',
  doc: 'Write the list directly (`all: [...]`) or as `all: { of: [...] }` to add options.',
  fields: { of: field(children, 'The verifiers that must all pass.', [], true) },
  listField: 'of',
  listItems: 'verifiers',
  validate: validateChildren,
  snippet: '\n  - ${1:math}: ${2:{ answer: "42" \\}}\n  - ${3:format}: ${4:{ think: required \\}}',
};

export const anyKind: VerifierKind = {
  kind: 'any',
  summary: 'At least one verifier in the list passes; `score` is the max.',
  doc: 'Write the list directly (`any: [...]`) or as `any: { of: [...] }` to add options.',
  fields: { of: field(children, 'The verifiers of which one must pass.', [], true) },
  listField: 'of',
  listItems: 'verifiers',
  validate: validateChildren,
  snippet: '\n  - ${1:math}: ${2:{ answer: "42" \\}}\n  - ${3:match}: ${4:{ answer: "forty-two" \\}}',
};

const WEIGHTED_ITEM: Fields = {
  weight: field(z.number().min(0), 'How much this verifier counts; 0 reports it without counting it.', 1, true),
  verify: field(z.unknown(), 'The verifier, such as `math: { answer: "42" }`.', { math: { answer: '42' } }, true),
};
const weightedItem = strictObjectOf(WEIGHTED_ITEM);

export const weightedKind: VerifierKind = {
  kind: 'weighted',
  summary: 'The weighted mean score reaches `threshold`.',
  doc: 'Each item is `{weight, verify}`; weight 0 reports a verifier without counting it.',
  fields: {
    of: field(z.array(weightedItem).min(1), 'The weighted verifiers: `{weight: 2, verify: {...}}`.', [], true),
    threshold: field(z.number().min(0).max(1), 'The weighted score needed to pass. Default 1.0.', 0.7),
  },
  listField: 'of',
  listItems: WEIGHTED_ITEM,
  validate(ctx) {
    const of = ctx.param('of');
    if (of?.type !== 'seq') return;
    for (const item of of.items) {
      if (item.type !== 'map') continue;
      const v = item.items.find((p) => p.key.value === 'verify');
      // A missing `verify` is already reported by the item's schema.
      if (v) ctx.verifier(v.value, v.key);
    }
  },
  snippet: '\n  - { weight: ${1:2}, verify: { ${2:math}: { answer: "${3:42}" } } }\n  - { weight: ${4:1}, verify: { format: { think: required } } }',
};

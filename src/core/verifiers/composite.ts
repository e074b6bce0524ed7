import * as z from 'zod';
import { field, strictObjectOf, type Fields } from '../schema/fields';
import { defineKind, type ParamsContext } from './kind';
import type { Verdict, VerifyContext } from './verdict';
import { verifierKind } from '../util/verifierKind';

/** Validates each item of the `of` list as a verifier of its own. */
function validateChildren(ctx: ParamsContext): void {
  const of = ctx.param('of');
  if (of?.type === 'seq') for (const item of of.items) ctx.verifier(item, item);
}

const children = z.array(z.unknown()).min(1);

export const allKind = defineKind({
  kind: 'all',
  summary: 'Every verifier in the list passes; `score` is the mean.',
  doc: 'Write the list directly (`all: [...]`) or as `all: { of: [...] }` to add options.',
  fields: { of: field(children, 'The verifiers that must all pass.', [], true) },
  listField: 'of',
  listItems: 'verifiers',
  validate: validateChildren,
  snippet: '\n  - ${1:math}: ${2:{ answer: "42" \\}}\n  - ${3:format}: ${4:{ think: required \\}}',
  // Children apply their own final-answer rule, so they get the whole response.
  wholeResponse: true,
  async check(response, params, ctx) {
    const children = await runChildren(params.of, response, ctx);
    const failed = children.filter((c) => !c.verdict.pass);
    const score = mean(children.map((c) => c.verdict.score));
    const reason =
      failed.length === 0
        ? `all ${children.length} passed`
        : `${failed.length}/${children.length} failed: ${failed.map(describeChild).join('; ')}`;
    return {
      pass: failed.length === 0,
      score,
      reason,
      details: { children: children.map(summary) },
      ...firstError(failed),
    };
  },
});

export const anyKind = defineKind({
  kind: 'any',
  summary: 'At least one verifier in the list passes; `score` is the max.',
  doc: 'Write the list directly (`any: [...]`) or as `any: { of: [...] }` to add options.',
  fields: { of: field(children, 'The verifiers of which one must pass.', [], true) },
  listField: 'of',
  listItems: 'verifiers',
  validate: validateChildren,
  snippet: '\n  - ${1:math}: ${2:{ answer: "42" \\}}\n  - ${3:match}: ${4:{ answer: "forty-two" \\}}',
  wholeResponse: true,
  async check(response, params, ctx) {
    const children = await runChildren(params.of, response, ctx);
    const passed = children.filter((c) => c.verdict.pass);
    const score = Math.max(0, ...children.map((c) => c.verdict.score));
    const reason = passed.length
      ? `${passed.length}/${children.length} passed: ${passed.map(describeChild).join('; ')}`
      : `none of ${children.length} passed: ${children.map(describeChild).join('; ')}`;
    return {
      pass: passed.length > 0,
      score,
      reason,
      details: { children: children.map(summary) },
      ...(passed.length ? {} : firstError(children)),
    };
  },
});

const WEIGHTED_ITEM: Fields = {
  weight: field(z.number().min(0), 'How much this verifier counts; 0 reports it without counting it.', 1, true),
  verify: field(z.unknown(), 'The verifier, such as `math: { answer: "42" }`.', { math: { answer: '42' } }, true),
};
const weightedItem = strictObjectOf(WEIGHTED_ITEM);

export const weightedKind = defineKind({
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
  snippet:
    '\n  - { weight: ${1:2}, verify: { ${2:math}: { answer: "${3:42}" } } }\n  - { weight: ${4:1}, verify: { format: { think: required } } }',
  wholeResponse: true,
  async check(response, params, ctx) {
    const items = params.of as { weight: number; verify: unknown }[];
    const children = await runChildren(
      items.map((i) => i.verify),
      response,
      ctx,
    );
    const total = items.reduce((a, i) => a + i.weight, 0);
    const score =
      total > 0 ? items.reduce((a, item, k) => a + item.weight * (children[k]?.verdict.score ?? 0), 0) / total : 0;
    const threshold = params.threshold ?? 1;
    // Scores are sums of floats: a score a hair under the threshold is the threshold.
    const pass = score >= threshold - 1e-9;
    const parts = children.map((c, k) => `${describeChild(c)} ×${items[k]?.weight ?? 0}`);
    return {
      pass,
      score,
      reason: `weighted score ${score.toFixed(3)} ${pass ? '≥' : '<'} ${threshold}: ${parts.join('; ')}`,
      details: { threshold, children: children.map((c, k) => ({ ...summary(c), weight: items[k]?.weight })) },
      ...(pass ? {} : firstError(children)),
    };
  },
});

interface ChildResult {
  readonly kind: string;
  readonly verdict: Verdict;
}

async function runChildren(
  verifiers: readonly unknown[],
  response: string,
  ctx: VerifyContext,
): Promise<ChildResult[]> {
  return Promise.all(
    verifiers.map(async (v) => ({ kind: verifierKind(v) ?? '?', verdict: await ctx.child(v, response) })),
  );
}

function describeChild(c: ChildResult): string {
  return `${c.kind}: ${c.verdict.reason}`;
}

function summary(c: ChildResult): Record<string, unknown> {
  return {
    kind: c.kind,
    pass: c.verdict.pass,
    score: c.verdict.score,
    reason: c.verdict.reason,
    details: c.verdict.details,
    ...(c.verdict.error ? { error: c.verdict.error } : {}),
  };
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** A composite that failed because a child could not decide carries that child's error. */
function firstError(children: readonly ChildResult[]): { error?: Verdict['error'] } {
  const e = children.find((c) => c.verdict.error)?.verdict.error;
  return e ? { error: e } : {};
}

import * as z from 'zod';
import { field, type Fields } from '../schema/fields';
import { defineKind, exactlyOneOf, reportRegex, type KindParams } from './kind';
import { compileRegex } from './text/regex';
import { excerpt, lastTagged, normalizeAnswer } from './text/normalize';
import { verdict, type Verdict } from './verdict';

export const matchModes = ['exact', 'normalized', 'contains', 'regex', 'f1'] as const;

/** The parameters of `match`: validated against this table, typed by it. */
const matchFields = {
  answer: field(z.union([z.string(), z.number()]), 'The expected answer (a pattern in `regex` mode).', 'Paris'),
  answers: field(z.array(z.union([z.string(), z.number()])).min(1), 'Several acceptable answers; any may match.', [
    'Paris',
    'paris, france',
  ]),
  mode: field(
    z.enum(matchModes),
    'How to compare: `exact`, `normalized` (default), `contains`, `regex` or `f1`.',
    'normalized',
  ),
  threshold: field(z.number().min(0).max(1), 'With `mode: f1`: the F1 score needed to pass. Default 1.', 0.8),
  tag: field(
    z.string().regex(/^[A-Za-z][\w-]*$/),
    'Read the answer from the last `<tag>...</tag>` of the response.',
    'answer',
  ),
} satisfies Fields;

export const matchKind = defineKind({
  kind: 'match',
  summary: 'The final answer matches the expected text.',
  doc: [
    'Modes: `exact`; `normalized` (the default: case, whitespace, punctuation and articles folded);',
    '`contains`; `regex` (the answer is a JavaScript regular expression that must match, run in linear time:',
    'no lookaround or backreferences); `f1`',
    '(token overlap of the normalized texts as the score, passing at `threshold`, default 1).',
    'With `tag: answer` only the text inside the last `<answer>...</answer>` is compared.',
  ].join('\n'),
  fields: matchFields,
  validate(ctx) {
    exactlyOneOf(ctx, ['answer', 'answers'], '`match`');
    const mode = ctx.param('mode');
    if (mode?.type === 'scalar' && mode.value === 'regex') {
      const answers = ctx.param('answers');
      const nodes = [ctx.param('answer'), ...(answers?.type === 'seq' ? answers.items : [])];
      for (const n of nodes) reportRegex(ctx, n, 'the pattern');
    }
  },
  snippet: '{ answer: "${1:Paris}"${2:, tag: answer} }',
  check: (response, params) => checkMatch(response, params),
});

/** A pattern that cannot run: no verdict about the response, so not a quiet fail. */
export function unusablePattern(pattern: string, problem: string): Verdict {
  return { ...verdict(false, `the pattern /${pattern}/ ${problem}`, { pattern }), error: 'unavailable' };
}

type MatchParams = KindParams<typeof matchFields>;

/** SQuAD-style token F1 of two texts after `normalized` folding (bag of words, with counts). */
export function tokenF1(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}

function checkMatch(response: string, p: MatchParams): Verdict {
  const mode = p.mode ?? 'normalized';
  const golds = (p.answers ?? [p.answer ?? '']).map(String);
  let text = response;
  if (p.tag) {
    const inner = lastTagged(response, p.tag);
    if (inner === undefined) return verdict(false, `no <${p.tag}>...</${p.tag}> in the response`, { tag: p.tag });
    text = inner;
  }
  if (mode === 'f1') {
    const scored = golds.map((g) => ({ gold: g, f1: tokenF1(text, g) }));
    const best = scored.reduce((a, b) => (b.f1 > a.f1 ? b : a));
    const threshold = p.threshold ?? 1;
    const pass = best.f1 >= threshold - 1e-9;
    return verdict(
      pass,
      `token F1 ${best.f1.toFixed(3)} against ${excerpt(best.gold)} (${pass ? '≥' : '<'} ${threshold})`,
      { mode, answer: excerpt(text, 200), f1: best.f1, matched: best.gold },
      best.f1,
    );
  }
  const compared = mode === 'normalized' ? normalizeAnswer(text) : mode === 'exact' ? text.trim() : text;
  for (const gold of golds) {
    let ok: boolean;
    if (mode === 'regex') {
      const re = compileRegex(gold);
      if ('error' in re) return unusablePattern(gold, re.error);
      ok = re.regex.test(text);
    } else if (mode === 'contains') ok = normalizeAnswer(text).includes(normalizeAnswer(gold));
    else if (mode === 'exact') ok = compared === gold.trim();
    else ok = compared === normalizeAnswer(gold);
    if (ok)
      return verdict(true, `${mode} match of ${excerpt(gold)}`, { mode, answer: excerpt(text, 200), matched: gold });
  }
  const want = golds.length === 1 ? excerpt(golds[0] ?? '') : `one of ${golds.map((g) => excerpt(g)).join(', ')}`;
  return verdict(false, `got ${excerpt(text)}, expected ${want} (${mode})`, {
    mode,
    answer: excerpt(text, 200),
    normalized: mode === 'normalized' ? compared.slice(0, 200) : undefined,
    expected: golds,
  });
}

import { z } from 'zod';
import { field } from '../schema/fields';
import { exactlyOneOf, type VerifierKind } from './kind';
import { excerpt, lastTagged, normalizeAnswer } from './text/normalize';
import { verdict, type Verdict } from './verdict';

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
  check: (response, params) => checkMatch(response, params as MatchParams),
};

interface MatchParams {
  answer?: string | number;
  answers?: (string | number)[];
  mode?: (typeof matchModes)[number];
  tag?: string;
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
  const compared = mode === 'normalized' ? normalizeAnswer(text) : mode === 'exact' ? text.trim() : text;
  for (const gold of golds) {
    let ok: boolean;
    if (mode === 'regex') ok = new RegExp(gold, 'u').test(text);
    else if (mode === 'contains') ok = normalizeAnswer(text).includes(normalizeAnswer(gold));
    else if (mode === 'exact') ok = compared === gold.trim();
    else ok = compared === normalizeAnswer(gold);
    if (ok) return verdict(true, `${mode} match of ${excerpt(gold)}`, { mode, answer: excerpt(text, 200), matched: gold });
  }
  const want = golds.length === 1 ? excerpt(golds[0] ?? '') : `one of ${golds.map((g) => excerpt(g)).join(', ')}`;
  return verdict(false, `got ${excerpt(text)}, expected ${want} (${mode})`, { mode, answer: excerpt(text, 200), normalized: mode === 'normalized' ? compared.slice(0, 200) : undefined, expected: golds });
}

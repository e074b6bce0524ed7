import * as z from 'zod';
import { field, type Fields } from '../schema/fields';
import { checkRegex, defineKind, type KindParams } from './kind';
import { unusablePattern } from './match';
import { compileRegex } from './text/regex';
import { verdict, type Verdict } from './verdict';

/** The parameters of `format`: validated against this table, typed by it. */
const formatFields = {
  think: field(
    z.enum(['required', 'forbidden']),
    '`required` or `forbidden`: the `<think>` block discipline.',
    'required',
  ),
  regex: field(
    z.string().min(1),
    'A JavaScript regular expression the response must match (run in linear time: no lookaround or backreferences).',
    '^<think>[\\s\\S]+</think>',
  ),
} satisfies Fields;

export const formatKind = defineKind({
  kind: 'format',
  summary: 'The response has the required shape.',
  doc: [
    '`think: required` wants one `<think>...</think>` block before the answer (and a non-empty answer);',
    '`think: forbidden` wants none. `regex` must match the response. Sees the whole response by default.',
  ].join('\n'),
  fields: formatFields,
  validate(ctx) {
    if (ctx.param('think') === undefined && ctx.param('regex') === undefined) {
      ctx.report('missing-key', ctx.kindKey, '`format` needs `think` or `regex`');
    }
    checkRegex(ctx, 'regex');
  },
  snippet: '{ think: required }',
  wholeResponse: true,
  check: (response, params) => checkFormat(response, params),
});

function checkFormat(response: string, p: KindParams<typeof formatFields>): Verdict {
  const opens = response.split('<think>').length - 1;
  const closes = response.split('</think>').length - 1;
  const details: Record<string, unknown> = { think_blocks: Math.min(opens, closes), unclosed: opens > closes };
  if (p.think === 'required') {
    const m = /^\s*<think>([\s\S]*?)<\/think>([\s\S]*)$/.exec(response);
    if (!m)
      return verdict(
        false,
        opens === 0
          ? 'no <think> block at the start of the response'
          : 'the <think> block is not closed, or does not start the response',
        details,
      );
    if (opens !== 1 || closes !== 1)
      return verdict(false, `expected one <think> block, found ${opens} opening and ${closes} closing tags`, details);
    // An empty block is well-formed: models with thinking switched off emit `<think></think>`.
    if (!(m[2] ?? '').trim()) return verdict(false, 'there is no answer after </think>', details);
  } else if (p.think === 'forbidden' && (opens || closes)) {
    return verdict(false, 'the response contains a <think> block, which is forbidden here', details);
  }
  if (p.regex !== undefined) {
    const re = compileRegex(p.regex);
    if ('error' in re) return unusablePattern(p.regex, re.error);
    if (!re.regex.test(response))
      return verdict(false, `the response does not match /${p.regex}/`, { ...details, regex: p.regex });
  }
  return verdict(
    true,
    [p.think ? `think: ${p.think}` : '', p.regex ? `matches /${p.regex}/` : ''].filter(Boolean).join('; '),
    details,
  );
}

import { z } from 'zod';
import { field } from '../schema/fields';
import { checkRegex, type VerifierKind } from './kind';

export const formatKind: VerifierKind = {
  kind: 'format',
  summary: 'The response has the required shape.',
  doc: [
    '`think: required` wants one `<think>...</think>` block before the answer (and a non-empty answer);',
    '`think: forbidden` wants none. `regex` must match the response. Sees the whole response by default.',
  ].join('\n'),
  fields: {
    think: field(z.enum(['required', 'forbidden']), '`required` or `forbidden`: the `<think>` block discipline.', 'required'),
    regex: field(z.string().min(1), 'A JavaScript regular expression the response must match.', '^<think>[\\s\\S]+</think>'),
  },
  validate(ctx) {
    if (ctx.param('think') === undefined && ctx.param('regex') === undefined) {
      ctx.report('missing-key', ctx.kindKey, '`format` needs `think` or `regex`');
    }
    checkRegex(ctx, 'regex');
  },
  snippet: '{ think: required }',
};

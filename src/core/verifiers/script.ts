import * as z from 'zod';
import { field } from '../schema/fields';
import { checkScript, type ScriptParams } from './code/script';
import type { VerifierKind } from './kind';

export const scriptKind: VerifierKind = {
  kind: 'script',
  summary: 'A script of your own gives the verdict.',
  doc: [
    'A `.js`/`.mjs` module exporting `verify(response, task)`, or any executable that reads',
    '`{response, task}` as JSON on stdin and prints `{pass, score?, reason?}` as JSON. Paths are',
    'relative to the task file. Scripts run isolated (no network, the project folder read-only, 10 s by',
    'default), and never in an untrusted workspace. Output that is not a verdict is reported as a crash.',
  ].join('\n'),
  fields: {
    path: field(z.string().min(1), 'The script, relative to the task file.', './verify.mjs', true),
    args: field(z.array(z.string()), 'Extra command-line arguments for an executable.', ['--strict']),
    timeout_ms: field(z.number().int().min(1).max(600_000), 'Time limit in milliseconds. Default 10000.', 10000),
  },
  snippet: '{ path: "${1:./verify.mjs}" }',
  check: (response, params, ctx) => checkScript(response, params as unknown as ScriptParams, ctx),
};

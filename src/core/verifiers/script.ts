import { checkScript, scriptFields } from './code/script';
import { defineKind } from './kind';

export const scriptKind = defineKind({
  kind: 'script',
  summary: 'A script of your own gives the verdict.',
  doc: [
    'A `.js`/`.mjs` module exporting `verify(response, task)`, or any executable that reads',
    '`{response, task}` as JSON on stdin and prints `{pass, score?, reason?}` as JSON. Paths are',
    'relative to the task file. Scripts run isolated (no network, the project folder read-only, 10 s by',
    'default), and never in an untrusted workspace. Output that is not a verdict is reported as a crash.',
  ].join('\n'),
  fields: scriptFields,
  snippet: '{ path: "${1:./verify.mjs}" }',
  check: (response, params, ctx) => checkScript(response, params, ctx),
});

import { checkCode, codeFields } from './code/checkCode';
import { defineKind, exactlyOneOf } from './kind';

export const codeKind = defineKind({
  kind: 'code',
  summary: 'The last fenced code block passes every test.',
  doc: [
    'Runs the answer (the last fenced block, or the whole answer) once per test in a sandbox with',
    'its own folder, no network, and time and memory limits. A test passes when the program exits 0',
    'in time and its output matches line by line (trailing whitespace ignored). `score` is the pass rate.',
    '`asserts` run once with the asserts appended (JavaScript gets a global `assert`); `call` cases compare the',
    'returned value as JSON, numbers within 1e-9 (relative, absolute near zero). Never runs in an untrusted workspace.',
  ].join('\n'),
  fields: codeFields,
  validate(ctx) {
    exactlyOneOf(ctx, ['tests', 'asserts', 'call'], '`code`');
  },
  snippet: '{ language: ${1|python,javascript|}, tests: [{ stdin: "${2:1 2}", stdout: "${3:3}" }] }',
  check: (response, params, ctx) => checkCode(response, params, ctx),
});

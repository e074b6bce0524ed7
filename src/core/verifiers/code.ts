import * as z from 'zod';
import { field } from '../schema/fields';
import { checkCode, type CodeParams } from './code/checkCode';
import { exactlyOneOf, type VerifierKind } from './kind';

const ioTest = z.strictObject({ stdin: z.string().optional(), stdout: z.string() });
const callCase = z.strictObject({ args: z.array(z.unknown()), returns: z.unknown() });

export const codeKind: VerifierKind = {
  kind: 'code',
  summary: 'The last fenced code block passes every test.',
  doc: [
    'Runs the answer (the last fenced block, or the whole answer) once per test in a sandbox with',
    'its own folder, no network, and time and memory limits. A test passes when the program exits 0',
    'in time and its output matches line by line (trailing whitespace ignored). `score` is the pass rate.',
    '`asserts` run once with the asserts appended (JavaScript gets a global `assert`); `call` cases compare the',
    'returned value as JSON, numbers within 1e-9 (relative, absolute near zero). Never runs in an untrusted workspace.',
  ].join('\n'),
  fields: {
    language: field(z.enum(['python', 'javascript']), 'The language of the answer: `python` or `javascript`.', 'python', true),
    tests: field(z.array(ioTest).min(1), 'Input/output tests: `{stdin, stdout}`.', [{ stdin: '1 2\n', stdout: '3\n' }]),
    asserts: field(z.string().min(1), 'Code appended to the answer; it passes when it exits 0.', 'assert add(1, 2) == 3'),
    call: field(
      z.strictObject({ function: z.string().regex(/^[A-Za-z_$][\w$]*$/), cases: z.array(callCase).min(1) }),
      'Call a function with `args` and compare what it returns.',
      { function: 'add', cases: [{ args: [1, 2], returns: 3 }] },
    ),
    timeout_ms: field(z.number().int().min(1).max(600_000), 'Time limit per test in milliseconds. Default 5000.', 5000),
    memory_mb: field(z.number().int().min(16).max(65_536), 'Memory limit per test in MiB. Default 512. Node itself needs about 64.', 512),
  },
  validate(ctx) {
    exactlyOneOf(ctx, ['tests', 'asserts', 'call'], '`code`');
  },
  snippet: '{ language: ${1|python,javascript|}, tests: [{ stdin: "${2:1 2}", stdout: "${3:3}" }] }',
  check: (response, params, ctx) => checkCode(response, params as unknown as CodeParams, ctx),
};

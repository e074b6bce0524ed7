import { errorMessage } from '../base/errorMessage';
import * as z from 'zod';
import { field, type Fields } from '../schema/fields';
import type { default as AjvClass, ValidateFunction } from 'ajv';
import { defineKind, type KindParams } from './kind';
import { excerpt } from './text/normalize';
import { verdict, type Verdict } from './verdict';

/** The parameters of `json`: validated against this table, typed by it. */
const jsonFields = {
  schema: field(z.record(z.string(), z.unknown()), 'A JSON Schema (draft 2020-12) the value must satisfy.', {
    type: 'object',
    required: ['name'],
  }),
} satisfies Fields;

export const jsonKind = defineKind({
  kind: 'json',
  summary: 'The final answer is one JSON value that matches the schema.',
  doc: 'A fenced ```json block is allowed around the value. Without `schema`, any valid JSON passes.',
  fields: jsonFields,
  snippet: '{ schema: { type: ${1:object}, required: [${2:name}] } }',
  check: (response, params) => checkJson(response, params),
});

/** The JSON text of an answer: the last fenced block if there is one, else the whole answer. */
export function jsonText(answer: string): string {
  const fences = [...answer.matchAll(/```[ \t]*(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)```/g)];
  const last = fences[fences.length - 1];
  return (last ? (last[1] ?? '') : answer).trim();
}

let ajv: AjvClass | undefined;
const compiled = new Map<string, ValidateFunction>();

/** ajv, loaded on the first schema: it is 100 kB that loading the extension or the CLI need not evaluate. */
function compiler(): AjvClass {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Ajv = (require('ajv') as { default: typeof AjvClass }).default;
  return (ajv ??= new Ajv({ allErrors: true, strict: false }));
}

/** A compiled JSON Schema validator, kept by the schema's text; throws when the schema is invalid. */
export function validatorFor(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = compiler().compile(schema)));
  return v;
}

function checkJson(answer: string, p: KindParams<typeof jsonFields>): Verdict {
  const text = jsonText(answer);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return verdict(false, `not one JSON value: ${errorMessage(e)}`, { text: excerpt(text, 200) });
  }
  if (!p.schema) return verdict(true, 'valid JSON', { value });
  let validate: ValidateFunction;
  try {
    validate = validatorFor(p.schema);
  } catch (e) {
    return { ...verdict(false, `the schema is not a valid JSON Schema: ${errorMessage(e)}`), error: 'crash' };
  }
  if (validate(value)) return verdict(true, 'valid JSON matching the schema', { value });
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim());
  return verdict(
    false,
    `JSON does not match the schema: ${errors[0] ?? 'invalid'}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`,
    { value, errors },
  );
}

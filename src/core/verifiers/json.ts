import { z } from 'zod';
import { field } from '../schema/fields';
import type { VerifierKind } from './kind';

export const jsonKind: VerifierKind = {
  kind: 'json',
  summary: 'The final answer is one JSON value that matches the schema.',
  doc: 'A fenced ```json block is allowed around the value. Without `schema`, any valid JSON passes.',
  fields: {
    schema: field(z.record(z.string(), z.unknown()), 'A JSON Schema (draft 2020-12) the value must satisfy.', { type: 'object', required: ['name'] }),
  },
  snippet: '{ schema: { type: ${1:object}, required: [${2:name}] } }',
};

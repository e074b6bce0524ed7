// Schema elements for the shapes training rows use, so each format lists its columns in a
// line each. Every field is OPTIONAL: rows of one dataset do not all have every value.
export type SchemaElement = Record<string, unknown>;

const opt = { repetition_type: 'OPTIONAL' } as const;

export const str = (name: string): SchemaElement[] => [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', ...opt }];
export const int32 = (name: string): SchemaElement[] => [{ name, type: 'INT32', ...opt }];
export const bool = (name: string): SchemaElement[] => [{ name, type: 'BOOLEAN', ...opt }];
export const double = (name: string): SchemaElement[] => [{ name, type: 'DOUBLE', ...opt }];

export function struct(name: string, fields: readonly SchemaElement[][]): SchemaElement[] {
  return [{ name, num_children: fields.length, ...opt }, ...fields.flat()];
}

/** A list of structs in Parquet's three-level LIST layout, as pyarrow writes it. */
export function listOf(name: string, element: readonly SchemaElement[][]): SchemaElement[] {
  return [
    { name, converted_type: 'LIST', num_children: 1, ...opt },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...struct('element', element),
  ];
}

/** The chat messages of a prompt: `[{role, content}]`. */
export const messagesColumn = (name: string): SchemaElement[] => listOf(name, [str('role'), str('content')]);

/** A list of strings in Parquet's three-level LIST layout. */
export function strList(name: string): SchemaElement[] {
  return [
    { name, converted_type: 'LIST', num_children: 1, ...opt },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...str('element'),
  ];
}

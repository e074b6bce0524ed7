import * as z from 'zod';

/**
 * One key of a mapping in a task file: its schema, its documentation and an example.
 * Tables of fields drive validation (a strict zod object is built from them), completion
 * (the keys and examples) and hover (the docs), so all three always agree.
 */
export interface FieldDef<S extends z.ZodType = z.ZodType, R extends boolean = boolean> {
  readonly schema: S;
  readonly doc: string;
  readonly required: R;
  readonly example: unknown;
  /** How the type reads in messages when the schema alone cannot say it (`pass`, `fail` or ...). */
  readonly label?: string;
}

export type Fields = Readonly<Record<string, FieldDef>>;

/**
 * The values a field table describes, as its schemas infer them: the type of a verifier's
 * parameters comes from the same table that validates them, so the two cannot drift apart.
 */
export type ValuesOf<F extends Fields> = {
  readonly [K in keyof F as F[K] extends FieldDef<z.ZodType, true> ? K : never]: z.infer<F[K]['schema']>;
} & {
  readonly [K in keyof F as F[K] extends FieldDef<z.ZodType, true> ? never : K]?: z.infer<F[K]['schema']>;
};

export function field<S extends z.ZodType>(schema: S, doc: string, example: unknown): FieldDef<S, false>;
export function field<S extends z.ZodType, R extends boolean>(
  schema: S,
  doc: string,
  example: unknown,
  required: R,
  label?: string,
): FieldDef<S, R>;
export function field(schema: z.ZodType, doc: string, example: unknown, required = false, label?: string): FieldDef {
  return label === undefined ? { schema, doc, required, example } : { schema, doc, required, example, label };
}

/** The label of a field: its own, or the one its schema gives. */
export function fieldLabel(f: FieldDef): string {
  return f.label ?? typeLabel(f.schema);
}

/**
 * The schema found by following a path of keys and indices into an object schema, through
 * optional wrappers, arrays and unions; undefined where the path leaves what zod describes.
 */
export function schemaAtPath(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: ZodLike | undefined = schema as unknown as ZodLike;
  for (const seg of path) {
    s = unwrap(s);
    if (!s) return undefined;
    const def = s._zod.def;
    if (def.type === 'object' && typeof seg === 'string') s = def.shape?.[seg];
    else if (def.type === 'array' && typeof seg === 'number') s = def.element;
    else if (def.type === 'record' && typeof seg === 'string') s = def.valueType;
    else return undefined;
  }
  return s as unknown as z.ZodType | undefined;
}

/** The keys an object schema at the end of a path knows, for "did you mean". */
export function keysAtPath(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const s = unwrap(schemaAtPath(schema, path) as unknown as ZodLike | undefined);
  return s?._zod.def.type === 'object' ? Object.keys(s._zod.def.shape ?? {}) : [];
}

interface ZodLike {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, ZodLike>;
      element?: ZodLike;
      valueType?: ZodLike;
      innerType?: ZodLike;
      options?: ZodLike[];
    };
  };
}

function unwrap(s: ZodLike | undefined): ZodLike | undefined {
  for (let i = 0; s && i < 8; i++) {
    const def = s._zod.def;
    if (
      def.innerType &&
      (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'nonoptional')
    )
      s = def.innerType;
    else if (def.type === 'union')
      s = def.options?.find((o) => unwrap(o)?._zod.def.type === 'object') ?? def.options?.[0];
    else return s;
  }
  return s;
}

const objectCache = new WeakMap<Fields, z.ZodType>();

/** A strict zod object for a field table: unknown keys and missing required keys are issues. */
export function strictObjectOf(fields: Fields): z.ZodType {
  let s = objectCache.get(fields);
  if (!s) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, f] of Object.entries(fields)) shape[k] = f.required ? f.schema : f.schema.optional();
    s = z.strictObject(shape);
    objectCache.set(fields, s);
  }
  return s;
}

/** How a field's type reads in messages and completion details: "an integer", "text". */
export function typeLabel(schema: z.ZodType): string {
  const def = (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;
  return labelOf(def);
}

interface ZodDefLike {
  type: string;
  innerType?: { _zod: { def: ZodDefLike } };
  element?: { _zod: { def: ZodDefLike } };
  options?: Array<{ _zod: { def: ZodDefLike } }>;
  entries?: Record<string, string>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: { check: string; format?: string } } }>;
}

function labelOf(def: ZodDefLike): string {
  switch (def.type) {
    case 'string':
      return 'text';
    case 'number': {
      const isInt = def.checks?.some((c) => c._zod.def.format === 'safeint' || c._zod.def.check === 'number_format');
      return isInt ? 'an integer' : 'a number';
    }
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array':
      return def.element ? `a list of ${plural(labelOf(def.element._zod.def))}` : 'a list';
    case 'object':
    case 'record':
      return 'a mapping';
    case 'enum':
      return `one of ${Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(', ')}`;
    case 'literal':
      return (def.values ?? []).map((v) => `\`${String(v)}\``).join(' or ');
    case 'union':
      return (def.options ?? []).map((o) => labelOf(o._zod.def)).join(' or ');
    case 'optional':
    case 'nullable':
    case 'default':
    case 'pipe':
      return def.innerType ? labelOf(def.innerType._zod.def) : 'a value';
    default:
      return 'a value';
  }
}

function plural(label: string): string {
  if (label === 'text') return 'text';
  if (label === 'a value') return 'values';
  if (label.startsWith('an integer')) return 'integers';
  if (label.startsWith('a number')) return 'numbers';
  if (label === 'a mapping') return 'mappings';
  return label.replace(/^an? /, '');
}

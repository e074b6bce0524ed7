// The one check that a parsed value is a plain object with named fields, for reading JSON and YAML.

/** True for an object that is neither null nor an array: its fields can be read by name. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Type guards for values read from JSON, YAML or another process: each proves the shape it
// names, so the code that reads on needs no cast.

/** A plain object (not null, not an array), its keys not yet known. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object, or an empty one for anything else: for optional sections read field by field. */
export function recordOr(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

/** A list whose items are all strings. */
export function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** JSON text as a value of unknown shape, for a guard to prove; throws a SyntaxError as JSON.parse does. */
export function parseJson(text: string): unknown {
  return JSON.parse(text);
}

/** What a failed system call carries (`code`, `syscall`, `path`), read off whatever was thrown. */
export function errnoOf(e: unknown): { code?: string; syscall?: string; path?: string } {
  if (!isRecord(e)) return {};
  const text = (k: string): string | undefined => (typeof e[k] === 'string' ? e[k] : undefined);
  return { code: text('code'), syscall: text('syscall'), path: text('path') };
}

/** A list of values not yet known (Array.isArray says `any[]`, which would let them go unchecked). */
export function isList(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

/** The list, or an empty one for anything else: for optional lists read item by item. */
export function listOr(v: unknown): readonly unknown[] {
  return isList(v) ? v : [];
}

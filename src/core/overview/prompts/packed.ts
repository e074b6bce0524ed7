// Reads of the packed arrays near-duplicate and contamination search keep prompts in (typed
// arrays and lists of numbers), checked rather than asserted: an index outside its array throws
// a RangeError where it is read instead of going on as `undefined`. One reader per array type,
// so each call site stays monomorphic and V8 inlines the read into the hot loops as fast as a
// bare index (scripts/bench-duplicates.mjs measures them).

function outside(i: number, length: number): RangeError {
  return new RangeError(`index ${i} is outside the ${length} items`);
}

/** `a[i]` of a Uint32Array. */
export function u32(a: Uint32Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outside(i, a.length);
  return v;
}

/** `a[i]` of an Int32Array. */
export function i32(a: Int32Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outside(i, a.length);
  return v;
}

/** `a[i]` of a Float64Array. */
export function f64(a: Float64Array, i: number): number {
  const v = a[i];
  if (v === undefined) throw outside(i, a.length);
  return v;
}

/** `a[i]` of a list of numbers. */
export function num(a: readonly number[], i: number): number {
  const v = a[i];
  if (v === undefined) throw outside(i, a.length);
  return v;
}

/** `a[i]` of a list of words. */
export function word(a: readonly string[], i: number): string {
  const v = a[i];
  if (v === undefined) throw outside(i, a.length);
  return v;
}

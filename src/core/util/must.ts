// Values the code knows are there (an index inside a checked length, a key just set), checked
// instead of asserted: a wrong belief fails loudly where it is held, not later as `undefined`.

/** `items[i]`, which the caller knows exists; throws a RangeError naming the index when it does not. */
export function at<T>(items: ArrayLike<T>, i: number): T {
  const v = items[i];
  if (v === undefined) throw new RangeError(`index ${i} is outside the ${items.length} items`);
  return v;
}

/** `value`, which the caller knows is defined; throws an Error saying `why` it should have been. */
export function must<T>(value: T | undefined, why: string): T {
  if (value === undefined) throw new Error(`missing value: ${why}`);
  return value;
}

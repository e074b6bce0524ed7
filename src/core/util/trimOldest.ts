// Small caches kept in a Map: a Map iterates in insertion order, so its first keys are the oldest
// and are the ones let go when the cache is full.

/** Deletes the oldest entries of `map` until it holds at most `size`. */
export function trimOldest<K, V>(map: Map<K, V>, size: number): void {
  for (const key of map.keys()) {
    if (map.size <= size) return;
    map.delete(key);
  }
}

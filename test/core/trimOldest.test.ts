// The small caches kept in a Map (compiled regexes, tokenised text, open dataset tables) let go of
// their oldest entries first and keep the newest, up to their size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trimOldest } from '../../src/core/util/trimOldest';

test('trimOldest keeps the newest entries, in their order, up to the size', () => {
  const cache = new Map(['a', 'b', 'c', 'd', 'e'].map((k, i) => [k, i]));
  trimOldest(cache, 2);
  assert.deepEqual(
    [...cache],
    [
      ['d', 3],
      ['e', 4],
    ],
  );
  trimOldest(cache, 5);
  assert.deepEqual([...cache.keys()], ['d', 'e'], 'a cache under its size keeps everything');
  trimOldest(cache, 0);
  assert.equal(cache.size, 0);
});

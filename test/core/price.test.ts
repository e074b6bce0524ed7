// A model profile's `price`: read from `models:` (dollars per million prompt and completion
// tokens), checked by the validator, and refused with a message when it is not two amounts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProfileError, profileFromEntry } from '../../src/core/sampling/profiles';
import { parseTaskFile } from '../../src/core/taskfile/parse';

const file = (price: string): string =>
  `vtask: 1\nmodels:\n  paid: { base_url: "http://127.0.0.1:8000/v1", model: m, price: ${price} }\ntasks:\n  - id: t\n    model: paid\n    prompt: What is 2 + 2?\n    verify: { math: { answer: "4" } }\n`;

test("a profile's price is read, checked, and refused when it is not two amounts", () => {
  assert.deepEqual(
    profileFromEntry('paid', { base_url: 'http://h/v1', model: 'm', price: { prompt: 0.15, completion: 0.6 } }).price,
    { prompt: 0.15, completion: 0.6 },
  );
  assert.equal(profileFromEntry('free', { base_url: 'http://h/v1', model: 'm' }).price, undefined);
  assert.throws(
    () => profileFromEntry('bad', { base_url: 'http://h/v1', model: 'm', price: { prompt: -1, completion: 1 } }),
    (e: unknown) =>
      e instanceof ProfileError &&
      /`price` is \{ prompt: \.\.\., completion: \.\.\. \}, dollars per million tokens/.test(e.message),
  );
  assert.throws(() => profileFromEntry('bad', { base_url: 'http://h/v1', model: 'm', price: 3 }), ProfileError);
  assert.deepEqual(
    parseTaskFile(file('{ prompt: 0.15, completion: 0.6 }')).issues.filter((i) => i.severity === 'error'),
    [],
    'a price is a known key of a profile',
  );
  assert.ok(
    parseTaskFile(file('{ prompt: -1, completion: 0.6 }')).issues.some((i) => i.severity === 'error'),
    'a negative price is an error in the file',
  );
});

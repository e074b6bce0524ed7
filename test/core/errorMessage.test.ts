import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorMessage } from '../../src/core/base/errorMessage';

test('errorMessage reads an Error and anything else that was thrown', () => {
  assert.equal(errorMessage(new TypeError('bad input')), 'bad input');
  assert.equal(errorMessage('a thrown string'), 'a thrown string');
  assert.equal(errorMessage(undefined), 'undefined');
});

// A test that fails on purpose. It runs only with VTASK_CANARY=1 (`VTASK_CANARY=1 npm run
// test:unit` must exit 1 with "1 failed"): proof that the runner reports a failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';

void test('canary: this assertion fails on purpose', () => {
  assert.equal(1 + 1, 3);
});

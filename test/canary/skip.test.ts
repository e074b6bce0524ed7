// Skips on purpose (with VTASK_CANARY=1 only), to prove the runner's skip policy: every skip is
// listed, and with CI=true a conformance skip fails unless its reason starts with `needs:`.
import { test } from 'node:test';

void test('canary: a conformance check skipped without saying what it needs', (t) => {
  t.skip('data not loaded');
});

void test('canary: a parity check skipped for want of something', (t) => {
  t.skip('needs: a file this machine lacks');
});

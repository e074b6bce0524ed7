// inOrder: results handed on in index order as soon as they can be, never more than a window
// of them started ahead of the first not yet handed on, and a failure ends the wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inOrder } from '../../src/core/run/inOrder';

/** A promise settled by the test, and whether it has been asked for. */
function gate<T>(): { promise: Promise<T>; open(v: T): void } {
  let open: (v: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test('results come out in index order, each as soon as every one before it is done', async () => {
  const gates = Array.from({ length: 6 }, () => gate<string>());
  const out: string[] = [];
  const done = inOrder(
    6,
    3,
    (i) => gates[i]?.promise ?? Promise.reject(new Error('no gate')),
    (r, i) => out.push(`${i}:${r}`),
  );
  // Item 1 and 2 end before item 0: nothing can be handed on yet.
  gates[1]?.open('b');
  gates[2]?.open('c');
  await ticks(5);
  assert.deepEqual(out, []);
  // Item 0 ends: it and the two held behind it go at once.
  gates[0]?.open('a');
  await ticks(5);
  assert.deepEqual(out, ['0:a', '1:b', '2:c']);
  for (const i of [5, 4, 3]) gates[i]?.open(String(i));
  await done;
  assert.deepEqual(out, ['0:a', '1:b', '2:c', '3:3', '4:4', '5:5']);
});

test('a slow item holds back at most a window of started items, and an undefined result is handed on', async () => {
  const slow = gate<undefined>();
  let started = 0;
  let most = 0;
  const out: number[] = [];
  const done = inOrder(
    100,
    4,
    async (i) => {
      started++;
      most = Math.max(most, started - out.length);
      if (i === 0) return slow.promise;
      await ticks(1);
      return undefined;
    },
    (r, i) => {
      assert.equal(r, undefined);
      out.push(i);
    },
    10,
  );
  await ticks(50);
  // Ten started (item 0 and nine behind it), none handed on: the window is full, nothing else starts.
  assert.equal(started, 10);
  assert.deepEqual(out, []);
  slow.open(undefined);
  await done;
  assert.equal(out.length, 100);
  assert.deepEqual(
    out,
    Array.from({ length: 100 }, (_, i) => i),
  );
  assert.ok(most <= 10, `at most the window ahead, not ${most}`);
});

test('a failing item or a failing hand-on rejects the whole', async () => {
  await assert.rejects(
    inOrder(
      5,
      2,
      async (i) => {
        if (i === 3) throw new Error('item 3 failed');
        return i;
      },
      () => undefined,
    ),
    /item 3 failed/,
  );
  await assert.rejects(
    inOrder(
      5,
      2,
      async (i) => i,
      (r) => {
        if (r === 2) throw new Error('could not write 2');
      },
    ),
    /could not write 2/,
  );
});

test('no items: nothing is run or handed on', async () => {
  let calls = 0;
  await inOrder(
    0,
    8,
    async () => calls++,
    () => calls++,
  );
  assert.equal(calls, 0);
});

// Bounded concurrency whose results come out in order, one at a time, and are not kept: a run of
// many tasks hands each task's result on as soon as it and every task before it are done, so
// what it holds is the few results that finished ahead of a slower one, not the whole run.

/**
 * Runs `run(i)` for i in 0..count-1, at most `limit` at once, and calls `emit` with each result
 * in index order as soon as it and every one before it are done. No index is started more than
 * `window` past the first one not yet emitted, so a slow item holds back at most `window`
 * results (and starting new work), whatever `count` is: by default 1,024 (a task's result is a
 * few kilobytes), so that one task retrying for a while rarely holds up the run. Rejects as
 * soon as a `run` or an `emit` throws (the items in flight go on, as with `Promise.all`).
 */
export async function inOrder<R>(
  count: number,
  limit: number,
  run: (index: number) => Promise<R>,
  emit: (result: R, index: number) => void,
  window = Math.max(4 * limit, 1024),
): Promise<void> {
  // Finished ahead of an earlier item: waiting, by index, for that one. Boxed so that a result
  // that is itself undefined still counts as there.
  const ahead = new Map<number, { readonly result: R }>();
  // Workers waiting for the window to move.
  let stalled: (() => void)[] = [];
  let next = 0;
  let due = 0;
  const release = (): void => {
    const waiting = stalled;
    stalled = [];
    for (const go of waiting) go();
  };
  const worker = async (): Promise<void> => {
    while (next < count) {
      if (next - due >= window) {
        await new Promise<void>((go) => stalled.push(go));
        continue;
      }
      const i = next++;
      const result = await run(i);
      if (i !== due) {
        ahead.set(i, { result });
        continue;
      }
      emit(result, due++);
      for (let held = ahead.get(due); held; held = ahead.get(due)) {
        ahead.delete(due);
        emit(held.result, due++);
      }
      release();
    }
  };
  const workers = Math.max(1, Math.min(limit, count));
  await Promise.all(Array.from({ length: workers }, worker));
}

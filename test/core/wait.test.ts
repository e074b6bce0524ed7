// Waiting with a way out (core/util/wait): withDeadline gives the work's own result when it comes
// first, a DeadlineError when the time runs out, a CancelledError the moment the caller aborts, and
// leaves no timer or listener behind. The last is checked in a child process (this same file, run
// with VTASK_WAIT_CHILD set): a process with a forgotten minute-long timer does not exit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { CancelledError, DeadlineError, sleep, withDeadline } from '../../src/core/util/wait';

const MINUTE = 60_000;

/** Timers this process holds open now. */
const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Waits that settle early while each started a minute-long timer, then nothing else. */
async function runChild(): Promise<void> {
  assert.equal(await withDeadline(Promise.resolve('first'), MINUTE, undefined, 'work'), 'first');
  await withDeadline(Promise.reject(new Error('failed')), MINUTE, undefined, 'work').catch(() => undefined);
  const ctl = new AbortController();
  const waiting = withDeadline(new Promise(() => undefined), MINUTE, ctl.signal, 'work');
  const sleeping = sleep(MINUTE, ctl.signal);
  ctl.abort();
  await Promise.allSettled([waiting, sleeping]);
  process.stdout.write('settled\n');
}

if (process.env.VTASK_WAIT_CHILD) void runChild();
else defineTests();

function defineTests(): void {
  void test('the work that settles first gives its own value or error, and its timer is gone', async () => {
    const before = timers();
    assert.equal(await withDeadline(Promise.resolve(42), MINUTE, undefined, 'the answer'), 42);
    await assert.rejects(
      withDeadline(Promise.reject(new Error('boom')), MINUTE, undefined, 'the answer'),
      /^Error: boom$/,
    );
    assert.equal(timers(), before, 'no timer is left running');
  });

  void test('a deadline that passes rejects with what was awaited and how long', async () => {
    const t0 = Date.now();
    const err = await withDeadline(new Promise(() => undefined), 50, undefined, 'the call of search').then(
      () => assert.fail('must not resolve'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DeadlineError);
    assert.equal(err.message, 'the call of search took longer than 50 ms');
    assert.equal(err.ms, 50);
    assert.ok(Date.now() - t0 >= 45, 'not before the deadline');
  });

  void test('an abort rejects at once with a CancelledError, and before it started too', async () => {
    const ctl = new AbortController();
    const t0 = Date.now();
    const waiting = withDeadline(new Promise(() => undefined), MINUTE, ctl.signal, 'work');
    assert.equal(getEventListeners(ctl.signal, 'abort').length, 1);
    ctl.abort();
    await assert.rejects(waiting, CancelledError);
    assert.ok(Date.now() - t0 < 5000);
    await assert.rejects(withDeadline(Promise.resolve(1), MINUTE, ctl.signal, 'work'), CancelledError);

    const kept = new AbortController();
    await withDeadline(Promise.resolve(1), MINUTE, kept.signal, 'work');
    assert.equal(getEventListeners(kept.signal, 'abort').length, 0, 'the listener is removed once settled');
  });

  void test('work given as a function is told to stop when the deadline passes or the caller aborts', async () => {
    let seen: AbortSignal | undefined;
    const listening = (s: AbortSignal): Promise<never> => {
      seen = s;
      return new Promise((_, reject) => s.addEventListener('abort', () => reject(new Error('stopped'))));
    };
    await assert.rejects(withDeadline(listening, 30, undefined, 'the request'), DeadlineError);
    assert.equal(seen?.aborted, true);

    const ctl = new AbortController();
    const waiting = withDeadline(listening, MINUTE, ctl.signal, 'the request');
    ctl.abort();
    await assert.rejects(waiting, CancelledError);
    assert.equal(seen?.aborted, true);

    // Work that ignores its signal is given up all the same.
    await assert.rejects(
      withDeadline(() => new Promise(() => undefined), 30, undefined, 'deaf'),
      DeadlineError,
    );
    assert.equal(await withDeadline(async (s) => s.aborted, MINUTE, undefined, 'fresh'), false, 'it starts live');
  });

  void test('work given as a function: one listener on the caller while it runs, none after; a throw is its error', async () => {
    const ctl = new AbortController();
    const before = timers();
    let seen: AbortSignal | undefined;
    const waiting = withDeadline(
      (s) => {
        seen = s;
        assert.equal(getEventListeners(ctl.signal, 'abort').length, 1);
        return new Promise<string>((resolve) => setImmediate(() => resolve('done')));
      },
      MINUTE,
      ctl.signal,
      'work',
    );
    assert.equal(await waiting, 'done');
    assert.equal(seen?.aborted, false, 'work that succeeded is not told to stop');
    assert.equal(getEventListeners(ctl.signal, 'abort').length, 0);
    assert.equal(timers(), before);

    await assert.rejects(
      withDeadline(
        (s) => {
          seen = s;
          throw new Error('thrown before any promise');
        },
        MINUTE,
        ctl.signal,
        'work',
      ),
      /^Error: thrown before any promise$/,
    );
    assert.equal(seen?.aborted, true);
    assert.equal(getEventListeners(ctl.signal, 'abort').length, 0);
    assert.equal(timers(), before);
    // An aborted caller: a rejection, never a throw, and the work is not started.
    ctl.abort();
    let started = false;
    const refused = withDeadline(
      () => {
        started = true;
        return Promise.resolve(1);
      },
      MINUTE,
      ctl.signal,
      'work',
    );
    await assert.rejects(refused, CancelledError);
    assert.equal(started, false);
  });

  void test('sleep waits its time, or stops at once on abort', async () => {
    const t0 = Date.now();
    await sleep(40);
    assert.ok(Date.now() - t0 >= 35);
    const ctl = new AbortController();
    const p = sleep(MINUTE, ctl.signal);
    ctl.abort();
    await assert.rejects(p, CancelledError);
    await assert.rejects(sleep(10, ctl.signal), CancelledError);
  });

  void test('a process whose waits all settled early exits at once: no timer keeps it alive', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, VTASK_WAIT_CHILD: '1' };
    delete env.NODE_TEST_CONTEXT;
    const t0 = Date.now();
    const child = spawn(process.execPath, [__filename], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    assert.equal(out, 'settled\n');
    assert.ok(Date.now() - t0 < 30_000, `exited after ${Date.now() - t0} ms, not a minute`);
  });
}

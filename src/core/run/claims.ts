// Two runs on one cache must not both ask the model for the same task: the first to start on a
// task claims it (a lock file per task in the cache folder), and a second one waits for it to
// finish and then takes its samples from the cache. A claim of a process that died (kill -9) is
// stale at once on this machine; one from another machine (a shared folder) after `staleMs`.
// Waiting is bounded: past `maxWaitMs` the second run samples itself (duplicate work, never a hang).
import fs from 'node:fs';
import path from 'node:path';
import type { SampleCache } from '../sampling/cache';
import { tryLock } from '../util/lock';
import { sleep } from '../util/wait';

export interface Claim {
  release(): void;
  /** Whether another run held the task first (its samples may now be in the cache). */
  readonly waited: boolean;
}

const POLL_MS = 100;

/**
 * Lets go of the claim once the task's samples are written: the run waiting for it reads the
 * cache as soon as the claim is gone, and samples still buffered would look missing to it, and
 * be asked for again. The claims of tasks that end together go with one write of the cache
 * (every 100 ms) rather than one write each; a waiting run polls no faster than that. If that
 * write fails the claim goes anyway: the cache's timer retries, the waiting run samples what it lacks.
 */
function releaseAfterFlush(cache: SampleCache, unlock: () => void): void {
  cache.afterFlush(unlock);
}

/** Takes the lock file of a claim; the claims folder is made the first time it is missing. */
function tryClaim(dir: string, file: string, staleMs: number): (() => void) | undefined {
  try {
    return tryLock(file, { staleMs, quickRelease: true });
  } catch (e) {
    if (!(e instanceof Error && 'code' in e && e.code === 'ENOENT')) throw e;
    fs.mkdirSync(dir, { recursive: true });
    return tryLock(file, { staleMs, quickRelease: true });
  }
}

/**
 * Claims the task whose first sample key is `key`, waiting while another live run holds it.
 * `onWait` is called once, when the wait begins.
 */
export async function claimTask(
  cache: SampleCache,
  key: string,
  signal: AbortSignal,
  o: { maxWaitMs: number; staleMs?: number; onWait?: () => void },
): Promise<Claim> {
  // The cache folder first, so that it ignores itself in git before anything is in it.
  cache.ensureDir();
  const dir = path.join(cache.dir, 'claims');
  const file = path.join(dir, `${key}.claim`);
  const until = Date.now() + o.maxWaitMs;
  let waited = false;
  for (;;) {
    const unlock = tryClaim(dir, file, o.staleMs ?? 10 * 60_000);
    if (unlock) return { release: () => releaseAfterFlush(cache, unlock), waited };
    if (Date.now() >= until) return { release: () => undefined, waited };
    if (!waited) o.onWait?.();
    waited = true;
    // A lock file has no event to wait on that works on every file system; a short poll does.
    await sleep(POLL_MS, signal);
  }
}

// Two runs on one cache must not both ask the model for the same task: the first to start on a
// task claims it, and a second one waits for it to finish and then takes its samples from the
// cache. A run claims the tasks it is about to start together, with one file per batch:
// `claims/<host>-<pid>-<random>.claims` names its holder and the tasks' keys (each task's first
// sample key). Claims are taken while holding `claims/claiming.lock`, which covers reading the
// others' claims and writing one's own (a few file operations, never the sampling): no two runs
// can claim one task, and a batch of tasks costs one lock, one listing and one write rather than
// a lock file created and removed per task, which was the largest cost of `vtask run` against a
// fast server.
//
// A claim is let go once its task's samples are written: its key leaves the file, rewritten once
// per write of the cache for every task that ended before it. A claim of a process that died is
// void at once on this machine; one from another machine (a shared folder) after `staleMs`
// without a rewrite. Waiting is bounded: past `maxWaitMs` the second run samples itself
// (duplicate work, never a hang). The one-task claim files of earlier versions (`<key>.claim`)
// are honoured as well.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { errnoOf, isRecord, isStringArray, parseJson } from '../base/record';
import type { SampleCache } from '../sampling/cache';
import { HOST_ID, isStale, lockInfoOf, tryLock, type LockInfo } from '../util/lock';
import { sleep } from '../util/wait';

export interface Claim {
  /** Lets go of the task once the samples put so far are written (see `TaskClaims.release`). */
  release(): void;
}

export interface ClaimOptions {
  /** How long to wait for another holder before sampling anyway. */
  readonly maxWaitMs: number;
  /** Called once, when a wait begins. */
  readonly onWait?: () => void;
}

/** How often a waiting run looks at the claims again; also the least time between two listings. */
const POLL_MS = 100;
/** How often the lock around taking claims is tried again while another run holds it. */
const LOCK_POLL_MS = 5;
/** That lock is held for a few file operations: one this old belongs to a stuck holder. */
const LOCK_STALE_MS = 10_000;
const LOCK_NAME = 'claiming.lock';
const BATCH_SUFFIX = '.claims';
const SINGLE_SUFFIX = '.claim';

/** One claim file of this run and the keys it still holds. */
interface Batch {
  readonly file: string;
  readonly keys: Set<string>;
}

/** The claims of one run (one `sampleTasks`) on one cache. */
export class TaskClaims {
  private readonly dir: string;
  /** Keys this run holds, each with its file. */
  private readonly held = new Map<string, Batch>();
  /** Held keys a task of this run is sampling now: another task with the same key waits for it. */
  private readonly busy = new Set<string>();
  /** Keys whose samples wait for the cache's next write before they are let go. */
  private releasing = new Set<string>();
  private releaseQueued = false;
  /** The others' claimed keys as last listed, for waiting tasks (at most one listing per POLL_MS). */
  private seen: { at: number; keys: ReadonlySet<string> } | undefined;
  /** Takes of this process one after another: a take waits its turn for the lock. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cache: SampleCache,
    private readonly staleMs = 10 * 60_000,
  ) {
    this.dir = path.join(cache.dir, 'claims');
  }

  /**
   * Claims the task whose first sample key is `key`, waiting while another run (or another task
   * of this run with the same key) holds it. Claiming it also claims the keys `ahead()` gives
   * (the tasks this run starts next) that no one holds, in the same write.
   */
  async claim(key: string, ahead: () => readonly string[], signal: AbortSignal, o: ClaimOptions): Promise<Claim> {
    const until = Date.now() + o.maxWaitMs;
    let waited = false;
    for (;;) {
      if (await this.got(key, ahead, signal, until, waited)) {
        this.busy.add(key);
        return { release: () => this.release(key) };
      }
      if (Date.now() >= until) {
        // Sampling anyway: what the holder has written so far need not be asked for again.
        this.refresh();
        return { release: () => undefined };
      }
      if (!waited) o.onWait?.();
      waited = true;
      // A lock file has no event to wait on that works on every file system; a short poll does.
      await sleep(POLL_MS, signal);
    }
  }

  /** Whether `key` is this task's now: held by this run and no other task of it, or claimed now. */
  private async got(
    key: string,
    ahead: () => readonly string[],
    signal: AbortSignal,
    until: number,
    waited: boolean,
  ): Promise<boolean> {
    if (this.held.has(key)) return !this.busy.has(key);
    // A waiting task looks at the last listing (shared by all of them) before it takes the lock.
    if (waited && this.othersHold(key)) return false;
    return this.take(key, ahead, signal, until);
  }

  /**
   * Lets go of `key` once the samples put so far are written: a run waiting for it reads the
   * cache as soon as the claim is gone, and samples still buffered would look missing to it, and
   * be asked for again. The keys released before one write of the cache go with it, in one
   * rewrite of each claim file. If that write fails the claim goes anyway: the cache's timer
   * retries, the waiting run samples what it lacks.
   */
  private release(key: string): void {
    this.releasing.add(key);
    if (this.releaseQueued) return;
    this.releaseQueued = true;
    this.cache.afterFlush(() => {
      this.releaseQueued = false;
      const keys = this.releasing;
      this.releasing = new Set();
      this.letGo(keys);
    });
  }

  /** Lets go at once of the keys claimed ahead for tasks that never started (a cancelled run). */
  close(): void {
    this.letGo([...this.held.keys()].filter((k) => !this.busy.has(k) && !this.releasing.has(k)));
  }

  /** Whether another run's live claim, as last listed, holds `key`. */
  private othersHold(key: string): boolean {
    if (!this.seen || Date.now() - this.seen.at >= POLL_MS) this.seen = { at: Date.now(), keys: this.others(false) };
    return this.seen.keys.has(key);
  }

  private take(key: string, ahead: () => readonly string[], signal: AbortSignal, until: number): Promise<boolean> {
    const run = this.turn.then(() => this.takeNow(key, ahead, signal, until));
    this.turn = run.catch(() => undefined);
    return run;
  }

  private async takeNow(
    key: string,
    ahead: () => readonly string[],
    signal: AbortSignal,
    until: number,
  ): Promise<boolean> {
    if (this.held.has(key)) return !this.busy.has(key);
    // The cache folder first, so that it ignores itself in git before anything is in it.
    this.cache.ensureDir();
    const unlock = await this.lockFolder(signal, until);
    if (!unlock) return false;
    try {
      const others = this.others(true);
      this.seen = { at: Date.now(), keys: others };
      if (others.has(key)) return false;
      const keys = new Set([key]);
      for (const k of ahead()) if (!this.held.has(k) && !others.has(k)) keys.add(k);
      const batch: Batch = {
        file: path.join(this.dir, `${HOST_ID}-${process.pid}-${randomBytes(6).toString('hex')}${BATCH_SUFFIX}`),
        keys,
      };
      this.write(batch);
      for (const k of keys) this.held.set(k, batch);
    } finally {
      unlock();
    }
    // Another run may have finished some of these tasks (and let go of them) since this run read
    // the cache: what it wrote is read once here for the whole batch.
    this.refresh();
    return true;
  }

  private refresh(): void {
    try {
      this.cache.refresh();
    } catch {
      // Reading others' segments only saves requests; this run's own samples are intact.
    }
  }

  /** Takes the lock around claiming, waiting for it while another run holds it (until `until`). */
  private async lockFolder(signal: AbortSignal, until: number): Promise<(() => void) | undefined> {
    const file = path.join(this.dir, LOCK_NAME);
    for (;;) {
      let unlock: (() => void) | undefined;
      try {
        unlock = tryLock(file, { staleMs: LOCK_STALE_MS, quickRelease: true });
      } catch (e) {
        if (errnoOf(e).code !== 'ENOENT') throw e;
        fs.mkdirSync(this.dir, { recursive: true });
        unlock = tryLock(file, { staleMs: LOCK_STALE_MS, quickRelease: true });
      }
      if (unlock || Date.now() >= until) return unlock;
      await sleep(LOCK_POLL_MS, signal);
    }
  }

  /**
   * The keys other runs' live claims hold. Stale claim files are passed over, and removed when
   * `locked` (this run holds the lock around claiming, so no one is claiming meanwhile).
   */
  private others(locked: boolean): Set<string> {
    const keys = new Set<string>();
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if (errnoOf(e).code === 'ENOENT') return keys;
      throw e;
    }
    const own = new Set([...this.held.values()].map((b) => path.basename(b.file)));
    for (const name of names) {
      const single = name.endsWith(SINGLE_SUFFIX);
      if ((!single && !name.endsWith(BATCH_SUFFIX)) || own.has(name)) continue;
      const file = path.join(this.dir, name);
      const claim = readClaim(file);
      if (!claim) continue;
      if (isStale(claim.holder, claim.holder ? undefined : mtimeMs(file), this.staleMs)) {
        if (locked && !single) fs.rmSync(file, { force: true });
        continue;
      }
      if (single) keys.add(name.slice(0, -SINGLE_SUFFIX.length));
      else for (const k of claim.keys) keys.add(k);
    }
    return keys;
  }

  /** Writes a claim file whole (a reader sees the old text or the new, never part of it). */
  private write(batch: Batch): void {
    const holder: LockInfo = { pid: process.pid, host: HOST_ID, at: Date.now(), token: randomBytes(8).toString('hex') };
    const tmp = `${batch.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ ...holder, keys: [...batch.keys] }));
    fs.renameSync(tmp, batch.file);
  }

  /** Removes `keys` from their claim files: each file rewritten once, or removed once empty. */
  private letGo(keys: Iterable<string>): void {
    const changed = new Set<Batch>();
    for (const k of keys) {
      const batch = this.held.get(k);
      this.held.delete(k);
      this.busy.delete(k);
      if (!batch) continue;
      batch.keys.delete(k);
      changed.add(batch);
    }
    for (const batch of changed) {
      try {
        // The rewrite also dates the claim anew: a run that keeps finishing tasks is not stale.
        if (batch.keys.size) this.write(batch);
        else fs.rmSync(batch.file, { force: true });
      } catch {
        // The file keeps claiming those tasks until this process ends: then it is stale at once
        // on this machine (elsewhere after staleMs), and a waiting run samples once its wait is over.
      }
    }
  }
}

/** A claim file's holder and keys; undefined when it is gone. A file that names no holder is judged by its age. */
function readClaim(file: string): { holder?: LockInfo; keys: readonly string[] } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (errnoOf(e).code === 'ENOENT') return undefined;
    throw e;
  }
  let v: unknown;
  try {
    v = parseJson(text);
  } catch {
    return { keys: [] };
  }
  const holder = lockInfoOf(v);
  const keys = isRecord(v) && isStringArray(v.keys) ? v.keys : [];
  return holder ? { holder, keys } : { keys };
}

function mtimeMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

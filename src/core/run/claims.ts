// Two runs on one cache must not both ask the model for the same task: the first to start on a
// task claims it, and a second one waits for it to finish and then takes its samples from the
// cache. A run claims the tasks it is about to start together, and keeps its claims in one file:
// `claims/<host>-<pid>-<random>.claims` names its holder and the tasks' keys (each task's first
// sample key). Claims are taken while holding `claims/claiming.lock`, which covers reading the
// others' claims and writing one's own (a few file operations, never the sampling): no two runs
// can claim one task, and a batch of tasks costs one lock, one listing and one rewrite rather
// than a lock file created and removed per task, which was the largest cost of `vtask run`
// against a fast server (file operations take about a millisecond each on a busy disk).
//
// A claim is let go once its task's samples are written: its key leaves the file, rewritten once
// per write of the cache for every task that ended before it. The file is rewritten in place
// (a write at its start, then its length set), not replaced by a rename, which on ext4 costs a
// flush of the new file's data each time; its `sum` of the keys tells a reader that caught it
// half-written, and such a file holds every task until it reads whole. A claim of a process that died is
// void at once on this machine; one from another machine (a shared folder) after `staleMs`
// without a rewrite. Waiting is bounded: past `maxWaitMs` the second run samples itself
// (duplicate work, never a hang). The one-task claim files of earlier versions (`<key>.claim`)
// are honoured as well.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { errnoOf, isRecord, isStringArray, parseJson } from '../base/record';
import type { SampleCache } from '../sampling/cache';
import { HOST_ID, isStale, lockInfoOf, pidAlive, tryLock, type LockInfo } from '../util/lock';
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
const CLAIMS_SUFFIX = '.claims';
const SINGLE_SUFFIX = '.claim';

/** The claims of one run (one `sampleTasks`) on one cache. */
export class TaskClaims {
  private readonly dir: string;
  /** This run's claim file, which lists `held` (absent while that is empty). */
  private readonly file: string;
  /** Keys this run holds. */
  private readonly held = new Set<string>();
  /** Held keys a task of this run is sampling now: another task with the same key waits for it. */
  private readonly busy = new Set<string>();
  /** Keys whose samples wait for the cache's next write before they are let go. */
  private releasing = new Set<string>();
  private releaseQueued = false;
  /** The others' claimed keys as last listed, for waiting tasks (at most one listing per POLL_MS). */
  private seen: { at: number; keys: Held } | undefined;
  private readonly token: string;
  /** The open claim file, while it exists. */
  private fd: number | undefined;
  /** Takes of this process one after another: a take waits its turn for the lock. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cache: SampleCache,
    private readonly staleMs = 10 * 60_000,
  ) {
    this.dir = path.join(cache.dir, 'claims');
    this.file = path.join(this.dir, `${HOST_ID}-${process.pid}-${randomBytes(6).toString('hex')}${CLAIMS_SUFFIX}`);
    this.token = randomBytes(8).toString('hex');
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
    return holds(this.seen.keys, key);
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
      if (holds(others, key)) return false;
      this.held.add(key);
      for (const k of ahead()) if (!holds(others, k)) this.held.add(k);
      this.write();
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
   * The keys other runs' live claims hold (`all` while a claim file is caught half-written). Stale
   * claim files are passed over, and removed when `locked` (this run holds the lock around
   * claiming, so no one is claiming meanwhile).
   */
  private others(locked: boolean): Held {
    const keys = new Set<string>();
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if (errnoOf(e).code === 'ENOENT') return keys;
      throw e;
    }
    const own = path.basename(this.file);
    let all = false;
    for (const name of names) {
      const single = name.endsWith(SINGLE_SUFFIX);
      if ((!single && !name.endsWith(CLAIMS_SUFFIX)) || name === own) continue;
      const file = path.join(this.dir, name);
      const claim = readClaim(file);
      if (!claim) continue;
      if (single) {
        if (!isStale(claim.holder, claim.holder ? undefined : mtimeMs(file), this.staleMs))
          keys.add(name.slice(0, -SINGLE_SUFFIX.length));
        continue;
      }
      // The name says whose it is, even while its text is half-written.
      const [host, pid] = name.split('-');
      const dead = host === HOST_ID && !pidAlive(Number(pid));
      if (dead || isStale(claim.holder, mtimeMs(file), this.staleMs)) {
        if (locked) fs.rmSync(file, { force: true });
        continue;
      }
      if (claim.keys) for (const k of claim.keys) keys.add(k);
      else all = true;
    }
    return all ? 'all' : keys;
  }

  /**
   * Writes this run's claim file in place, or removes it when no claim is left. Each write dates
   * the claim anew: a run that keeps finishing tasks is not stale.
   */
  private write(): void {
    if (!this.held.size) {
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.fd = undefined;
      fs.rmSync(this.file, { force: true });
      return;
    }
    const keys = [...this.held];
    const holder: LockInfo = { pid: process.pid, host: HOST_ID, at: Date.now(), token: this.token };
    const text = Buffer.from(JSON.stringify({ ...holder, keys, sum: sumOf(keys) }));
    this.fd ??= fs.openSync(this.file, 'w');
    fs.writeSync(this.fd, text, 0, text.length, 0);
    fs.ftruncateSync(this.fd, text.length);
  }

  /** Removes `keys` from this run's claims, in one rewrite of its file. */
  private letGo(keys: Iterable<string>): void {
    let changed = false;
    for (const k of keys) {
      this.busy.delete(k);
      changed = this.held.delete(k) || changed;
    }
    if (!changed) return;
    try {
      this.write();
    } catch {
      // The file keeps claiming those tasks until this process ends: then it is stale at once
      // on this machine (elsewhere after staleMs), and a waiting run samples once its wait is over.
    }
  }
}

/** The keys claimed, or `all` of them. */
type Held = ReadonlySet<string> | 'all';

const holds = (held: Held, key: string): boolean => held === 'all' || held.has(key);

/** Tells a whole list of keys from one read half-written. */
const sumOf = (keys: readonly string[]): string =>
  createHash('sha256').update(keys.join(',')).digest('hex').slice(0, 16);

/**
 * A claim file's holder and keys; undefined when it is gone. Without a holder (a file half-written,
 * or one that never named one) it is judged by its age; without keys, it holds every task.
 */
function readClaim(file: string): { holder?: LockInfo; keys?: readonly string[] } | undefined {
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
    return {};
  }
  const holder = lockInfoOf(v);
  if (!holder || !isRecord(v)) return {};
  const keys = isStringArray(v.keys) && v.sum === sumOf(v.keys) ? v.keys : undefined;
  return keys ? { holder, keys } : { holder };
}

function mtimeMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

// An exclusive lock file for cache maintenance (compaction). Writers never take it: each
// process appends to its own segment. The lock only keeps two compactions from doing the same
// work; compaction is safe without it (see cache.ts), so a wrongly broken lock costs time, not data.
import fs from 'node:fs';
import os from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { isRecord } from '../base/record';

export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  /** When it was taken, ms since the epoch. */
  readonly at: number;
  /** Tells our lock from a later one of the same pid. */
  readonly token: string;
}

/** A short, stable name for this machine, used in segment and lock names. */
export const HOST_ID = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

/** Whether a process exists on this machine (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder a lock file's JSON names, or undefined when it names none (judged by age then). */
export function lockInfoOf(v: unknown): LockInfo | undefined {
  if (!isRecord(v)) return undefined;
  const { pid, host, at, token } = v;
  return typeof pid === 'number' && typeof host === 'string' && typeof at === 'number' && typeof token === 'string'
    ? { pid, host, at, token }
    : undefined;
}

function readInfo(file: string): LockInfo | undefined {
  try {
    return lockInfoOf(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    // Unreadable or half-written: judged by age below.
    return undefined;
  }
}

function mtimeMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Stale when its holder is gone: a dead pid on this machine, or older than `staleMs` (the only
 * test possible for another machine's lock, or for a lock file that a crash left empty).
 */
export function isStale(info: LockInfo | undefined, mtime: number | undefined, staleMs: number): boolean {
  const now = Date.now();
  if (info) return (info.host === HOST_ID && !pidAlive(info.pid)) || now - info.at > staleMs;
  // A holder writes its info right after creating the file: give it a moment.
  return mtime === undefined || now - mtime > Math.min(staleMs, 5_000);
}

/**
 * Takes the lock at `file` if it is free or stale, without waiting. Returns the release
 * function, or undefined when someone else holds it.
 */
export function tryLock(
  file: string,
  options: {
    staleMs?: number;
    /**
     * Let go without reading the file back while the lock is younger than half its stale age:
     * no one can have judged it stale yet (our pid is alive; another machine judges by age,
     * and half leaves room for its clock). For locks taken and let go of by the thousand.
     */
    quickRelease?: boolean;
  } = {},
): (() => void) | undefined {
  const staleMs = options.staleMs ?? 10 * 60_000;
  const quick = options.quickRelease === true;
  const mine: LockInfo = { pid: process.pid, host: HOST_ID, at: Date.now(), token: randomBytes(8).toString('hex') };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // `wx` is O_CREAT|O_EXCL: exactly one process creates the file.
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      return () => release(file, mine, quick ? staleMs / 2 : 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const seen = readInfo(file);
    if (!isStale(seen, mtimeMs(file), staleMs)) return undefined;
    // Break it by renaming, which only one breaker can do to a given file; then check that the
    // file we moved is the stale one we judged and not a fresh lock taken meanwhile.
    const grave = `${file}.stale-${randomBytes(6).toString('hex')}`;
    try {
      fs.renameSync(file, grave);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const moved = readInfo(grave);
    if (seen && moved && moved.token !== seen.token) {
      // We moved a live lock: put it back unless yet another holder exists (then two hold it,
      // which compaction tolerates).
      try {
        fs.linkSync(grave, file);
      } catch {
        // Someone else holds it now; either way it is not ours.
      }
      fs.rmSync(grave, { force: true });
      return undefined;
    }
    fs.rmSync(grave, { force: true });
  }
  return undefined;
}

/** Removes our lock; one younger than `trustMs` without reading it back (see quickRelease). */
function release(file: string, mine: LockInfo, trustMs: number): void {
  // Only remove our own lock: if ours was judged stale and broken, the file is someone else's.
  if (Date.now() - mine.at < trustMs || readInfo(file)?.token === mine.token) {
    try {
      fs.unlinkSync(file);
    } catch (e) {
      if (!(e instanceof Error && 'code' in e && e.code === 'ENOENT')) throw e;
    }
  }
}

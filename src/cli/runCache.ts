import { errnoOf } from '../core/base/record';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SampleCache } from '../core/sampling/cache';
import { fsReason } from '../core/taskfile/discover';

/** The sample cache of a run, opened so that a broken cache folder never loses the run's results. */
export interface RunCache {
  readonly cache: SampleCache;
  /** Set when the cache folder could not be read: the run samples afresh into a throwaway cache. */
  readonly unreadable?: string;
  /** Closes the cache; returns one line saying so when its samples could not be written. */
  finish(): string | undefined;
}

const advice = "check the folder's permissions, remove it, or pass --cache-dir";

export function openRunCache(dir: string): RunCache {
  // Writes wait for the background flush (whose failures are recorded, not thrown) or close():
  // a full disk or read-only folder must not end a run half-way through sampling.
  const cache = SampleCache.open(dir, { flushBytes: Infinity, flushRecords: Infinity });
  try {
    cache.load();
  } catch (e) {
    closeQuietly(cache);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cache-'));
    const throwaway = SampleCache.open(tmp);
    // The file inside the cache that failed, when the error names one: the folder alone sends people to the wrong place.
    const failed = errnoOf(e).path;
    const inside = failed ? path.relative(dir, failed) : '';
    const why = `cannot read the sample cache ${dir}: ${inside && !inside.startsWith('..') ? `${inside}: ` : ''}${fsReason(e)}`;
    return {
      cache: throwaway,
      unreadable: `${why}: sampling without it (${advice})`,
      finish: () => {
        closeQuietly(throwaway);
        fs.rmSync(tmp, { recursive: true, force: true });
        return `the sample cache was not written (${why})`;
      },
    };
  }
  return {
    cache,
    finish: () => {
      try {
        cache.close();
        return undefined;
      } catch (e) {
        return `the sample cache was not written (${dir}: ${fsReason(e)}): the next run samples again; ${advice}`;
      }
    },
  };
}

function closeQuietly(cache: SampleCache): void {
  try {
    cache.close();
  } catch {
    // Nothing of this cache is worth keeping.
  }
}

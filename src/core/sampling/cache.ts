// The sample cache: model answers on disk in the workspace, so a second identical run makes no
// requests. Layout of the cache folder (`.vtask-cache/` by default, see cacheDir.ts):
//
//   .gitignore      `*`: the folder ignores itself, users need not edit theirs
//   CACHEDIR.TAG    tells backup tools the folder is a cache
//   samples/seg-<time>-<host>-<pid>-<rand>.jsonl   append-only segments (cacheLog.ts)
//   samples/compact.lock                           held while compacting (util/lock.ts)
//
// Reads load every segment into memory on first use (last record of a key wins: that is how
// `--fresh` replaces samples). Writes are buffered and appended in batches; a batch is lost to
// kill -9 only if it was not yet flushed (at most `flushIntervalMs` of samples, or the samples
// since the last `flush()`). Verdicts are not cached: they are cheap to recompute, and a changed
// verifier must take effect. The runner stamps each verdict with `verdictStamp()` instead.
import { errorMessage } from '../base/errorMessage';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Sample } from './types';
import type { SampleParams } from './cacheKey';
import { HOST_ID, pidAlive, tryLock } from '../util/lock';
import {
  formatRecord,
  listSegments,
  newSegmentName,
  parseSegmentName,
  readSegment,
  SegmentWriter,
  type LogRecord,
} from './cacheLog';
import { fsyncDir, writeAll } from '../util/durable';
import { version } from '../version';

export {
  sampleKey,
  sampleParams,
  sampleKeyInput,
  normaliseBaseUrl,
  canonicalJson,
  CACHE_KEY_VERSION,
  type SampleParams,
} from './cacheKey';
export { findWorkspaceRoot, resolveCacheDir, CACHE_DIR_NAME, type CacheDirOptions } from './cacheDir';

/** Which vtask gave a verdict, and when: attached by the runner to every verdict it reports. */
export interface VerdictStamp {
  readonly vtaskVersion: string;
  /** ISO 8601. */
  readonly at: string;
}

export function verdictStamp(at: Date = new Date()): VerdictStamp {
  return { vtaskVersion: version, at: at.toISOString() };
}

export interface SampleCacheOptions {
  /** Flush once this many bytes are buffered. Default 1 MiB. */
  readonly flushBytes?: number;
  /** Flush once this many records are buffered. Default 4096. */
  readonly flushRecords?: number;
  /** Flush buffered records at most this long after the first of them. Default 100 ms. */
  readonly flushIntervalMs?: number;
  /** Start a new segment past this size. Default 256 MiB. */
  readonly maxSegmentBytes?: number;
  /** fsync every batch (power-loss safety at the cost of throughput). Default false: fsync on close. */
  readonly fsyncEveryBatch?: boolean;
  /** On close, compact when there are more segments than this; 0 never. Default 32. */
  readonly autoCompactSegments?: number;
}

/** A cached sample with what the log knows about it. */
export interface CacheEntry {
  readonly sample: Sample;
  readonly params?: SampleParams;
  /** When the record was written, ms since the epoch. */
  readonly writtenAt: number;
}

export interface CacheStats {
  readonly dir: string;
  readonly entries: number;
  readonly segments: number;
  readonly loaded: boolean;
  /** Records read from disk (including ones later superseded). */
  readonly recordsRead: number;
  /** Lines skipped as torn or malformed. */
  readonly skippedLines: number;
  /** Bytes at segment ends that are not whole records (a crash mid-write). */
  readonly tornBytes: number;
  readonly pending: number;
  readonly recordsWritten: number;
  readonly bytesWritten: number;
  readonly flushes: number;
  readonly hits: number;
  readonly misses: number;
  /** The last failed background flush; the records stay buffered and the next flush retries. */
  readonly lastError?: string;
}

export interface CompactResult {
  readonly inputs: number;
  readonly records: number;
  readonly output?: string;
}

interface Entry {
  s: Sample;
  p: SampleParams | undefined;
  t: number;
  /** The segment it came from: breaks ties between records written in the same ms. */
  seg: string;
}

/** Whether a record from `seg` written at `t` replaces `e`: later time, then later segment, then later line. */
function supersedes(t: number, seg: string, e: Entry | undefined): boolean {
  return !e || t > e.t || (t === e.t && seg >= e.seg);
}

// Flushes what is buffered when the process ends normally (including process.exit), even if a
// caller forgot close(). Signals that kill the process skip this: the CLI closes the cache on SIGINT.
const openCaches = new Set<SampleCache>();
let exitHookInstalled = false;
function onExit(): void {
  for (const c of openCaches) {
    try {
      c.flush();
    } catch {
      // Nothing more can be done while exiting; the records are lost like samples in flight.
    }
  }
}

export class SampleCache {
  /** The folder of segments. */
  readonly segmentsDir: string;
  private readonly entries = new Map<string, Entry>();
  /** Bytes read so far of each segment of others (incremental refresh). */
  private readonly readOffsets = new Map<string, number>();
  private readonly writer: SegmentWriter;
  private readonly opts: Required<SampleCacheOptions>;
  // The batch: records encoded straight into one reused buffer, so a flush is a single write
  // with no joining or re-encoding.
  private batch = Buffer.allocUnsafe(64 << 10);
  private batchBytes = 0;
  private batchRecords = 0;
  private timer: NodeJS.Timeout | undefined;
  private loaded = false;
  private closed = false;
  private dirReady = false;
  private counters = {
    recordsRead: 0,
    skippedLines: 0,
    tornBytes: 0,
    recordsWritten: 0,
    flushes: 0,
    hits: 0,
    misses: 0,
  };
  private lastError: string | undefined;
  /** Calls waiting for the records buffered when they were made to be written (see afterFlush). */
  private afterWrite: (() => void)[] = [];

  private constructor(
    readonly dir: string,
    options: SampleCacheOptions,
  ) {
    this.segmentsDir = path.join(dir, 'samples');
    this.opts = {
      flushBytes: options.flushBytes ?? 1 << 20,
      flushRecords: options.flushRecords ?? 4096,
      flushIntervalMs: options.flushIntervalMs ?? 100,
      maxSegmentBytes: options.maxSegmentBytes ?? 256 << 20,
      fsyncEveryBatch: options.fsyncEveryBatch ?? false,
      autoCompactSegments: options.autoCompactSegments ?? 32,
    };
    this.writer = new SegmentWriter(this.segmentsDir, {
      maxSegmentBytes: this.opts.maxSegmentBytes,
      fsyncEveryBatch: this.opts.fsyncEveryBatch,
    });
  }

  /**
   * Opens the cache in `dir` (`resolveCacheDir` gives it). Cheap: nothing is read until the first
   * `get`, and nothing is created on disk until the first flush.
   */
  static open(dir: string, options: SampleCacheOptions = {}): SampleCache {
    const cache = new SampleCache(path.resolve(dir), options);
    openCaches.add(cache);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', onExit);
    }
    return cache;
  }

  get(key: string): Sample | undefined {
    return this.lookUp(key)?.s;
  }

  getEntry(key: string): CacheEntry | undefined {
    const e = this.lookUp(key);
    return e && { sample: e.s, ...(e.p && { params: e.p }), writtenAt: e.t };
  }

  /** The entry of `key`, counted as a hit or a miss; `get` takes its sample without making a CacheEntry. */
  private lookUp(key: string): Entry | undefined {
    this.load();
    const e = this.entries.get(key);
    if (e) this.counters.hits++;
    else this.counters.misses++;
    return e;
  }

  /** The samples of `keys`, in order; undefined where missing. */
  getMany(keys: readonly string[]): (Sample | undefined)[] {
    return keys.map((k) => this.get(k));
  }

  has(key: string): boolean {
    this.load();
    return this.entries.has(key);
  }

  /**
   * Records a sample (buffered; see `flush`). A put for a key that exists replaces it, here and
   * for every later reader: its time is made later than the record it replaces.
   */
  put(key: string, sample: Sample, params?: SampleParams): void {
    if (this.closed) throw new Error('sample cache is closed');
    if (!/^[0-9a-f]{64}$/.test(key)) throw new TypeError('a cache key is 64 hex digits (sampleKey)');
    // Loading first makes "replaces" hold against records of earlier runs too.
    this.load();
    const prev = this.entries.get(key);
    const t = Math.max(Date.now(), prev ? prev.t + 1 : 0);
    const seg = this.writer.current;
    this.entries.set(key, { s: sample, p: params, t, seg });
    const record: LogRecord = params ? { k: key, t, s: sample, p: params } : { k: key, t, s: sample };
    const line = formatRecord(record);
    // Room for the most bytes the line can take (3 per UTF-16 unit), so that it is encoded once,
    // straight into the batch, without measuring it first.
    const most = this.batchBytes + 3 * line.length;
    if (most > this.batch.length) this.growBatch(most);
    this.batchBytes += this.batch.write(line, this.batchBytes);
    this.batchRecords++;
    if (this.batchBytes >= this.opts.flushBytes || this.batchRecords >= this.opts.flushRecords) this.flush();
    else this.schedule();
  }

  /** Flushes within `flushIntervalMs` unless a flush is already due. */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch (e) {
        // Kept buffered; the next flush retries and reports.
        this.lastError = errorMessage(e);
      }
    }, this.opts.flushIntervalMs);
    // A pending flush must not keep the process alive; the exit hook writes what remains.
    this.timer.unref();
  }

  /**
   * Calls `fn` once every record buffered now is written: at once when none is, else after the
   * next flush (within `flushIntervalMs`), so that the tasks that end together share one write
   * instead of each forcing its own. Called after that flush even when it fails (its records
   * stay buffered for the next), so a caller waiting on it is never held forever.
   */
  afterFlush(fn: () => void): void {
    if (this.batchRecords === 0) {
      fn();
      return;
    }
    this.afterWrite.push(fn);
    this.schedule();
  }

  /** Appends everything buffered in one write. Throws on I/O errors (the records stay buffered). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    try {
      if (this.batchRecords === 0) return;
      this.ensureDir();
      this.writer.write(this.batch.subarray(0, this.batchBytes));
      this.counters.recordsWritten += this.batchRecords;
      this.counters.flushes++;
      this.batchBytes = 0;
      this.batchRecords = 0;
      this.lastError = undefined;
    } finally {
      this.runAfterWrite();
    }
  }

  private runAfterWrite(): void {
    if (this.afterWrite.length === 0) return;
    const waiting = this.afterWrite;
    this.afterWrite = [];
    for (const fn of waiting) {
      try {
        fn();
      } catch {
        // A waiter's own failure (a claim file that cannot be removed) is not the cache's.
      }
    }
  }

  private growBatch(needed: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(needed, this.batch.length * 2));
    this.batch.copy(bigger, 0, 0, this.batchBytes);
    this.batch = bigger;
  }

  /** Flushes, fsyncs and closes the segment; compacts when segments have piled up. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.batch = Buffer.alloc(0);
    openCaches.delete(this);
    this.writer.closeSegment();
    const limit = this.opts.autoCompactSegments;
    if (limit > 0 && listSegments(this.segmentsDir).length > limit) {
      try {
        this.compact();
      } catch {
        // Compaction only saves space and load time; the segments stay valid.
      }
    }
  }

  /** Reads everything on disk, once; `get`, `has` and `put` call it. */
  load(): void {
    if (this.loaded) return;
    this.refresh();
    this.loaded = true;
  }

  /**
   * Reads what other processes appended since the last read (new segments, and the new tail
   * of known ones). Returns the number of records read.
   */
  refresh(): number {
    let read = 0;
    const own = new Set(this.writer.created);
    own.add(this.writer.current);
    // A compaction may remove segments between listing and reading; its output holds their
    // records, so list again and read what is new.
    for (let round = 0; round < 5; round++) {
      let vanished = false;
      for (const name of listSegments(this.segmentsDir)) {
        // Our own records are in memory already, with their final times.
        if (own.has(name)) continue;
        const from = this.readOffsets.get(name) ?? 0;
        try {
          const r = readSegment(path.join(this.segmentsDir, name), from, (rec) => this.consider(rec, name));
          this.readOffsets.set(name, r.end);
          read += r.records;
          this.counters.recordsRead += r.records;
          this.counters.skippedLines += r.skipped;
          this.counters.tornBytes += r.tornBytes;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
          vanished = true;
        }
      }
      if (!vanished) break;
    }
    return read;
  }

  private consider(rec: LogRecord, seg: string): void {
    if (supersedes(rec.t, seg, this.entries.get(rec.k))) this.entries.set(rec.k, { s: rec.s, p: rec.p, t: rec.t, seg });
  }

  /**
   * Merges finished segments into one, keeping only the latest record of each key. Safe while
   * other processes read and write:
   * - it never touches a segment that may still grow (this cache's open one, segments of live
   *   pids on this machine, other machines' segments younger than a day);
   * - the output is written to a temp file, fsynced, then renamed into place, so readers see
   *   all of it or none of it; inputs are removed only after that;
   * - readers that lose an input mid-read list again and find the output (see `refresh`);
   * - if two compactions overlap (a broken lock), both outputs hold the same records, and one
   *   that finds an input gone gives up before writing.
   * Returns undefined when another process holds the lock.
   */
  compact(): CompactResult | undefined {
    if (!fs.existsSync(this.segmentsDir)) return { inputs: 0, records: 0 };
    const release = tryLock(path.join(this.segmentsDir, 'compact.lock'));
    if (!release) return undefined;
    try {
      this.removeStaleTemps();
      const inputs = listSegments(this.segmentsDir).filter((n) => this.finished(n));
      if (inputs.length < 2) return { inputs: 0, records: 0 };
      // Winners are kept as their original lines: copied, not re-encoded.
      const merged = new Map<string, { line: string; t: number; seg: string }>();
      for (const name of inputs) {
        try {
          readSegment(path.join(this.segmentsDir, name), 0, (rec, line) => {
            // Memory must hold everything the output holds, so that the output can be marked read.
            if (this.loaded) this.consider(rec, name);
            const cur = merged.get(rec.k);
            if (!cur || rec.t > cur.t || (rec.t === cur.t && name >= cur.seg))
              merged.set(rec.k, { line, t: rec.t, seg: name });
          });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw e;
        }
      }
      const tmp = path.join(this.segmentsDir, `.tmp-${HOST_ID}-${process.pid}-${randomBytes(4).toString('hex')}`);
      const fd = fs.openSync(tmp, 'wx');
      try {
        let batch: string[] = [];
        let chars = 0;
        for (const { line } of merged.values()) {
          batch.push(line);
          chars += line.length + 1;
          if (chars >= 4 << 20) {
            batch.push('');
            writeAll(fd, Buffer.from(batch.join('\n'), 'utf8'));
            batch = [];
            chars = 0;
          }
        }
        if (batch.length) {
          batch.push('');
          writeAll(fd, Buffer.from(batch.join('\n'), 'utf8'));
        }
        fs.fsyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        fs.rmSync(tmp, { force: true });
        throw e;
      }
      fs.closeSync(fd);
      const output = newSegmentName();
      fs.renameSync(tmp, path.join(this.segmentsDir, output));
      fsyncDir(this.segmentsDir);
      for (const name of inputs) {
        fs.rmSync(path.join(this.segmentsDir, name), { force: true });
        this.readOffsets.delete(name);
      }
      fsyncDir(this.segmentsDir);
      // Every record of the output went through `consider` above: reading it again would only
      // repeat them.
      if (this.loaded) this.readOffsets.set(output, fs.statSync(path.join(this.segmentsDir, output)).size);
      return { inputs: inputs.length, records: merged.size, output };
    } finally {
      release();
    }
  }

  /** Whether no one can append to `name` any more. */
  private finished(name: string): boolean {
    const seg = parseSegmentName(name);
    if (!seg) return false;
    if (this.writer.isOpen(name)) return false;
    if (seg.host === HOST_ID) {
      if (seg.pid === process.pid) return !this.isOpenInThisProcess(name);
      return !pidAlive(seg.pid);
    }
    // Another machine (a shared folder, a container): its pids mean nothing here; only age tells.
    return this.ageMs(name) > 24 * 3600_000;
  }

  private isOpenInThisProcess(name: string): boolean {
    for (const c of openCaches) if (c.writer.isOpen(name)) return true;
    return false;
  }

  private ageMs(name: string): number {
    try {
      return Date.now() - fs.statSync(path.join(this.segmentsDir, name)).mtimeMs;
    } catch {
      return 0;
    }
  }

  /** Temp files of compactions that crashed before their rename. */
  private removeStaleTemps(): void {
    for (const name of fs.readdirSync(this.segmentsDir)) {
      const m = /^\.tmp-([0-9a-f]{8})-(\d+)-/.exec(name);
      if (!m) continue;
      const dead = m[1] === HOST_ID ? !pidAlive(Number(m[2])) : this.ageMs(name) > 24 * 3600_000;
      if (dead) fs.rmSync(path.join(this.segmentsDir, name), { force: true });
    }
  }

  stats(): CacheStats {
    return {
      dir: this.dir,
      entries: this.entries.size,
      segments: listSegments(this.segmentsDir).length,
      loaded: this.loaded,
      ...this.counters,
      pending: this.batchRecords,
      bytesWritten: this.writer.bytesWritten,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Creates the folder, with a `.gitignore` of `*` so it never shows in `git status`. */
  ensureDir(): void {
    if (this.dirReady) return;
    fs.mkdirSync(this.segmentsDir, { recursive: true });
    markCacheDir(this.dir);
    this.dirReady = true;
  }
}

/** Creates the cache folder if needed, with the `.gitignore` and `CACHEDIR.TAG` that mark it as one. */
export function markCacheDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  writeOnce(path.join(dir, '.gitignore'), '*\n# Created by vtask: this folder is a cache of model samples.\n');
  writeOnce(
    path.join(dir, 'CACHEDIR.TAG'),
    'Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by vtask.\n',
  );
}

/** Writes a small file unless it exists; concurrent creators race harmlessly (`wx`). */
function writeOnce(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

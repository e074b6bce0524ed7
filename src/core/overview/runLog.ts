// The run log: one summary line per finished task run (file, task, model), in the cache folder
// beside the samples (`<cache>/runs.jsonl`), so dataset statistics can say how each model did
// and what changed since its previous run without verifying a single sample again.
//
// One file, shared by every process (CLI runs, the editor). The rules that keep it whole:
// (1) a batch is whole lines written by one write call on an O_APPEND descriptor, so concurrent
// writers never interleave inside a line and a crash can only cut the last line short;
// (2) readers skip anything that is not a whole record, and look for a record after a torn
// fragment on the same line (another writer appended right after it);
// (3) the log is compacted, past a size, to the latest two records of each (file, task, model)
// by writing a new file and renaming it over the log. Appends that land in the old file while
// that happens are not lost: the compactor copies the old file's tail after the rename, and a
// writer whose file was replaced under it appends again to the new one. A record can so appear
// twice; readers ignore a line equal to one they already hold for its key.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Band } from '../stats';
import type { ModelProfile } from '../sampling/types';
import type { TaskRunResult } from '../run/sampleTasks';
import { taskRunKey } from '../run/resultKeys';
import type { TaskFile } from '../taskfile/parse';
import { fsyncDir, writeAll } from '../util/durable';
import { HOST_ID, pidAlive, tryLock } from '../util/lock';
import { markCacheDir } from '../sampling/cache';
import { cut } from '../util/cut';

/** One finished run of one task by one model. The field order is the line's (readers rely on it). */
export interface RunRecord {
  /** The task file, relative to the folder holding the cache folder, with `/` separators. */
  readonly file: string;
  readonly task: string;
  /** The model's label (`modelLabel`). */
  readonly model: string;
  /** The task's run key (`taskRunKey`): tells whether the run still describes the task. */
  readonly key: string;
  /** When the run finished, ISO 8601. */
  readonly at: string;
  readonly samples: number;
  readonly passed: number;
  readonly pass_rate: number;
  readonly band: Band;
  readonly signal_share: number;
}

export interface RunLogEntry {
  readonly latest: RunRecord;
  readonly previous?: RunRecord;
}

export const RUN_LOG_NAME = 'runs.jsonl';
const LOCK_NAME = 'runs.lock';
/** Past this size (and each doubling of it) an append checks whether compacting is worth it. */
const COMPACT_BYTES = 8 << 20;

export function runLogFile(cacheDir: string): string {
  return path.join(cacheDir, RUN_LOG_NAME);
}

/** The key of `readRunLog`'s map: the three names as a JSON array. */
export function runLogKey(file: string, task: string, model: string): string {
  return JSON.stringify([file, task, model]);
}

/**
 * How a model is named in the log and in statistics: the profile's name for a named profile
 * (`models:` or the settings), the model name for an ad-hoc one (`--base-url`, OPENAI_BASE_URL).
 */
export function modelLabel(profile: ModelProfile): string {
  return profile.name === '--base-url' || profile.name === 'OPENAI_BASE_URL' ? profile.model : profile.name;
}

/** A task file as the log names it: relative to the folder that holds the cache folder. */
export function runLogPath(cacheDir: string, taskFile: string): string {
  return path.relative(path.dirname(path.resolve(cacheDir)), path.resolve(taskFile)).split(path.sep).join('/');
}

/**
 * The record of a finished run, or undefined when it is not one (it left samples out). A run
 * whose sampling failed or was cancelled is recorded with the band `error` (`taskStats`): the
 * latest run of the task said nothing of it, and the log says so rather than keep an older band.
 */
export function runRecordOf(r: TaskRunResult, o: { readonly cacheDir: string; readonly file: string; readonly key: string; readonly model: string; readonly samples: number; readonly at?: Date }): RunRecord | undefined {
  if (!r.error && (r.samples.length === 0 || r.samples.length < o.samples)) return undefined;
  return {
    file: runLogPath(o.cacheDir, o.file),
    task: r.task.id,
    model: o.model,
    key: o.key,
    at: (o.at ?? new Date()).toISOString(),
    samples: r.stats.samples,
    passed: r.stats.passed,
    pass_rate: r.stats.passRate,
    band: r.stats.band,
    signal_share: r.stats.signalShare,
  };
}

/**
 * The records of a file's finished runs (`runRecordOf` for each), keyed by the task as it is in
 * `parsed` and labelled by the profile each task was sampled with.
 */
export function runRecordsOf(results: readonly TaskRunResult[], o: { readonly cacheDir: string; readonly file: string; readonly parsed: TaskFile; readonly samples?: number; profileOf(r: TaskRunResult): ModelProfile | undefined; readonly at?: Date }): RunRecord[] {
  const at = o.at ?? new Date();
  const out: RunRecord[] = [];
  for (const r of results) {
    const entry = o.parsed.tasks.find((t) => t.id === r.task.id);
    const profile = o.profileOf(r);
    if (!entry || !profile) continue;
    const record = runRecordOf(r, { cacheDir: o.cacheDir, file: o.file, key: taskRunKey(o.parsed, entry), model: modelLabel(profile), samples: o.samples ?? r.task.sampling.samples, at });
    if (record) out.push(record);
  }
  return out;
}

function formatLine(r: RunRecord): string {
  // Built field by field: the order is what the reader's fast path expects, whatever the caller's object.
  return `${JSON.stringify({ file: r.file, task: r.task, model: r.model, key: r.key, at: r.at, samples: r.samples, passed: r.passed, pass_rate: r.pass_rate, band: r.band, signal_share: r.signal_share })}\n`;
}

export interface AppendOptions {
  /** Size past which (and past each doubling of which) compaction is considered; tests lower it. */
  readonly compactBytes?: number;
}

/** Appends records to the log in one write, creating the cache folder if needed; then compacts if the log grew past a size. */
export function appendRunRecords(cacheDir: string, records: readonly RunRecord[], options: AppendOptions = {}): void {
  if (records.length === 0) return;
  markCacheDir(cacheDir);
  const file = runLogFile(cacheDir);
  const data = Buffer.from(records.map(formatLine).join(''), 'utf8');
  let size = 0;
  // Appends wait (briefly) for a compaction to end, so that no line lands in a file being
  // replaced and the log's order stays the order of the runs. A lock not had in time (a holder
  // that hangs) does not stop the append: the copy-over below still keeps its lines.
  const release = lockWithin(path.join(cacheDir, LOCK_NAME), APPEND_LOCK_WAIT_MS);
  // A compaction may replace the file while we write: then our lines may be in the old file
  // after the compactor copied its tail, so they go into the new one too (readers drop the copy).
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const fd = fs.openSync(file, 'a');
      let replaced: boolean;
      try {
        writeAll(fd, data);
        const mine = fs.fstatSync(fd);
        size = mine.size;
        replaced = !sameFile(mine, file);
      } finally {
        fs.closeSync(fd);
      }
      if (!replaced) break;
    }
  } finally {
    release?.();
  }
  const limit = options.compactBytes ?? COMPACT_BYTES;
  if (crossed(size - data.length, size, limit)) {
    try {
      compactRunLog(cacheDir);
    } catch {
      // Compaction only saves space and reading time; the log is whole without it.
    }
  }
}

/** How long an append waits for a compaction in progress. */
const APPEND_LOCK_WAIT_MS = 2000;

/** Takes the lock, retrying every 2 ms for up to `ms`; undefined when it stays taken. */
function lockWithin(file: string, ms: number): (() => void) | undefined {
  const deadline = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const release = tryLock(file);
    if (release || Date.now() >= deadline) return release;
    Atomics.wait(pause, 0, 0, 2);
  }
}

function sameFile(st: fs.Stats, file: string): boolean {
  try {
    const now = fs.statSync(file);
    return now.ino === st.ino && now.dev === st.dev;
  } catch {
    return false;
  }
}

/** Whether growing from `from` to `to` bytes passed `limit`, 2·`limit`, 4·`limit`...: amortised, so a log that cannot shrink is not read at every append. */
function crossed(from: number, to: number, limit: number): boolean {
  if (to < limit) return false;
  if (from < limit) return true;
  return Math.floor(Math.log2(from / limit)) !== Math.floor(Math.log2(to / limit));
}

/** Where a line's names end: the first `,"key":"` (a JSON string cannot hold `,"` unescaped). */
const KEY_MARK = ',"key":"';
const TASK_MARK = ',"task":';
const MODEL_MARK = ',"model":';
const LINE_START = '{"file":';

/** A JSON number as `JSON.stringify` writes it: such a field reads the same with `Number`. */
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?`;
/**
 * What follows the names in a whole record, from its key to its closing brace: checked without
 * parsing, so a damaged line is dropped at read time. The groups are what dataset statistics
 * read (`RunFields`): key, samples, pass_rate, band, signal_share.
 */
const REST_RE = new RegExp(String.raw`,"key":"([^"\\]*)","at":"[^"\\]*","samples":(0|[1-9]\d*),"passed":(?:0|[1-9]\d*),"pass_rate":(${NUMBER}),"band":"(too_easy|learnable|too_hard|error)","signal_share":(${NUMBER})\}`, 'y');

/**
 * Calls `fn` for each whole record of a chunk of log text, in order, with where it starts, where
 * its model and key fields start and where its line ends; nothing is copied out of the text. A
 * line that is not one record may be a fragment a crash tore with another writer's record
 * appended right after it: that record starts at the line's last `{"file":` (the sequence
 * cannot occur inside a JSON string). Only such lines are scanned for it.
 */
export function forEachRecord(text: string, fn: (start: number, model: number, key: number, end: number) => void): void {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    if (nl > start && !record(text, start, nl, fn)) {
      const at = text.lastIndexOf(LINE_START, nl);
      if (at > start) record(text, at, nl, fn);
    }
    start = nl + 1;
  }
  // Text after the last newline is a write in progress or torn by a crash: never a record yet.
}

/** Calls `fn` when the text from `start` to the newline at `end` is one whole record. */
function record(text: string, start: number, end: number, fn: (start: number, model: number, key: number, end: number) => void): boolean {
  if (!text.startsWith(LINE_START, start)) return false;
  const t = text.indexOf(TASK_MARK, start);
  const m = t < 0 || t > end ? -1 : text.indexOf(MODEL_MARK, t);
  const k = m < 0 || m > end ? -1 : text.indexOf(KEY_MARK, m);
  // A second `{"file":` before the key: a torn fragment with a record after it.
  if (k < 0 || k > end || text.lastIndexOf(LINE_START, k) !== start) return false;
  REST_RE.lastIndex = k;
  if (!REST_RE.test(text) || REST_RE.lastIndex !== end) return false;
  fn(start, m, k, end);
  return true;
}

/** A record's file and task as the log writes them (`"a.vtask","task":"t1"`): what `namesAt` reads. */
export function logNames(file: string, task: string): string {
  return JSON.stringify(file) + TASK_MARK + JSON.stringify(task);
}

/** The file and task of the record at `start` (see `forEachRecord`), as written (`logNames`). */
export function namesAt(text: string, start: number, model: number): string {
  return text.slice(start + LINE_START.length, model);
}

/** The model of a record, as written: a JSON string. */
export function modelAt(text: string, model: number, key: number): string {
  return text.slice(model + MODEL_MARK.length, key);
}

/** What dataset statistics read of a record. */
export interface RunFields {
  readonly key: string;
  readonly samples: number;
  readonly pass_rate: number;
  readonly band: Band;
  readonly signal_share: number;
}

/** The fields of the record starting at `start` (see `forEachRecord`). */
export function fieldsAt(text: string, start: number): RunFields {
  REST_RE.lastIndex = text.indexOf(KEY_MARK, start);
  const m = REST_RE.exec(text) as RegExpExecArray;
  return { key: m[1] as string, samples: Number(m[2]), pass_rate: Number(m[3]), band: m[4] as Band, signal_share: Number(m[5]) };
}

/** A line as a record; lines reaching here passed `forEachRecord`, so only a damaged name can fail. */
function parseLine(line: string): RunRecord {
  try {
    return JSON.parse(line) as RunRecord;
  } catch {
    throw new Error(`${RUN_LOG_NAME}: a damaged line: ${cut(line)}`);
  }
}

/** The whole records of a chunk of log text, in order, as (key, line): the key is `runLogKey`'s. */
function forEachLine(text: string, fn: (key: string, line: string) => void): void {
  forEachRecord(text, (start, m, k, end) => {
    const t = text.indexOf(TASK_MARK, start);
    fn(`[${text.slice(start + LINE_START.length, t)},${text.slice(t + TASK_MARK.length, m)},${modelAt(text, m, k)}]`, text.slice(start, end));
  });
}

/** The latest two distinct lines of each key, in log order (later lines are later runs). */
class Latest2 {
  constructor(
    public latest: string,
    public previous?: string,
  ) {}
  add(line: string): void {
    if (line === this.latest || line === this.previous) return;
    this.previous = this.latest;
    this.latest = line;
  }
}

function latestLines(text: string): Map<string, Latest2> {
  const out = new Map<string, Latest2>();
  forEachLine(text, (key, line) => {
    const e = out.get(key);
    if (e) e.add(line);
    else out.set(key, new Latest2(line));
  });
  return out;
}

/** A map entry whose records are parsed when first read: a log of 100,000 tasks is read without parsing them all. */
class LazyEntry implements RunLogEntry {
  private l?: RunRecord;
  private p?: RunRecord;
  constructor(private readonly lines: Latest2) {}
  get latest(): RunRecord {
    return (this.l ??= parseLine(this.lines.latest));
  }
  get previous(): RunRecord | undefined {
    if (this.lines.previous === undefined) return undefined;
    return (this.p ??= parseLine(this.lines.previous));
  }
}

/** The log's text; empty when there is no log yet. */
function readRunLogText(cacheDir: string): string {
  return readLog(cacheDir, 'utf8');
}

/**
 * The log's bytes as a string of one character per byte (latin1), which takes a copy where
 * UTF-8 text takes a decoding: names read from it are their UTF-8 bytes (see `latin1Of`), and
 * every other field is ASCII.
 */
export function readRunLogBytes(cacheDir: string): string {
  return readLog(cacheDir, 'latin1');
}

/** A string as `readRunLogBytes` holds it: one character per byte of its UTF-8. */
export function latin1Of(s: string): string {
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s;
}

function readLog(cacheDir: string, encoding: 'utf8' | 'latin1'): string {
  try {
    return fs.readFileSync(runLogFile(cacheDir), encoding);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/**
 * The latest and the previous record of each (file, task, model), keyed by `runLogKey`; empty
 * when there is no log yet. Lines are checked for shape as they are read, and parsed when the
 * caller first reads a record.
 */
export function readRunLog(cacheDir: string): Map<string, RunLogEntry> {
  const out = new Map<string, RunLogEntry>();
  for (const [key, lines] of latestLines(readRunLogText(cacheDir))) out.set(key, new LazyEntry(lines));
  return out;
}

export interface CompactResult {
  /** Whole lines before and after. */
  readonly before: number;
  readonly after: number;
}

/**
 * Rewrites the log keeping the latest two records of each key (and dropping torn and damaged
 * lines), atomically (a temp file renamed over the log). Returns undefined when another process
 * is compacting it, or there is nothing to drop.
 */
export function compactRunLog(cacheDir: string): CompactResult | undefined {
  const file = runLogFile(cacheDir);
  if (!fs.existsSync(file)) return undefined;
  const release = tryLock(path.join(cacheDir, LOCK_NAME));
  if (!release) return undefined;
  try {
    removeStaleTemps(cacheDir);
    const old = fs.openSync(file, 'r');
    try {
      let end = fs.fstatSync(old).size;
      const text = readRange(old, 0, end).toString('utf8');
      end = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1), 'utf8');
      let before = 0;
      forEachLine(text, () => before++);
      const kept = latestLines(text);
      const keep = new Set<string>();
      for (const e of kept.values()) {
        keep.add(e.latest);
        if (e.previous !== undefined) keep.add(e.previous);
      }
      if (keep.size >= before) return undefined;
      // The kept lines in log order, each once.
      const lines: string[] = [];
      forEachLine(text, (_k, line) => {
        if (keep.delete(line)) lines.push(line);
      });
      const tmp = path.join(cacheDir, `.runs-${HOST_ID}-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
      const fd = fs.openSync(tmp, 'wx');
      try {
        writeAll(fd, Buffer.from(lines.length ? lines.join('\n') + '\n' : '', 'utf8'));
        // Lines appended while we worked: copied as they are, until the log stops growing.
        for (let size = fs.fstatSync(old).size; size > end; size = fs.fstatSync(old).size) {
          writeAll(fd, readRange(old, end, size));
          end = size;
        }
        fs.fsyncSync(fd);
      } catch (e) {
        fs.closeSync(fd);
        fs.rmSync(tmp, { force: true });
        throw e;
      }
      fs.closeSync(fd);
      fs.renameSync(tmp, file);
      fsyncDir(cacheDir);
      // Appends that reached the old file between the last copy and the rename: their writers
      // saw the old file still in place, so only we can carry them over.
      const size = fs.fstatSync(old).size;
      if (size > end) {
        const late = fs.openSync(file, 'a');
        try {
          writeAll(late, readRange(old, end, size));
        } finally {
          fs.closeSync(late);
        }
      }
      return { before, after: lines.length };
    } finally {
      fs.closeSync(old);
    }
  } finally {
    release();
  }
}

/** Bytes `from`..`to` of a file, copied as they are (a range may end inside a character). */
function readRange(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(to - from);
  let off = 0;
  while (off < buf.length) {
    const got = fs.readSync(fd, buf, off, buf.length - off, from + off);
    if (got === 0) break;
    off += got;
  }
  return buf.subarray(0, off);
}

/** Temp files of compactions that crashed before their rename. */
function removeStaleTemps(cacheDir: string): void {
  for (const name of fs.readdirSync(cacheDir)) {
    const m = /^\.runs-([0-9a-f]{8})-(\d+)-[0-9a-f]{8}\.tmp$/.exec(name);
    if (m && m[1] === HOST_ID && !pidAlive(Number(m[2]))) fs.rmSync(path.join(cacheDir, name), { force: true });
  }
}

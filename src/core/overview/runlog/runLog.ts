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
//
// Each line is a JSON object parsed as JSON, its fields checked against one table (`RUN_FIELDS`).
// Logs written before fields were added read the same: their lines simply lack the optional ones.
// The editor appends with `appendRunRecordsAsync`, which waits for a compaction without blocking
// its thread; the CLI appends synchronously.
import fs from 'node:fs';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { BANDS, type Band } from '../../stats';
import type { ModelProfile, Price } from '../../sampling/types';
import { costOf, tokensOf, type Tokens } from './usage';
import type { TaskRunResult } from '../../run/sampleTasks';
import { taskRunKey } from '../../run/resultKeys';
import type { TaskEntry, TaskFile } from '../../taskfile/parse';
import { fsyncDir, writeAll } from '../../util/durable';
import { HOST_ID, pidAlive, tryLock } from '../../util/lock';
import { sleep } from '../../util/wait';
import { markCacheDir } from '../../sampling/cache';
import { must } from '../../util/must';

/** A field's reader: the value as the record holds it, or undefined when it is not one. */
type Reader<T> = (v: unknown) => T | undefined;

interface Field<T, O extends boolean> {
  readonly read: Reader<T>;
  /** Whether a record may leave it out (fields added later are: older lines lack them). */
  readonly optional: O;
}

const required = <T>(read: Reader<T>): Field<T, false> => ({ read, optional: false });
const optional = <T>(read: Reader<T>): Field<T, true> => ({ read, optional: true });
const text: Reader<string> = (v) => (typeof v === 'string' ? v : undefined);
const count: Reader<number> = (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const finite: Reader<number> = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const amount: Reader<number> = (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const band: Reader<Band> = (v) => ((BANDS as readonly unknown[]).includes(v) ? (v as Band) : undefined);
const tokens: Reader<Tokens> = (v) => {
  if (typeof v !== 'object' || v === null) return undefined;
  const t = v as Record<string, unknown>;
  const prompt = count(t.prompt);
  const completion = count(t.completion);
  return prompt === undefined || completion === undefined ? undefined : { prompt, completion };
};

/**
 * The fields of a record, in the order lines are written (`file` first: a torn line's record is
 * found by it). A field is added here and nowhere else: the type, the writer and the reader
 * follow. A line missing a required field, or holding one of the wrong type, is not a record.
 */
const RUN_FIELDS = {
  /** The task file, relative to the folder holding the cache folder, with `/` separators. */
  file: required(text),
  task: required(text),
  /** The model's label (`modelLabel`). */
  model: required(text),
  /** The task's run key (`taskRunKey`): tells whether the run still describes the task. */
  key: required(text),
  /** When the run finished, ISO 8601. */
  at: required(text),
  samples: required(count),
  passed: required(count),
  pass_rate: required(finite),
  band: required(band),
  signal_share: required(finite),
  /** Tokens of the run's samples, when the endpoint reported them. */
  tokens: optional(tokens),
  /** What the tokens cost in dollars, when the profile has a `price`. */
  cost: optional(amount),
  /** Why the run says nothing of the task: the built-in demo model was given a task it cannot do. */
  note: optional(text),
};

type RunFieldTable = typeof RUN_FIELDS;
type ValueOf<F> = F extends Field<infer T, boolean> ? T : never;
type RequiredName = {
  [K in keyof RunFieldTable]: RunFieldTable[K] extends Field<unknown, false> ? K : never;
}[keyof RunFieldTable];
type OptionalName = Exclude<keyof RunFieldTable, RequiredName>;

/** One finished run of one task by one model (see `RUN_FIELDS`). */
export type RunRecord = { readonly [K in RequiredName]: ValueOf<RunFieldTable[K]> } & {
  readonly [K in OptionalName]?: ValueOf<RunFieldTable[K]>;
};

const FIELD_NAMES = Object.keys(RUN_FIELDS) as (keyof RunFieldTable)[];
const FIELD_LIST: readonly [keyof RunFieldTable, Field<unknown, boolean>][] = FIELD_NAMES.map((name) => [
  name,
  RUN_FIELDS[name],
]);

/** A line's text as a record, or undefined when it is not a whole one. Fields it does not know (from a later version) are left out. */
export function parseRunRecord(line: string): RunRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const raw = v as Record<string, unknown>;
  let known = 0;
  for (const [name, f] of FIELD_LIST) {
    const given = raw[name];
    if (given === undefined) {
      if (f.optional) continue;
      return undefined;
    }
    const value = f.read(given);
    if (value === undefined) return undefined;
    // Readers hand back what they were given, but for `tokens` (a copy holding only its two counts).
    if (value !== given) raw[name] = value;
    known++;
  }
  // The parsed object is the record unless it holds fields this version does not know.
  let keys = 0;
  for (const k in raw) if (Object.hasOwn(raw, k)) keys++;
  if (keys === known) return raw as RunRecord;
  const out: Record<string, unknown> = {};
  for (const [name] of FIELD_LIST) if (raw[name] !== undefined) out[name] = raw[name];
  return out as RunRecord;
}

/** A record as one line of the log, its fields in `RUN_FIELDS`' order whatever the caller's object. */
export function formatRunRecord(r: RunRecord): string {
  const out: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) if (r[name] !== undefined) out[name] = r[name];
  return `${JSON.stringify(out)}\n`;
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
  return path
    .relative(path.dirname(path.resolve(cacheDir)), path.resolve(taskFile))
    .split(path.sep)
    .join('/');
}

/**
 * The record of a finished run, or undefined when it is not one (it left samples out). A run
 * whose sampling failed or was cancelled is recorded with the band `error` (`taskStats`): the
 * latest run of the task said nothing of it, and the log says so rather than keep an older band.
 * Its tokens are those the endpoint reported for its samples (cached ones included: the record
 * says what the run's samples took), priced by `price` when the profile has one.
 */
export function runRecordOf(
  r: TaskRunResult,
  o: {
    readonly cacheDir: string;
    readonly file: string;
    readonly key: string;
    readonly model: string;
    readonly samples: number;
    readonly at?: Date;
    readonly price?: Price;
  },
): RunRecord | undefined {
  if (!r.error && (r.samples.length === 0 || r.samples.length < o.samples)) return undefined;
  const used = tokensOf(r.samples);
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
    ...(used ? { tokens: used } : {}),
    ...(used && o.price ? { cost: costOf(used, o.price) } : {}),
    ...(r.note ? { note: r.note } : {}),
  };
}

/** What the records of one file's runs are made with (see `runRecordsOf`). */
export interface FileRunRecords {
  readonly cacheDir: string;
  readonly file: string;
  readonly parsed: TaskFile;
  readonly samples?: number;
  profileOf(r: TaskRunResult): ModelProfile | undefined;
  readonly at?: Date;
}

/**
 * The records of a file's finished runs (`runRecordOf` for each), keyed by the task as it is in
 * `parsed` and labelled (and priced) by the profile each task was sampled with.
 */
export function runRecordsOf(results: readonly TaskRunResult[], o: FileRunRecords): RunRecord[] {
  const recordOf = runRecorder(o);
  const at = o.at ?? new Date();
  const out: RunRecord[] = [];
  for (const r of results) {
    const record = recordOf(r, at);
    if (record) out.push(record);
  }
  return out;
}

/**
 * `runRecordsOf` one result at a time, for a run that logs each task as it ends: the record of
 * a result (undefined when it is none), stamped `at` (now when not given).
 */
export function runRecorder(o: Omit<FileRunRecords, 'at'>): (r: TaskRunResult, at?: Date) => RunRecord | undefined {
  // Each task's entry by id (the first of a repeated id), looked up once per result: a search
  // per result made a run of many tasks quadratic here.
  const entries = new Map<string, TaskEntry>();
  for (const t of o.parsed.tasks) if (t.id !== undefined && !entries.has(t.id)) entries.set(t.id, t);
  return (r, at = new Date()) => {
    const entry = entries.get(r.task.id);
    const profile = o.profileOf(r);
    if (!entry || !profile) return undefined;
    return runRecordOf(r, {
      cacheDir: o.cacheDir,
      file: o.file,
      key: taskRunKey(o.parsed, entry),
      model: modelLabel(profile),
      samples: o.samples ?? r.task.sampling.samples,
      at,
      ...(profile.price ? { price: profile.price } : {}),
    });
  };
}

export interface AppendOptions {
  /** Size past which (and past each doubling of which) compaction is considered; tests lower it. */
  readonly compactBytes?: number;
  /**
   * `appendRunRecordsAsync`: how to compact, when it is time; in this thread without it. The
   * editor compacts in a worker thread (`compactRunLogInWorker`), since rewriting a large log takes a while.
   */
  readonly compact?: (cacheDir: string) => Promise<unknown>;
}

/** Appends records to the log in one write, creating the cache folder if needed; then compacts if the log grew past a size. */
export function appendRunRecords(cacheDir: string, records: readonly RunRecord[], options: AppendOptions = {}): void {
  if (records.length === 0) return;
  markCacheDir(cacheDir);
  const file = runLogFile(cacheDir);
  const data = linesOf(records);
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
        replaced = !sameFile(mine, fs.statSync(file, { throwIfNoEntry: false }));
      } finally {
        fs.closeSync(fd);
      }
      if (!replaced) break;
    }
  } finally {
    release?.();
  }
  compactIfGrown(cacheDir, size - data.length, size, options);
}

/**
 * `appendRunRecords` for a thread that must not block (the extension host): the wait for a
 * compaction in progress is timers, and the write is asynchronous. Same rules, same lines.
 */
export async function appendRunRecordsAsync(
  cacheDir: string,
  records: readonly RunRecord[],
  options: AppendOptions = {},
): Promise<void> {
  if (records.length === 0) return;
  markCacheDir(cacheDir);
  const file = runLogFile(cacheDir);
  const data = linesOf(records);
  let size = 0;
  const release = await lockWithinAsync(path.join(cacheDir, LOCK_NAME), APPEND_LOCK_WAIT_MS);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const fh = await fs.promises.open(file, 'a');
      let replaced: boolean;
      try {
        // One write call: `writeAll`'s loop only runs again after a short write, as there.
        for (let off = 0; off < data.length;) off += (await fh.write(data, off, data.length - off)).bytesWritten;
        const mine = await fh.stat();
        size = mine.size;
        replaced = !sameFile(mine, await fs.promises.stat(file).catch(() => undefined));
      } finally {
        await fh.close();
      }
      if (!replaced) break;
    }
  } finally {
    release?.();
  }
  if (!options.compact) compactIfGrown(cacheDir, size - data.length, size, options);
  else if (crossed(size - data.length, size, options.compactBytes ?? COMPACT_BYTES)) {
    // Compaction only saves space and reading time; the log is whole without it.
    await options.compact(cacheDir).catch(() => undefined);
  }
}

function linesOf(records: readonly RunRecord[]): Buffer {
  return Buffer.from(records.map(formatRunRecord).join(''), 'utf8');
}

/** Compacts when the log's growth from `from` to `to` bytes passed a threshold (`crossed`). */
function compactIfGrown(cacheDir: string, from: number, to: number, options: AppendOptions): void {
  if (!crossed(from, to, options.compactBytes ?? COMPACT_BYTES)) return;
  try {
    compactRunLog(cacheDir);
  } catch {
    // Compaction only saves space and reading time; the log is whole without it.
  }
}

/** How long an append waits for a compaction in progress. */
const APPEND_LOCK_WAIT_MS = 2000;
const LOCK_RETRY_MS = 2;

/** Takes the lock, retrying every 2 ms for up to `ms`; undefined when it stays taken. */
function lockWithin(file: string, ms: number): (() => void) | undefined {
  const deadline = Date.now() + ms;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const release = tryLock(file);
    if (release || Date.now() >= deadline) return release;
    Atomics.wait(pause, 0, 0, LOCK_RETRY_MS);
  }
}

/** `lockWithin` waiting on timers. */
async function lockWithinAsync(file: string, ms: number): Promise<(() => void) | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const release = tryLock(file);
    if (release || Date.now() >= deadline) return release;
    await sleep(LOCK_RETRY_MS);
  }
}

function sameFile(st: { ino: number; dev: number }, now: { ino: number; dev: number } | undefined): boolean {
  return now !== undefined && now.ino === st.ino && now.dev === st.dev;
}

/** Whether growing from `from` to `to` bytes passed `limit`, 2·`limit`, 4·`limit`...: amortised, so a log that cannot shrink is not read at every append. */
function crossed(from: number, to: number, limit: number): boolean {
  if (to < limit) return false;
  if (from < limit) return true;
  return Math.floor(Math.log2(from / limit)) !== Math.floor(Math.log2(to / limit));
}

/** How every record's line starts (`file` is the first field): a record after a torn fragment starts at the line's last one. */
const LINE_START = '{"file":';

/**
 * Calls `fn` for each whole record of a chunk of log text, in order, with its line. A line that
 * is not one record may be a fragment a crash tore with another writer's record appended right
 * after it: that record starts at the line's last `{"file":` (the sequence cannot occur inside
 * a JSON string). Text after the last newline is a write in progress or torn: never a record yet.
 */
export function forEachRunRecord(text: string, fn: (record: RunRecord, line: string) => void): void {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    if (nl > start) {
      let line = text.slice(start, nl);
      let r = parseRunRecord(line);
      if (!r) {
        const at = line.lastIndexOf(LINE_START);
        if (at > 0) r = parseRunRecord((line = line.slice(at)));
      }
      if (r) fn(r, line);
    }
    start = nl + 1;
  }
}

// A line as `formatRunRecord` writes it, whose every field its reader takes: names without
// escapes, counts of at most 15 digits (safe integers), finite numbers, a known band. Such a
// line is a record without being parsed (it is when it is read); any other line is parsed to
// tell. The pattern only ever accepts what `parseRunRecord` accepts, never the reverse.
const PLAIN_TEXT = '[^"\\\\\\u0000-\\u001f]*';
const COUNT = '(?:0|[1-9]\\d{0,14})';
const AMOUNT = '(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d{1,2})?';
const CANONICAL = new RegExp(
  `\\{"file":"${PLAIN_TEXT}","task":"${PLAIN_TEXT}","model":"${PLAIN_TEXT}","key":"${PLAIN_TEXT}","at":"${PLAIN_TEXT}",` +
    `"samples":${COUNT},"passed":${COUNT},"pass_rate":-?${AMOUNT},"band":"(?:${BANDS.join('|')})","signal_share":-?${AMOUNT}` +
    `(?:,"tokens":\\{"prompt":${COUNT},"completion":${COUNT}\\})?(?:,"cost":${AMOUNT})?\\}(?=\\n)`,
  // Tried at a line's start (sticky), up to its newline.
  'y',
);

/** The latest two distinct records of each key, in log order (later lines are later runs). */
class Latest2 implements RunLogEntry {
  /** The entry of the task's next model (the index keeps a task's models in a chain). */
  next: Latest2 | undefined;
  // Lines as where they are in the log's text (no string per line); -1: no previous one.
  private previousAt = -1;
  private previousEnd = -1;
  /** Records parsed; undefined while a `CANONICAL` line is not read yet. */
  private latestRecord: RunRecord | undefined;
  private previousRecord: RunRecord | undefined;
  constructor(
    private readonly text: string,
    /** The record's file and task (`taskName`). */
    readonly name: string,
    readonly model: string,
    /** The task's index in the caller's map (`readTasksRuns`); -1 when not asked for. */
    readonly task: number,
    private latestAt: number,
    private latestEnd: number,
    record: RunRecord | undefined,
  ) {
    this.latestRecord = record;
  }
  get latest(): RunRecord {
    return (this.latestRecord ??= this.parse(this.latestAt, this.latestEnd));
  }
  get previous(): RunRecord | undefined {
    if (this.previousAt < 0) return undefined;
    return (this.previousRecord ??= this.parse(this.previousAt, this.previousEnd));
  }
  /** The previous record's band, read off its line when it is not parsed yet. */
  get previousBand(): Band | undefined {
    if (this.previousAt < 0 || this.previousRecord) return this.previousRecord?.band;
    const at = this.text.indexOf(BAND_MARK, this.previousAt) + BAND_MARK.length;
    return band(this.text.slice(at, this.text.indexOf('"', at)));
  }
  private parse(at: number, end: number): RunRecord {
    return must(parseRunRecord(this.text.slice(at, end)), 'a canonical line is a record');
  }
  add(at: number, end: number, record: RunRecord | undefined): void {
    if (sameText(this.text, at, end, this.latestAt, this.latestEnd)) return;
    if (this.previousAt >= 0 && sameText(this.text, at, end, this.previousAt, this.previousEnd)) return;
    this.previousAt = this.latestAt;
    this.previousEnd = this.latestEnd;
    this.previousRecord = this.latestRecord;
    this.latestAt = at;
    this.latestEnd = end;
    this.latestRecord = record;
  }
  lines(): string[] {
    const latest = this.text.slice(this.latestAt, this.latestEnd);
    return this.previousAt < 0 ? [latest] : [latest, this.text.slice(this.previousAt, this.previousEnd)];
  }
}

/** Whether two ranges of `text` hold the same characters. */
function sameText(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let i = 0; i < aEnd - a; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

const BAND_MARK = '"band":"';

/** The latest two records of each (file, task, model): by the task's name, then its models in turn (a few). */
class LatestIndex {
  private readonly byName = new Map<string, Latest2>();
  /** In the order the log first names each. */
  readonly entries: Latest2[] = [];

  constructor(private readonly text: string) {}

  /**
   * Adds the record of the line at `at`..`end` of the text (`record`, or the `CANONICAL` line's,
   * read when asked for) of the task `name` (its index in the caller's map: `task`); its model is
   * `model`, or the text from `modelAt` to `modelEnd` when the line is `CANONICAL`.
   */
  add(
    name: string,
    task: number,
    at: number,
    end: number,
    record: RunRecord | undefined,
    model: string | undefined,
    modelAt: number,
    modelEnd: number,
  ): void {
    const first = this.byName.get(name);
    let last: Latest2 | undefined;
    for (let e = first; e; e = e.next) {
      const same =
        model === undefined
          ? e.model.length === modelEnd - modelAt && this.text.startsWith(e.model, modelAt)
          : e.model === model;
      if (same) {
        e.add(at, end, record);
        return;
      }
      last = e;
    }
    const made = new Latest2(this.text, name, model ?? this.text.slice(modelAt, modelEnd), task, at, end, record);
    if (last) last.next = made;
    else this.byName.set(name, made);
    this.entries.push(made);
  }
}

const TASK_MARK = '","task":"';
const MODEL_MARK = '","model":"';

/**
 * A task's name in the log: its file and id as a `formatRunRecord` line writes them,
 * `"file","task":"id"` (`latestRunName`). A `CANONICAL` line holds it as it is.
 */
export function taskName(file: string, task: string): string {
  return `${JSON.stringify(file)},"task":${JSON.stringify(task)}`;
}

/**
 * Every whole record of the log (as `forEachRunRecord` finds them), in log order, into an
 * index. A `CANONICAL` line is parsed only when read; with `tasks`, a line whose task it does
 * not hold (by `taskName`) is passed over, and each entry has its task's index in it.
 */
function latestRecords(text: string, each?: (line: string) => void, tasks?: ReadonlyMap<string, number>): LatestIndex {
  const out = new LatestIndex(text);
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    CANONICAL.lastIndex = start;
    if (nl > start && CANONICAL.test(text)) {
      // Its names hold no quote: each mark found is the one that ends the name before it.
      const task = text.indexOf(TASK_MARK, start + LINE_START.length + 1);
      const model = text.indexOf(MODEL_MARK, task + TASK_MARK.length);
      const modelAt = model + MODEL_MARK.length;
      const name = text.slice(start + LINE_START.length, model + 1);
      const n = tasks ? tasks.get(name) : -1;
      if (n !== undefined) {
        each?.(text.slice(start, nl));
        out.add(name, n, start, nl, undefined, undefined, modelAt, text.indexOf('"', modelAt));
      }
    } else if (nl > start) {
      let at = start;
      let r = parseRunRecord(text.slice(start, nl));
      if (!r) {
        const torn = text.lastIndexOf(LINE_START, nl);
        if (torn > start) r = parseRunRecord(text.slice((at = torn), nl));
      }
      const name = r && taskName(r.file, r.task);
      const n = name === undefined ? undefined : tasks ? tasks.get(name) : -1;
      if (r && name !== undefined && n !== undefined) {
        each?.(text.slice(at, nl));
        out.add(name, n, at, nl, r, r.model, 0, 0);
      }
    }
    start = nl + 1;
  }
  return out;
}

/** The log's text; empty when there is no log yet. */
function readRunLogText(cacheDir: string): string {
  try {
    const bytes = fs.readFileSync(runLogFile(cacheDir));
    // Most logs are ASCII, which latin1 decodes as UTF-8 does, and faster.
    return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/**
 * The latest and the previous record of each (file, task, model), keyed by `runLogKey`, in the
 * order the log first names each; empty when there is no log yet.
 */
export function readRunLog(cacheDir: string): Map<string, RunLogEntry> {
  return new Map(latestRecords(readRunLogText(cacheDir)).entries.map((e) => [runLogKeyOf(e), e]));
}

/**
 * `runLogKey` of an entry, from its names: `taskName` is the JSON of its file, `,"task":` and the
 * JSON of its task (the first `,"task":` in it is that one: in a JSON string a quote follows a backslash).
 */
function runLogKeyOf(e: Latest2): string {
  return `[${e.name.replace(',"task":', ',')},${JSON.stringify(e.model)}]`;
}

/** `readRunLog`'s entries without their keys (each record names its file, task and model): what readers that go through them all use. */
export function readRunLogEntries(cacheDir: string): RunLogEntry[] {
  return latestRecords(readRunLogText(cacheDir)).entries;
}

/** One (task, model) of the log: its latest run, and the band of the one before if any. */
export interface TaskRun {
  /** The task's index in the caller's map. */
  readonly task: number;
  readonly model: string;
  readonly latest: RunRecord;
  readonly previousBand: Band | undefined;
}

/**
 * The latest run of each (task, model) of the tasks `tasks` holds (keyed by `taskName` to an
 * index) by the models `wanted` keeps, in the order the log first names each; lines of other
 * tasks and models are passed over unparsed, and of the others only the latest is parsed (of
 * the previous one, its band is read off it). Where each line is is kept per model in arrays
 * indexed by task, so that a log of a million lines makes no object per line.
 */
export function readTasksRuns(
  cacheDir: string,
  tasks: ReadonlyMap<string, number>,
  wanted?: (model: string) => boolean,
): TaskRun[] {
  const text = readRunLogText(cacheDir);
  let n = 1;
  for (const i of tasks.values()) n = Math.max(n, i + 1);
  const models: string[] = [];
  // A model's name to its index in `models`, or -1 when it is not wanted.
  const modelIndex = new Map<string, number>();
  // Per model, per task: where its latest and previous lines start and end (-1: none).
  const at: Int32Array[][] = [];
  const order: number[] = [];
  const modelOf = (name: string): number => {
    let m = modelIndex.get(name);
    if (m === undefined) {
      m = wanted && !wanted(name) ? -1 : models.push(name) - 1;
      if (m >= 0) at.push([0, 1, 2, 3].map(() => new Int32Array(n).fill(-1)));
      modelIndex.set(name, m);
    }
    return m;
  };
  const add = (task: number, m: number, start: number, end: number): void => {
    const [latestAt, latestEnd, previousAt, previousEnd] = at[m] as Int32Array[] as [
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
    const was = latestAt[task] as number;
    if (was < 0) order.push(m * n + task);
    else {
      if (sameText(text, start, end, was, latestEnd[task] as number)) return;
      const before = previousAt[task] as number;
      if (before >= 0 && sameText(text, start, end, before, previousEnd[task] as number)) return;
      previousAt[task] = was;
      previousEnd[task] = latestEnd[task] as number;
    }
    latestAt[task] = start;
    latestEnd[task] = end;
  };
  forEachLine(text, (start, nl, canonical) => {
    if (canonical) {
      const model = text.indexOf(MODEL_MARK, text.indexOf(TASK_MARK, start + LINE_START.length + 1) + TASK_MARK.length);
      const task = tasks.get(text.slice(start + LINE_START.length, model + 1));
      if (task === undefined) return;
      const m = modelOf(text.slice(model + MODEL_MARK.length, text.indexOf('"', model + MODEL_MARK.length)));
      if (m >= 0) add(task, m, start, nl);
      return;
    }
    const r = parseRunRecord(text.slice(start, nl));
    const task = r && tasks.get(taskName(r.file, r.task));
    if (r && task !== undefined) {
      const m = modelOf(r.model);
      if (m >= 0) add(task, m, start, nl);
    }
  });
  return order.map((slot) => {
    const m = Math.floor(slot / n);
    const task = slot - m * n;
    const [latestAt, latestEnd, previousAt, previousEnd] = at[m] as Int32Array[];
    const latest = lineRecord(text, latestAt?.[task] as number, latestEnd?.[task] as number);
    const before = previousAt?.[task] as number;
    return {
      task,
      model: models[m] as string,
      latest,
      previousBand: before < 0 ? undefined : bandOfLine(text, before, previousEnd?.[task] as number),
    };
  });
}

/** The record of a line `forEachLine` found whole. */
function lineRecord(text: string, start: number, end: number): RunRecord {
  return must(parseRunRecord(text.slice(start, end)), 'a line read whole is a record');
}

/** A record's band, read off a `CANONICAL` line, else from the parsed line. */
function bandOfLine(text: string, start: number, end: number): Band | undefined {
  CANONICAL.lastIndex = start;
  if (!CANONICAL.test(text)) return lineRecord(text, start, end).band;
  const at = text.indexOf(BAND_MARK, start) + BAND_MARK.length;
  return band(text.slice(at, text.indexOf('"', at)));
}

/**
 * Where each line that may hold a record is in the text: a `CANONICAL` one (a record), or one
 * whose record, if any, starts at its start or (a torn line) at its last `{"file":`.
 */
function forEachLine(text: string, fn: (start: number, end: number, canonical: boolean) => void): void {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    if (nl > start) {
      CANONICAL.lastIndex = start;
      if (CANONICAL.test(text)) fn(start, nl, true);
      else if (parseRunRecord(text.slice(start, nl))) fn(start, nl, false);
      else {
        const torn = text.lastIndexOf(LINE_START, nl);
        if (torn > start) fn(torn, nl, false);
      }
    }
    start = nl + 1;
  }
}

/** Every whole record of the log, in log order (a record a compaction copied twice appears twice). */
export function readRunRecords(cacheDir: string): RunRecord[] {
  const out: RunRecord[] = [];
  forEachRunRecord(readRunLogText(cacheDir), (r) => out.push(r));
  return out;
}

export interface CompactResult {
  /** Whole lines before and after. */
  readonly before: number;
  readonly after: number;
}

/**
 * How long a compaction waits for the log's lock. An append holds it for one write: a compaction
 * that gave up at once on a busy log was skipped until the log doubled again. A holder past this
 * is another compaction, which makes this one needless.
 */
const COMPACT_LOCK_WAIT_MS = 250;

/**
 * Rewrites the log keeping the latest two records of each key (and dropping torn and damaged
 * lines), atomically (a temp file renamed over the log). Returns undefined when another process
 * is compacting it, or there is nothing to drop.
 */
export function compactRunLog(cacheDir: string): CompactResult | undefined {
  const file = runLogFile(cacheDir);
  if (!fs.existsSync(file)) return undefined;
  const release = lockWithin(path.join(cacheDir, LOCK_NAME), COMPACT_LOCK_WAIT_MS);
  if (!release) return undefined;
  try {
    removeStaleTemps(cacheDir);
    const old = fs.openSync(file, 'r');
    try {
      let end = fs.fstatSync(old).size;
      const text = readRange(old, 0, end).toString('utf8');
      end = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1), 'utf8');
      const all: string[] = [];
      const kept = latestRecords(text, (line) => all.push(line));
      const before = all.length;
      const keep = new Set<string>();
      for (const e of kept.entries) for (const line of e.lines()) keep.add(line);
      if (keep.size >= before) return undefined;
      // The kept lines in log order, each once.
      const lines = all.filter((line) => keep.delete(line));
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

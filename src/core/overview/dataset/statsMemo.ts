// What `vtask stats` remembers between runs, in the cache folder, per vtask version:
//
//   stats/<version>/files/<sha1 of the file's text>.jsonl  a file's summary (summary.ts), then its prompts
//   stats/<version>/cases.json                             case outcomes by cases key
//   stats/<version>/index.json                             per task file: its stat when read, its text's sha1 (statIndex.ts)
//   stats/<version>/current/<sha1 of a task file's path>.json  which summary is that file's now: {"file","hash"}
//   stats/<version>/checks/<check>-<sha1 of inputs>.json   duplicates or overlaps found in one state of a dataset (promptChecks.ts)
//
// All of it is derived data: deleting `stats/` costs one slower run. A file's summary is valid
// for exactly its text; the case outcomes outlive edits of other tasks of the same file. The
// prompts are a line of their own, after the summary: they are read only when a duplicate or
// overlap search has to run again.
//
// A file's summary is made anew for every text it has had: editing a file with the dashboard
// open left a summary per saved state, each the size of the file's tasks, for ever. Each task
// file points at its current summary (`current/`), and a run that moved a pointer removes the
// summaries no pointer names, once they are a minute old (another process may have written one
// and not yet pointed at it); the pointers of files that are gone go with them. The case
// outcomes are bounded too (CASE_OUTCOMES_KEPT). Every run marks its version's folder as used,
// and the folders of versions unused for OTHER_VERSIONS_KEPT_MS go (each update of vtask would
// otherwise leave a whole memo behind).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isRecord } from '../../base/record';
import { SampleCache } from '../../sampling/cache';
import { version } from '../../version';
import { StatIndex } from './statIndex';
import type { CaseCounts, CaseMemo, FileSummary } from './summary';
import { isCounts } from './taskRows';
import { readSummaryLine } from './summaryLine';
import { jsonStrings } from './jsonStrings';
import { jsonEntries } from './jsonEntries';
import { fileBlocks } from '../../util/fileBlocks';
import { CaseOutcomes } from './caseOutcomes';
import { gathered } from '../../util/writeJson';

/** How many remembered results of one check are kept (several datasets, or thresholds, in turn). */
const CHECKS_KEPT = 8;
/** How old a summary no task file points at must be before it is removed. */
export const UNPOINTED_KEPT_MS = 60_000;
/**
 * The most case outcomes held (about 44 bytes each in memory, 90 in cases.json). Those this
 * process used are written back first; the others only up to three quarters of it, so that the
 * next run has room for new ones. A task past it runs its cases again, as if never run.
 */
export const CASE_OUTCOMES_KEPT = 1 << 20;
/**
 * How long the memo of another vtask version is kept unused: long enough for a CLI and an
 * editor extension of different versions to share a cache folder.
 */
export const OTHER_VERSIONS_KEPT_MS = 14 * 24 * 3600_000;

/** A remembered file summary; its prompts are read on demand. */
export interface RememberedFile {
  readonly summary: FileSummary;
  /** The prompt of each task (`''` for none), or undefined when they cannot be read. */
  prompts(): Iterable<string> | undefined;
}

export class StatsMemo implements CaseMemo {
  private readonly root: string;
  private cases: CaseOutcomes | undefined;
  private casesChanged = false;
  private stats: StatIndex | undefined;
  private ready = false;
  /** The summary of each task file (absolute path) as this memo last pointed at it. */
  private readonly pointed = new Map<string, string>();
  private pointersMoved = false;
  private tidiedAt = 0;
  private othersRemoved = false;

  constructor(private readonly cacheDir: string) {
    this.root = path.join(cacheDir, 'stats', version.replace(/[^\w.-]/g, '_'));
  }

  /** The remembered summary of a file whose text hashes to `hash`, if any and readable. */
  fileSummary(hash: string): RememberedFile | undefined {
    const file = path.join(this.root, 'files', `${hash}.jsonl`);
    try {
      // Read a row at a time: the line is over a hundred megabytes at a million tasks.
      const summary = readSummaryLine(file);
      return { summary, prompts: () => promptsOf(file, summary.tasks.length) };
    } catch {
      // Missing, cut short or not as written: the file is summarised again.
      return undefined;
    }
  }

  /** The prompts of the remembered summary of a text hashing to `hash`, if it has `tasks` of them. */
  prompts(hash: string, tasks: number): Iterable<string> | undefined {
    return promptsOf(path.join(this.root, 'files', `${hash}.jsonl`), tasks);
  }

  putFileSummary(hash: string, summary: FileSummary, prompts: Iterable<string>): void {
    if (!this.ensure()) return;
    // Written a piece at a time: a million tasks' summary is 100 MB of JSON.
    writeQuietly(path.join(this.root, 'files', `${hash}.jsonl`), [
      // JSON.stringify(summary), its rows as objects.
      ['{"tasks":['],
      summary.tasks.jsonElements(),
      [`],"errors":${JSON.stringify(summary.errors)},"casesRun":${JSON.stringify(summary.casesRun)}}`, '\n'],
      ['['],
      jsonElements(prompts),
      [']\n'],
    ]);
  }

  /**
   * Says that the summary of `file` is now the one of a text hashing to `hash` (made or not yet):
   * the summary it had before is removed at the next `save`, unless another file has it too. Text
   * that is not on disk (an editor's unsaved buffer) is this process's only: the summary of the
   * disk's text stays for the others.
   */
  current(file: string, hash: string, onDisk = true): void {
    const abs = path.resolve(file);
    if (this.pointed.get(abs) === hash) return;
    this.pointed.set(abs, hash);
    if (!onDisk || !this.ensure()) return;
    const pointer = path.join(this.root, 'current', `${createHash('sha1').update(abs).digest('hex')}.json`);
    if (pointerOf(pointer)?.hash === hash) return;
    writeQuietly(pointer, JSON.stringify({ file: abs, hash }));
    this.pointersMoved = true;
  }

  /** The text hash of a task file (absolute path) whose stat is unchanged since it was read. */
  knownHash(file: string, st: fs.Stats): string | undefined {
    return this.index().hashOf(file, st);
  }

  /** Remembers the hash of a task file's text as read from disk, with its stat taken before reading. */
  rememberHash(file: string, st: fs.Stats, statAt: number, hash: string): void {
    this.index().set(file, st, statAt, hash);
  }

  /** Forgets a task file's stat: its text was not read from disk as it is. */
  forgetHash(file: string): void {
    this.index().delete(file);
  }

  /** A remembered result of a check (see promptChecks.ts) by its name, if any and readable. */
  check(name: string): unknown {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.root, 'checks', `${name}.json`), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Remembers a check's result; the oldest of the same check (`name` up to its `-`) beyond a few are dropped. */
  putCheck(name: string, value: unknown): void {
    if (!this.ensure()) return;
    const dir = path.join(this.root, 'checks');
    try {
      fs.mkdirSync(dir, { recursive: true });
      writeQuietly(path.join(dir, `${name}.json`), JSON.stringify(value));
      const kind = name.slice(0, name.indexOf('-') + 1);
      const same = fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(kind) && f.endsWith('.json'))
        .map((f) => ({ f, at: fs.statSync(path.join(dir, f)).mtimeMs }))
        .sort((x, y) => y.at - x.at);
      for (const { f } of same.slice(CHECKS_KEPT)) fs.rmSync(path.join(dir, f), { force: true });
    } catch {
      // Another process pruning at the same time, or a read-only place: only slower.
    }
  }

  get(casesKey: string): CaseCounts | undefined {
    return this.loadCases().get(casesKey);
  }

  set(casesKey: string, counts: CaseCounts): void {
    this.loadCases().set(casesKey, counts);
    this.casesChanged = true;
  }

  /**
   * Writes the case outcomes and file stats learnt in this run, and removes the summaries that
   * are no task file's any more. A memo that cannot be written is only slower.
   */
  save(): void {
    markUsed(this.root);
    this.removeOtherVersions();
    const index = this.stats?.changes((f) => fs.existsSync(f));
    if (index !== undefined && this.ensure()) writeQuietly(path.join(this.root, 'index.json'), index);
    if (this.pointersMoved) {
      this.pointersMoved = false;
      this.removeUnpointed();
    }
    if (!this.casesChanged || !this.cases || !this.ensure()) return;
    // JSON.stringify(Object.fromEntries(cases)), an entry at a time.
    const kept = this.cases.kept((CASE_OUTCOMES_KEPT / 4) * 3);
    writeQuietly(path.join(this.root, 'cases.json'), [['{'], entryPieces(kept), ['}']]);
    this.casesChanged = false;
  }

  /**
   * Removes the summaries that are no task file's any more, at most once a minute: for a
   * long-lived process (the dashboard), which writes the case outcomes only now and then.
   */
  tidy(): void {
    markUsed(this.root);
    if (!this.pointersMoved || Date.now() - this.tidiedAt < UNPOINTED_KEPT_MS) return;
    this.pointersMoved = false;
    this.removeUnpointed();
  }

  /**
   * Removes the summaries no task file points at (and leftovers of writes that broke off), a
   * minute old at least; and the pointers of files that are gone.
   */
  private removeUnpointed(): void {
    this.tidiedAt = Date.now();
    const named = new Set(this.pointed.values());
    const pointers = path.join(this.root, 'current');
    for (const name of namesIn(pointers)) {
      const file = path.join(pointers, name);
      const p = name.endsWith('.json') ? pointerOf(file) : undefined;
      if (p && fs.existsSync(p.file)) named.add(p.hash);
      else if (p || olderThan(file, UNPOINTED_KEPT_MS)) removeQuietly(file);
    }
    const summaries = path.join(this.root, 'files');
    for (const name of namesIn(summaries)) {
      if (name.endsWith('.jsonl') && named.has(name.slice(0, -'.jsonl'.length))) continue;
      const file = path.join(summaries, name);
      if (olderThan(file, UNPOINTED_KEPT_MS)) removeQuietly(file);
    }
  }

  private index(): StatIndex {
    return (this.stats ??= new StatIndex(readQuietly(path.join(this.root, 'index.json'))));
  }

  private loadCases(): CaseOutcomes {
    if (!this.cases) {
      this.cases = new CaseOutcomes(CASE_OUTCOMES_KEPT);
      try {
        // An entry at a time: parsed whole, the file and an object per entry were in the heap at once.
        for (const [key, counts] of jsonEntries(path.join(this.root, 'cases.json')))
          if (isCounts(counts)) this.cases.restore(key, counts);
      } catch {
        this.cases = new CaseOutcomes(CASE_OUTCOMES_KEPT);
      }
    }
    return this.cases;
  }

  /**
   * Removes the memos of other vtask versions that no run used for OTHER_VERSIONS_KEPT_MS, once
   * per process, in the background: one can be hundreds of megabytes, and the editor's thread
   * must not wait for it. What is left half-removed goes next time.
   */
  private removeOtherVersions(): void {
    if (this.othersRemoved) return;
    this.othersRemoved = true;
    const stats = path.dirname(this.root);
    if (path.basename(stats) !== 'stats') return;
    for (const name of namesIn(stats)) {
      const dir = path.join(stats, name);
      if (name === path.basename(this.root) || !olderThan(dir, OTHER_VERSIONS_KEPT_MS)) continue;
      // In use elsewhere (Windows): removed by a later run.
      fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private ensure(): boolean {
    if (this.ready) return true;
    try {
      // The cache folder as `vtask run` makes it (ignored by git, tagged as a cache).
      const cache = SampleCache.open(this.cacheDir);
      cache.ensureDir();
      cache.close();
      fs.mkdirSync(path.join(this.root, 'files'), { recursive: true });
      fs.mkdirSync(path.join(this.root, 'current'), { recursive: true });
      this.ready = true;
    } catch {
      // A read-only or missing place: the statistics are still right, only not remembered.
    }
    return this.ready;
  }
}

/** JSON.stringify of an array of these strings, `[` and `]` left out, an element at a time. */
function* jsonElements(strings: Iterable<string>): Generator<string> {
  let first = true;
  for (const s of strings) {
    yield (first ? '' : ',') + JSON.stringify(s);
    first = false;
  }
}

function* entryPieces(entries: Iterable<[string, unknown]>): Generator<string> {
  let first = true;
  for (const [k, v] of entries) {
    yield `${first ? '' : ','}${JSON.stringify(k)}:${JSON.stringify(v)}`;
    first = false;
  }
}

/**
 * The prompts line of a summary file: one string per task, read a block at a time when iterated
 * (the summary line before it is most of the file); undefined unless it holds `tasks` strings.
 */
function promptsOf(file: string, tasks: number): Iterable<string> | undefined {
  try {
    const start = afterFirstLine(file);
    let count = 0;
    for (const _ of jsonStrings(file, start, false)) count++;
    return count === tasks ? { [Symbol.iterator]: () => jsonStrings(file, start) } : undefined;
  } catch {
    return undefined;
  }
}

/** Where a file's second line starts; its length when it has one line. */
function afterFirstLine(file: string): number {
  let end = 0;
  for (const { bytes, at } of fileBlocks(file, 0, 1 << 16)) {
    const nl = bytes.indexOf(10);
    if (nl >= 0) return at + nl + 1;
    end = at + bytes.length;
  }
  return end;
}

/** A summary pointer's file and hash; undefined when it is missing or not one. */
function pointerOf(file: string): { file: string; hash: string } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return isRecord(v) && typeof v.file === 'string' && typeof v.hash === 'string'
      ? { file: v.file, hash: v.hash }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The names in a folder; none when it cannot be listed. */
function namesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether `file` was last modified `ms` ago or more; false when it cannot be told (or is gone). */
function olderThan(file: string, ms: number): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs >= ms;
  } catch {
    return false;
  }
}

/** Dates a memo folder now (when it exists): a run used it. */
function markUsed(dir: string): void {
  try {
    const now = new Date();
    fs.utimesSync(dir, now, now);
  } catch {
    // Missing or read-only: nothing to keep.
  }
}

/** Removes a file; one that is open elsewhere (Windows) or already gone stays for a later run. */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Removed next time.
  }
}

function readQuietly(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Writes `text` (or its pieces, in turn) through a temporary name, so a concurrent reader never
 * sees half a file.
 */
function writeQuietly(file: string, text: string | readonly Iterable<string>[]): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'w');
    for (const pieces of typeof text === 'string' ? [[text]] : text)
      for (const piece of gathered(pieces)) fs.writeSync(fd, piece);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch {
    try {
      if (fd !== undefined) fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
    } catch {
      // Held by another program (Windows): a leftover `.tmp` that a later tidy removes.
    }
  }
}

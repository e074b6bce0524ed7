// The summaries of a dataset's task files. A file whose stat is unchanged since a run read it
// is not read at all (statIndex.ts); one whose text hashes to a remembered summary is not
// parsed; only new and edited files are parsed (in worker threads when there are many: see
// summaryWorkers.ts), and only their changed cases run.
import fs from 'node:fs';
import path from 'node:path';
import { resolveCacheDir } from '../../sampling/cacheDir';
import { StatsMemo, type RememberedFile } from './statsMemo';
import { summariseTaskFile, textHash, type FileSummary } from './summary';
import { readChunkedFile, type ChunkedFile } from '../../taskfile/fileStream';
import { TaskRows } from './taskRows';
import { summariseInWorkers, workersFor, type SummaryJob } from './summaryWorkers';
import { at } from '../../util/must';

/**
 * A file's text (or the file read a block at a time: taskfile/fileStream.ts), and whether it is
 * the file's content on disk as it is (read without a problem).
 */
export interface FileText {
  readonly text: string | ChunkedFile;
  readonly onDisk: boolean;
}

export interface SummariesOptions {
  /** The cache folder; by default each file's, as `vtask run` finds it. */
  readonly cacheDir?: string;
  /** False: cases are counted, not run. */
  readonly cases?: boolean;
  /** A file's text; the disk's by default. */
  readonly read?: (file: string) => FileText;
  /** Files whose text may not be the disk's (open in an editor): read whatever their stat. */
  readonly unsaved?: (file: string) => boolean;
  readonly signal?: AbortSignal;
  readonly onFile?: (done: number, total: number) => void;
  /**
   * A bundle that runs `runSummaryWorker` when started as a worker (summaryWorkers.ts): with
   * it, a large number of files to parse are parsed in worker threads, one per core.
   */
  readonly workerScript?: string;
}

export interface DatasetFiles {
  readonly summaries: readonly FileSummary[];
  /** Per file, the hash of its text. */
  readonly hashes: readonly string[];
  /** Per file, its cache folder. */
  readonly cacheDirs: readonly string[];
  /** The memo of each cache folder. */
  readonly memos: ReadonlyMap<string, StatsMemo>;
  /** The prompts of a file's tasks (one per task of its summary, `''` for none). */
  prompts(file: number): Promise<Iterable<string>>;
}

const readDisk = (file: string): FileText => ({
  text: readChunkedFile(file) ?? fs.readFileSync(file, 'utf8'),
  onDisk: true,
});

const hashOf = (text: string | ChunkedFile): string => (typeof text === 'string' ? textHash(text) : text.hash);

/** The summary of each of `files`, with what its prompts and memo need. */
export async function summariseFiles(files: readonly string[], o: SummariesOptions = {}): Promise<DatasetFiles> {
  const read = o.read ?? readDisk;
  const memos = new Map<string, StatsMemo>();
  const hashes: string[] = [];
  const cacheDirs: string[] = [];
  // Per file: its summary, and how to have its prompts (kept when it was parsed in this run, else from the memo).
  const known: (RememberedFile | undefined)[] = [];
  // The files to parse, with their index.
  const toParse: { index: number; text: string | ChunkedFile; job: SummaryJob }[] = [];
  let done = 0;
  for (const file of files) {
    o.signal?.throwIfAborted();
    const cacheDir = resolveCacheDir(file, { cacheDir: o.cacheDir });
    cacheDirs.push(cacheDir);
    let memo = memos.get(cacheDir);
    if (!memo) memos.set(cacheDir, (memo = new StatsMemo(cacheDir)));
    const r = lookUp(file, memo, read, o);
    hashes.push(r.hash);
    known.push(r.known);
    if (r.known) o.onFile?.(++done, files.length);
    else
      toParse.push({
        index: known.length - 1,
        text: r.text as string | ChunkedFile,
        job: { file, hash: r.hash, cacheDir, cases: o.cases !== false },
      });
  }
  // A file parsed here has its prompts read back from its remembered summary when a check wants
  // them, not kept: a dataset's prompts would be most of what the summaries hold.
  const parsed = (index: number, summary: FileSummary, memo: StatsMemo, hash: string): void => {
    known[index] = { summary, prompts: () => memo.prompts(hash, summary.tasks.length) };
    o.onFile?.(++done, files.length);
  };
  // Threads parse files side by side: one file would only be copied to a thread and its summary back.
  const threads = o.workerScript && toParse.length > 1 ? workersFor(toParse.reduce((n, p) => n + p.text.length, 0)) : 0;
  if (threads && o.workerScript) {
    await summariseInWorkers(
      o.workerScript,
      threads,
      // A file read a block at a time is read so again in the thread.
      toParse.map((p) => (typeof p.text === 'string' ? { ...p.job, text: p.text } : p.job)),
      (i, s) => {
        const { index, job } = at(toParse, i);
        const memo = memos.get(job.cacheDir) as StatsMemo;
        for (const [key, counts] of s.learnt) memo.set(key, counts);
        parsed(index, { ...s.summary, tasks: TaskRows.of(s.summary.tasks) }, memo, job.hash);
      },
      o.signal,
    );
  } else {
    for (const { index, text, job } of toParse) {
      const memo = memos.get(job.cacheDir) as StatsMemo;
      const s = await summariseTaskFile(text, job.file, { cases: job.cases, memo, signal: o.signal });
      try {
        memo.putFileSummary(job.hash, s.summary, s.prompts);
      } finally {
        s.prompts.close();
      }
      parsed(index, s.summary, memo, job.hash);
    }
  }
  for (const m of memos.values()) m.save();
  const all = known as RememberedFile[];
  return {
    // A summary made with its cases run counts them as skipped when they are not wanted.
    summaries: all.map((k) =>
      o.cases === false && k.summary.casesRun ? { ...k.summary, casesRun: false } : k.summary,
    ),
    hashes,
    cacheDirs,
    memos,
    async prompts(i) {
      const got = opened(at(all, i).prompts());
      if (got) return got;
      // The memo lost them (another process may have removed a summary no file of its has any
      // more since it was read here): the text must be the one summarised.
      const file = at(files, i);
      const { text } = read(file);
      if (hashOf(text) !== hashes[i]) throw new Error(`${file} changed while it was read: try again`);
      const { prompts, summary } = await summariseTaskFile(text, file, { cases: false, signal: o.signal });
      try {
        return [...prompts];
      } finally {
        prompts.close();
        summary.tasks.close();
      }
    },
  };
}

/**
 * The prompts of a remembered summary with its file open (read up to the first): once open, a
 * summary removed by another process reads on, where opening it later would fail. Undefined
 * when there are none, or it cannot be opened.
 */
function opened(prompts: Iterable<string> | undefined): Iterable<string> | undefined {
  if (!prompts) return undefined;
  const it = prompts[Symbol.iterator]();
  let first: IteratorResult<string>;
  try {
    first = it.next();
  } catch {
    return undefined;
  }
  let taken = false;
  return {
    [Symbol.iterator]: () => {
      if (taken) throw new Error('the prompts of a remembered summary are read once');
      taken = true;
      return (function* () {
        if (first.done) return;
        yield first.value;
        yield* { [Symbol.iterator]: () => it };
      })();
    },
  };
}

/**
 * A file's text hash, and its remembered summary when its stat or its text is known; else its
 * text, to be parsed.
 */
function lookUp(
  file: string,
  memo: StatsMemo,
  read: (file: string) => FileText,
  o: SummariesOptions,
): { hash: string; known?: RememberedFile; text?: string | ChunkedFile } {
  const abs = path.resolve(file);
  // The clock before the stat, the stat before the read: a write after either cannot pass for this text.
  const statAt = Date.now();
  const st = o.unsaved?.(file) ? undefined : statOf(abs);
  const indexed = st && memo.knownHash(abs, st);
  const remembered = indexed === undefined ? undefined : usable(memo.fileSummary(indexed), o.cases);
  if (indexed !== undefined && remembered) {
    memo.current(abs, indexed);
    return { hash: indexed, known: remembered };
  }
  const r = read(file);
  const hash = hashOf(r.text);
  memo.current(abs, hash, r.onDisk && !o.unsaved?.(file));
  if (st && r.onDisk) memo.rememberHash(abs, st, statAt, hash);
  else if (st) memo.forgetHash(abs);
  const known = usable(memo.fileSummary(hash), o.cases);
  return known ? { hash, known } : { hash, text: r.text };
}

/** A remembered summary, unless it lacks the case outcomes wanted (it was made with `--no-cases`). */
function usable(r: RememberedFile | undefined, cases: boolean | undefined): RememberedFile | undefined {
  return r && (cases === false || r.summary.casesRun) ? r : undefined;
}

/** A regular file's stat; undefined for anything else, or when it cannot be had. */
function statOf(file: string): fs.Stats | undefined {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? st : undefined;
  } catch {
    return undefined;
  }
}

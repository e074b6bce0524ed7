// The summaries of a dataset's task files. A file whose stat is unchanged since a run read it
// is not read at all (statIndex.ts); one whose text hashes to a remembered summary is not
// parsed; only new and edited files are parsed, and only their changed cases run.
import fs from 'node:fs';
import path from 'node:path';
import { resolveCacheDir } from '../sampling/cacheDir';
import { StatsMemo, type RememberedFile } from './statsMemo';
import { summariseTaskFile, textHash, type FileSummary } from './summary';

/** A file's text, and whether it is the file's content on disk as it is (read without a problem). */
export interface FileText {
  readonly text: string;
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
  prompts(file: number): Promise<readonly string[]>;
}

const readDisk = (file: string): FileText => ({ text: fs.readFileSync(file, 'utf8'), onDisk: true });

/** The summary of each of `files`, with what its prompts and memo need. */
export async function summariseFiles(files: readonly string[], o: SummariesOptions = {}): Promise<DatasetFiles> {
  const read = o.read ?? readDisk;
  const memos = new Map<string, StatsMemo>();
  const summaries: FileSummary[] = [];
  const hashes: string[] = [];
  const cacheDirs: string[] = [];
  // Per file: how to have its prompts (kept when it was parsed in this run, else from the memo).
  const prompts: RememberedFile[] = [];
  for (const [i, file] of files.entries()) {
    o.signal?.throwIfAborted();
    const cacheDir = resolveCacheDir(file, { cacheDir: o.cacheDir });
    cacheDirs.push(cacheDir);
    let memo = memos.get(cacheDir);
    if (!memo) memos.set(cacheDir, (memo = new StatsMemo(cacheDir)));
    const { hash, known } = await summaryOf(file, memo, read, o);
    summaries.push(o.cases === false && known.summary.casesRun ? { ...known.summary, casesRun: false } : known.summary);
    hashes.push(hash);
    prompts.push(known);
    o.onFile?.(i + 1, files.length);
  }
  for (const m of memos.values()) m.save();
  return {
    summaries,
    hashes,
    cacheDirs,
    memos,
    async prompts(i) {
      const p = prompts[i] as RememberedFile;
      const got = p.prompts();
      if (got) return got;
      // The memo lost them: the text must be the one summarised.
      const file = files[i] as string;
      const { text } = read(file);
      if (textHash(text) !== hashes[i]) throw new Error(`${file} changed while it was read: try again`);
      return (await summariseTaskFile(text, file, { cases: false, signal: o.signal })).prompts;
    },
  };
}

/** A file's text hash and summary: from the memo when its stat or its text is known, else parsed now (and remembered). */
async function summaryOf(file: string, memo: StatsMemo, read: (file: string) => FileText, o: SummariesOptions): Promise<{ hash: string; known: RememberedFile }> {
  const abs = path.resolve(file);
  // The clock before the stat, the stat before the read: a write after either cannot pass for this text.
  const statAt = Date.now();
  const st = o.unsaved?.(file) ? undefined : statOf(abs);
  const indexed = st && memo.knownHash(abs, st);
  const remembered = indexed === undefined ? undefined : usable(memo.fileSummary(indexed), o.cases);
  if (indexed !== undefined && remembered) return { hash: indexed, known: remembered };
  const r = read(file);
  const hash = textHash(r.text);
  if (st && r.onDisk) memo.rememberHash(abs, st, statAt, hash);
  else if (st) memo.forgetHash(abs);
  const known = usable(memo.fileSummary(hash), o.cases);
  if (known) return { hash, known };
  const s = await summariseTaskFile(r.text, file, { cases: o.cases, memo, signal: o.signal });
  memo.putFileSummary(hash, s.summary, s.prompts);
  return { hash, known: { summary: s.summary, prompts: () => s.prompts } };
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

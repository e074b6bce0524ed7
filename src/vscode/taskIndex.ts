import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import type { Issue } from '../core/base/issues';
import { streamedRunKey, taskRunKey } from '../core/run/resultKeys';
import { rowFileText, rowFileType } from '../core/datasets/rowFiles';
import { rowFileFormat } from '../core/datasets/rowFormat';
import { RowTaskParser } from '../core/datasets/rowTasks';
import type { TaskEntry, TaskFile } from '../core/taskfile/parse';
import { runnableTasks, type TaskSpec } from '../core/taskfile/resolve';
import { streamTaskFile } from '../core/taskfile/stream';
import type { LineIndex } from '../core/taskfile/text';
import type { TaskDocuments } from './taskDocuments';
import { at } from '../core/util/must';
import { verifierKind } from '../core/util/verifierKind';

/** Task files of the workspace, as `vtask check` finds them in a folder. */
export const TASK_FILE_GLOB = '**/*.{vtask,vtask.yaml,vtask.yml}';
/** What the index lists: task files, and the dataset files `vtask stats` reads as rows (kept when their rows are in a known format). */
const INDEX_GLOB = '**/*.{vtask,vtask.yaml,vtask.yml,jsonl,ndjson,parquet}';
const EXCLUDE_GLOB = '{**/node_modules/**,**/.*/**}';
/** A workspace-relative path inside what EXCLUDE_GLOB leaves out. */
const EXCLUDED_PATH = /(^|\/)(node_modules|\.[^/]*)\//;

/** What the overview needs of one task: where its id is, its verifier kind, its prompt. */
export interface IndexedTask {
  readonly id: string;
  /** 0-based line of the task's id (its first key when it has none). */
  readonly line: number;
  /** The lines the task spans, [line of its first key, line after its last). */
  readonly start: number;
  readonly end: number;
  /** The top-level verifier kind (`math`, `all`...), when the task resolves. */
  readonly kind?: string;
  /** The last user message, when the task resolves. */
  readonly prompt?: string;
  readonly cases: number;
  readonly errors: boolean;
  /** The key a run of the task is recorded under (`taskRunKey`): a run under another is stale. */
  readonly runKey: string;
}

export interface IndexedFile {
  readonly uri: vscode.Uri;
  /** What the summary was made from: `v<version>` of an open document, `m<mtime>:<size>` of a file on disk. */
  readonly stamp: string;
  readonly tasks: readonly IndexedTask[];
  /** Errors in the file (its valid tasks still count). */
  readonly errors: number;
  /** Why the file could not be read, when it could not. */
  readonly unreadable?: string;
  /** A dataset file (JSONL, Parquet): the import format its rows are in. */
  readonly format?: string;
}

/** Files parsed between two yields to the extension host's event loop. */
const FILES_PER_TURN = 1;
/** Tasks read from a stream between two yields (about 15 ms of parsing), so the host stays responsive. */
const TASKS_PER_TURN = 25;
/** Lines of a dataset read as tasks between two yields: a 100,000-row file never holds the host long. */
const ROW_LINES_PER_TURN = 500;
/** Editing an open file re-reads it after this pause in typing. */
const EDIT_DEBOUNCE_MS = 300;

const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The task files of the workspace, each summarised once per version: parsed on demand, in the
 * background, one file per turn of the event loop, and kept until the file changes on disk or
 * in an editor. The tree, the duplicate diagnostics and the dashboard read it; `onDidChange`
 * says which files changed (an empty list: the set of files itself changed).
 */
export class TaskIndex implements vscode.Disposable {
  private uris: Map<string, vscode.Uri> | undefined;
  private listing: Promise<Map<string, vscode.Uri>> | undefined;
  private readonly cache = new Map<string, IndexedFile>();
  private readonly pending = new Map<string, { uri: vscode.Uri; waiters: ((f: IndexedFile) => void)[] }>();
  private draining = false;
  private readonly emitter = new vscode.EventEmitter<readonly vscode.Uri[]>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private readonly editTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private changed = new Map<string, vscode.Uri>();
  private changeTimer: ReturnType<typeof setTimeout> | undefined;
  private listChanged = false;
  /** Row files by URI: the stamp they were looked at with and whether they are datasets. */
  private readonly datasets = new Map<string, { stamp: string; format: string | undefined }>();

  constructor(private readonly documents: TaskDocuments) {
    const watcher = vscode.workspace.createFileSystemWatcher(INDEX_GLOB);
    // A folder moved or unpacked into the workspace, or deleted, reaches the watcher as the folder
    // alone, with no event for the files in it: those are looked for when a folder appears, and
    // forgotten with it.
    const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    this.disposables.push(
      watcher,
      folders,
      folders.onDidCreate((u) => void this.folderAdded(u)),
      folders.onDidDelete((u) => this.removedUnder(u)),
      watcher.onDidCreate((u) => void this.added(u)),
      watcher.onDidDelete((u) => this.removed(u)),
      watcher.onDidChange((u) => {
        // A row file may have become a dataset, or stopped being one.
        if (rowFileType(u.path)) void this.rowFileChanged(u);
        // An open document is read from its editor: the watcher only sees saves.
        else if (!this.openDocument(u)) this.invalidate(u);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (!e.contentChanges.length || !this.isIndexed(e.document.uri)) return;
        const key = e.document.uri.toString();
        clearTimeout(this.editTimers.get(key));
        this.editTimers.set(
          key,
          setTimeout(() => {
            this.editTimers.delete(key);
            this.invalidate(e.document.uri);
          }, EDIT_DEBOUNCE_MS),
        );
      }),
      // Closing an unsaved document: the file on disk is the truth again.
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (this.isIndexed(d.uri)) this.invalidate(d.uri);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.uris = undefined;
        this.listing = undefined;
        this.cache.clear();
        this.fire(undefined);
      }),
    );
  }

  /** Every task file of the workspace, sorted by path (listed once, then kept by the watcher). */
  async files(): Promise<vscode.Uri[]> {
    if (!this.uris) {
      this.listing ??= Promise.resolve(vscode.workspace.findFiles(INDEX_GLOB, EXCLUDE_GLOB)).then(async (found) => {
        const kept: vscode.Uri[] = [];
        for (const u of found) if (!rowFileType(u.path) || (await this.isDataset(u))) kept.push(u);
        return (this.uris = byPath(kept));
      });
      await this.listing;
    }
    return [...(this.uris as Map<string, vscode.Uri>).values()];
  }

  /** The summary of a file when it is known and current; undefined otherwise (then ask `get`). */
  peek(uri: vscode.Uri): IndexedFile | undefined {
    const f = this.cache.get(uri.toString());
    const doc = this.openDocument(uri);
    if (f && doc && f.stamp !== `v${doc.version}`) return undefined;
    return f;
  }

  /** The summary of a file, parsing it in the background when it is not known. */
  get(uri: vscode.Uri): Promise<IndexedFile> {
    const known = this.peek(uri);
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => {
      const key = uri.toString();
      const p = this.pending.get(key);
      if (p) p.waiters.push(resolve);
      else this.pending.set(key, { uri, waiters: [resolve] });
      void this.drain();
    });
  }

  /** Every file's summary, read in the background; stops early when `token` is cancelled. */
  async all(token?: vscode.CancellationToken): Promise<IndexedFile[]> {
    const out: IndexedFile[] = [];
    for (const u of await this.files()) {
      if (token?.isCancellationRequested) break;
      out.push(await this.get(u));
    }
    return out;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      let n = 0;
      while (this.pending.size) {
        const [key, job] = this.pending.entries().next().value as [
          string,
          { uri: vscode.Uri; waiters: ((f: IndexedFile) => void)[] },
        ];
        this.pending.delete(key);
        const f = await this.read(job.uri);
        this.cache.set(key, f);
        for (const w of job.waiters) w(f);
        if (++n % FILES_PER_TURN === 0) await yieldTurn();
      }
    } finally {
      this.draining = false;
    }
  }

  /** Summarises one file: an open document from its parsed text, a closed one streamed from disk. */
  private async read(uri: vscode.Uri): Promise<IndexedFile> {
    if (rowFileType(uri.path)) return this.readRows(uri);
    const doc = this.openDocument(uri);
    if (doc) {
      const file = this.documents.get(doc);
      const specs = new Map(runnableTasks(file).tasks.map((t) => [t.index, t]));
      const tasks = file.tasks.map((e) =>
        summarise(e, specs.get(e.index), file.lines, file.issues, taskRunKey(file, e)),
      );
      return {
        uri,
        stamp: `v${doc.version}`,
        tasks: tasks.filter((t): t is IndexedTask => t !== undefined),
        errors: file.issues.filter((i) => i.severity === 'error').length,
      };
    }
    let stamp = '';
    try {
      const st = await vscode.workspace.fs.stat(uri);
      stamp = `m${st.mtime}:${st.size}`;
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      const stream = streamTaskFile(text);
      const tasks: IndexedTask[] = [];
      const indexes: number[] = [];
      let errors = stream.fileIssues.filter((i) => i.severity === 'error').length;
      let n = 0;
      for await (const t of stream.tasks) {
        errors += t.issues.filter((i) => i.severity === 'error').length;
        const s = summarise(t.entry, t.spec, stream.lines, t.issues, streamedRunKey(stream, text, t.entry));
        if (s) {
          tasks.push(s);
          indexes.push(t.entry.index);
        }
        if (++n % TASKS_PER_TURN === 0) await yieldTurn();
      }
      // A stream that fell back to the whole-file parse keys every task by it, as `vtask run` does.
      const whole = stream.whole;
      if (whole)
        tasks.forEach(
          (t, i) => (tasks[i] = { ...t, runKey: streamedRunKey(stream, text, at(whole.tasks, indexes[i] as number)) }),
        );
      return { uri, stamp, tasks, errors };
    } catch (e) {
      return { uri, stamp, tasks: [], errors: 1, unreadable: errorMessage(e) };
    }
  }

  /**
   * A dataset file, every row a task as `vtask stats` reads it: a JSONL file as its editor has
   * it (or from disk), a Parquet file's rows as JSON lines. Its rows' lines are its tasks' lines.
   */
  private async readRows(uri: vscode.Uri): Promise<IndexedFile> {
    const key = uri.toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    let stamp = doc ? `v${doc.version}` : '';
    try {
      if (!doc) {
        const st = await vscode.workspace.fs.stat(uri);
        stamp = `m${st.mtime}:${st.size}`;
      }
      const text = doc?.getText() ?? (await rowFileText(uri.fsPath));
      // Read a window of lines at a time (as an editor reads what it shows), yielding between them.
      const parser = new RowTaskParser();
      const tasks: IndexedTask[] = [];
      let errors = 0;
      let format: string | undefined;
      for (let from = 0, lineCount = 1; from < lineCount; from += ROW_LINES_PER_TURN) {
        const part = parser.parse(text, { ranges: [[from, from + ROW_LINES_PER_TURN]], maxRows: ROW_LINES_PER_TURN });
        lineCount = part.lines.lineCount;
        format ??= part.format;
        if (!part.format) break;
        tasks.push(...(await summariseAll(part)));
        errors += part.issues.filter((i) => i.severity === 'error').length;
        // A file of no more rows than a window is read whole by the first.
        if (part.rows <= ROW_LINES_PER_TURN) break;
        await yieldTurn();
      }
      return { uri, stamp, tasks, errors, ...(format ? { format } : {}) };
    } catch (e) {
      return { uri, stamp, tasks: [], errors: 1, unreadable: errorMessage(e) };
    }
  }

  /** Whether a row file's first rows are in a known format (remembered until it changes on disk). */
  private async isDataset(uri: vscode.Uri): Promise<boolean> {
    let stamp: string;
    try {
      const st = await vscode.workspace.fs.stat(uri);
      stamp = `m${st.mtime}:${st.size}`;
    } catch {
      return false;
    }
    const known = this.datasets.get(uri.toString());
    if (known?.stamp === stamp) return known.format !== undefined;
    const format = await rowFileFormat(uri.fsPath).catch(() => undefined);
    this.datasets.set(uri.toString(), { stamp, format });
    return format !== undefined;
  }

  private async rowFileChanged(uri: vscode.Uri): Promise<void> {
    const dataset = await this.isDataset(uri);
    if (dataset !== this.isIndexed(uri)) {
      if (dataset) await this.added(uri);
      else this.removed(uri);
    } else if (dataset) this.invalidate(uri);
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    const key = uri.toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key && d.languageId === 'vtask');
  }

  private isIndexed(uri: vscode.Uri): boolean {
    return this.uris?.has(uri.toString()) ?? false;
  }

  private added(uri: vscode.Uri): Promise<void> {
    return this.addedAll([uri]);
  }

  /** Lists new task and dataset files at once: a folder of thousands is one sort and one change. */
  private async addedAll(found: readonly vscode.Uri[]): Promise<void> {
    const fresh: vscode.Uri[] = [];
    for (const uri of found) {
      if (
        !this.uris ||
        this.uris.has(uri.toString()) ||
        EXCLUDED_PATH.test(vscode.workspace.asRelativePath(uri, false))
      )
        continue;
      if (rowFileType(uri.path) && !(await this.isDataset(uri))) continue;
      fresh.push(uri);
    }
    // Listed again meanwhile (the list was read anew, or another event named the same file).
    const uris = this.uris;
    const news = fresh.filter((u) => uris && !uris.has(u.toString()));
    if (!uris || !news.length) return;
    this.uris = byPath([...uris.values(), ...news]);
    this.fire(undefined);
  }

  /** Lists the task and dataset files of a folder that appeared (other created paths are passed over). */
  private async folderAdded(uri: vscode.Uri): Promise<void> {
    if (!this.uris || EXCLUDED_PATH.test(`${vscode.workspace.asRelativePath(uri, false)}/`)) return;
    try {
      const st = await vscode.workspace.fs.stat(uri);
      if (!(st.type & vscode.FileType.Directory)) return;
      const found = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, INDEX_GLOB), EXCLUDE_GLOB);
      await this.addedAll(found);
    } catch {
      // Gone again before it was looked at: its deletion is its own event.
    }
  }

  private removed(uri: vscode.Uri): void {
    this.cache.delete(uri.toString());
    this.datasets.delete(uri.toString());
    if (this.uris?.delete(uri.toString())) this.fire(undefined);
  }

  /** Forgets the files inside a deleted folder (a deleted file is `removed`). */
  private removedUnder(uri: vscode.Uri): void {
    const prefix = `${uri.toString()}/`;
    for (const [key, u] of this.uris ?? []) if (key.startsWith(prefix)) this.removed(u);
  }

  private invalidate(uri: vscode.Uri): void {
    this.cache.delete(uri.toString());
    this.fire(uri);
  }

  /** Changes are told in batches: a save of 50 files is one event, not 50 refreshes. */
  private fire(uri: vscode.Uri | undefined): void {
    if (uri) this.changed.set(uri.toString(), uri);
    else this.listChanged = true;
    this.changeTimer ??= setTimeout(() => {
      this.changeTimer = undefined;
      const list = this.listChanged ? [] : [...this.changed.values()];
      this.changed = new Map();
      this.listChanged = false;
      this.emitter.fire(list);
    }, 50);
  }

  dispose(): void {
    clearTimeout(this.changeTimer);
    for (const t of this.editTimers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

/** A parsed dataset's tasks as the index keeps them, yielding to the host's event loop now and then. */
async function summariseAll(file: TaskFile): Promise<IndexedTask[]> {
  const specs = new Map(runnableTasks(file).tasks.map((t) => [t.index, t]));
  const out: IndexedTask[] = [];
  let n = 0;
  for (const e of file.tasks) {
    const t = summarise(e, specs.get(e.index), file.lines, file.issues, taskRunKey(file, e));
    if (t) out.push(t);
    if (++n % TASKS_PER_TURN === 0) await yieldTurn();
  }
  return out;
}

/** Files keyed by URI, in path order (the tree lists them so). */
function byPath(uris: readonly vscode.Uri[]): Map<string, vscode.Uri> {
  return new Map([...uris].sort((a, b) => a.path.localeCompare(b.path)).map((u) => [u.toString(), u]));
}

/** One task as the index keeps it; undefined for a task without an id (nothing can point at it). */
function summarise(
  entry: TaskEntry,
  spec: TaskSpec | undefined,
  lines: LineIndex,
  issues: readonly Issue[],
  runKey: string,
): IndexedTask | undefined {
  if (entry.id === undefined) return undefined;
  const line = lines.position(entry.offset + entry.anchor[0]).line;
  const start = lines.position(entry.offset).line;
  const end = lines.position(entry.offset + entry.length).line + 1;
  const verify = spec?.verify;
  const kind = verifierKind(verify);
  const errors =
    entry.issues.some((i) => i.severity === 'error') ||
    issues.some((i) => i.severity === 'error' && i.start >= entry.offset && i.start < entry.offset + entry.length);
  return {
    id: entry.id,
    line,
    start,
    end,
    cases: entry.caseCount,
    errors,
    runKey,
    ...(kind ? { kind } : {}),
    ...(spec ? { prompt: spec.prompt } : {}),
  };
}

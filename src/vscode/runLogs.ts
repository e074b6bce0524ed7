import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import { runLogFile, runLogPath, RUN_LOG_NAME } from '../core/overview/runlog/runLog';
import { readRunLogIndex, type RunLogIndex, type RunsByModel } from '../core/overview/runlog/runLogIndex';
import { TimeSlices } from '../core/util/slices';
import { cacheDirFor } from './settings';
import type { RunLogSource } from './taskFacts';

/** A file's cache folder and its name in that folder's run log. */
interface Place {
  readonly cacheDir: string;
  readonly logName: string;
}

interface Known {
  /** What the log was read from: `mtime:size` of the file, '' when there is none. */
  stamp: string;
  index: RunLogIndex;
  /** A reading under way, with the stamp it reads. */
  reading?: { stamp: string; done: Promise<RunLogIndex> };
}

/**
 * Each known log is looked at (one stat) this often, besides the file watcher: a watcher set on a
 * cache folder before it existed, or outside the workspace, may never fire.
 */
const POLL_MS = 2000;
const NO_RUNS: RunsByModel = new Map();

/**
 * The run logs of `vtask run` and of the editor's runs (one per cache folder), read when first
 * asked for and again when one changes on disk, whoever wrote it (a terminal, another window).
 * The tree asks synchronously and gets the log as last read; a new reading (in a worker thread,
 * so the host's thread only files the records away) replaces the old one whole, then
 * `onDidChange` names its cache folder.
 */
export class RunLogs implements RunLogSource, vscode.Disposable {
  private readonly logs = new Map<string, Known>();
  private readonly places = new Map<string, Place>();
  private readonly watched = new Set<string>();
  private readonly poll = setInterval(() => {
    for (const cacheDir of this.logs.keys()) void this.read(cacheDir);
  }, POLL_MS);
  private readonly emitter = new vscode.EventEmitter<string>();
  /** Fires with the cache folder whose log was read again. */
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  /** `worker`: the bundled reader (out/overviewWorker.js); without it, logs are read in this thread. */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly worker?: string,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('vtask.cacheDir')) this.places.clear();
      }),
    );
  }

  /** Where a task file's runs are logged. */
  placeOf(uri: vscode.Uri): Place {
    const key = uri.toString();
    let p = this.places.get(key);
    if (!p) {
      const cacheDir = cacheDirFor(uri);
      this.places.set(key, (p = { cacheDir, logName: runLogPath(cacheDir, uri.fsPath) }));
    }
    return p;
  }

  runsOf(uri: vscode.Uri, taskId: string): RunsByModel {
    if (uri.scheme !== 'file') return NO_RUNS;
    const { cacheDir, logName } = this.placeOf(uri);
    return this.peek(cacheDir).get(logName)?.get(taskId) ?? NO_RUNS;
  }

  /** The log of a cache folder as last read (read in the background the first time). */
  peek(cacheDir: string): RunLogIndex {
    const known = this.logs.get(cacheDir);
    if (!known) void this.read(cacheDir);
    return known?.index ?? new Map();
  }

  /** The log of a cache folder as it is on disk now (read again when it changed). */
  read(cacheDir: string): Promise<RunLogIndex> {
    this.watch(cacheDir);
    const stamp = stampOf(runLogFile(cacheDir));
    const known: Known = this.logs.get(cacheDir) ?? { stamp: '', index: new Map() };
    this.logs.set(cacheDir, known);
    if (known.reading ? known.reading.stamp === stamp : known.stamp === stamp)
      return known.reading?.done ?? Promise.resolve(known.index);
    const done: Promise<RunLogIndex> = this.load(cacheDir).then((index) => {
      // A newer reading started meanwhile: it is the one kept.
      if (known.reading?.done !== done) return known.reading?.done ?? index;
      known.stamp = stamp;
      known.index = index;
      known.reading = undefined;
      this.emitter.fire(cacheDir);
      return index;
    });
    known.reading = { stamp, done };
    return done;
  }

  private async load(cacheDir: string): Promise<RunLogIndex> {
    // Not inside the caller's turn: the tree asks while it draws.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      return await readRunLogIndex(cacheDir, {
        ...(this.worker ? { worker: this.worker } : {}),
        slices: new TimeSlices(),
      });
    } catch (e) {
      this.log.warn(`the run log of ${cacheDir} could not be read: ${errorMessage(e)}`);
      return new Map();
    }
  }

  /**
   * A run log written by another process (vtask run in a terminal) is read again. Inside the
   * workspace the workspace's watcher is asked (it sees a cache folder made later); outside, the
   * cache folder itself is watched.
   */
  private watch(cacheDir: string): void {
    if (this.watched.has(cacheDir)) return;
    this.watched.add(cacheDir);
    const file = vscode.Uri.file(runLogFile(cacheDir));
    const folder = vscode.workspace.getWorkspaceFolder(file);
    const pattern = folder
      ? new vscode.RelativePattern(folder, path.relative(folder.uri.fsPath, file.fsPath).split(path.sep).join('/'))
      : new vscode.RelativePattern(vscode.Uri.file(cacheDir), RUN_LOG_NAME);
    const w = vscode.workspace.createFileSystemWatcher(pattern);
    const changed = (): void => void this.read(cacheDir);
    this.disposables.push(w, w.onDidChange(changed), w.onDidCreate(changed), w.onDidDelete(changed));
  }

  dispose(): void {
    clearInterval(this.poll);
    for (const d of this.disposables) d.dispose();
  }
}

function stampOf(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    // No run yet: no log.
    return '';
  }
}

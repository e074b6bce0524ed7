import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import { readRunLog, runLogFile, runLogPath, RUN_LOG_NAME } from '../core/overview/runLog';
import type { Band } from '../core/stats';
import { cacheDirFor } from './settings';
import type { RunLogSource } from './taskFacts';

/** Bands by model, by task id, by task file as the log names it. */
type Bands = Map<string, Map<string, Map<string, Band | null>>>;

/**
 * The bands of the runs `vtask run` (and the editor) recorded in each cache folder's run log,
 * read when first asked for and again when the log changes on disk.
 */
export class RunLogBands implements RunLogSource, vscode.Disposable {
  private readonly logs = new Map<string, { stamp: string; bands: Bands }>();
  private readonly watched = new Set<string>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  bandsOf(uri: vscode.Uri, taskId: string): ReadonlyMap<string, Band | null> {
    if (uri.scheme !== 'file') return new Map();
    const cacheDir = cacheDirFor(uri);
    return this.read(cacheDir).get(runLogPath(cacheDir, uri.fsPath))?.get(taskId) ?? new Map();
  }

  private read(cacheDir: string): Bands {
    this.watch(cacheDir);
    const file = runLogFile(cacheDir);
    let stamp = '';
    try {
      const st = fs.statSync(file);
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch {
      // No run yet: no log.
    }
    const known = this.logs.get(cacheDir);
    if (known?.stamp === stamp) return known.bands;
    const bands: Bands = new Map();
    try {
      for (const [key, entry] of readRunLog(cacheDir)) {
        const [f, task, model] = JSON.parse(key) as [string, string, string];
        let tasks = bands.get(f);
        if (!tasks) bands.set(f, (tasks = new Map()));
        let models = tasks.get(task);
        if (!models) tasks.set(task, (models = new Map()));
        models.set(model, entry.latest.band);
      }
    } catch (e) {
      this.log.warn(`the run log of ${cacheDir} could not be read: ${errorMessage(e)}`);
    }
    this.logs.set(cacheDir, { stamp, bands });
    return bands;
  }

  /** A run log written by another process (vtask run in a terminal) redraws the view. */
  private watch(cacheDir: string): void {
    if (this.watched.has(cacheDir)) return;
    this.watched.add(cacheDir);
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(cacheDir), RUN_LOG_NAME));
    const changed = (): void => this.emitter.fire();
    this.disposables.push(w, w.onDidChange(changed), w.onDidCreate(changed), w.onDidDelete(changed));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

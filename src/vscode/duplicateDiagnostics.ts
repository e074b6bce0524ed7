import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import { rowFileType } from '../core/datasets/rowFiles';
import { DEFAULT_NGRAM } from '../core/overview/prompts/contamination';
import { findFindingsInThread } from '../core/overview/prompts/findings';
import type { ContaminationHit, DuplicatePair, TaskRef } from '../core/overview/dataset/types';
import { cut } from '../core/util/cut';
import { sleep } from '../core/util/wait';
import type { DuplicateSource } from './taskFacts';
import type { IndexedFile, TaskIndex } from './taskIndex';

export const DUPLICATE_SOURCE = 'vtask duplicates';

/** The overview's settings, read and checked here (settings.json is edited by hand). */
export interface OverviewSettings {
  readonly enabled: boolean;
  readonly threshold: number;
  readonly benchmarks: readonly string[];
  readonly ngram: number;
}

export function overviewSettings(): OverviewSettings {
  const c = vscode.workspace.getConfiguration('vtask');
  const threshold = c.get<unknown>('duplicates.threshold');
  const benchmarks = c.get<unknown>('contaminationBenchmarks');
  const ngram = c.get<unknown>('contamination.ngram');
  return {
    enabled: c.get<unknown>('duplicates.enabled') !== false,
    threshold: typeof threshold === 'number' && threshold > 0 && threshold <= 1 ? threshold : 0.8,
    benchmarks: Array.isArray(benchmarks)
      ? benchmarks.filter((b): b is string => typeof b === 'string' && b.trim() !== '')
      : [],
    ngram: typeof ngram === 'number' && Number.isInteger(ngram) && ngram >= 4 && ngram <= 100 ? ngram : DEFAULT_NGRAM,
  };
}

/** Recomputed this long after the last change: a burst of edits or saves is one pass. */
const DEBOUNCE_MS = 1500;

/**
 * Near-duplicate prompts across the workspace's task files, and prompts that overlap a
 * benchmark, as information on each task's id line. A duplicate points at the other task, an
 * overlap at the benchmark's row (related information: VS Code's way to go there). Computed
 * over the task index after a pause in changes (in a worker thread: a second's work at 100,000
 * prompts), and again when the settings change.
 */
export class DuplicateDiagnostics implements vscode.Disposable, DuplicateSource {
  private readonly collection = vscode.languages.createDiagnosticCollection('vtask-duplicates');
  private readonly emitter = new vscode.EventEmitter<readonly vscode.Uri[]>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.collection, this.emitter];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private cancel: vscode.CancellationTokenSource | undefined;
  /** Per task (`uri#id`): other tasks sharing its prompt, and benchmarks overlapping it. */
  private duplicateCounts = new Map<string, number>();
  private contaminationCounts = new Map<string, number>();
  private pairs: readonly DuplicatePair[] = [];
  private hits: readonly ContaminationHit[] = [];
  private done: Promise<void> = Promise.resolve();
  private computing = false;

  /** `worker`: the bundled out/overviewWorker.js, where the search runs; without it, in this thread. */
  constructor(
    private readonly index: TaskIndex,
    private readonly log: vscode.LogOutputChannel,
    private readonly worker?: string,
  ) {
    this.disposables.push(
      index.onDidChange(() => this.schedule()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          e.affectsConfiguration('vtask.duplicates') ||
          e.affectsConfiguration('vtask.contaminationBenchmarks') ||
          e.affectsConfiguration('vtask.contamination')
        )
          this.schedule(0);
      }),
    );
    this.schedule(0);
  }

  duplicatesOf(uri: vscode.Uri, taskId: string): number {
    return this.duplicateCounts.get(`${uri.toString()}#${taskId}`) ?? 0;
  }

  contaminationOf(uri: vscode.Uri, taskId: string): number {
    return this.contaminationCounts.get(`${uri.toString()}#${taskId}`) ?? 0;
  }

  /** The last pairs and hits found, with files as URIs and benchmarks as the workspace names them (for the dashboard). */
  get last(): { duplicates: readonly DuplicatePair[]; contamination: readonly ContaminationHit[] } {
    return { duplicates: this.pairs, contamination: this.hits };
  }

  /** True while a pass is scheduled or under way. */
  get searching(): boolean {
    return this.timer !== undefined || this.computing;
  }

  /** Resolves when the pass under way (or the one scheduled) is over (for tests). */
  async settled(): Promise<void> {
    while (this.timer !== undefined) await sleep(50);
    await this.done;
  }

  private schedule(ms = DEBOUNCE_MS): void {
    clearTimeout(this.timer);
    this.cancel?.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const source = (this.cancel = new vscode.CancellationTokenSource());
      this.computing = true;
      const done = (this.done = this.compute(source.token)
        .catch((e: unknown) => this.log.warn(`duplicates: ${errorMessage(e)}`))
        .finally(() => {
          if (this.done === done) this.computing = false;
        }));
    }, ms);
  }

  private async compute(token: vscode.CancellationToken): Promise<void> {
    const settings = overviewSettings();
    if (!settings.enabled) {
      this.publish([], [], new Map());
      return;
    }
    const files = await this.index.all(token);
    if (token.isCancellationRequested) return;
    // Each benchmark by the name its hits give it, for "go to" the row.
    const benchmarks = new Map(
      settings.benchmarks
        .map((b) => resolveInWorkspace(b))
        .map((file) => [vscode.workspace.asRelativePath(file), file]),
    );
    const abort = new AbortController();
    const cancelled = token.onCancellationRequested(() => abort.abort());
    try {
      const found = await findFindingsInThread(
        {
          prompts: [...promptsOf(files)],
          threshold: settings.threshold,
          ngram: settings.ngram,
          benchmarks: [...benchmarks].map(([name, file]) => ({ name, file })),
        },
        { ...(this.worker ? { worker: this.worker } : {}), signal: abort.signal },
      );
      if (token.isCancellationRequested) return;
      for (const u of found.unread) {
        this.log.warn(`contamination: ${u.error}`);
        void vscode.window.showWarningMessage(`vtask: benchmark ${u.name} could not be read: ${u.error}`);
      }
      this.publish(found.duplicates, found.contamination, benchmarks);
    } catch (e) {
      // A search cut short by a newer one says nothing.
      if (!token.isCancellationRequested) throw e;
    } finally {
      cancelled.dispose();
    }
  }

  private publish(
    pairs: readonly DuplicatePair[],
    hits: readonly ContaminationHit[],
    benchmarks: ReadonlyMap<string, string>,
  ): void {
    const byUri = new Map<string, vscode.Diagnostic[]>();
    const duplicateCounts = new Map<string, number>();
    const contaminationCounts = new Map<string, number>();
    const count = (counts: Map<string, number>, ref: TaskRef): void => {
      const key = `${ref.file}#${ref.task}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    const add = (ref: TaskRef, d: vscode.Diagnostic): void => {
      const list = byUri.get(ref.file) ?? [];
      list.push(d);
      byUri.set(ref.file, list);
    };
    for (const p of pairs) {
      for (const [self, other] of [
        [p.a, p.b],
        [p.b, p.a],
      ] as const) {
        count(duplicateCounts, self);
        const otherUri = vscode.Uri.parse(other.file);
        const where = otherUri.toString() === self.file ? 'this file' : vscode.workspace.asRelativePath(otherUri);
        const d = new vscode.Diagnostic(
          idLine(self),
          `${p.exact ? 'duplicate' : `near-duplicate (${Math.round(p.similarity * 100)}% similar)`} of ${other.task} in ${where}`,
          vscode.DiagnosticSeverity.Information,
        );
        d.source = DUPLICATE_SOURCE;
        d.code = p.exact ? 'duplicate' : 'near-duplicate';
        d.relatedInformation = [
          new vscode.DiagnosticRelatedInformation(
            new vscode.Location(otherUri, idLine(other)),
            `${other.task}: the other task`,
          ),
        ];
        add(self, d);
      }
    }
    for (const h of hits) {
      const file = benchmarks.get(h.benchmark ?? '') as string;
      const row = benchmarkRow(file, h.benchmark_row);
      const d = new vscode.Diagnostic(
        idLine(h),
        `prompt overlaps ${h.benchmark ?? 'a benchmark'} (${row.label}): "${cut(h.overlap, 120)}"`,
        vscode.DiagnosticSeverity.Information,
      );
      d.source = DUPLICATE_SOURCE;
      d.code = 'contamination';
      d.relatedInformation = [
        new vscode.DiagnosticRelatedInformation(
          new vscode.Location(vscode.Uri.file(file), row.at),
          `${h.benchmark ?? 'the benchmark'}, ${row.label}: the benchmark's prompt`,
        ),
      ];
      add(h, d);
      count(contaminationCounts, h);
    }
    const changed = new Map<string, vscode.Uri>();
    this.collection.forEach((u) => {
      if (!byUri.has(u.toString())) changed.set(u.toString(), u);
    });
    this.collection.clear();
    for (const [file, list] of byUri) {
      const u = vscode.Uri.parse(file);
      this.collection.set(u, list);
      changed.set(file, u);
    }
    // Files whose tasks had counts are redrawn too (a URI's own `#` is escaped: the first is the task's).
    for (const counts of [this.duplicateCounts, this.contaminationCounts]) {
      for (const key of counts.keys()) {
        const file = key.slice(0, key.indexOf('#'));
        if (!changed.has(file)) changed.set(file, vscode.Uri.parse(file));
      }
    }
    this.duplicateCounts = duplicateCounts;
    this.contaminationCounts = contaminationCounts;
    this.pairs = pairs;
    this.hits = hits;
    this.emitter.fire([...changed.values()]);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancel?.cancel();
    for (const d of this.disposables) d.dispose();
  }
}

/** Every resolved task's prompt, named by its file's URI (one string, so it maps back). */
export function* promptsOf(files: readonly IndexedFile[]): Generator<{ ref: TaskRef; text: string }> {
  for (const f of files) {
    for (const t of f.tasks)
      if (t.prompt !== undefined) yield { ref: { file: f.uri.toString(), task: t.id, line: t.line }, text: t.prompt };
  }
}

/**
 * Where a benchmark's row is: its line in a JSONL or text file (rows are 0-based lines there),
 * the file itself for Parquet (a row index names no place in the text).
 */
function benchmarkRow(file: string, row: number): { label: string; at: vscode.Range } {
  if (rowFileType(file) === 'parquet') return { label: `row ${row}`, at: new vscode.Range(0, 0, 0, 0) };
  return { label: `line ${row + 1}`, at: new vscode.Range(row, 0, row, 0) };
}

function idLine(ref: TaskRef): vscode.Range {
  return new vscode.Range(ref.line ?? 0, 0, ref.line ?? 0, Number.MAX_SAFE_INTEGER);
}

/** A path as written in the settings (a benchmark): relative to the first workspace folder. */
export function resolveInWorkspace(p: string): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return path.isAbsolute(p) || !root ? p : path.join(root, p);
}

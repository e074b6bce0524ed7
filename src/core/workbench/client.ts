// The workbench's index lives in a worker thread of its own (out/workbenchWorker.js): reading a
// million rows, filtering and sorting them take seconds of CPU that must never hold up the
// extension host. The host holds a `WorkbenchClient` and asks it for a view and windows of rows;
// every answer is a message, so the host's event loop only ever waits for a `postMessage`.
import { Worker } from 'node:worker_threads';
import type { CollectWorkbenchOptions } from './collect';
import type { WorkbenchRowMessage } from '../base/workbenchProtocol';
import type { SortSpec, WorkbenchRowView } from './index';
import type { SamplesAnswers, SamplesRequest } from './samplesOps';
import type { PackedSelection } from './bulk';

/** Which of a selection's rows count as tasks: any (task files' and rows'), or those a run takes (not Parquet rows). */
export type TaskKinds = 'any' | 'runnable';

/** Some of a selection's tasks, how many it has, and how many of its rows are no such task. */
export interface TasksOf {
  readonly rows: readonly WorkbenchRowView[];
  readonly count: number;
  readonly skipped: number;
}

/** What the worker is started with. */
export interface WorkbenchJob {
  readonly paths: readonly string[];
  readonly options: Omit<CollectWorkbenchOptions, 'signal' | 'onProgress'>;
}

/** The dataset as read. */
export interface WorkbenchOpened {
  readonly rows: number;
  readonly models: readonly string[];
  readonly files: readonly string[];
  readonly notes: readonly string[];
}

/** A view set: its size, or why the query cannot be read (with where). */
export type ViewResult = { readonly size: number } | { readonly error: string; readonly at: number };

/** Labels set: the view's new size, the tasks whose label changed on disk, what could not be labelled. */
export interface LabelResult {
  readonly size: number;
  readonly changed: number;
  readonly errors: readonly string[];
}

/** The requests the worker answers. */
export type WorkbenchRequest =
  | { readonly op: 'view'; readonly query: string; readonly sort?: SortSpec }
  | { readonly op: 'window'; readonly start: number; readonly end: number }
  /** The rows at view positions start..end, as a selection's text (a RowSet's). */
  | { readonly op: 'rows'; readonly start: number; readonly end: number }
  /** The rows of a selection's text, in the view's order (then those it leaves out). */
  | { readonly op: 'rowsByNumber'; readonly rows: string }
  /**
   * Positions start..end of the selection's tasks that `kinds` takes, in the view's order: a
   * task file's (the task panel steps through them), or any a run takes (not Parquet rows).
   */
  | {
      readonly op: 'tasksOf';
      readonly rows: string;
      readonly kinds: TaskKinds;
      readonly start: number;
      readonly end: number;
    }
  /** A selection's tasks by task file, packed for a bulk action (bulk.ts). */
  | { readonly op: 'selection'; readonly rows: string }
  | { readonly op: 'reload' }
  | { readonly op: 'label'; readonly rows: string; readonly label?: string }
  | SamplesRequest
  | {
      readonly op: 'findings';
      /** Each audited row's count, with the run key of the task it was found in (kept with the cache). */
      readonly counts: readonly (readonly [row: number, findings: number, key: string])[];
    };

/** What each request answers. */
export interface WorkbenchAnswers extends SamplesAnswers {
  view: ViewResult;
  window: WorkbenchRowView[];
  rows: string;
  rowsByNumber: WorkbenchRowView[];
  selection: PackedSelection;
  tasksOf: TasksOf;
  reload: WorkbenchOpened;
  label: LabelResult;
  /** Rows whose findings were set. */
  findings: number;
}

type Message =
  | { readonly opened: WorkbenchOpened }
  | { readonly progress: readonly [number, number] }
  | { readonly failed: string }
  | { readonly id: number; readonly answer?: unknown; readonly error?: string };

/** A workbench's index in its thread. */
export class WorkbenchClient {
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Resolves when the dataset is read. */
  readonly opened: Promise<WorkbenchOpened>;
  private closed = false;

  constructor(script: string, job: WorkbenchJob, onProgress?: (done: number, total: number) => void) {
    this.worker = new Worker(script, { workerData: job });
    this.opened = new Promise<WorkbenchOpened>((resolve, reject) => {
      this.worker.on('message', (m: Message) => {
        if ('opened' in m) resolve(m.opened);
        else if ('progress' in m) onProgress?.(m.progress[0], m.progress[1]);
        else if ('failed' in m) reject(new Error(m.failed));
        else this.answer(m);
      });
      const fail = (e: Error): void => {
        reject(e);
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      };
      this.worker.on('error', fail);
      this.worker.on('exit', (code) => {
        if (!this.closed) fail(new Error(`the workbench worker exited with code ${code}`));
      });
    });
    // Whoever waits on `opened` hears a failure; this only keeps it from being unhandled.
    this.opened.catch(() => undefined);
  }

  /** Asks the worker; rejects when it fails or is closed. */
  async request<K extends WorkbenchRequest['op']>(
    r: Extract<WorkbenchRequest, { op: K }>,
  ): Promise<WorkbenchAnswers[K]> {
    await this.opened;
    if (this.closed) throw new Error('the workbench is closed');
    const id = this.next++;
    return new Promise<WorkbenchAnswers[K]>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, request: r });
    });
  }

  private answer(m: { readonly id: number; readonly answer?: unknown; readonly error?: string }): void {
    const w = this.waiting.get(m.id);
    if (!w) return;
    this.waiting.delete(m.id);
    if (m.error !== undefined) w.reject(new Error(m.error));
    else w.resolve(m.answer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.values()) w.reject(new Error('the workbench is closed'));
    this.waiting.clear();
    await this.worker.terminate();
  }
}

/** A row of the index as the page takes it: a signal JSON cannot carry (NaN) is null. */
export function rowMessage(r: WorkbenchRowView): WorkbenchRowMessage {
  return { ...r, runs: r.runs.map((x) => x && { ...x, signal: Number.isFinite(x.signal) ? x.signal : null }) };
}

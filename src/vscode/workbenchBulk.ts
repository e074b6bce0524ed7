// The workbench's actions on a whole selection (or everything a query matches): the audit of its
// tasks, their export to a dataset format, the task panel stepping through them, and the
// estimate a run of them is confirmed with. The work is the core's, in a worker thread
// (src/core/workbench/bulkJob.ts): this asks the user what it needs, shows progress with Cancel
// (in a notification and in the page) and says what was done.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/base/errorMessage';
import type { ToWorkbench } from '../core/base/workbenchProtocol';
import { EXPORT_FORMATS } from '../core/datasets/formats';
import { HF_FORMAT } from '../core/datasets/hf';
import { PACKAGE_FORMATS } from '../core/datasets/exportPackage';
import { modelLabel } from '../core/overview/runlog/runLog';
import type { TaskRunResult } from '../core/run/sampleTasks';
import { tokensOf } from '../core/overview/runlog/usage';
import type { TaskSpec } from '../core/taskfile/resolve';
import { cut } from '../core/util/cut';
import { plural } from '../core/util/plural';
import { leftOutText, type PackedSelection } from '../core/workbench/bulk';
import { startBulkJob, type BulkOutcome } from '../core/workbench/bulkJob';
import type { WorkbenchClient } from '../core/workbench/client';
import { estimateRun, estimateText, type PlannedTask, type TaskUsage } from '../core/workbench/estimate';
import type { WorkbenchRowView } from '../core/workbench/index';
import { rowFileType } from '../core/datasets/rowFiles';
import { parseTaskFile, type TaskFile } from '../core/taskfile/parse';
import { rowUri } from './datasetRows';
import { profileForTask } from './models';
import { withEditorSettings } from './taskRunner';

/** What the bulk actions need of their workbench. */
export interface BulkHost {
  /** The folder the index names files relative to. */
  readonly root: string;
  /** The worker script the actions run in (out/workbenchWorker.js). */
  readonly worker: string;
  readonly log: vscode.LogOutputChannel;
  client(): Promise<WorkbenchClient>;
  post(message: ToWorkbench): Thenable<boolean>;
}

/** Characters of a message the page is sent. */
const MESSAGE_CHARS = 2000;
/** The least time between two progress updates. */
const PROGRESS_MS = 100;

/** The export asked for without the pickers (tests, commands). */
export interface ExportChoice {
  readonly format: string;
  /** Absolute: a file, or the folder of hf, verifiers and inspect. */
  readonly out: string;
}

export class WorkbenchBulk implements vscode.Disposable {
  /** The action under way: one at a time. */
  private running: { action: 'audit' | 'export'; abort: AbortController } | undefined;
  /** The tasks the panel steps through (next/previous), and where it is. */
  private stepping: { rows: string; at: number } | undefined;
  /** The last report of an audit (for tests): Markdown and JSON. */
  lastReport: { markdown: string; json: string } | undefined;

  constructor(private readonly host: BulkHost) {}

  /** Stops the action under way, if any. */
  cancel(): void {
    this.running?.abort.abort(new Error('cancelled'));
  }

  /** The selection's tasks by file, packed in the worker: the host reads only the counts. */
  private async selection(rows: string): Promise<PackedSelection> {
    return (await this.host.client()).request({ op: 'selection', rows });
  }

  /**
   * Runs `work` as the one bulk action, with progress and Cancel in a notification and the
   * page; says its outcome in the page (the page asks for its view again).
   */
  private async withProgress(
    action: 'audit' | 'export',
    title: string,
    total: number,
    work: (signal: AbortSignal, report: (done: number) => void) => Promise<BulkOutcome>,
  ): Promise<void> {
    if (this.running) {
      await this.host.post({
        type: 'notice',
        level: 'warning',
        text: `The ${this.running.action} of the selection is still under way: cancel it first, or wait for it.`,
      });
      return;
    }
    const abort = new AbortController();
    this.running = { action, abort };
    let done = 0;
    let outcome: BulkOutcome;
    try {
      await this.host.post({ type: 'bulk', action, done, total });
      outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `vtask: ${title}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
          let shown = 0;
          let shownAt = 0;
          return work(abort.signal, (d) => {
            done = d;
            // A few updates a second: a message per task of a large selection would flood the page.
            const now = Date.now();
            if (now - shownAt < PROGRESS_MS && done < total) return;
            progress.report({ increment: (100 * (done - shown)) / Math.max(1, total), message: `${done} of ${total}` });
            shown = done;
            shownAt = now;
            void this.host.post({ type: 'bulk', action, done, total });
          });
        },
      );
    } catch (e) {
      outcome = abort.signal.aborted
        ? { level: 'warning', text: `${title}: cancelled after ${done} of ${plural(total, 'task')}.` }
        : { level: 'error', text: `${title} failed: ${errorMessage(e)}` };
      if (!abort.signal.aborted) this.host.log.error(e instanceof Error ? e : String(e));
    } finally {
      this.running = undefined;
    }
    this.host.log.info(`workbench: ${outcome.text}`);
    await this.host.post({ type: 'bulkDone', action, level: outcome.level, text: cut(outcome.text, MESSAGE_CHARS) });
  }

  /** A notice that the selection holds nothing the action takes; true when it holds something. */
  private async some(s: PackedSelection, what: string): Promise<boolean> {
    if (s.tasks) return true;
    await this.host.post({
      type: 'notice',
      level: 'warning',
      text: `Nothing to ${what}: pick tasks or dataset rows.${leftOutText(s)}`,
    });
    return false;
  }

  /**
   * Audits the tasks of `rows` as `vtask audit` does: each row's findings are in the table as
   * soon as its batch is audited (and stay when the audit is cancelled, and when the table is
   * read again, until the task changes: the cache keeps them); then the report opens
   * as a Markdown document (JSON on request).
   */
  async audit(rows: string): Promise<void> {
    const s = await this.selection(rows);
    if (!(await this.some(s, 'audit'))) return;
    const client = await this.host.client();
    const title = `audit of ${plural(s.tasks, 'task')}`;
    await this.withProgress('audit', title, s.tasks, async (signal, report) => {
      const done = await startBulkJob(
        this.host.worker,
        { action: 'audit', root: this.host.root, selection: s, trusted: vscode.workspace.isTrusted },
        {
          signal,
          onDone: report,
          onFound: (counts) =>
            void client
              .request({ op: 'findings', counts })
              .catch((e: unknown) => this.host.log.warn(`workbench: findings not kept: ${errorMessage(e)}`)),
        },
      );
      const { markdown, json } = done.report ?? { markdown: '', json: '' };
      this.lastReport = { markdown, json };
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
      void vscode.window.showInformationMessage(`vtask: ${done.text}`, 'Open as JSON').then(async (pick) => {
        if (pick !== 'Open as JSON') return;
        const j = await vscode.workspace.openTextDocument({ language: 'json', content: json });
        await vscode.window.showTextDocument(j, { preview: false });
      });
      return { level: done.level, text: `${title}: ${done.text}` };
    });
  }

  /**
   * Exports the tasks of `rows` (task files' tasks, and JSONL and Parquet rows as the tasks they
   * stand for) as `vtask export --format FORMAT` writes them; the format and file are asked for
   * unless given.
   */
  async export(rows: string, given?: ExportChoice): Promise<void> {
    const s = await this.selection(rows);
    if (!(await this.some(s, 'export'))) return;
    const choice = given ?? (await askExport(this.host.root));
    if (!choice) return;
    const title = `export of ${plural(s.tasks, 'task')} as ${choice.format}`;
    await this.withProgress('export', title, s.tasks, (signal, report) =>
      startBulkJob(
        this.host.worker,
        {
          action: 'export',
          root: this.host.root,
          selection: s,
          format: choice.format,
          out: choice.out,
          shown: vscode.workspace.asRelativePath(choice.out),
        },
        { signal, onDone: report },
      ),
    );
  }

  /**
   * Opens the task panel on the first of the rows' tasks (a dataset row's read-only, as the
   * dataset shows it); with several, the page offers
   * next/previous through them. The panel is one (it follows the task in view), so one task
   * at a time, in the table's order, is what it can show; a panel each would be many tabs of
   * the same view. The worker holds the selection's tasks and gives one a step.
   */
  async openPanel(rows: string): Promise<void> {
    this.stepping = { rows, at: 0 };
    if (await this.showStep()) return;
    this.stepping = undefined;
    await this.host.post({
      type: 'notice',
      level: 'warning',
      text: 'Nothing to open in the task panel: pick tasks or dataset rows without errors.',
    });
  }

  /** The next (1) or previous (-1) task of those opened in the panel. */
  async step(by: 1 | -1): Promise<void> {
    const s = this.stepping;
    if (!s) return;
    s.at = Math.max(0, s.at + by);
    await this.showStep();
  }

  /** Shows the task stepped to (the last when past it); false when the selection has none. */
  private async showStep(): Promise<boolean> {
    const s = this.stepping;
    if (!s) return false;
    const client = await this.host.client();
    let got = await client.request({ op: 'tasksOf', rows: s.rows, kinds: 'any', start: s.at, end: s.at + 1 });
    if (!got.rows.length && got.count) {
      s.at = got.count - 1;
      got = await client.request({ op: 'tasksOf', rows: s.rows, kinds: 'any', start: s.at, end: s.at + 1 });
    }
    const [row] = got.rows;
    if (!row) return false;
    const file = vscode.Uri.file(path.resolve(this.host.root, row.file));
    // A Parquet row is shown as the dataset's table shows it: its read-only row document, whose one
    // task has the row's own id (the table renames a repeated id; the row document does not).
    const parquet = rowFileType(row.file) === 'parquet';
    const uri = parquet ? rowUri(file, row.line) : file;
    const doc = await vscode.workspace.openTextDocument(uri);
    const id = parquet ? (parseTaskFile(doc.getText()).tasks[0]?.id ?? row.id) : row.id;
    await vscode.commands.executeCommand('vtask.openPanel', uri, id);
    await this.host.post({ type: 'stepping', at: s.at, count: got.count, id: row.id });
    return true;
  }

  dispose(): void {
    this.cancel();
  }
}

/** The format and the file (or folder) of an export, asked of the user; undefined when they cancel. */
async function askExport(root: string): Promise<ExportChoice | undefined> {
  const picked = await vscode.window.showQuickPick(
    [...EXPORT_FORMATS.values()].map((f) => ({
      label: f.name,
      description:
        f.name === HF_FORMAT || PACKAGE_FORMATS.has(f.name)
          ? 'a folder'
          : f.jsonLinesExtension
            ? `.parquet or ${f.jsonLinesExtension}`
            : f.outputs.map((o) => `.${o}`).join(' or '),
    })),
    { title: 'vtask: export the selection as', placeHolder: 'The format `vtask export --format` writes' },
  );
  if (!picked) return undefined;
  const format = EXPORT_FORMATS.get(picked.label);
  if (!format) return undefined;
  const folder = picked.label === HF_FORMAT || PACKAGE_FORMATS.has(picked.label);
  const ext = format.jsonLinesExtension?.slice(1) ?? format.outputs[0] ?? 'jsonl';
  const uri = await vscode.window.showSaveDialog({
    title: folder ? `vtask: the folder to write the ${picked.label} export in` : `vtask: the ${picked.label} file`,
    defaultUri: vscode.Uri.file(path.join(root, folder ? `${picked.label}-export` : `export.${ext}`)),
    ...(folder
      ? {}
      : {
          filters: Object.fromEntries(
            [...format.outputs, ...(format.jsonLinesExtension ? [format.jsonLinesExtension.slice(1)] : [])]
              .filter((o) => !(o === 'jsonl' && format.jsonLinesExtension))
              .map((o) => [o === 'parquet' ? 'Parquet' : 'JSON lines', [o]]),
          ),
        }),
  });
  return uri ? { format: picked.label, out: uri.fsPath } : undefined;
}

/**
 * The tasks of a run with their samples, model and price (the profile each runs with, as the
 * runner resolves it), for the estimate; a task whose model does not resolve has none.
 */
export function plannedTasks(
  file: TaskFile,
  uri: vscode.Uri,
  tasks: readonly { task: TaskSpec; row: WorkbenchRowView; samples: number }[],
): PlannedTask[] {
  return tasks.map(({ task, row, samples }) => {
    try {
      const profile = profileForTask(file, withEditorSettings(task, uri), uri);
      return { row, samples, model: modelLabel(profile), ...(profile.price ? { price: profile.price } : {}) };
    } catch {
      return { row, samples };
    }
  });
}

/** The estimate of a run, as the page's confirmation shows it. */
export function runEstimateText(models: readonly string[], planned: readonly PlannedTask[], leftOut: string): string {
  return `${estimateText(estimateRun(models, planned))}${leftOut}`;
}

/** What the tasks of a file's run used: their tokens, priced by the price of each task's model. */
export function runUsage(done: readonly TaskRunResult[], planned: readonly PlannedTask[]): TaskUsage[] {
  const price = new Map(planned.map((p) => [p.row.id, p.price]));
  return done.map((r) => {
    const tokens = tokensOf(r.samples);
    const p = price.get(r.task.id);
    return { samples: r.samples.length, ...(tokens ? { tokens } : {}), ...(p ? { price: p } : {}) };
  });
}

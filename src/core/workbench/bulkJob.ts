// A bulk action on the workbench's selection (an export or an audit) in a worker thread of its
// own: parsing, probing and writing tens of thousands of tasks hold a thread for long steps (one
// task's probes, one output's write) that time slices cannot cut, and the extension host must
// never be held. The host starts the job with `startBulkJob` and hears its progress, the audit's
// findings and its outcome as small messages; the worker (workbenchWorker.ts) runs `serveBulkJob`.
import type { MessagePort } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../base/errorMessage';
import { exportFiles, type ExportFilesResult } from '../datasets/exportFiles';
import { plural } from '../util/plural';
import { SLICE_MS, TimeSlices } from '../util/slices';
import { auditJson, auditMarkdown, auditSelection, leftOutText, unpackSelection, type PackedSelection } from './bulk';

/** What a bulk action is asked to do. */
export type BulkJob = { readonly root: string; readonly selection: PackedSelection } & (
  | { readonly action: 'audit'; readonly trusted: boolean }
  | {
      readonly action: 'export';
      readonly format: string;
      /** Absolute: a file, or the folder of hf, verifiers and inspect. */
      readonly out: string;
      /** `out` as the user is shown it. */
      readonly shown: string;
    }
);

/** An audited row: its count of findings, and the run key of the task they were found in (kept with the cache). */
export type Found = readonly [row: number, findings: number, key: string];

/** What an action did, as the page says it. */
export interface BulkOutcome {
  readonly level: 'info' | 'warning' | 'error';
  readonly text: string;
}

/** An action's end: its outcome, and an audit's report (Markdown and `vtask audit --json`). */
export interface BulkResult extends BulkOutcome {
  readonly report?: { readonly markdown: string; readonly json: string };
}

export interface BulkHooks {
  readonly signal: AbortSignal;
  /** Tasks done so far (a few times a second at most). */
  readonly onDone: (done: number) => void;
  /** Audited rows, their count of findings and the run key of the task they were found in. */
  readonly onFound?: (counts: readonly Found[]) => void;
}

type FromJob =
  | { readonly done: number; readonly found?: readonly Found[] }
  | { readonly result: BulkResult }
  | { readonly failed: string };

/** The least time between two progress messages: each is work for the host. */
const PROGRESS_MS = 100;

/**
 * Runs `job` in a worker started from `script` (out/workbenchWorker.js); resolves with its
 * result, rejects with its error, or with the signal's reason once it stopped when aborted.
 */
export async function startBulkJob(script: string, job: BulkJob, hooks: BulkHooks): Promise<BulkResult> {
  hooks.signal.throwIfAborted();
  const worker = new Worker(script, { workerData: { bulk: job } });
  return new Promise<BulkResult>((resolve, reject) => {
    const cancel = (): void => worker.postMessage({ cancel: true });
    hooks.signal.addEventListener('abort', cancel, { once: true });
    let settled = false;
    const end = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      hooks.signal.removeEventListener('abort', cancel);
      void worker.terminate();
      settle();
    };
    worker.on('message', (m: FromJob) => {
      if ('done' in m) {
        if (m.found?.length) hooks.onFound?.(m.found);
        hooks.onDone(m.done);
      } else if ('result' in m) end(() => resolve(m.result));
      else
        end(() =>
          reject(hooks.signal.aborted ? (hooks.signal.reason as unknown) : new Error(m.failed, { cause: m.failed })),
        );
    });
    worker.on('error', (e) => end(() => reject(e)));
    worker.on('exit', (code) => end(() => reject(new Error(`the bulk action's worker exited with code ${code}`))));
  });
}

/** The worker's side: runs the job, says how far it is, and ends with a result or a failure. */
export async function serveBulkJob(port: MessagePort, job: BulkJob): Promise<void> {
  const abort = new AbortController();
  port.on('message', (m: { cancel?: boolean }) => {
    if (m.cancel) abort.abort(new Error('cancelled'));
  });
  let done = 0;
  let found: Found[] = [];
  let saidAt = 0;
  const say = (force = false): void => {
    const now = Date.now();
    if (!force && now - saidAt < PROGRESS_MS) return;
    saidAt = now;
    port.postMessage({ done, found });
    found = [];
  };
  // Slices here only let the worker hear a cancel between steps.
  const slices = new TimeSlices(SLICE_MS, abort.signal);
  try {
    const selection = unpackSelection(job.selection);
    let result: BulkResult;
    if (job.action === 'export') {
      const r = await exportFiles({
        cwd: job.root,
        files: [...selection.files.keys()],
        format: job.format,
        out: job.out,
        select: (file, id) => id !== undefined && selection.files.get(file)?.has(id) === true,
        signal: abort.signal,
        slices,
        onTask: () => {
          done++;
          say();
        },
      });
      result = exportOutcome(r, job.shown, leftOutText(selection));
    } else {
      const audits = await auditSelection(
        selection,
        {
          root: job.root,
          trusted: job.trusted,
          signal: abort.signal,
          slices,
          onProgress: (d) => {
            done = d;
            say();
          },
        },
        (a) => found.push(...a.map((x) => [x.n, x.audit.findings.length, x.key] as const)),
      );
      const markdown = auditMarkdown(audits, leftOutText(selection));
      result = { level: 'info', text: firstLine(markdown), report: { markdown, json: auditJson(audits) } };
    }
    say(true);
    port.postMessage({ result });
  } catch (e) {
    say(true);
    port.postMessage({ failed: errorMessage(e) });
  }
}

/** The first line of an audit's report after its heading. */
function firstLine(markdown: string): string {
  return markdown.split('\n')[2] ?? '';
}

/** What an export did, as the page says it (`shown`: where it wrote, as the user is shown it). */
export function exportOutcome(done: ExportFilesResult, shown: string, leftOut: string): BulkOutcome {
  const r = done.report;
  if (r.failed) {
    const first = r.unexpressible[0];
    return {
      level: 'error',
      text: `Nothing written: ${plural(r.unexpressible.length, 'task')} cannot be expressed in ${done.format.name}${first ? ` (${first.task}: ${first.reason})` : ''}.`,
    };
  }
  const rows = r.outputs.reduce((k, o) => k + o.rows, 0);
  const notes = [
    r.duplicates.length && `${plural(r.duplicates.length, 'duplicate prompt')} dropped`,
    r.invalid.length && `${plural(r.invalid.length, 'invalid task')} skipped`,
    r.warnings.length && `${plural(r.warnings.length, 'warning')}: ${r.warnings[0]?.reason ?? ''}`,
  ].filter(Boolean);
  return {
    level: notes.length ? 'warning' : 'info',
    text: `Exported ${plural(rows, 'row')} as ${done.format.name} to ${shown}.${notes.length ? ` ${notes.join('; ')}.` : ''}${leftOut}`,
  };
}

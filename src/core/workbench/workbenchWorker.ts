// Worker entry of the workbench (bundled on its own as out/workbenchWorker.js, started by the
// extension host and the benchmark): reads the dataset into an index, then answers views,
// windows and label changes, one at a time, in the order asked (see client.ts). Started with a
// bulk job instead, it runs that export or audit (bulkJob.ts) and ends.
import path from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { errorMessage } from '../base/errorMessage';
import { collectWorkbench } from './collect';
import type { WorkbenchIndex, WorkbenchRowView } from './index';
import { packSelection, selectionFiles } from './bulk';
import { RowSet } from '../base/rowSet';
import { serveBulkJob, type BulkJob } from './bulkJob';
import type { LabelResult, TaskKinds, WorkbenchAnswers, WorkbenchJob, WorkbenchRequest } from './client';
import { rowFileType } from '../datasets/rowFiles';
import type { SamplesRequest } from './samplesOps';
import { rememberFindings } from './findingsStore';
import { labelTasks } from './labels';
import { parseQuery } from './query';
import { isSamplesRequest, SamplesWorker } from './samplesOps';
import { MAX_WORKBENCH_WINDOW } from '../base/workbenchProtocol';

const port = parentPort;
const data = workerData as WorkbenchJob | { readonly bulk: BulkJob };

function answer(
  job: WorkbenchJob,
  index: WorkbenchIndex,
  r: Exclude<WorkbenchRequest, { op: 'reload' | SamplesRequest['op'] }>,
): WorkbenchAnswers[WorkbenchRequest['op']] {
  switch (r.op) {
    case 'view': {
      const q = parseQuery(r.query);
      return 'error' in q ? q : { size: index.setView(q.query, r.sort) };
    }
    case 'window':
      // A window is what a page shows: never more rows than one message to the host should hold.
      return index.window(r.start, Math.min(r.end, r.start + MAX_WORKBENCH_WINDOW));
    case 'rows':
      return RowSet.of(index.viewRows(r.start, r.end)).encode();
    case 'rowsByNumber':
      return index.inViewOrder(RowSet.decode(r.rows)).map((n) => index.row(n));
    case 'tasksOf': {
      const tasks = tasksOf(index, r.rows, r.kinds);
      return {
        rows: tasks.rows.slice(Math.max(0, r.start), Math.max(0, r.end)).map((n) => index.row(n)),
        count: tasks.rows.length,
        skipped: tasks.skipped,
      };
    }
    case 'selection':
      return packSelection(selectionFiles(rowViews(index, rowsOf(index, r.rows))));
    case 'label':
      return label(job.options.root, index, r.rows, r.label);
    case 'findings': {
      // Read at once by the rows shown; a filter or sort by findings sees them at the next view.
      const known = r.counts.filter(([n]) => n >= 0 && n < index.size);
      for (const [n, count] of known) index.setFindings(n, count);
      rememberFindings(
        known.map(([n, findings, key]) => ({ ...index.row(n), findings, key })),
        job.options,
      );
      return known.length;
    }
  }
}

/**
 * The last selection's tasks: the task panel asks for one at a time as it steps (kept until
 * another selection is asked for, so the order it steps in holds while the view changes).
 */
let lastTasks: { key: string; rows: number[]; skipped: number } | undefined;

/** The selection's rows that are tasks of `kinds`, in the view's order, and how many are not. */
function tasksOf(index: WorkbenchIndex, text: string, kinds: TaskKinds): { rows: number[]; skipped: number } {
  const key = `${kinds}\0${text}`;
  if (lastTasks?.key !== key) {
    const all = index.inViewOrder(RowSet.decode(text));
    const rows = all.filter((n) => {
      const r = index.row(n);
      return !r.error && r.kind !== null && (kinds === 'any' || rowFileType(r.file) !== 'parquet');
    });
    lastTasks = { key, rows, skipped: all.length - rows.length };
  }
  return lastTasks;
}

/** The rows of a selection's text that the index holds. */
function* rowsOf(index: WorkbenchIndex, text: string): Generator<number> {
  for (const n of RowSet.decode(text)) {
    if (n >= index.size) return;
    yield n;
  }
}

function* rowViews(index: WorkbenchIndex, rows: Iterable<number>): Generator<WorkbenchRowView> {
  for (const n of rows) yield index.row(n);
}

/** Labels rows on disk (their task file's `meta.review`, or their row file's sidecar), then in the index. */
function label(root: string, index: WorkbenchIndex, rows: string, value: string | undefined): LabelResult {
  const byFile = new Map<string, Map<string, number>>();
  for (const n of rowsOf(index, rows)) {
    const r = index.row(n);
    if (r.error) continue;
    let ids = byFile.get(r.file);
    if (!ids) byFile.set(r.file, (ids = new Map()));
    ids.set(r.id, n);
  }
  let changed = 0;
  const errors: string[] = [];
  for (const [file, ids] of byFile) {
    try {
      const done = labelTasks(path.resolve(root, file), new Set(ids.keys()), value);
      changed += done.changed;
      errors.push(...done.errors.map((e) => `${file}: ${e}`));
      const failed = new Set(done.errors.map((e) => e.slice(0, e.indexOf(': '))));
      for (const [id, n] of ids) if (!failed.has(id)) index.setLabel(n, value);
    } catch (e) {
      errors.push(`${file}: ${errorMessage(e)}`);
    }
  }
  return { size: index.refresh(), changed, errors };
}

if (port) {
  if ('bulk' in data) void serveBulkJob(port, data.bulk);
  else serveIndex(port, data);
}

/** Reads the dataset, then answers the host's requests about it until the host ends the thread. */
function serveIndex(port: MessagePort, job: WorkbenchJob): void {
  const samples = new SamplesWorker(job.options);
  let last = 0;
  const read = (): ReturnType<typeof collectWorkbench> =>
    collectWorkbench(job.paths, {
      ...job.options,
      onProgress: (done, total) => {
        // A progress message a few times a second at most.
        const now = Date.now();
        if (now - last < 200 && done < total) return;
        last = now;
        port.postMessage({ progress: [done, total] });
      },
    });
  read().then(
    (first) => {
      let { index } = first;
      // One request at a time, in order: a reload replaces the index before the next is answered.
      let queue = Promise.resolve();
      port.on('message', ({ id, request }: { id: number; request: WorkbenchRequest }) => {
        queue = queue.then(async () => {
          try {
            if (request.op === 'reload') {
              const again = await read();
              index = again.index;
              lastTasks = undefined;
              samples.forget();
              port.postMessage({
                id,
                answer: { rows: index.size, models: index.models, files: again.files, notes: again.notes },
              });
            } else if (isSamplesRequest(request))
              port.postMessage({ id, answer: await samples.answer(index, request) });
            else port.postMessage({ id, answer: answer(job, index, request) });
          } catch (e) {
            port.postMessage({ id, error: errorMessage(e) });
          }
        });
      });
      port.postMessage({ opened: { rows: index.size, models: index.models, files: first.files, notes: first.notes } });
    },
    (e: unknown) => port.postMessage({ failed: errorMessage(e) }),
  );
}

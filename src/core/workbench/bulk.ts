// What the workbench does to a whole selection at once, without the editor: the selection
// grouped by file (task files, and JSONL and Parquet datasets whose rows each stand for a task;
// rows that are no task are left out, with why), the audit of those tasks (the same probes as
// `vtask audit`) in small batches that report progress and stop when asked, and its report as
// Markdown or as `vtask audit --json`.
import path from 'node:path';
import { auditTasks, findingCount, findingRecord, type TaskAudit } from '../audit/audit';
import { readFileTasksText, streamFileTasks } from '../datasets/fileTasks';
import type { TaskSpec } from '../taskfile/resolve';
import { streamedRunKey } from '../run/resultKeys';
import { at } from '../util/must';
import { cut } from '../util/cut';
import { plural } from '../util/plural';
import type { TimeSlices } from '../util/slices';
import type { WorkbenchRowView } from './index';

/**
 * The selection's tasks by file (as shown: a task file, or a JSONL or Parquet dataset whose rows
 * are read as tasks), each task's row number by id; and what is left out.
 */
export interface SelectionFiles {
  readonly files: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Rows that are no valid task. */
  readonly invalidRows: number;
  /** The tasks in the selection. */
  readonly tasks: number;
}

/**
 * A selection as it crosses the extension host on its way to a bulk action's worker: its counts,
 * which the host reads, and its tasks as JSON text, which the host passes on unread (a million
 * tasks are one string to copy, where a map of them would take the host a long time to clone).
 */
export interface PackedSelection {
  readonly invalidRows: number;
  readonly tasks: number;
  /** `[file, [id, row][]][]` as JSON. */
  readonly files: string;
}

export function packSelection(s: SelectionFiles): PackedSelection {
  const files = [...s.files].map(([file, ids]) => [file, [...ids]]);
  return { invalidRows: s.invalidRows, tasks: s.tasks, files: JSON.stringify(files) };
}

export function unpackSelection(p: PackedSelection): SelectionFiles {
  const files = JSON.parse(p.files) as [string, [string, number][]][];
  return {
    invalidRows: p.invalidRows,
    tasks: p.tasks,
    files: new Map(files.map(([file, ids]) => [file, new Map(ids)])),
  };
}

/** Groups selected rows by their file; a dataset's row is the task it stands for, under the id the table shows. */
export function selectionFiles(rows: Iterable<WorkbenchRowView>): SelectionFiles {
  const files = new Map<string, Map<string, number>>();
  let invalidRows = 0;
  let tasks = 0;
  for (const r of rows) {
    if (r.error || r.kind === null) invalidRows++;
    else {
      let ids = files.get(r.file);
      if (!ids) files.set(r.file, (ids = new Map()));
      if (!ids.has(r.id)) tasks++;
      ids.set(r.id, r.n);
    }
  }
  return { files, invalidRows, tasks };
}

/** What the selection leaves out, said after what was done; '' when nothing. */
export function leftOutText(s: Pick<SelectionFiles, 'invalidRows'>): string {
  return s.invalidRows ? ` Left out: ${plural(s.invalidRows, 'row')} with errors.` : '';
}

/** One task's audit, with where it is. */
export interface SelectionAudit {
  readonly file: string;
  /** 1-based line of the task. */
  readonly line: number;
  /** The task's row in the index. */
  readonly n: number;
  /** The task's run key (what its findings were found with: they are stale once it changes). */
  readonly key: string;
  readonly audit: TaskAudit;
}

export interface AuditSelectionOptions {
  /** The folder task files are shown relative to. */
  readonly root: string;
  /** Whether code may run (a workspace's trust); code probes are skipped otherwise. */
  readonly trusted: boolean;
  readonly signal?: AbortSignal;
  /** Gives the thread back between probes once a slice of its time is used up. */
  readonly slices?: TimeSlices;
  /** Tasks audited so far, of all. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Tasks audited at once: small enough that progress moves and a cancel is heard soon. */
const AUDIT_BATCH = 8;

/**
 * Audits the selection's tasks file by file, as `vtask audit` does (no judge model: a judge's
 * probes are skipped, with why). Stops with the signal's reason when it is aborted; the audits
 * done so far are given to `onAudited` as they finish.
 */
export async function auditSelection(
  s: SelectionFiles,
  o: AuditSelectionOptions,
  onAudited: (a: readonly SelectionAudit[]) => void = () => undefined,
): Promise<SelectionAudit[]> {
  const out: SelectionAudit[] = [];
  let done = 0;
  o.onProgress?.(0, s.tasks);
  for (const [file, ids] of s.files) {
    o.signal?.throwIfAborted();
    const full = path.resolve(o.root, file);
    // Streamed, a task at a time: parsing a large file at once would hold the thread for seconds.
    const text = await readFileTasksText(full);
    const stream = streamFileTasks(full, text);
    let batch: TaskSpec[] = [];
    const keys = new Map<TaskSpec, string>();
    const flush = async (): Promise<void> => {
      if (!batch.length) return;
      const audits = await auditTasks(batch, {
        file: full,
        trusted: o.trusted,
        signal: o.signal,
        ...(o.slices ? { slices: o.slices } : {}),
      });
      o.signal?.throwIfAborted();
      const found = audits.map((audit, i) => ({
        file,
        line: stream.lines.position(audit.offset).line + 1,
        n: ids.get(audit.task) as number,
        key: keys.get(at(batch, i)) ?? '',
        audit,
      }));
      out.push(...found);
      onAudited(found);
      done += batch.length;
      batch = [];
      o.onProgress?.(done, s.tasks);
    };
    for await (const { spec, entry } of stream.tasks) {
      o.signal?.throwIfAborted();
      if (o.slices?.due) await o.slices.next();
      if (!spec || !ids.has(spec.id)) continue;
      batch.push(spec);
      keys.set(spec, streamedRunKey(stream, text, entry));
      if (batch.length === AUDIT_BATCH) await flush();
    }
    await flush();
  }
  return out;
}

/** The report as `vtask audit --json` prints it (its tasks and findings count). */
export function auditJson(audits: readonly SelectionAudit[]): string {
  const tasks = audits.map(({ file, audit }) => ({
    file,
    task: audit.task,
    probes: audit.probes,
    findings: audit.findings.map(findingRecord),
    ...(audit.skipped.length ? { skipped: audit.skipped } : {}),
  }));
  const findings = audits.reduce((k, a) => k + a.audit.findings.length, 0);
  return `${JSON.stringify({ tasks, findings }, null, 2)}\n`;
}

/** A Markdown line's text: no line breaks, backticks made quotes. */
const inline = (s: string, chars = 200): string => cut(s, chars).replace(/\s+/g, ' ').replace(/`/g, "'");

/** The report as a Markdown document: the count, then each task with findings and what was skipped. */
export function auditMarkdown(audits: readonly SelectionAudit[], leftOut = ''): string {
  const findings = audits.flatMap((a) => a.audit.findings);
  const flagged = audits.filter((a) => a.audit.findings.length);
  const lines = [
    `# vtask audit of ${plural(audits.length, 'task')}`,
    '',
    `${findingCount(findings)} in ${flagged.length} of ${plural(audits.length, 'task')}.${leftOut}`,
  ];
  for (const { file, line, audit } of flagged) {
    lines.push('', `## ${inline(audit.task)} — ${inline(file)}:${line}`, '');
    for (const f of audit.findings) {
      lines.push(
        `- **${f.severity}** probe \`${f.probe}\` (expected ${f.expected}, got ${f.verdict}): ${inline(f.reason, 400)}`,
        `  - response: \`${inline(JSON.stringify(f.response))}\``,
      );
      if (f.calls) lines.push(`  - calls: \`${inline(JSON.stringify(f.calls))}\``);
    }
  }
  const skipped = new Map<string, number>();
  for (const a of audits) for (const x of a.audit.skipped) skipped.set(x.reason, (skipped.get(x.reason) ?? 0) + 1);
  if (skipped.size) {
    lines.push('', '## Probes skipped', '');
    for (const [reason, n] of skipped) lines.push(`- ${plural(n, 'task')}: ${inline(reason, 400)}`);
  }
  return `${lines.join('\n')}\n`;
}

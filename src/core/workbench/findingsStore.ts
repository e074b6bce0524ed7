// The workbench's audit findings, kept with the data's cache so that the findings column survives
// a reload of the table (a file change, reopening it, a restart). One line per audited task in
// `findings.jsonl` of the cache folder, appended as batches are audited (a rewrite per batch of
// a long audit would write the file over and over); the last line of a task wins. Each count is
// kept with the run key of the task it was found in (what the task is sampled and verified
// with: its verifier, prompt and the file's shared keys), so a count of an older version of the
// task is stale and never shown as current.
import fs from 'node:fs';
import path from 'node:path';
import { errnoOf, isRecord } from '../base/record';
import { markCacheDir } from '../sampling/cache';
import { resolveCacheDir } from '../sampling/cacheDir';
import { runLogPath, taskName } from '../overview/runlog/runLog';

export const FINDINGS_FILE = 'findings.jsonl';

/** One audited task as the file holds it. */
interface FindingsLine {
  /** The task file, relative to the cache folder's parent (as the run log names it). */
  readonly file: string;
  readonly task: string;
  /** The run key of the task when it was audited. */
  readonly key: string;
  readonly findings: number;
}

/** What is remembered of a task: its count, and the run key it was found with. */
export interface RememberedFindings {
  readonly key: string;
  readonly findings: number;
}

/** A task's audit to remember: its file (absolute), id, run key and count. */
export interface AuditedTask {
  readonly file: string;
  readonly task: string;
  readonly key: string;
  readonly findings: number;
}

/** Lines past which, when most are superseded, the file is rewritten with the latest of each task. */
export const COMPACT_LINES = 10_000;

/** Appends the counts of `tasks` to the findings file of `cacheDir`. */
export function recordFindings(cacheDir: string, tasks: readonly AuditedTask[]): void {
  if (!tasks.length) return;
  markCacheDir(cacheDir);
  const lines = tasks.map((t) =>
    JSON.stringify({ file: runLogPath(cacheDir, t.file), task: t.task, key: t.key, findings: t.findings }),
  );
  const file = path.join(cacheDir, FINDINGS_FILE);
  // A line cut short by a write that stopped (a crash) is ended first, so that it spoils only itself.
  fs.appendFileSync(file, `${endsCut(file) ? '\n' : ''}${lines.join('\n')}\n`);
}

/**
 * Records the counts of audited rows of the index (`file` as shown, relative to `root`) in the
 * cache folder of each row's file: `cacheDir` when given, else the file's own, as `vtask run` finds it.
 */
export function rememberFindings(
  rows: readonly { readonly file: string; readonly id: string; readonly key: string; readonly findings: number }[],
  o: { readonly root: string; readonly cacheDir?: string },
): void {
  const byCache = new Map<string, AuditedTask[]>();
  for (const r of rows) {
    const file = path.resolve(o.root, r.file);
    const dir = resolveCacheDir(file, { cacheDir: o.cacheDir });
    let tasks = byCache.get(dir);
    if (!tasks) byCache.set(dir, (tasks = []));
    tasks.push({ file, task: r.id, key: r.key, findings: r.findings });
  }
  for (const [dir, tasks] of byCache) recordFindings(dir, tasks);
}

/** Whether the file's last line has no line break (a write cut short); false when there is no file. */
function endsCut(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (!size) return false;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

function isLine(r: unknown): r is FindingsLine {
  return (
    isRecord(r) &&
    typeof r.file === 'string' &&
    typeof r.task === 'string' &&
    typeof r.key === 'string' &&
    typeof r.findings === 'number' &&
    Number.isInteger(r.findings) &&
    r.findings >= 0
  );
}

/**
 * The latest count of each task in the findings file of `cacheDir`, keyed by `taskName(file,
 * task)` (the run log's names); none when there is no file. A line that is not a count (a
 * write cut short) is passed over. A file mostly made of superseded lines is rewritten.
 */
export function readFindings(cacheDir: string): Map<string, RememberedFindings> {
  const file = path.join(cacheDir, FINDINGS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (errnoOf(e).code === 'ENOENT') return new Map();
    throw e;
  }
  // The parsed lines themselves are the entries (they hold the count and the key): a copy of
  // each would cost a second pass over a large file.
  const out = new Map<string, FindingsLine>();
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    lines++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (isLine(parsed)) out.set(taskName(parsed.file, parsed.task), parsed);
  }
  if (lines > COMPACT_LINES && lines > 2 * out.size)
    compact(
      file,
      [...out.values()].map((x) => JSON.stringify(x)),
    );
  return out;
}

/** Rewrites the file with `lines` only (by rename: a reader never sees half of it). */
function compact(file: string, lines: readonly string[]): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, `${lines.join('\n')}\n`);
    fs.renameSync(tmp, file);
  } catch {
    // Only a smaller file was lost: the next read tries again.
    fs.rmSync(tmp, { force: true });
  }
}

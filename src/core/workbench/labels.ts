// Review labels (`checked`, `bad_gold`…) stored with the data. A task file's task keeps its
// label as `meta.review` (meta is free-form and carried into exports), written through the task
// edits of src/core/edit so the rest of the YAML stays as it was written. A JSONL or Parquet
// file is never rewritten: its labels are in a sidecar beside it, `<file>.labels.json`, keyed
// by task id (`{"vtask_labels": 1, "labels": {"id": "label"}}`).
import fs from 'node:fs';
import type { YNode } from '../base/ynode';
import { addKey, applyEdit, removeKey, setScalar, type EditResult } from '../edit/taskEdits';
import { rowFileType } from '../datasets/rowFiles';
import { parseTaskFile, type TaskFile } from '../taskfile/parse';

/** The sidecar of a row file. */
export function sidecarPath(file: string): string {
  return `${file}.labels.json`;
}

/** A label as stored: one line of text, no longer than this. */
export const MAX_LABEL_CHARS = 100;

/** Why a label cannot be stored, or undefined when it can. */
export function labelProblem(label: string): string | undefined {
  if (!label.trim()) return 'a label is not blank';
  if (label.length > MAX_LABEL_CHARS) return `a label has at most ${MAX_LABEL_CHARS} characters`;
  if (/[\n\r]/.test(label)) return 'a label is one line';
  return undefined;
}

function child(node: YNode | null | undefined, key: string): YNode | null | undefined {
  return node?.type === 'map' ? node.items.find((p) => p.key.value === key)?.value : undefined;
}

/** The review labels of a task file's tasks, by id (tasks without one are absent). */
export function taskFileLabels(file: TaskFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of file.tasks) {
    const review = child(child(t.node, 'meta'), 'review');
    if (t.id !== undefined && review?.type === 'scalar' && typeof review.value === 'string' && review.value)
      out.set(t.id, review.value);
  }
  return out;
}

/** The edit that sets (or, with undefined, removes) `meta.review` of one task. */
function reviewEdit(file: TaskFile, taskIndex: number, label: string | undefined): EditResult | undefined {
  const task = file.tasks[taskIndex];
  const meta = child(task?.node, 'meta');
  const review = child(meta, 'review');
  const old = review?.type === 'scalar' ? review.value : undefined;
  if (label === undefined) {
    if (review === undefined) return undefined;
    // The last key of meta goes with meta itself.
    if (meta?.type === 'map' && meta.items.length === 1) return removeKey(file, taskIndex, [], 'meta', { review: old });
    return removeKey(file, taskIndex, ['meta'], 'review', old);
  }
  if (old === label) return undefined;
  if (meta === undefined) return addKey(file, taskIndex, [], 'meta', { review: label });
  if (meta?.type !== 'map') return { error: '`meta` is not a mapping: a review label cannot be added to it' };
  if (review === undefined) return addKey(file, taskIndex, ['meta'], 'review', label);
  if (review?.type !== 'scalar') return { error: '`meta.review` is not text: it is left as it is' };
  return setScalar(file, taskIndex, ['meta', 'review'], old ?? null, label);
}

/**
 * A task file's text with the tasks `ids` labelled `label` (undefined: unlabelled). Each task is
 * one checked edit of the file as it is after the previous one; ids not in the file are skipped.
 */
export function labelTaskText(
  text: string,
  ids: ReadonlySet<string>,
  label: string | undefined,
): { text: string; changed: number; errors: string[] } {
  let file = parseTaskFile(text);
  let changed = 0;
  const errors: string[] = [];
  for (let i = 0; i < file.tasks.length; i++) {
    const id = file.tasks[i]?.id;
    if (id === undefined || !ids.has(id)) continue;
    const e = reviewEdit(file, i, label);
    if (!e) continue;
    if ('error' in e) {
      errors.push(`${id}: ${e.error}`);
      continue;
    }
    file = parseTaskFile(applyEdit(file.text, e.edit));
    changed++;
  }
  return { text: file.text, changed, errors };
}

interface Sidecar {
  readonly vtask_labels: 1;
  readonly labels: Record<string, string>;
}

/** The labels of a row file's sidecar, by task id; none when there is no sidecar. */
export function readSidecar(file: string): Map<string, string> {
  let raw: string;
  try {
    raw = fs.readFileSync(sidecarPath(file), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw e;
  }
  const parsed = JSON.parse(raw) as Partial<Sidecar> | null;
  if (!parsed || parsed.vtask_labels !== 1 || typeof parsed.labels !== 'object' || parsed.labels === null)
    throw new Error(`${sidecarPath(file)} is not a labels file: it has no "vtask_labels": 1 and "labels" object`);
  return new Map(Object.entries(parsed.labels).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Writes `labels` as the sidecar of `file` (whole, by rename: a reader never sees half of it). */
function writeSidecar(file: string, labels: ReadonlyMap<string, string>): void {
  const out = sidecarPath(file);
  const body: Sidecar = {
    vtask_labels: 1,
    labels: Object.fromEntries([...labels].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))),
  };
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
  fs.renameSync(tmp, out);
}

/**
 * Labels the tasks `ids` of `file` (a task file, or a JSONL or Parquet file through its sidecar)
 * on disk; returns how many tasks changed and what could not be labelled.
 */
export function labelTasks(
  file: string,
  ids: ReadonlySet<string>,
  label: string | undefined,
): { changed: number; errors: string[] } {
  if (label !== undefined) {
    const problem = labelProblem(label);
    if (problem) throw new Error(problem);
  }
  if (rowFileType(file)) {
    const labels = readSidecar(file);
    let changed = 0;
    for (const id of ids) {
      if (labels.get(id) === label) continue;
      if (label === undefined) labels.delete(id);
      else labels.set(id, label);
      changed++;
    }
    if (changed) writeSidecar(file, labels);
    return { changed, errors: [] };
  }
  const r = labelTaskText(fs.readFileSync(file, 'utf8'), ids, label);
  if (r.changed) fs.writeFileSync(file, r.text);
  return { changed: r.changed, errors: r.errors };
}

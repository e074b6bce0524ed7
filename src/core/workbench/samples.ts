// The workbench's samples view: every cached sample of a set of tasks, verified with each task's
// verifier as it is now (no model is asked), grouped by a short reason and filtered by state.
// It runs in the workbench's worker thread. A sample "flipped" when its verdict differs from
// the one it got under the task's previous verifier: the verdicts the view gives are recorded
// beside the samples (`<cache>/workbench-verdicts.jsonl`, one line per sample and verifier), as
// the sample cache keeps answers and never verdicts.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../base/errorMessage';
import { addCase, applyEdit } from '../edit/taskEdits';
import { sampleView } from '../panel/samples';
import { trajectoryCalls } from '../panel/trajectory';
import { agentPlan } from '../run/agentSamples';
import { editorProfile, type EditorModels } from '../run/editorProfile';
import { requestOf, responseOf, sampleTasks, type SampleResult } from '../run/sampleTasks';
import { SampleCache, sampleKey } from '../sampling/cache';
import { resolveCacheDir } from '../sampling/cacheDir';
import type { ModelProfile, Provider } from '../sampling/types';
import { modelLabel } from '../overview/runlog/runLog';
import { parseTaskFile, type TaskFile } from '../taskfile/parse';
import { DatasetTable } from '../datasets/datasetView';
import { parseRowTasks } from '../datasets/rowTasks';
import { rowFileType } from '../datasets/rowFiles';
import { runnableTasks, type TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import type { Verdict } from '../verifiers/verdict';

/** The states the view filters by; `all` keeps every sample. */
export const SAMPLE_STATES = ['all', 'failed', 'flipped', 'undecided', 'errored'] as const;
export type SampleState = (typeof SAMPLE_STATES)[number];

/** Samples of one task the view reads at most (indices 0, 1, ... while the cache has them). */
export const MAX_TASK_SAMPLES = 10_000;
/** Characters of an answer a listed sample carries: the list shows one line of it. */
export const PREVIEW_CHARS = 300;
/**
 * Rows of JSONL and Parquet files one collection reads at most: each is decoded and mapped to a
 * task (as opening the workbench did), so a million would hold the worker for minutes.
 */
export const MAX_DATASET_ROWS = 10_000;
/** The record of verdicts, in the cache folder. */
export const VERDICTS_FILE = 'workbench-verdicts.jsonl';

/** A task the view reads the samples of: a row of the workbench's index. */
export interface SampleTaskRef {
  readonly row: number;
  /** As shown: relative to `root`, with `/`. */
  readonly file: string;
  readonly id: string;
  readonly line: number;
}

/** One sample as the view lists it. */
export interface ListedSample {
  /** Its place in the collection: what the page names it by. */
  readonly id: number;
  readonly row: number;
  readonly file: string;
  readonly line: number;
  readonly task: string;
  readonly model: string;
  /** The sample's index in its task's run (#1 is 0). */
  readonly index: number;
  readonly pass: boolean;
  readonly score: number;
  readonly reason: string;
  readonly error?: string;
  readonly flip?: 'gained' | 'lost';
  readonly truncated: boolean;
  /** Its reason group (`reasonKey`). */
  readonly group: string;
  /** The answer's start, on one line. */
  readonly preview: string;
}

/** A sample with what adding it as a case needs. */
export interface HeldSample {
  readonly listed: ListedSample;
  /** The response as verifiers see it (a <think> block included): a case's `response`. */
  readonly response: string;
  /** An agent sample's tool calls, which its case replays. */
  readonly calls?: readonly unknown[];
}

export interface SampleSources {
  /** Shown paths are relative to this folder. */
  readonly root: string;
  /** The cache folder; by default each file's. */
  readonly cacheDir?: string;
  readonly models: EditorModels;
  /** False in an untrusted workspace: code and script verifiers refuse (their samples are undecided). */
  readonly trusted: boolean;
  readonly signal?: AbortSignal;
}

/**
 * A short key for a verdict, the samples view's groups: what went wrong, in words a person
 * scans. Verifier errors are not answers: `timeout`, `error: crash`, `error: unavailable`...
 */
export function reasonKey(v: Pick<Verdict, 'pass' | 'reason' | 'error'>, truncated: boolean): string {
  if (v.error === 'timeout') return 'timeout';
  if (v.error) return `error: ${v.error}`;
  if (v.pass) return 'passed';
  if (truncated) return 'too long';
  const r = v.reason.toLowerCase();
  if (/\bno <[^>]+>/.test(r)) return 'no answer tag';
  if (/could not (be )?pars|cannot (be )?pars|not one json value|unparsable|invalid json|not valid json/.test(r))
    return 'could not parse';
  if (/^no answer|no answer found|there is no answer|\bno option\b/.test(r)) return 'no answer';
  if (/too long|too many (words|characters|sentences|paragraphs)|longer than/.test(r)) return 'too long';
  return 'wrong answer';
}

/** Whether a listed sample is in `state`. */
export function inState(s: Pick<ListedSample, 'pass' | 'error' | 'flip'>, state: SampleState): boolean {
  switch (state) {
    case 'all':
      return true;
    case 'failed':
      return !s.pass && s.error === undefined;
    case 'flipped':
      return s.flip !== undefined;
    case 'undecided':
      return s.error === 'unavailable' || s.error === 'refused';
    case 'errored':
      return s.error === 'timeout' || s.error === 'crash';
  }
}

/** What a verifier decides with: a verdict recorded under another key was given by another verifier. */
function verifierKey(task: TaskSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([task.verify, task.meta]))
    .digest('hex')
    .slice(0, 16);
}

/** The recorded verdicts of a cache folder (lines `{k: sample key, v: verifier key, p: pass}`): per sample key, by verifier key, in the order given (latest last). */
function readVerdicts(file: string): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue; // a torn last line
    }
    if (typeof r !== 'object' || r === null) continue;
    const [k, v, p]: unknown[] = ['k', 'v', 'p'].map((name) => Reflect.get(r, name));
    if (typeof k !== 'string' || typeof v !== 'string' || typeof p !== 'boolean') continue;
    let byVerifier = out.get(k);
    if (!byVerifier) out.set(k, (byVerifier = new Map()));
    // Moved to the end: the latest verdict of that verifier.
    byVerifier.delete(v);
    byVerifier.set(v, p);
  }
  return out;
}

/** The verdict a sample last got under a verifier other than `current`, if any was recorded. */
function previousVerdict(recorded: Map<string, boolean> | undefined, current: string): boolean | undefined {
  let before: boolean | undefined;
  for (const [v, p] of recorded ?? []) if (v !== current) before = p;
  return before;
}

/** Cache-only reads never ask a model; a request reaching a provider is a bug, said loudly. */
const NO_REQUESTS: Provider = {
  id: 'cache-only',
  sample: () => Promise.reject(new Error('the samples view asked a model')),
};

/** One cache folder's samples and record, open while a collection reads them. */
interface CacheFolder {
  readonly cache: SampleCache;
  readonly verdicts: Map<string, Map<string, boolean>>;
  readonly fresh: string[];
}

/**
 * Reads the cached samples of `tasks` (of task files, and rows of JSONL and Parquet files read
 * as the editor reads them), verifies each with its task's current verifier and marks what flipped since the
 * verifier before it. The verdicts given are recorded for the next change.
 */
export async function collectSamples(
  tasks: readonly SampleTaskRef[],
  o: SampleSources,
): Promise<{ samples: HeldSample[]; notes: string[] }> {
  const byFile = new Map<string, SampleTaskRef[]>();
  for (const t of tasks) {
    const list = byFile.get(t.file) ?? [];
    list.push(t);
    byFile.set(t.file, list);
  }
  const samples: HeldSample[] = [];
  const notes: string[] = [];
  const folders = new Map<string, CacheFolder>();
  let rowsLeft = MAX_DATASET_ROWS;
  let rowsSkipped = 0;
  try {
    for (const [shown, refs] of byFile) {
      o.signal?.throwIfAborted();
      const file = path.resolve(o.root, shown);
      const read = (parsed: TaskFile, wanted: readonly SampleTaskRef[]): Promise<void> =>
        fileSamples(file, shown, parsed, wanted, o, folders, samples);
      const type = rowFileType(shown);
      if (type && refs.length > rowsLeft) {
        rowsSkipped += refs.length;
        continue;
      }
      if (type) rowsLeft -= refs.length;
      try {
        if (type === 'parquet') {
          // Each row as the task file of one task the editor runs it as (its row document).
          const table = await DatasetTable.open(file);
          for (const ref of refs) {
            const r = await table.taskFile(ref.line);
            if (!('error' in r)) await read(parseTaskFile(r.text), [{ ...ref, id: r.id }]);
          }
        } else if (type === 'jsonl') {
          const text = fs.readFileSync(file, 'utf8');
          const ranges = refs.map((r): [number, number] => [r.line, r.line + 1]);
          await read(parseRowTasks(text, { ranges, maxRows: refs.length }), refs);
        } else await read(parseTaskFile(fs.readFileSync(file, 'utf8')), refs);
      } catch (e) {
        notes.push(`${shown}: ${errorMessage(e)}`);
      }
    }
  } finally {
    for (const [dir, f] of folders) {
      f.cache.close();
      if (f.fresh.length) {
        try {
          fs.appendFileSync(path.join(dir, VERDICTS_FILE), f.fresh.join(''));
        } catch (e) {
          notes.push(`the verdicts could not be recorded in ${dir}: ${errorMessage(e)}`);
        }
      }
    }
  }
  if (rowsSkipped)
    notes.push(
      `${rowsSkipped.toLocaleString('en-US')} ${rowsSkipped === 1 ? 'row' : 'rows'} of JSONL and Parquet files ${rowsSkipped === 1 ? 'was' : 'were'} not read: the samples view reads at most ${MAX_DATASET_ROWS.toLocaleString('en-US')} dataset rows at once; narrow the query or select fewer rows.`,
    );
  return { samples, notes };
}

/** The samples of the tasks `refs` of one task file (or dataset file, `parsed` as the editor reads it). */
async function fileSamples(
  file: string,
  shown: string,
  parsed: TaskFile,
  refs: readonly SampleTaskRef[],
  o: SampleSources,
  folders: Map<string, CacheFolder>,
  out: HeldSample[],
): Promise<void> {
  const wanted = new Map(refs.map((r) => [r.id, r]));
  const dir = resolveCacheDir(file, { cacheDir: o.cacheDir });
  if (!fs.existsSync(dir)) return;
  let folder = folders.get(dir);
  if (!folder) {
    folder = { cache: SampleCache.open(dir), verdicts: readVerdicts(path.join(dir, VERDICTS_FILE)), fresh: [] };
    folder.cache.load();
    folders.set(dir, folder);
  }
  const { cache, verdicts, fresh } = folder;
  const tasks = runnableTasks(parsed).tasks.filter((t) => wanted.has(t.id));
  const runs = await mapLimit(tasks, 4, async (task) => {
    let profile: ModelProfile;
    try {
      profile = editorProfile(parsed, task, o.models);
    } catch {
      return undefined; // No model: nothing was sampled for it in the editor either.
    }
    const request = requestOf(task, profile);
    const agent = task.environment ? agentPlan(task, file, profile, request) : undefined;
    const keyOf = (i: number): string => (agent ? agent.key(i) : sampleKey(profile, request, i));
    const keys: string[] = [];
    while (keys.length < MAX_TASK_SAMPLES && cache.has(keyOf(keys.length))) keys.push(keyOf(keys.length));
    if (!keys.length) return undefined;
    const [run] = await sampleTasks([task], {
      file,
      cache,
      cacheOnly: true,
      samples: keys.length,
      signal: o.signal ?? new AbortController().signal,
      trusted: o.trusted,
      profileFor: () => profile,
      providerFor: () => NO_REQUESTS,
    });
    return run && { task, run, keys, model: modelLabel(profile) };
  });
  for (const r of runs) {
    if (!r) continue;
    const ref = wanted.get(r.task.id);
    if (!ref) continue;
    const current = verifierKey(r.task);
    for (const s of r.run.samples) {
      const key = r.keys[s.index] ?? '';
      const recorded = verdicts.get(key);
      const decided = s.verdict.error === undefined;
      const before = decided ? previousVerdict(recorded, current) : undefined;
      if (decided && recorded?.get(current) !== s.verdict.pass) {
        fresh.push(`${JSON.stringify({ k: key, v: current, p: s.verdict.pass })}\n`);
        recorded?.delete(current);
        const next = recorded ?? new Map<string, boolean>();
        next.set(current, s.verdict.pass);
        verdicts.set(key, next);
      }
      out.push(held(out.length, ref, shown, r.model, s, before));
    }
  }
}

/** A verified sample as the view holds it. */
function held(
  id: number,
  ref: SampleTaskRef,
  shown: string,
  model: string,
  s: SampleResult,
  before: boolean | undefined,
): HeldSample {
  const view = sampleView(s, before);
  const preview = view.text.replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS);
  return {
    listed: {
      id,
      row: ref.row,
      file: shown,
      line: ref.line,
      task: ref.id,
      model,
      index: s.index,
      pass: view.pass,
      score: view.score,
      reason: view.reason,
      ...(view.error ? { error: view.error } : {}),
      ...(view.flip ? { flip: view.flip } : {}),
      truncated: s.truncated,
      group: reasonKey(s.verdict, s.truncated),
      preview,
    },
    response: responseOf(s),
    ...(s.trajectory ? { calls: trajectoryCalls(s.trajectory) } : {}),
  };
}

/** The view of a collection: the counts per state, and the groups of the state chosen. */
export interface SamplesSummary {
  readonly total: number;
  readonly counts: Readonly<Record<SampleState, number>>;
  /** By size, largest first. */
  readonly groups: readonly { readonly key: string; readonly count: number }[];
}

/** A collection of samples, filtered by state and grouped by reason. */
export class SampleSet {
  private groups = new Map<string, HeldSample[]>();

  constructor(readonly samples: readonly HeldSample[]) {}

  /** Filters by `state`; the groups are ordered largest first, their samples by file, task and index. */
  view(state: SampleState): SamplesSummary {
    const counts: Record<SampleState, number> = { all: 0, failed: 0, flipped: 0, undecided: 0, errored: 0 };
    const groups = new Map<string, HeldSample[]>();
    for (const h of this.samples) {
      for (const s of SAMPLE_STATES) if (inState(h.listed, s)) counts[s]++;
      if (!inState(h.listed, state)) continue;
      const list = groups.get(h.listed.group) ?? [];
      list.push(h);
      groups.set(h.listed.group, list);
    }
    this.groups = new Map([...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0])));
    return {
      total: this.samples.length,
      counts,
      groups: [...this.groups].map(([key, list]) => ({ key, count: list.length })),
    };
  }

  /** Samples `start` up to `end` (exclusive) of a group of the view. */
  window(group: string, start: number, end: number): ListedSample[] {
    return (this.groups.get(group) ?? []).slice(start, end).map((h) => h.listed);
  }

  /** The samples of a group of the view, or the samples named by id. */
  pick(p: { readonly group?: string; readonly ids?: readonly number[] }): HeldSample[] {
    if (p.group !== undefined) return [...(this.groups.get(p.group) ?? [])];
    return (p.ids ?? []).flatMap((id) => {
      const h = this.samples[id];
      return h ? [h] : [];
    });
  }
}

/** A case to add to a task: a sample's response and the verdict the user expects. */
export interface NewCase {
  readonly task: string;
  readonly response: string;
  readonly expect: 'pass' | 'fail';
  readonly calls?: readonly unknown[];
}

/**
 * A task file's text with `cases` added, each with the panel's Add as case edit, one after the
 * other on the text the one before left; a case that cannot be added says why.
 */
export function addCasesToText(
  text: string,
  cases: readonly NewCase[],
): { text: string; added: number; errors: string[] } {
  let added = 0;
  const errors: string[] = [];
  for (const c of cases) {
    const file = parseTaskFile(text);
    const entry = file.tasks.find((t) => t.id === c.task);
    if (!entry) {
      errors.push(`${c.task}: no such task in the file`);
      continue;
    }
    const r = addCase(file, entry.index, c.response, c.expect, c.calls);
    if ('error' in r) errors.push(`${c.task}: ${r.error}`);
    else {
      text = applyEdit(text, r.edit);
      added++;
    }
  }
  return { text, added, errors };
}

/** One file's cases added: the span of its text they replace (`start`, `end`) and what goes there. */
export interface CasesEdit {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly added: number;
  readonly errors: readonly string[];
}

/**
 * The edit of each file's text (`texts`: the file as the editor holds it) that adds its `cases`,
 * as the one span that changes, so that one editor edit (one undo) adds them all.
 */
export function casesEdits(
  texts: readonly (readonly [file: string, text: string])[],
  cases: ReadonlyMap<string, readonly NewCase[]>,
): CasesEdit[] {
  return texts.flatMap(([file, before]) => {
    const list = cases.get(file);
    if (!list) return [];
    const r = addCasesToText(before, list);
    const [start, end, text] = r.added ? changedSpan(before, r.text) : [0, 0, ''];
    return [{ file, start, end, text, added: r.added, errors: r.errors }];
  });
}

/** The one span where two texts differ: start and end in `a`, and what `b` has there. */
export function changedSpan(a: string, b: string): [number, number, string] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  // Never between the halves of a CRLF (or of a surrogate pair): an editor has no position there.
  while (start > 0 && /[\r\uD800-\uDBFF]/.test(a[start - 1] ?? '')) start--;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  while (end > 0 && /[\n\uDC00-\uDFFF]/.test(a[a.length - end] ?? '')) end--;
  return [start, a.length - end, b.slice(start, b.length - end)];
}

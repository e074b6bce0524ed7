// The checks that compare a dataset's prompts: near-duplicates among them, and overlaps with a
// benchmark. Each reads every prompt, a file at a time, and keeps none: the duplicate search
// spills them to a scratch folder, the overlap search checks each as it is read. That is still
// seconds of CPU for 100,000 tasks, so its result is remembered for the state of the dataset it was found in:
// the files (as shown, in order) and their text hashes, the threshold, the benchmark's path and
// content hash. Any edit, added or removed file, or other setting misses, and the check runs
// again; what is remembered is where the tasks are in the dataset's order, so a result can
// only ever name tasks as they are.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readBenchmark } from './benchmark';
import { DEFAULT_NGRAM, contaminationFinder } from './contamination';
import { DuplicateSearch } from './duplicates';
import type { StatsMemo } from '../dataset/statsMemo';
import type { Indexed } from '../dataset/taskTable';
import type { ContaminationHit, DuplicatePair, TaskRef } from '../dataset/types';
import { at, must } from '../../util/must';
import { isStringArray, recordOr } from '../../base/record';

/** The dataset as the checks see it. */
export interface PromptDataset {
  /** The files as shown, and the hash of each one's text. */
  readonly files: readonly string[];
  readonly hashes: readonly string[];
  /** Every task, in the dataset's order: file by file, each file's tasks in order. */
  readonly tasks: Indexed<{ readonly ref: TaskRef; readonly valid: boolean }>;
  /** Per file, the index of its first task in `tasks`. */
  readonly firstTask: readonly number[];
  /** The prompts of a file's tasks (`''` for none). */
  prompts(file: number): Promise<Iterable<string>>;
}

export class PromptChecks {
  /** `memo` remembers the results (none: every check runs). */
  constructor(
    private readonly d: PromptDataset,
    private readonly memo: StatsMemo | undefined,
  ) {}

  /** Pairs of tasks whose prompts are the same or nearly so (duplicates.ts). */
  async duplicates(threshold: number): Promise<DuplicatePair[]> {
    const name = this.name('duplicates', [threshold]);
    const known = this.decode(this.memo?.check(name), 4, (n, ref) => {
      const b = this.refAt(n[1]);
      return b && typeof n[2] === 'number' && (n[3] === 0 || n[3] === 1)
        ? { a: ref, b, similarity: n[2], exact: n[3] === 1 }
        : undefined;
    });
    if (known) return known;
    const search = new DuplicateSearch(threshold, (task) => this.taskAt(task).ref);
    let pairs: DuplicatePair[];
    try {
      await this.forEachPrompt((task, text) => search.add(task, text));
      pairs = search.pairs();
    } finally {
      search.close();
    }
    const rank = this.ranks(pairs.flatMap((p) => [p.a, p.b]));
    this.memo?.putCheck(
      name,
      pairs.flatMap((p) => [rank(p.a), rank(p.b), p.similarity, p.exact ? 1 : 0]),
    );
    return pairs;
  }

  /** Tasks whose prompt shares a span with a row of the benchmark `file` (contamination.ts); `onNote` hears what reading it skipped. */
  async contamination(
    file: string,
    onNote: ((note: string) => void) | undefined,
    n = DEFAULT_NGRAM,
  ): Promise<ContaminationHit[]> {
    const hash = fileHash(file);
    // A benchmark that cannot be read is left to readBenchmark to say why.
    const name = hash === undefined ? undefined : this.name('contamination', [file, hash, n]);
    const { hits: rememberedHits, notes } = recordOr(name === undefined ? undefined : this.memo?.check(name));
    const known = isStringArray(notes)
      ? this.decode(rememberedHits, 3, (n, ref) =>
          typeof n[1] === 'number' && typeof n[2] === 'string'
            ? { ...ref, benchmark_row: n[1], overlap: n[2], benchmark: file }
            : undefined,
        )
      : undefined;
    if (known && isStringArray(notes)) {
      for (const note of notes) onNote?.(note);
      return known;
    }
    const bench = await readBenchmark(file);
    for (const note of bench.notes) onNote?.(note);
    const find = contaminationFinder(bench.rows, { benchmark: file, n });
    const hits: ContaminationHit[] = [];
    await this.forEachPrompt((task, text) => {
      const hit = find(this.taskAt(task).ref, text);
      if (hit) hits.push(hit);
    });
    const rank = this.ranks(hits);
    if (name !== undefined)
      this.memo?.putCheck(name, {
        hits: hits.flatMap((h) => [rank(h), h.benchmark_row, h.overlap]),
        notes: bench.notes,
      });
    return hits;
  }

  /** The check's memo name: what it is, and a hash of everything its result depends on. */
  private name(check: string, settings: readonly unknown[]): string {
    return `${check}-${createHash('sha1')
      .update(JSON.stringify([settings, this.d.files, this.d.hashes]))
      .digest('hex')}`;
  }

  /**
   * A remembered result: a flat array of `width` values per item, the first the index of the
   * item's task; undefined unless every item reads back whole.
   */
  private decode<T>(
    flat: unknown,
    width: number,
    item: (values: readonly unknown[], ref: TaskRef) => T | undefined,
  ): T[] | undefined {
    if (!Array.isArray(flat) || flat.length % width !== 0) return undefined;
    const out: T[] = [];
    for (let i = 0; i < flat.length; i += width) {
      const ref = this.refAt(flat[i]);
      const v = ref && item(flat.slice(i, i + width), ref);
      if (!v) return undefined;
      out.push(v);
    }
    return out;
  }

  private refAt(n: unknown): TaskRef | undefined {
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < this.d.tasks.length
      ? this.d.tasks.at(n)?.ref
      : undefined;
  }

  /**
   * The index in the dataset of each of `refs` (tasks found by a check, or copies of their
   * fields), found in one pass over the tasks: only the ones found are kept.
   */
  private ranks(refs: readonly TaskRef[]): (ref: TaskRef) => number {
    const wanted = new Set(refs.map(refKey));
    const byKey = new Map<string, number>();
    if (wanted.size)
      for (let i = 0; i < this.d.tasks.length; i++) {
        const task = this.taskAt(i);
        const key = refKey(task.ref);
        if (task.valid && wanted.has(key) && !byKey.has(key)) byKey.set(key, i);
      }
    return (ref) => must(byKey.get(refKey(ref)), 'every task a check found is in the dataset');
  }

  private taskAt(i: number): { readonly ref: TaskRef; readonly valid: boolean } {
    return must(this.d.tasks.at(i), 'the dataset has its tasks');
  }

  /**
   * Calls `each` with the prompts compared (of valid tasks that have one) and their task's index,
   * in the dataset's order, a file at a time.
   */
  private async forEachPrompt(each: (task: number, text: string) => void): Promise<void> {
    for (let f = 0; f < this.d.files.length; f++) {
      const texts = await this.d.prompts(f);
      const first = at(this.d.firstTask, f);
      let i = first;
      for (const text of texts) {
        if (text !== '' && this.d.tasks.at(i)?.valid) each(i, text);
        i++;
      }
    }
  }
}

const refKey = (r: TaskRef): string => `${r.file}\0${r.task}\0${r.line ?? ''}`;

/** The SHA-1 of a file's bytes, read a megabyte at a time; undefined when it cannot be read. */
function fileHash(file: string): string | undefined {
  const h = createHash('sha1');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  return h.digest('hex');
}

// The checks that compare a dataset's prompts: near-duplicates among them, and overlaps with a
// benchmark. Each looks at every prompt at once (seconds of CPU and all prompts in memory for
// 100,000 tasks), so its result is remembered for the state of the dataset it was found in:
// the files (as shown, in order) and their text hashes, the threshold, the benchmark's path and
// content hash. Any edit, added or removed file, or other setting misses, and the check runs
// again; what is remembered is where the tasks are in the dataset's order, so a result can
// only ever name tasks as they are.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { readBenchmark } from './benchmark';
import { DEFAULT_NGRAM, findContamination } from './contamination';
import { findDuplicates } from './duplicates';
import type { StatsMemo } from '../dataset/statsMemo';
import type { ContaminationHit, DuplicatePair, TaskRef } from '../dataset/types';
import { at, must } from '../../util/must';
import { isStringArray, recordOr } from '../../base/record';

/** The dataset as the checks see it. */
export interface PromptDataset {
  /** The files as shown, and the hash of each one's text. */
  readonly files: readonly string[];
  readonly hashes: readonly string[];
  /** Every task, in the dataset's order: file by file, each file's tasks in order. */
  readonly tasks: readonly { readonly ref: TaskRef; readonly valid: boolean }[];
  /** Per file, the index of its first task in `tasks`. */
  readonly firstTask: readonly number[];
  /** The prompts of a file's tasks (`''` for none). */
  prompts(file: number): Promise<readonly string[]>;
}

interface Prompt {
  readonly ref: TaskRef;
  readonly text: string;
}

export class PromptChecks {
  private list: Prompt[] | undefined;
  /** The index in the dataset of each task compared (its ref is the one given to the checks). */
  private readonly index = new Map<TaskRef, number>();
  /** The same by `refKey`, for hits that copy the ref's fields; made when first needed. */
  private byKey: Map<string, number> | undefined;

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
    const pairs = findDuplicates(await this.prompts(), { threshold });
    this.memo?.putCheck(
      name,
      pairs.flatMap((p) => [this.rank(p.a), this.rank(p.b), p.similarity, p.exact ? 1 : 0]),
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
    const hits = findContamination(await this.prompts(), bench.rows, { benchmark: file, n });
    if (name !== undefined)
      this.memo?.putCheck(name, {
        hits: hits.flatMap((h) => [this.rank(h), h.benchmark_row, h.overlap]),
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
      ? this.d.tasks[n]?.ref
      : undefined;
  }

  /** The index in the dataset of a task the checks were given. */
  private rank(ref: TaskRef): number {
    return this.index.get(ref) ?? this.rankByKey(ref);
  }

  /** The same for a copy of a ref (two tasks with one key are alike in every output). */
  private rankByKey(ref: TaskRef): number {
    if (!this.byKey) {
      this.byKey = new Map();
      for (const [r, i] of this.index) if (!this.byKey.has(refKey(r))) this.byKey.set(refKey(r), i);
    }
    return must(this.byKey.get(refKey(ref)), 'every ref given has its key in the index');
  }

  /** The prompts compared: of the valid tasks that have one, in the dataset's order. */
  private async prompts(): Promise<Prompt[]> {
    if (this.list) return this.list;
    const list: Prompt[] = [];
    for (let f = 0; f < this.d.files.length; f++) {
      const texts = await this.d.prompts(f);
      const first = at(this.d.firstTask, f);
      for (const [i, text] of texts.entries()) {
        const task = this.d.tasks[first + i];
        if (!task?.valid || text === '') continue;
        this.index.set(task.ref, first + i);
        list.push({ ref: task.ref, text });
      }
    }
    return (this.list = list);
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

// The samples view's requests to the workbench's worker: read the samples of the view's (or the
// selection's) tasks, show them by state and reason group, a window of a group, and the
// samples to add as cases. The worker holds one collection at a time; the page names samples
// by their place in it, with the collection's number, so a sample of an older one is never
// mistaken for another.
import fs from 'node:fs';
import path from 'node:path';
import { RowSet } from '../base/rowSet';
import { rowFileType } from '../datasets/rowFiles';
import type { EditorModels } from '../run/editorProfile';
import type { WorkbenchIndex } from './index';
import {
  casesEdits,
  collectSamples,
  SampleSet,
  type CasesEdit,
  type ListedSample,
  type NewCase,
  type SampleState,
  type SamplesSummary,
  type SampleTaskRef,
} from './samples';

/** The requests of the samples view. */
export type SamplesRequest =
  | {
      readonly op: 'samples';
      readonly state: SampleState;
      /** The selection's rows (a RowSet's text); the tasks of the current view when absent. */
      readonly rows?: string;
      /** Read the samples again (else a new state only filters the collection held). */
      readonly fresh?: boolean;
      readonly models: EditorModels;
      readonly trusted: boolean;
    }
  | {
      readonly op: 'sampleWindow';
      readonly collection: number;
      readonly group: string;
      readonly start: number;
      readonly end: number;
    }
  | ({ readonly op: 'sampleCases' } & CasesPick)
  /** What adding the samples picked as cases would do: the host asks the user with it. */
  | ({ readonly op: 'casesSummary' } & CasesPick)
  /**
   * The edits that add the samples picked as cases expecting `expect`, to the files' texts as
   * the editor holds them: adding thousands of cases re-reads a file per case, work for this
   * thread, not the host's.
   */
  | ({
      readonly op: 'casesEdits';
      readonly expect: 'pass' | 'fail';
      readonly texts: readonly (readonly [file: string, text: string])[];
    } & CasesPick);

/** Samples picked: a group's, or those of `ids`, of collection `collection`. */
interface CasesPick {
  readonly collection: number;
  readonly group?: string;
  readonly ids?: readonly number[];
}

/** What adding the samples picked as cases would do. */
export interface CasesSummary {
  readonly cases: number;
  readonly tasks: number;
  /** The task files they go to. */
  readonly files: readonly string[];
  /** Samples of JSONL or Parquet rows, which take no cases. */
  readonly readOnly: number;
}

/** What is shown: the summary, with the collection it is of and what could not be read. */
export interface SamplesAnswer extends SamplesSummary {
  readonly collection: number;
  readonly notes: readonly string[];
}

/** Samples picked to become cases: those of task files, and how many are rows of read-only files. */
export interface CasesAnswer {
  readonly cases: readonly {
    readonly file: string;
    readonly task: string;
    readonly response: string;
    readonly calls?: readonly unknown[];
  }[];
  readonly readOnly: number;
}

export interface SamplesAnswers {
  samples: SamplesAnswer;
  sampleWindow: ListedSample[];
  sampleCases: CasesAnswer;
  casesSummary: CasesSummary;
  casesEdits: CasesEdit[];
}

const OPS: ReadonlySet<string> = new Set<SamplesRequest['op']>([
  'samples',
  'sampleWindow',
  'sampleCases',
  'casesSummary',
  'casesEdits',
]);

/** Whether a request of the worker is the samples view's. */
export function isSamplesRequest<R extends { readonly op: string }>(r: R | SamplesRequest): r is SamplesRequest {
  return OPS.has(r.op);
}

/** The samples view's state in the worker. */
export class SamplesWorker {
  private set: SampleSet | undefined;
  private notes: readonly string[] = [];
  private rowsKey = '';
  /** The files the collection read, with their modification times then. */
  private stamps = '';
  private collection = 0;

  constructor(private readonly o: { readonly root: string; readonly cacheDir?: string }) {}

  async answer<K extends SamplesRequest['op']>(
    index: WorkbenchIndex,
    r: Extract<SamplesRequest, { op: K }>,
  ): Promise<SamplesAnswers[K]>;
  async answer(index: WorkbenchIndex, r: SamplesRequest): Promise<SamplesAnswers[SamplesRequest['op']]> {
    switch (r.op) {
      case 'samples': {
        const rows = r.rows === undefined ? index.viewRows() : [...RowSet.decode(r.rows)];
        const key = rows.join(',');
        const refs: SampleTaskRef[] = [];
        for (const n of rows) {
          if (n < 0 || n >= index.size) continue;
          const t = index.row(n);
          if (!t.error && t.kind !== null) refs.push({ row: n, file: t.file, id: t.id, line: t.line });
        }
        // A task file edited since (its verifier changed, say) is read again.
        const stamps = this.stampsOf(refs);
        if (!this.set || r.fresh || key !== this.rowsKey || stamps !== this.stamps) {
          const got = await collectSamples(refs, { ...this.o, models: r.models, trusted: r.trusted });
          this.set = new SampleSet(got.samples);
          this.notes = got.notes;
          this.rowsKey = key;
          this.stamps = stamps;
          this.collection++;
        }
        return { ...this.set.view(r.state), collection: this.collection, notes: this.notes };
      }
      case 'sampleWindow':
        return this.current(r.collection).window(r.group, r.start, r.end);
      case 'sampleCases':
        return this.cases(r);
      case 'casesSummary': {
        const { cases, readOnly } = this.cases(r);
        return {
          cases: cases.length,
          tasks: new Set(cases.map((c) => `${c.file}\0${c.task}`)).size,
          files: [...new Set(cases.map((c) => c.file))],
          readOnly,
        };
      }
      case 'casesEdits': {
        const byFile = new Map<string, NewCase[]>();
        for (const c of this.cases(r).cases) {
          const list = byFile.get(c.file) ?? [];
          list.push({ task: c.task, response: c.response, expect: r.expect, ...(c.calls ? { calls: c.calls } : {}) });
          byFile.set(c.file, list);
        }
        return casesEdits(r.texts, byFile);
      }
    }
  }

  /** The samples picked that can become cases (those of task files), and how many cannot. */
  private cases(r: CasesPick): CasesAnswer {
    const picked = this.current(r.collection).pick(r);
    const writable = picked.filter((h) => rowFileType(h.listed.file) === undefined);
    return {
      cases: writable.map((h) => ({
        file: h.listed.file,
        task: h.listed.task,
        response: h.response,
        ...(h.calls ? { calls: h.calls } : {}),
      })),
      readOnly: picked.length - writable.length,
    };
  }

  /** Forgets the collection: the dataset was read again (after a run, say). */
  forget(): void {
    this.set = undefined;
  }

  private stampsOf(refs: readonly SampleTaskRef[]): string {
    const files = [...new Set(refs.map((r) => r.file))];
    return files
      .map((f) => {
        try {
          return `${f}:${fs.statSync(path.resolve(this.o.root, f)).mtimeMs}`;
        } catch {
          return `${f}:gone`;
        }
      })
      .join('\n');
  }

  private current(collection: number): SampleSet {
    if (!this.set || collection !== this.collection)
      throw new Error('the samples were read again since: pick them again from the list');
    return this.set;
  }
}

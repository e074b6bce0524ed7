// The workbench's index: every task of a dataset (task files, JSONL, Parquet) as columns, one
// typed array per number and one table of distinct strings, so that a million rows are a few
// arrays rather than a million objects, and a filter or a sort is a loop over them. The page
// only ever gets windows of rows of the current view (the filtered rows, in the sort's order).
import type { Band } from '../stats';
import { compare, EMPTY_QUERY, type NumberField, type Query, type TextTerm } from './query';
import { at } from '../util/must';

/** A task as the collector reads it, before it is stored as columns. */
export interface WorkbenchTask {
  readonly id: string;
  /** The file it is in, as shown (relative to the workspace). */
  readonly file: string;
  /** 0-based line in a task file or JSONL file, row number in a Parquet file. */
  readonly line: number;
  /** The top-level verifier kind; null when the task cannot run (it has errors). */
  readonly kind: string | null;
  readonly prompt: string;
  readonly cases: number;
  /** Cases that passed and failed when they were run here; -1 when not run. */
  readonly casesPassed: number;
  readonly casesFailed: number;
  /** Audit findings; -1 when not audited. */
  readonly findings: number;
  readonly label?: string;
  /** Why the row is no task (a bad row of a JSONL or Parquet file). */
  readonly error?: string;
}

/** One model's latest run of a task, as the run log has it. */
export interface WorkbenchRun {
  readonly rate: number;
  readonly band: Band;
  readonly samples: number;
  readonly signal: number;
  /** Tokens of the run (prompt + completion), when the log records them. */
  readonly tokens?: number;
  /** Of those, the prompt's (the rest are the completions'): what a price per kind of token needs. */
  readonly promptTokens?: number;
  /** Cost of the run, when the log records it. */
  readonly cost?: number;
}

/** Per-model columns. */
export const RUN_COLUMNS = ['rate', 'band', 'samples', 'signal', 'tokens', 'cost'] as const;
export type RunColumn = (typeof RUN_COLUMNS)[number];
/** Columns of the task itself. */
export const TASK_COLUMNS = ['id', 'file', 'kind', 'prompt', 'cases', 'findings', 'label'] as const;
export type TaskColumn = (typeof TASK_COLUMNS)[number];
/** A column to sort by: a task column, or `rate:strong` (a model's). */
export type ColumnKey = TaskColumn | `${RunColumn}:${string}`;

export interface SortSpec {
  readonly column: ColumnKey;
  readonly descending?: boolean;
}

/** A row of the view, as the page shows it. */
export interface WorkbenchRowView {
  /** The row's number in the index (stable across filters and sorts). */
  readonly n: number;
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly kind: string | null;
  readonly prompt: string;
  readonly cases: number;
  readonly casesPassed: number;
  readonly casesFailed: number;
  readonly findings: number;
  readonly label?: string;
  readonly error?: string;
  /** Per model (in `models` order), its run or null. */
  readonly runs: readonly (WorkbenchRun | null)[];
}

/** Characters of a prompt the page gets: the cell clips further. */
export const PROMPT_CHARS = 300;
/** Characters of a prompt the index keeps for search. */
export const SEARCH_CHARS = 4000;

const BAND_CODES: readonly (Band | 'none')[] = ['none', 'too_easy', 'learnable', 'too_hard', 'error'];
const NONE = 0;

/** A growable typed array. */
class Column<T extends Float64Array | Int32Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly fill: number,
  ) {}
  set(i: number, v: number): void {
    if (i >= this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(Math.max(i + 1, this.data.length * 2));
      next.set(this.data);
      if (this.fill !== 0) next.fill(this.fill, this.data.length);
      this.data = next;
    }
    this.data[i] = v;
    if (i >= this.length) this.length = i + 1;
  }
  get(i: number): number {
    // Past the end (a row not set yet) a typed array reads undefined: the column's fill.
    return this.data[i] ?? this.fill;
  }
}

const floats = (n: number): Column<Float64Array> => new Column(new Float64Array(n).fill(NaN), NaN);
const ints = (n: number, fill = 0): Column<Int32Array> => new Column(new Int32Array(n).fill(fill), fill);

/** One model's columns. */
class ModelColumns {
  readonly rate: Column<Float64Array>;
  readonly band: Column<Uint8Array>;
  readonly samples: Column<Int32Array>;
  readonly signal: Column<Float64Array>;
  readonly tokens: Column<Float64Array>;
  readonly promptTokens: Column<Float64Array>;
  readonly cost: Column<Float64Array>;
  constructor(n: number) {
    this.rate = floats(n);
    this.band = new Column(new Uint8Array(n), NONE);
    this.samples = ints(n, -1);
    this.signal = floats(n);
    this.tokens = floats(n);
    this.promptTokens = floats(n);
    this.cost = floats(n);
  }
  /** The value of a column as a number (a band as its code); NaN when there is no run. */
  value(column: Exclude<RunColumn, 'band'>, i: number): number {
    return this[column].get(i);
  }
}

/** The rows of a dataset as columns. Add tasks, then runs; then filter, sort and read windows. */
export class WorkbenchIndex {
  /** Distinct strings (ids, files, kinds, labels); index 0 is the empty string. */
  private readonly strings: string[] = [''];
  private readonly stringIds = new Map<string, number>([['', 0]]);
  private readonly id: Column<Uint32Array>;
  private readonly file: Column<Uint32Array>;
  private readonly kind: Column<Uint32Array>;
  private readonly label: Column<Uint32Array>;
  private readonly line: Column<Int32Array>;
  private readonly cases: Column<Int32Array>;
  private readonly casesPassed: Column<Int32Array>;
  private readonly casesFailed: Column<Int32Array>;
  private readonly findings: Column<Int32Array>;
  private readonly prompts: string[] = [];
  private readonly errors = new Map<number, string>();
  private lowered: string[] | undefined;
  private loweredStrings: string[] | undefined;
  private readonly perModel: ModelColumns[] = [];
  readonly models: string[] = [];
  private rows = 0;
  /** The rows of the current view, in order. */
  private view: Uint32Array = new Uint32Array(0);
  private viewQuery: Query = EMPTY_QUERY;
  private viewSort: SortSpec | undefined;
  /** Rows by `file\0id`, for labels and runs set later. */
  private byName: Map<string, number> | undefined;

  constructor(private readonly capacity = 1024) {
    const n = capacity;
    this.id = new Column(new Uint32Array(n), 0);
    this.file = new Column(new Uint32Array(n), 0);
    this.kind = new Column(new Uint32Array(n), 0);
    this.label = new Column(new Uint32Array(n), 0);
    this.line = ints(n);
    this.cases = ints(n);
    this.casesPassed = ints(n, -1);
    this.casesFailed = ints(n, -1);
    this.findings = ints(n, -1);
  }

  get size(): number {
    return this.rows;
  }

  /** Rows in the current view. */
  get viewSize(): number {
    return this.view.length;
  }

  private intern(s: string): number {
    let k = this.stringIds.get(s);
    if (k === undefined) {
      k = this.strings.length;
      this.strings.push(s);
      this.loweredStrings = undefined;
      this.stringIds.set(s, k);
    }
    return k;
  }

  /** Adds a task; returns its row number. */
  add(t: WorkbenchTask): number {
    const n = this.rows++;
    this.id.set(n, this.intern(t.id));
    this.file.set(n, this.intern(t.file));
    this.kind.set(n, t.kind === null ? 0 : this.intern(t.kind));
    this.label.set(n, t.label ? this.intern(t.label) : 0);
    this.line.set(n, t.line);
    this.cases.set(n, t.cases);
    this.casesPassed.set(n, t.casesPassed);
    this.casesFailed.set(n, t.casesFailed);
    this.findings.set(n, t.findings);
    this.prompts.push(t.prompt.length > SEARCH_CHARS ? t.prompt.slice(0, SEARCH_CHARS) : t.prompt);
    if (t.error) this.errors.set(n, t.error);
    this.lowered = undefined;
    this.byName = undefined;
    return n;
  }

  /** Records a model's run of row n. */
  setRun(n: number, model: string, run: WorkbenchRun): void {
    let m = this.models.indexOf(model);
    if (m < 0) {
      m = this.models.push(model) - 1;
      this.perModel.push(new ModelColumns(Math.max(this.capacity, this.rows)));
    }
    const c = at(this.perModel, m);
    c.rate.set(n, run.rate);
    c.band.set(n, BAND_CODES.indexOf(run.band));
    c.samples.set(n, run.samples);
    c.signal.set(n, run.signal);
    c.tokens.set(n, run.tokens ?? NaN);
    c.promptTokens.set(n, run.promptTokens ?? NaN);
    c.cost.set(n, run.cost ?? NaN);
  }

  /** Sets or clears (undefined) the review label of row n. */
  setLabel(n: number, label: string | undefined): void {
    this.label.set(n, label ? this.intern(label) : 0);
  }

  /** Sets the audit findings count of row n. */
  setFindings(n: number, count: number): void {
    this.findings.set(n, count);
  }

  /** The row of a task, by its file (as shown) and id. */
  rowOf(file: string, id: string): number | undefined {
    if (!this.byName) {
      this.byName = new Map();
      for (let n = 0; n < this.rows; n++)
        this.byName.set(`${this.strings[this.file.get(n)]}\0${this.strings[this.id.get(n)]}`, n);
    }
    return this.byName.get(`${file}\0${id}`);
  }

  /** Row n as the page shows it. */
  row(n: number): WorkbenchRowView {
    const prompt = this.prompts[n] ?? '';
    const label = this.strings[this.label.get(n)];
    const kind = this.kind.get(n);
    const error = this.errors.get(n);
    return {
      n,
      id: this.strings[this.id.get(n)] ?? '',
      file: this.strings[this.file.get(n)] ?? '',
      line: this.line.get(n),
      kind: kind === 0 ? null : (this.strings[kind] ?? null),
      prompt: prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS - 1)}…` : prompt,
      cases: this.cases.get(n),
      casesPassed: this.casesPassed.get(n),
      casesFailed: this.casesFailed.get(n),
      findings: this.findings.get(n),
      ...(label ? { label } : {}),
      ...(error ? { error } : {}),
      runs: this.perModel.map((c) => {
        const band = BAND_CODES[c.band.get(n)];
        if (band === undefined || band === 'none') return null;
        const tokens = c.tokens.get(n);
        const promptTokens = c.promptTokens.get(n);
        const cost = c.cost.get(n);
        return {
          rate: c.rate.get(n),
          band,
          samples: c.samples.get(n),
          signal: c.signal.get(n),
          ...(Number.isNaN(tokens) ? {} : { tokens }),
          ...(Number.isNaN(promptTokens) ? {} : { promptTokens }),
          ...(Number.isNaN(cost) ? {} : { cost }),
        };
      }),
    };
  }

  /**
   * Makes the rows `query` keeps, in the order `sort` gives (the index's order when absent), the
   * current view; returns how many rows it holds. An unknown model keeps no rows.
   */
  setView(query: Query, sort?: SortSpec): number {
    this.viewQuery = query;
    this.viewSort = sort;
    const kept = this.filter(query);
    this.view = sort ? this.sorted(kept, sort) : kept;
    return this.view.length;
  }

  /** Applies the current query and sort again (after labels or runs changed). */
  refresh(): number {
    return this.setView(this.viewQuery, this.viewSort);
  }

  /** Rows at view positions start..end (exclusive). */
  window(start: number, end: number): WorkbenchRowView[] {
    const out: WorkbenchRowView[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.view.length); i++) out.push(this.row(at(this.view, i)));
    return out;
  }

  /** Row numbers at view positions start..end (exclusive). */
  viewRows(start = 0, end = this.view.length): number[] {
    return Array.from(this.view.subarray(Math.max(0, start), Math.min(end, this.view.length)));
  }

  /** `rows` in the view's order, then those the view leaves out in the index's order. */
  inViewOrder(rows: Iterable<number>): number[] {
    const wanted = new Uint8Array(this.rows);
    for (const n of rows) if (n >= 0 && n < this.rows) wanted[n] = 1;
    const out: number[] = [];
    for (const n of this.view)
      if (wanted[n] === 1) {
        out.push(n);
        wanted[n] = 2;
      }
    for (let n = 0; n < this.rows; n++) if (wanted[n] === 1) out.push(n);
    return out;
  }

  /** The rows `query` keeps, in the index's order. */
  filter(query: Query): Uint32Array {
    const model = query.model === undefined ? undefined : this.models.indexOf(query.model);
    if (model === -1) return new Uint32Array(0);
    const tests = this.tests(query, model);
    const out = new Uint32Array(this.rows);
    let k = 0;
    rows: for (let n = 0; n < this.rows; n++) {
      for (const t of tests) if (!t(n)) continue rows;
      out[k++] = n;
    }
    return out.slice(0, k);
  }

  /** One test per term: each a loop-free check of row n. */
  private tests(query: Query, model: number | undefined): ((n: number) => boolean)[] {
    const tests: ((n: number) => boolean)[] = [];
    // With `model:`, that model's columns; else any model's.
    const models = model === undefined ? this.perModel : [at(this.perModel, model)];
    if (model !== undefined) {
      const c = at(models, 0);
      tests.push((n) => c.band.get(n) !== NONE);
    }
    for (const t of query.text) {
      const test = this.textTest(t, models);
      tests.push(t.negated ? (n) => !test(n) : test);
    }
    for (const t of query.numbers) tests.push(this.numberTest(t.field, t.op, t.value, models));
    if (query.words.length) {
      // Lower-cased once and kept (until rows are added): a search is then one pass of `includes`.
      const lowered = (this.lowered ??= this.prompts.map((p) => p.toLowerCase()));
      const names = (this.loweredStrings ??= this.strings.map((p) => p.toLowerCase()));
      for (const w of query.words) {
        // Which ids and files hold the word, by their string's number.
        const hits = new Uint8Array(names.length);
        for (let k = 0; k < names.length; k++) if (at(names, k).includes(w)) hits[k] = 1;
        tests.push((n) => at(lowered, n).includes(w) || hits[this.id.get(n)] === 1 || hits[this.file.get(n)] === 1);
      }
    }
    return tests;
  }

  private textTest(t: TextTerm, models: readonly ModelColumns[]): (n: number) => boolean {
    switch (t.field) {
      case 'band': {
        const code = BAND_CODES.findIndex((b) => b === t.value);
        if (code === NONE) return (n) => models.every((c) => c.band.get(n) === NONE);
        return (n) => models.some((c) => c.band.get(n) === code);
      }
      case 'kind': {
        const k = t.value === 'invalid' ? 0 : this.stringIds.get(t.value);
        return (n) => this.kind.get(n) === k;
      }
      case 'label': {
        const k = t.value === 'none' ? 0 : this.stringIds.get(t.value);
        return (n) => this.label.get(n) === k;
      }
      case 'id':
      case 'file': {
        const col = t.field === 'id' ? this.id : this.file;
        const needle = t.value.toLowerCase();
        const hits = new Uint8Array(this.strings.length);
        this.strings.forEach((s, k) => (hits[k] = s.toLowerCase().includes(needle) ? 1 : 0));
        return (n) => hits[col.get(n)] === 1;
      }
      case 'model':
        return () => true;
    }
  }

  private numberTest(
    field: NumberField,
    op: Parameters<typeof compare>[1],
    value: number,
    models: readonly ModelColumns[],
  ): (n: number) => boolean {
    switch (field) {
      case 'cases':
        return (n) => compare(this.cases.get(n), op, value);
      case 'failing':
        return (n) => this.casesFailed.get(n) >= 0 && compare(this.casesFailed.get(n), op, value);
      case 'findings':
        return (n) => this.findings.get(n) >= 0 && compare(this.findings.get(n), op, value);
      default: {
        // A run that failed (band error) has no pass rate to compare.
        const error = BAND_CODES.indexOf('error');
        return (n) =>
          models.some((c) => {
            const band = c.band.get(n);
            if (band === NONE || (field === 'rate' && band === error)) return false;
            const x = c.value(field, n);
            return !Number.isNaN(x) && x >= 0 && compare(x, op, value);
          });
      }
    }
  }

  /** `rows` in the order of `sort`; rows without a value last whatever the direction, ties in index order. */
  private sorted(rows: Uint32Array, sort: SortSpec): Uint32Array {
    const key = this.sortKey(sort.column);
    if (!key) return rows;
    const sign = sort.descending ? -1 : 1;
    const keys = new Float64Array(this.rows);
    for (const n of rows) keys[n] = key(n);
    return rows.sort((a, b) => {
      const x = keys[a] ?? NaN;
      const y = keys[b] ?? NaN;
      const xn = Number.isNaN(x);
      const yn = Number.isNaN(y);
      if (xn || yn) return xn === yn ? a - b : xn ? 1 : -1;
      return x === y ? a - b : (x < y ? -1 : 1) * sign;
    });
  }

  /** A column as one number per row (strings as their rank in sorted order); NaN: no value. */
  private sortKey(column: ColumnKey): ((n: number) => number) | undefined {
    const rank = (): Float64Array => {
      const order = this.strings
        .map((_, k) => k)
        .sort((a, b) =>
          at(this.strings, a) < at(this.strings, b) ? -1 : at(this.strings, a) > at(this.strings, b) ? 1 : 0,
        );
      const r = new Float64Array(this.strings.length);
      order.forEach((k, i) => (r[k] = i));
      r[0] = NaN;
      return r;
    };
    switch (column) {
      case 'id':
      case 'file':
      case 'kind':
      case 'label': {
        const r = rank();
        const col = this[column];
        return (n) => r[col.get(n)] ?? NaN;
      }
      case 'prompt': {
        const order = Array.from({ length: this.rows }, (_, n) => n).sort((a, b) =>
          at(this.prompts, a) < at(this.prompts, b) ? -1 : at(this.prompts, a) > at(this.prompts, b) ? 1 : a - b,
        );
        // Equal prompts share a rank, so that ties keep the index's order either way.
        const r = new Float64Array(this.rows);
        let rank = 0;
        order.forEach((n, i) => {
          if (i > 0 && this.prompts[n] !== this.prompts[at(order, i - 1)]) rank = i;
          r[n] = this.prompts[n] ? rank : NaN;
        });
        return (n) => r[n] ?? NaN;
      }
      case 'cases':
        return (n) => this.cases.get(n);
      case 'findings':
        return (n) => (this.findings.get(n) < 0 ? NaN : this.findings.get(n));
    }
    const colon = column.indexOf(':');
    const field = RUN_COLUMNS.find((f) => f === column.slice(0, colon));
    const m = this.models.indexOf(column.slice(colon + 1));
    const c = this.perModel[m];
    if (!c || field === undefined) return undefined;
    if (field === 'band') return (n) => (c.band.get(n) === NONE ? NaN : c.band.get(n));
    return (n) => (c.band.get(n) === NONE ? NaN : c.value(field, n));
  }
}

// The rows of a file's summary (summary.ts) in typed arrays: about 60 bytes a task outside the
// JavaScript heap, where a row object with its strings held about 150 bytes in it. A million-task
// file's rows are then no burden on the collector, whose heap would otherwise grow to several
// times what they hold. A row is made as an object only when it is read.

/** How a task's cases came out: `skipped` counts the cases not run here. */
export interface CaseCounts {
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** One task of a file, as the statistics need it. */
export interface TaskRow {
  readonly id: string;
  /** 0-based line of the task's id (or first key). */
  readonly line: number;
  /** The top-level verifier kind; null when the task has errors. */
  readonly kind: string | null;
  readonly cases: number;
  /** The key a run of this task is recorded under (see run/resultKeys.ts). */
  readonly runKey: string;
  /** How the cases came out, when they were run (valid tasks of in-process verifiers). */
  readonly outcome?: CaseCounts;
}

const HEX_KEY = /^[0-9a-f]{40}$/;

export class TaskRows implements Iterable<TaskRow> {
  private count = 0;
  private idUnits = new Uint16Array(1 << 12);
  private idEnds = new Uint32Array(256);
  private lines = new Uint32Array(256);
  private cases = new Uint32Array(256);
  /** Per row, its kind's number in `kindNames` plus one; 0 for null. */
  private kinds = new Uint16Array(256);
  private readonly kindNames: string[] = [];
  /** Per row, its run key's 20 bytes (a SHA-1 in hex, as every key is); `oddKeys` has any other. */
  private keys = new Uint8Array(256 * 20);
  private readonly oddKeys = new Map<number, string>();
  /** Per row: whether it has an outcome, and its total, passed, failed and skipped. */
  private hasOutcome = new Uint8Array(256);
  private outcomes = new Uint32Array(256 * 4);

  /** Rows given as objects (a remembered summary, or a summary sent from a thread). */
  static of(rows: Iterable<TaskRow>): TaskRows {
    const out = new TaskRows();
    for (const r of rows) out.push(r);
    return out;
  }

  get length(): number {
    return this.count;
  }

  push(row: TaskRow): void {
    const n = this.count;
    if (n === this.lines.length) this.grow(n * 2);
    const start = n === 0 ? 0 : (this.idEnds[n - 1] ?? 0);
    if (start + row.id.length > this.idUnits.length) {
      const bigger = new Uint16Array(Math.max(this.idUnits.length * 2, start + row.id.length));
      bigger.set(this.idUnits);
      this.idUnits = bigger;
    }
    for (let i = 0; i < row.id.length; i++) this.idUnits[start + i] = row.id.charCodeAt(i);
    this.idEnds[n] = start + row.id.length;
    this.lines[n] = row.line;
    this.cases[n] = row.cases;
    let kind = 0;
    if (row.kind !== null) {
      kind = this.kindNames.indexOf(row.kind) + 1;
      if (kind === 0) kind = this.kindNames.push(row.kind);
    }
    this.kinds[n] = kind;
    if (HEX_KEY.test(row.runKey)) this.keys.set(Buffer.from(row.runKey, 'hex'), n * 20);
    else this.oddKeys.set(n, row.runKey);
    this.count++;
    if (row.outcome) this.setOutcome(n, row.outcome);
  }

  /** Row `i` as an object; undefined outside the rows. */
  at(i: number): TaskRow | undefined {
    if (!(i >= 0 && i < this.count)) return undefined;
    const start = i === 0 ? 0 : (this.idEnds[i - 1] ?? 0);
    const kind = this.kinds[i] ?? 0;
    const row = {
      id: unitsText(this.idUnits.subarray(start, this.idEnds[i] ?? 0)),
      line: this.lines[i] ?? 0,
      kind: kind === 0 ? null : (this.kindNames[kind - 1] ?? null),
      cases: this.cases[i] ?? 0,
      runKey: this.oddKeys.get(i) ?? Buffer.from(this.keys.buffer, i * 20, 20).toString('hex'),
    };
    const o = this.outcome(i);
    return o ? { ...row, outcome: o } : row;
  }

  /** How row `i`'s cases came out, when they were run. */
  outcome(i: number): CaseCounts | undefined {
    if (!this.hasOutcome[i]) return undefined;
    const o = this.outcomes.subarray(i * 4, i * 4 + 4);
    return { total: o[0] ?? 0, passed: o[1] ?? 0, failed: o[2] ?? 0, skipped: o[3] ?? 0 };
  }

  setOutcome(i: number, o: CaseCounts): void {
    this.hasOutcome[i] = 1;
    this.outcomes.set([o.total, o.passed, o.failed, o.skipped], i * 4);
  }

  *[Symbol.iterator](): Iterator<TaskRow> {
    for (let i = 0; i < this.count; i++) {
      const row = this.at(i);
      if (row) yield row;
    }
  }

  /** The rows as JSON.stringify writes an array of them: `[` and `]` left out, an element at a time. */
  *jsonElements(): Generator<string> {
    for (let i = 0; i < this.count; i++) yield (i ? ',' : '') + JSON.stringify(this.at(i));
  }

  private grow(size: number): void {
    this.idEnds = copied(this.idEnds, new Uint32Array(size));
    this.lines = copied(this.lines, new Uint32Array(size));
    this.cases = copied(this.cases, new Uint32Array(size));
    this.kinds = copied(this.kinds, new Uint16Array(size));
    this.keys = copied(this.keys, new Uint8Array(size * 20));
    this.hasOutcome = copied(this.hasOutcome, new Uint8Array(size));
    this.outcomes = copied(this.outcomes, new Uint32Array(size * 4));
  }
}

function copied<T extends Uint8Array | Uint16Array | Uint32Array>(from: T, into: T): T {
  into.set(from);
  return into;
}

/** The string of UTF-16 code units, a few thousand at a time (a spread of many would overflow the stack). */
function unitsText(units: Uint16Array): string {
  let out = '';
  for (let i = 0; i < units.length; i += 4096) out += String.fromCharCode(...units.subarray(i, i + 4096));
  return out;
}

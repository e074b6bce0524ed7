// The rows of a file's summary (summary.ts) in typed arrays: about 60 bytes a task outside the
// JavaScript heap, where a row object with its strings held about 150 bytes in it. A million-task
// file's rows are then no burden on the collector, whose heap would otherwise grow to several
// times what they hold. A file's first rows stay in memory, up to SPILL_AFTER and while the
// process's budget of rows in memory lasts (rowSpill.ts); the rest go to a user-only scratch
// store shared by all summaries: a record of fixed width each, and the id apart. Memory keeps
// nothing per such row: a file's rows are written together, so where they went is a run or a few.
// A row is made as an object only when it is read; reading in order costs a read per megabyte.
import { giveMemoryRows, joinRowStore, leaveRowStore, RECORD, takeMemoryRow, type RowStore } from './rowSpill';

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

const COUNT_KEYS = ['total', 'passed', 'failed', 'skipped'] as const;

/** Counts as a summary or the case memo writes them (four 32-bit counts). */
export function isCounts(v: unknown): v is CaseCounts {
  if (typeof v !== 'object' || v === null) return false;
  const o: Record<string, unknown> = { ...v };
  return COUNT_KEYS.every((k) => Number.isInteger(o[k]) && Number(o[k]) >= 0 && Number(o[k]) < 2 ** 32);
}

const HEX_KEY = /^[0-9a-f]{40}$/;

/** A file's rows kept in memory at most; the rest spill. */
const SPILL_AFTER = 1 << 14;

/** Where a spilled row's record has each field. */
const AT = { line: 0, cases: 4, kind: 8, hasOutcome: 10, key: 11, outcome: 31 } as const;

/** What rows hold outside their object: given back when they are closed, or collected unclosed. */
interface Lease {
  /** Rows in memory, counted in the process's budget. */
  kept: number;
  /** The store the rest went to, and how many they are. */
  store: RowStore | undefined;
  spilled: number;
}

const finished = new FinalizationRegistry<Lease>(release);

function release(lease: Lease): void {
  giveMemoryRows(lease.kept);
  lease.kept = 0;
  if (lease.store) leaveRowStore(lease.store, lease.spilled);
  lease.store = undefined;
  lease.spilled = 0;
}

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
  /** Rows 0 to kept - 1 are in memory, the rest in the store. */
  private kept = 0;
  private readonly lease: Lease = { kept: 0, store: undefined, spilled: 0 };
  private closed = false;
  /** Runs of spilled rows: where each starts among them, and at which index of the store. */
  private readonly runStarts: number[] = [];
  private readonly runAt: number[] = [];
  private readonly record = Buffer.alloc(RECORD);
  /** Scratch for push: a row's run key as bytes, its counts, and a spilled row's id as UTF-16. */
  private readonly keyBytes = Buffer.alloc(20);
  private readonly counts = new Uint32Array(4);
  private idBytes = Buffer.allocUnsafe(256);

  constructor() {
    finished.register(this, this.lease, this);
  }

  /** Rows given as objects (a remembered summary, or a summary sent from a thread). */
  static of(rows: Iterable<TaskRow>): TaskRows {
    const out = new TaskRows();
    for (const r of rows) out.push(r);
    out.trim();
    return out;
  }

  get length(): number {
    return this.count;
  }

  push(row: TaskRow): void {
    const hex = HEX_KEY.test(row.runKey);
    if (hex) this.keyBytes.write(row.runKey, 'hex');
    const o = row.outcome;
    if (o) this.counts.set([o.total, o.passed, o.failed, o.skipped]);
    this.pushParts(
      row.id,
      row.line,
      row.kind,
      row.cases,
      hex ? this.keyBytes : row.runKey,
      o ? this.counts : undefined,
    );
  }

  /**
   * A row given by its fields, made into no object: `key` is the run key's 20 bytes when it is a
   * SHA-1 in hex, else its text; `outcome` is total, passed, failed and skipped. Readers of a
   * million rows use it so that nothing of a row outlives its reading but what is kept here.
   */
  pushParts(
    id: string,
    line: number,
    kindName: string | null,
    cases: number,
    key: Uint8Array | string,
    outcome: ArrayLike<number> | undefined,
  ): void {
    const n = this.count;
    let kind = 0;
    if (kindName !== null) {
      kind = this.kindNames.indexOf(kindName) + 1;
      if (kind === 0) kind = this.kindNames.push(kindName);
    }
    if (typeof key === 'string') this.oddKeys.set(n, key);
    if (n === this.kept && n < SPILL_AFTER && takeMemoryRow()) {
      this.kept++;
      this.lease.kept++;
    }
    if (n >= this.kept) {
      const r = this.record.fill(0);
      r.writeUInt32LE(line, AT.line);
      r.writeUInt32LE(cases, AT.cases);
      r.writeUInt16LE(kind, AT.kind);
      if (typeof key !== 'string') r.set(key, AT.key);
      if (outcome) {
        r[AT.hasOutcome] = 1;
        for (let k = 0; k < 4; k++) r.writeUInt32LE(outcome[k] ?? 0, AT.outcome + k * 4);
      }
      // The id's UTF-16 through one reused buffer: a Buffer per id was a small slab's worth of garbage.
      if (this.idBytes.length < id.length * 2) this.idBytes = Buffer.allocUnsafe(id.length * 4);
      const at = this.store().append(r, this.idBytes.subarray(0, this.idBytes.write(id, 'utf16le')));
      this.lease.spilled++;
      const j = n - this.kept;
      const last = this.runStarts.length - 1;
      if (last < 0 || (this.runAt[last] ?? 0) + j - (this.runStarts[last] ?? 0) !== at) {
        this.runStarts.push(j);
        this.runAt.push(at);
      }
    } else {
      if (n === this.lines.length) this.grow(Math.max(256, n * 2));
      const start = n === 0 ? 0 : (this.idEnds[n - 1] ?? 0);
      if (start + id.length > this.idUnits.length) {
        const bigger = new Uint16Array(Math.max(this.idUnits.length * 2, start + id.length));
        bigger.set(this.idUnits);
        this.idUnits = bigger;
      }
      for (let i = 0; i < id.length; i++) this.idUnits[start + i] = id.charCodeAt(i);
      this.idEnds[n] = start + id.length;
      this.lines[n] = line;
      this.cases[n] = cases;
      this.kinds[n] = kind;
      if (typeof key !== 'string') this.keys.set(key, n * 20);
      if (outcome) {
        this.hasOutcome[n] = 1;
        for (let k = 0; k < 4; k++) this.outcomes[n * 4 + k] = outcome[k] ?? 0;
      }
    }
    this.count++;
  }

  /** Row `i` as an object; undefined outside the rows. */
  at(i: number): TaskRow | undefined {
    if (!(i >= 0 && i < this.count)) return undefined;
    const odd = this.oddKeys.get(i);
    if (i >= this.kept) {
      const s = this.store();
      const at = this.storeIndex(i);
      const id = s.ids.read(at).toString('utf16le');
      const r = s.records.read(at);
      return this.made(
        id,
        r.readUInt32LE(AT.line),
        r.readUInt16LE(AT.kind),
        r.readUInt32LE(AT.cases),
        odd ?? r.toString('hex', AT.key, AT.key + 20),
        this.outcome(i),
      );
    }
    const start = i === 0 ? 0 : (this.idEnds[i - 1] ?? 0);
    return this.made(
      unitsText(this.idUnits.subarray(start, this.idEnds[i] ?? 0)),
      this.lines[i] ?? 0,
      this.kinds[i] ?? 0,
      this.cases[i] ?? 0,
      odd ?? Buffer.from(this.keys.buffer, i * 20, 20).toString('hex'),
      this.outcome(i),
    );
  }

  /** How row `i`'s cases came out, when they were run. */
  outcome(i: number): CaseCounts | undefined {
    if (i >= this.kept) {
      if (!(i < this.count)) return undefined;
      const r = this.store().records.read(this.storeIndex(i));
      if (!r[AT.hasOutcome]) return undefined;
      const o = (k: number): number => r.readUInt32LE(AT.outcome + k * 4);
      return { total: o(0), passed: o(1), failed: o(2), skipped: o(3) };
    }
    if (!this.hasOutcome[i]) return undefined;
    const o = this.outcomes.subarray(i * 4, i * 4 + 4);
    return { total: o[0] ?? 0, passed: o[1] ?? 0, failed: o[2] ?? 0, skipped: o[3] ?? 0 };
  }

  setOutcome(i: number, o: CaseCounts): void {
    if (i >= this.kept) {
      const records = this.store().records;
      const at = this.storeIndex(i);
      const r = this.record;
      records.read(at).copy(r);
      r[AT.hasOutcome] = 1;
      [o.total, o.passed, o.failed, o.skipped].forEach((v, k) => r.writeUInt32LE(v, AT.outcome + k * 4));
      records.overwrite(at, r);
      return;
    }
    this.hasOutcome[i] = 1;
    this.outcomes.set([o.total, o.passed, o.failed, o.skipped], i * 4);
  }

  /**
   * Gives back the room kept for rows to come, once a file's rows are all in: the arrays double as
   * they grow, so a file of 10,000 tasks held room for 16,384, and a dataset of many such files
   * kept the summaries of all of them at over 1.6 times their size. Rows can still be pushed after.
   */
  trim(): void {
    const n = this.kept;
    if (n === this.lines.length) return;
    this.idUnits = this.idUnits.slice(0, n === 0 ? 0 : (this.idEnds[n - 1] ?? 0));
    this.idEnds = this.idEnds.slice(0, n);
    this.lines = this.lines.slice(0, n);
    this.cases = this.cases.slice(0, n);
    this.kinds = this.kinds.slice(0, n);
    this.keys = this.keys.slice(0, n * 20);
    this.hasOutcome = this.hasOutcome.slice(0, n);
    this.outcomes = this.outcomes.slice(0, n * 4);
  }

  /** Gives back the rows' room in memory and in the scratch store (removed with its last rows); they cannot be read after. */
  close(): void {
    finished.unregister(this);
    release(this.lease);
    this.closed = true;
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

  /** A row object with its keys in the order the remembered summary has them. */
  private made(
    id: string,
    line: number,
    kind: number,
    cases: number,
    runKey: string,
    outcome: CaseCounts | undefined,
  ): TaskRow {
    const name = kind === 0 ? null : (this.kindNames[kind - 1] ?? null);
    // Two literals, not a spread of the first: spread rows outlived the young generation (a
    // million rows read once grew the heap by tens of megabytes before a full collection).
    return outcome ? { id, line, kind: name, cases, runKey, outcome } : { id, line, kind: name, cases, runKey };
  }

  private store(): RowStore {
    // Joined again, the shared store would give other summaries' rows for this one's indexes.
    if (this.closed) throw new Error('the rows were closed: their spilled rows are gone');
    return (this.lease.store ??= joinRowStore());
  }

  /** The store's index of row `i`, a spilled one. */
  private storeIndex(i: number): number {
    const j = i - this.kept;
    let lo = 0;
    let hi = this.runStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.runStarts[mid] ?? 0) <= j) lo = mid;
      else hi = mid - 1;
    }
    return (this.runAt[lo] ?? 0) + j - (this.runStarts[lo] ?? 0);
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

// A remembered summary's row decoded straight from the bytes of its line, in the one layout
// TaskRows.jsonElements writes: no JSON.parse, no row object. JSON.parse internalises a row's
// short strings (its id) in the old generation and the string table, so a million rows parsed
// one by one left the heap and the process twice their size until a full collection. A row in
// any other layout (escapes in a string, keys in another order, an odd run key) is not decoded
// here, and its reader parses it as JSON instead: what is accepted, and how, stays the same.
import type { TaskRows } from './taskRows';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const ID = ascii('{"id":');
const LINE = ascii(',"line":');
const KIND = ascii(',"kind":');
const NULL = ascii('null');
const CASES = ascii(',"cases":');
const RUN_KEY = ascii(',"runKey":"');
const NO_OUTCOME = ascii('"}');
const OUTCOME = [ascii('","outcome":{"total":'), ascii(',"passed":'), ascii(',"failed":'), ascii(',"skipped":')];
const OUTCOME_END = ascii('}}');

/** Decodes rows of one line into `rows`, reusing its scratch for every row. */
export class RowDecoder {
  private readonly key = new Uint8Array(20);
  private readonly counts = new Uint32Array(4);
  /** The last kind seen, as bytes and as text: a file has few kinds, so most rows make no string of theirs. */
  private kindBytes: Buffer = Buffer.alloc(0);
  private kindText = '';
  private b: Buffer = Buffer.alloc(0);
  private i = 0;
  /** Where the row ends: nothing of it is read at or past this. */
  private end = 0;

  constructor(private readonly rows: TaskRows) {}

  /** Pushes the row in `bytes` from `from` to `to`; false (nothing pushed) when it is not in the layout decoded here. */
  decode(bytes: Buffer, from: number, to: number): boolean {
    this.b = bytes;
    this.i = from;
    this.end = to;
    if (!this.literal(ID)) return false;
    const id = this.string();
    if (id === undefined || !this.literal(LINE)) return false;
    const line = this.count();
    if (line < 0 || !this.literal(KIND)) return false;
    let kind: string | null = null;
    if (!this.literal(NULL)) {
      const k = this.stringBounds();
      if (k < 0) return false;
      if (!this.kindBytes.equals(bytes.subarray(this.i + 1, k))) {
        this.kindBytes = Buffer.from(bytes.subarray(this.i + 1, k));
        this.kindText = this.kindBytes.toString('utf8');
      }
      kind = this.kindText;
      this.i = k + 1;
    }
    if (!this.literal(CASES)) return false;
    const cases = this.count();
    if (cases < 0 || !this.literal(RUN_KEY) || !this.hexKey()) return false;
    let outcome: Uint32Array | undefined;
    if (!this.literal(NO_OUTCOME)) {
      for (let k = 0; k < 4; k++) {
        if (!this.literal(OUTCOME[k] ?? NULL)) return false;
        const v = this.count();
        if (v < 0) return false;
        this.counts[k] = v;
      }
      if (!this.literal(OUTCOME_END)) return false;
      outcome = this.counts;
    }
    if (this.i !== to) return false;
    this.rows.pushParts(id, line, kind, cases, this.key, outcome);
    return true;
  }

  /** Steps over `text` at the cursor; false if it is not there. A loop: Buffer.compare costs more on so few bytes. */
  private literal(text: Buffer): boolean {
    if (this.i + text.length > this.end) return false;
    for (let k = 0; k < text.length; k++) if (this.b[this.i + k] !== text[k]) return false;
    this.i += text.length;
    return true;
  }

  /** Where the string at the cursor ends (its closing quote), or -1 unless it has only plain characters. */
  private stringBounds(): number {
    const b = this.b;
    if (b[this.i] !== QUOTE) return -1;
    for (let j = this.i + 1; j < this.end; j++) {
      const c = b[j] ?? 0;
      if (c === QUOTE) return j;
      // An escape is left to JSON.parse; a raw control character is no JSON, which JSON.parse says.
      if (c === BACKSLASH || c < 0x20) return -1;
    }
    return -1;
  }

  private string(): string | undefined {
    const end = this.stringBounds();
    if (end < 0) return undefined;
    const text = this.b.toString('utf8', this.i + 1, end);
    this.i = end + 1;
    return text;
  }

  /** A count as JSON writes it (digits, no leading zero) below 2³²; -1 for anything else. */
  private count(): number {
    const b = this.b;
    let v = 0;
    const start = this.i;
    for (; this.i < this.end && (b[this.i] ?? 0) >= ZERO && (b[this.i] ?? 0) <= NINE; this.i++)
      v = v * 10 + ((b[this.i] ?? 0) - ZERO);
    const digits = this.i - start;
    if (digits === 0 || digits > 10 || (digits > 1 && b[start] === ZERO) || v >= 2 ** 32) return -1;
    return v;
  }

  /** A run key of 40 lowercase hex digits into `key`, and its closing quote; false for any other. */
  private hexKey(): boolean {
    const b = this.b;
    if (this.i + 40 > this.end) return false;
    for (let k = 0; k < 20; k++) {
      const hi = nibble(b[this.i + 2 * k] ?? 0);
      const lo = nibble(b[this.i + 2 * k + 1] ?? 0);
      if (hi < 0 || lo < 0) return false;
      this.key[k] = (hi << 4) | lo;
    }
    this.i += 40;
    return true;
  }
}

/** The value of a lowercase hex digit; -1 for any other byte. */
function nibble(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

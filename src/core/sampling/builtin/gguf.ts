// A reader for GGUF files (version 2 and 3): metadata and F32/F16 tensors, decoded to
// Float32Array. Enough for the project's tiny built-in models; quantized types are refused.

/** A metadata value: numbers, strings, booleans and (nested) arrays of them. */
export type GgufValue = number | bigint | string | boolean | GgufValue[];

export interface GgufTensor {
  readonly name: string;
  /** GGML dimension order: `dims[0]` is the fastest-varying (the row length of a matrix). */
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

export interface GgufFile {
  readonly version: number;
  readonly metadata: ReadonlyMap<string, GgufValue>;
  readonly tensors: ReadonlyMap<string, GgufTensor>;
}

export class GgufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GgufError';
  }
}

const GGML_F32 = 0;
const GGML_F16 = 1;

/** IEEE 754 half precision to a number (subnormals, infinities and NaN included). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

// All 65536 halves, decoded once: F16 tensors become a table look-up per element.
let halfTable: Float32Array | undefined;
function halves(): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) halfTable[i] = halfToFloat(i);
  }
  return halfTable;
}

class Cursor {
  offset = 0;
  private readonly view: DataView;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): void {
    if (this.offset + n > this.bytes.byteLength)
      throw new GgufError(`truncated file: needs ${n} bytes at offset ${this.offset}`);
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }
  i8(): number {
    this.need(1);
    return this.view.getInt8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }
  i16(): number {
    this.need(2);
    const v = this.view.getInt16(this.offset, true);
    this.offset += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }
  f32(): number {
    this.need(4);
    const v = this.view.getFloat32(this.offset, true);
    this.offset += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }
  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return v;
  }
  /** A u64 that must fit a safe integer (counts, lengths, offsets). */
  size(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufError(`size ${v} too large`);
    return Number(v);
  }
  string(): string {
    const n = this.size();
    this.need(n);
    const s = this.decoder.decode(this.bytes.subarray(this.offset, this.offset + n));
    this.offset += n;
    return s;
  }
  value(type: number): GgufValue {
    switch (type) {
      case 0:
        return this.u8();
      case 1:
        return this.i8();
      case 2:
        return this.u16();
      case 3:
        return this.i16();
      case 4:
        return this.u32();
      case 5:
        return this.i32();
      case 6:
        return this.f32();
      case 7:
        return this.u8() !== 0;
      case 8:
        return this.string();
      case 9: {
        const itemType = this.u32();
        const n = this.size();
        const items: GgufValue[] = [];
        for (let i = 0; i < n; i++) items.push(this.value(itemType));
        return items;
      }
      case 10:
        return small(this.u64());
      case 11:
        return small(this.i64());
      case 12:
        return this.f64();
      default:
        throw new GgufError(`unknown metadata type ${type} at offset ${this.offset}`);
    }
  }
}

// 64-bit integers become numbers when they are exact, else stay bigints.
const small = (v: bigint): number | bigint =>
  v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;

/** Parses a whole GGUF file held in memory. */
export function parseGguf(bytes: Uint8Array): GgufFile {
  const c = new Cursor(bytes);
  if (bytes.byteLength < 4 || String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!) !== 'GGUF')
    throw new GgufError('not a GGUF file (bad magic)');
  c.offset = 4;
  const version = c.u32();
  if (version !== 2 && version !== 3) throw new GgufError(`unsupported GGUF version ${version}`);
  const tensorCount = c.size();
  const kvCount = c.size();
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = c.string();
    metadata.set(key, c.value(c.u32()));
  }
  const infos: { name: string; dims: number[]; type: number; offset: number }[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = c.string();
    const nDims = c.u32();
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(c.size());
    infos.push({ name, dims, type: c.u32(), offset: c.size() });
  }
  const alignment = metadata.get('general.alignment');
  const align = typeof alignment === 'number' && alignment > 0 ? alignment : 32;
  const dataStart = Math.ceil(c.offset / align) * align;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tensors = new Map<string, GgufTensor>();
  for (const info of infos) {
    const count = info.dims.reduce((a, b) => a * b, 1);
    const start = dataStart + info.offset;
    const data = new Float32Array(count);
    if (info.type === GGML_F32) {
      if (start + 4 * count > bytes.byteLength)
        throw new GgufError(`tensor ${info.name} runs past the end of the file`);
      for (let i = 0; i < count; i++) data[i] = view.getFloat32(start + 4 * i, true);
    } else if (info.type === GGML_F16) {
      if (start + 2 * count > bytes.byteLength)
        throw new GgufError(`tensor ${info.name} runs past the end of the file`);
      const table = halves();
      for (let i = 0; i < count; i++) data[i] = table[view.getUint16(start + 2 * i, true)]!;
    } else {
      throw new GgufError(`tensor ${info.name}: ggml type ${info.type} is not supported (only F32 and F16)`);
    }
    tensors.set(info.name, { name: info.name, dims: info.dims, data });
  }
  return { version, metadata, tensors };
}

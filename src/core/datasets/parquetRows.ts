// Parquet rows read leaf column by leaf column: each column chunk's pages are decoded by the
// Parquet reader (hyparquet) into values and definition and repetition levels, and the rows are
// built from those flat arrays in one pass. The reader's own row assembly wraps every value of
// a nested column in arrays and inverts every struct row by row, which is most of the time and
// memory of reading a training set (chat messages, `extra_info`, `reward_model`); this builds
// each row's objects once. It reads the shapes training rows have — plain columns, structs of
// them (at any depth), and three-level lists of plain values or of structs of plain values — and
// says it cannot (undefined) for any other schema, which is then read the reader's way. Rows
// are the same either way (test/core/parquetRows.test.ts compares them on every export format).
import type { AsyncBuffer, FileMetaData, SchemaTree } from 'hyparquet' with { 'resolution-mode': 'import' };
import type { ColumnDecoder, DecodedArray, ParquetParsers } from 'hyparquet/src/types.js' with {
  'resolution-mode': 'import',
};

/** A value a row holds, as JSON has it (64-bit integers as numbers). */
type Value = string | number | boolean | null | Uint8Array | Value[] | { [k: string]: Value };

/** One leaf column's values and levels for a row group. */
interface Leaf {
  readonly path: readonly string[];
  readonly schemaPath: SchemaTree[];
  /** The definition level a value is present at. */
  readonly maxDef: number;
  defs: number[];
  reps: number[];
  values: Value[];
  /** Read positions: the next level entry and the next value. */
  at: number;
  value: number;
}

/** How a top-level column becomes a row's value. */
type Shape =
  | { readonly kind: 'leaf'; readonly name: string; readonly leaf: Leaf }
  | { readonly kind: 'struct'; readonly name: string; readonly def: number; readonly fields: readonly Shape[] }
  | {
      readonly kind: 'list';
      readonly name: string;
      /** Levels: the list is there (else null); an element is there (else the list is empty); it is not null. */
      readonly def: number;
      readonly entryDef: number;
      readonly elementDef: number;
      readonly element: Shape;
    };

/** Leaf types this reader converts the reader's way with nothing of its own to add (no dates, decimals). */
function plainLeaf(t: SchemaTree): boolean {
  const e = t.element;
  if (e.repetition_type === 'REPEATED' || t.children.length) return false;
  if (e.logical_type && e.logical_type.type !== 'STRING') return false;
  if (e.converted_type && e.converted_type !== 'UTF8') return false;
  return ['BOOLEAN', 'INT32', 'INT64', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY'].includes(String(e.type));
}

const optional = (t: SchemaTree): number => (t.element.repetition_type === 'REQUIRED' ? 0 : 1);

/**
 * The shape of a column under `path` at definition level `def` (the parent's), with its leaves
 * pushed to `leaves`; undefined when it is not one this reader takes.
 */
function shapeOf(t: SchemaTree, schemaPath: SchemaTree[], def: number, leaves: Leaf[]): Shape | undefined {
  const name = t.element.name;
  const here = [...schemaPath, t];
  if (t.element.repetition_type === 'REPEATED') return undefined;
  const d = def + optional(t);
  if (!t.children.length) {
    if (!plainLeaf(t)) return undefined;
    const leaf: Leaf = {
      path: here.slice(1).map((s) => s.element.name),
      schemaPath: here,
      maxDef: d,
      defs: [],
      reps: [],
      values: [],
      at: 0,
      value: 0,
    };
    leaves.push(leaf);
    return { kind: 'leaf', name, leaf };
  }
  if (t.element.converted_type === 'LIST') {
    // <list> (LIST) > repeated group `list` > one element (a plain value or a struct of them).
    const [repeated] = t.children;
    const [element] = repeated?.children ?? [];
    // Lists are top-level columns only: a row's entries of one are read in one go.
    if (schemaPath.length !== 1 || t.children.length !== 1 || !repeated || !element || repeated.children.length !== 1)
      return undefined;
    if (repeated.element.repetition_type !== 'REPEATED') return undefined;
    const entryDef = d + 1;
    const shape = shapeOf(element, [...here, repeated], entryDef, leaves);
    if (!shape || (shape.kind === 'struct' && shape.fields.some((f) => f.kind !== 'leaf'))) return undefined;
    return { kind: 'list', name, def: d, entryDef, elementDef: entryDef + optional(element), element: shape };
  }
  if (t.element.converted_type || t.element.logical_type) return undefined;
  const fields: Shape[] = [];
  for (const c of t.children) {
    const f = shapeOf(c, here, d, leaves);
    if (!f) return undefined;
    fields.push(f);
  }
  return { kind: 'struct', name, def: d, fields };
}

/** The first leaf under a shape: its levels say whether the shape's value is there. */
function firstLeaf(s: Shape): Leaf {
  if (s.kind === 'leaf') return s.leaf;
  if (s.kind === 'list') return firstLeaf(s.element);
  const [f] = s.fields;
  if (!f) throw new Error('a struct with no fields');
  return firstLeaf(f);
}

const plainValue = (v: unknown): Value => (typeof v === 'bigint' ? Number(v) : (v as Value));

/** The value of a column with no list above it, at the current entry of its leaves. */
function valueAt(s: Shape, def: number): Value {
  if (s.kind === 'leaf') {
    const leaf = s.leaf;
    return def >= leaf.maxDef ? (leaf.values[leaf.value++] as Value) : null;
  }
  if (s.kind === 'struct') {
    if (def < s.def) return null;
    const out: { [k: string]: Value } = {};
    for (const f of s.fields) {
      const l = firstLeaf(f);
      out[f.name] = valueAt(f, l.defs.length ? (l.defs[l.at] as number) : l.maxDef);
    }
    return out;
  }
  throw new Error('a list inside a list');
}

/** Moves every leaf under a shape to its next level entry. */
function advance(s: Shape): void {
  if (s.kind === 'leaf') s.leaf.at++;
  else if (s.kind === 'list') advance(s.element);
  else for (const f of s.fields) advance(f);
}

/** A row's value of a column, its leaves at the row's first entry; leaves them at the next row's. */
function columnValue(s: Shape): Value {
  if (s.kind !== 'list') {
    const l = firstLeaf(s);
    const v = valueAt(s, l.defs.length ? (l.defs[l.at] as number) : l.maxDef);
    advance(s);
    return v;
  }
  const l = firstLeaf(s.element);
  const def = (): number => (l.defs.length ? (l.defs[l.at] as number) : l.maxDef);
  const first = def();
  if (first < s.def) {
    advance(s.element);
    return null;
  }
  const out: Value[] = [];
  if (first < s.entryDef) {
    advance(s.element);
    return out;
  }
  do {
    const d = def();
    out.push(d < s.elementDef ? null : valueAt(s.element, d));
    advance(s.element);
  } while (l.at < l.defs.length && l.reps[l.at] !== 0);
  return out;
}

/** The hyparquet modules this reads pages with (its `src/*.js` exports). */
interface Decoders {
  readonly column: typeof import('hyparquet/src/column.js', { with: { 'resolution-mode': 'import' } });
  readonly datapage: typeof import('hyparquet/src/datapage.js', { with: { 'resolution-mode': 'import' } });
  readonly convert: typeof import('hyparquet/src/convert.js', { with: { 'resolution-mode': 'import' } });
}

/** Decodes one column chunk's pages into the leaf's values and levels. */
function readLeaf(d: Decoders, leaf: Leaf, bytes: ArrayBuffer, decoder: ColumnDecoder, entries: number): void {
  const reader = { view: new DataView(bytes), offset: 0 };
  let dictionary: DecodedArray | undefined;
  leaf.defs = [];
  leaf.reps = [];
  leaf.values = [];
  leaf.at = 0;
  leaf.value = 0;
  let read = 0;
  while (read < entries && reader.offset < reader.view.byteLength - 1) {
    const header = d.column.parquetHeader(reader);
    if (header.type === 'DICTIONARY_PAGE') {
      const { data } = d.column.readPage(reader, header, decoder, undefined, undefined, 0);
      if (data) dictionary = d.convert.convert(data, decoder);
      continue;
    }
    const bytes = new Uint8Array(
      reader.view.buffer,
      reader.view.byteOffset + reader.offset,
      header.compressed_page_size,
    );
    reader.offset += header.compressed_page_size;
    let page;
    let encoding;
    if (header.type === 'DATA_PAGE' && header.data_page_header) {
      encoding = header.data_page_header.encoding;
      read += header.data_page_header.num_values;
      const raw = d.datapage.decompressPage(
        bytes,
        Number(header.uncompressed_page_size),
        decoder.codec,
        decoder.compressors,
      );
      page = d.datapage.readDataPage(raw, header.data_page_header, decoder);
    } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2) {
      encoding = header.data_page_header_v2.encoding;
      read += header.data_page_header_v2.num_values;
      page = d.datapage.readDataPageV2(bytes, header, decoder);
    } else throw new Error(`parquet unsupported page type: ${header.type}`);
    const values = d.convert.convertWithDictionary(page.dataPage, dictionary, encoding, decoder);
    const defs = page.definitionLevels ?? [];
    for (let i = 0; i < defs.length; i++) leaf.defs.push(defs[i] as number);
    for (let i = 0; i < page.repetitionLevels.length; i++) leaf.reps.push(page.repetitionLevels[i] as number);
    for (let i = 0; i < values.length; i++) leaf.values.push(plainValue(values[i]));
    // A page without levels (every value there, none repeated): each value is an entry.
    if (!defs.length && leaf.maxDef) for (let i = 0; i < values.length; i++) leaf.defs.push(leaf.maxDef);
  }
}

/**
 * Reads the rows of a Parquet file a row group at a time, as plain objects (64-bit integers as
 * numbers); undefined when its schema has a shape this reader does not take.
 */
export async function parquetRowReader(
  file: AsyncBuffer,
  meta: FileMetaData,
  parsers: Partial<ParquetParsers>,
): Promise<((group: number) => Promise<Record<string, Value>[]>) | undefined> {
  const { parquetSchema } = await import('hyparquet');
  const root = parquetSchema(meta);
  const leaves: Leaf[] = [];
  const shapes: Shape[] = [];
  for (const c of root.children) {
    const s = shapeOf(c, [root], 0, leaves);
    if (!s) return undefined;
    shapes.push(s);
  }
  const d: Decoders = {
    column: await import('hyparquet/src/column.js'),
    datapage: await import('hyparquet/src/datapage.js'),
    convert: await import('hyparquet/src/convert.js'),
  };
  const byPath = new Map(leaves.map((l) => [l.path.join('\0'), l]));
  return async (g) => {
    const group = meta.row_groups[g];
    if (!group) throw new Error(`no row group ${g}`);
    const rows = Number(group.num_rows);
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m) throw new Error('parquet column chunk has no metadata');
      const leaf = byPath.get(m.path_in_schema.join('\0'));
      if (!leaf) throw new Error(`parquet column ${m.path_in_schema.join('.')} is not in the schema`);
      const start = Number(m.dictionary_page_offset || m.data_page_offset);
      const bytes = await file.slice(start, start + Number(m.total_compressed_size));
      const last = leaf.schemaPath[leaf.schemaPath.length - 1] as SchemaTree;
      const decoder = {
        pathInSchema: m.path_in_schema,
        element: last.element,
        schemaPath: leaf.schemaPath,
        ...m,
        parsers: { ...d.convert.DEFAULT_PARSERS, ...parsers },
      } as ColumnDecoder;
      readLeaf(d, leaf, bytes, decoder, Number(m.num_values));
    }
    const out: Record<string, Value>[] = [];
    for (let i = 0; i < rows; i++) {
      const row: Record<string, Value> = {};
      for (const s of shapes) row[s.name] = columnValue(s);
      out.push(row);
    }
    return out;
  };
}

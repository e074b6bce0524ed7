// Parquet rows built from their columns (parquetRows.ts, what `readRows` uses) are the rows the
// Parquet reader assembles itself: for every export format, for nulls at every level of structs
// and lists (a null list, an empty one, a null element, a null field), for 64-bit integers, over
// several pages and row groups; and a schema the column reader does not take is still read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EXPORT_FORMATS } from '../../src/core/datasets/formats';
import { listOf, str, strList, struct, int32, double, bool } from '../../src/core/datasets/parquetSchema';
import { parquetRowReader } from '../../src/core/datasets/parquetRows';
import { openRowSink, PARQUET_PARSERS, plainRow, readRows } from '../../src/core/datasets/rowFiles';
import { writeDataset } from '../support/datasetFixture';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-parquet-rows-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The rows as the Parquet reader assembles them. */
async function readerRows(file: string): Promise<Record<string, unknown>[]> {
  const { asyncBufferFromFile, parquetReadObjects } = await import('hyparquet');
  const rows = await parquetReadObjects({ file: await asyncBufferFromFile(file), parsers: PARQUET_PARSERS });
  return (rows as Record<string, unknown>[]).map(plainRow);
}

async function rowsOf(file: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of readRows(file, 'parquet')) {
    assert.equal(r.n, out.length);
    assert.equal(r.where, `row ${out.length}`);
    out.push(r.row as Record<string, unknown>);
  }
  return out;
}

async function takenByColumns(file: string): Promise<boolean> {
  const { asyncBufferFromFile, parquetMetadataAsync } = await import('hyparquet');
  const buffer = await asyncBufferFromFile(file);
  return (await parquetRowReader(buffer, await parquetMetadataAsync(buffer), PARQUET_PARSERS)) !== undefined;
}

/** Formats whose rows hold a list inside a struct (open-instruct's env_config) are read the reader's way. */
const BY_COLUMNS = new Set(['verl', 'trl', 'hf', 'verifiers']);

for (const format of EXPORT_FORMATS.keys()) {
  test(`${format} rows read by readRows are the reader's rows`, async (t) => {
    const file = path.join(dir, `${format}.parquet`);
    try {
      await writeDataset(file, 40, format);
    } catch (e) {
      // A format that cannot carry every template task (a grader it lacks) writes no file here.
      t.skip(`${format} does not export the fixture: ${(e as Error).message}`);
      return;
    }
    if (BY_COLUMNS.has(format)) assert.ok(await takenByColumns(file), `${format}'s schema is read by columns`);
    const rows = await rowsOf(file);
    assert.deepStrictEqual(rows, await readerRows(file));
  });
}

test('verl rows: the columns, and the recorded run every fourth row carries', async () => {
  const file = path.join(dir, 'verl-check.parquet');
  await writeDataset(file, 8, 'verl');
  const rows = await rowsOf(file);
  assert.equal(rows.length, 8);
  const info = rows[1]?.extra_info as Record<string, unknown>;
  assert.equal(info.task_id, 'big/000001');
  assert.equal(info.pass_rate, 0.5);
  assert.equal((rows[0]?.extra_info as Record<string, unknown>).pass_rate, null);
  assert.deepStrictEqual(rows[3]?.prompt, [
    { role: 'system', content: 'Answer with one word.' },
    { role: 'user', content: 'What is the capital of France? (#3)' },
  ]);
});

const NESTED = [
  { name: 'id', schema: str('id') },
  { name: 'n', schema: [{ name: 'n', type: 'INT64', repetition_type: 'OPTIONAL' }] },
  { name: 'req', schema: [{ name: 'req', type: 'INT32', repetition_type: 'REQUIRED' }] },
  { name: 'messages', schema: listOf('messages', [str('role'), str('content')]) },
  { name: 'tags', schema: strList('tags') },
  {
    name: 'info',
    schema: struct('info', [double('rate'), bool('ok'), struct('deep', [str('a'), struct('deeper', [int32('b')])])]),
  },
];

/** Row i: its values null, empty or there in turn, at every level. */
function nestedRow(i: number): Record<string, unknown> {
  const k = i % 7;
  return {
    id: k === 0 ? null : `row-${i}-${'x'.repeat(i % 50)}`,
    n: k === 1 ? null : BigInt(i) * 3_000_000_000n,
    req: i,
    messages:
      k === 2
        ? null
        : k === 3
          ? []
          : k === 4
            ? [null, { role: 'user', content: null }]
            : [
                { role: 'system', content: `be brief ${i}` },
                { role: 'user', content: `question ${i}` },
              ],
    tags: k === 5 ? null : k === 6 ? [] : k === 0 ? ['a', null, 'c'] : [`t${i}`],
    info:
      k === 3
        ? null
        : {
            rate: k === 4 ? null : i / 7,
            ok: k === 5 ? null : i % 2 === 0,
            deep: k === 6 ? null : { a: k === 1 ? null : `a${i}`, deeper: k === 2 ? null : { b: k === 0 ? null : i } },
          },
  };
}

test("nulls at every level, 64-bit integers, many pages and row groups: the reader's rows", async () => {
  const file = path.join(dir, 'nested.parquet');
  const sink = await openRowSink(file, 'parquet', NESTED);
  // Past one row group (10,000 rows), with pages of long strings.
  for (let i = 0; i < 12_000; i++) await sink.write(nestedRow(i));
  await sink.close();
  assert.ok(await takenByColumns(file));
  const rows = await rowsOf(file);
  assert.equal(rows.length, 12_000);
  assert.deepStrictEqual(rows, await readerRows(file));
  // What the rows hold, said plainly for a few of them.
  assert.deepStrictEqual(rows[4]?.messages, [null, { role: 'user', content: null }]);
  assert.equal(rows[2]?.messages, null);
  assert.deepStrictEqual(rows[3]?.messages, []);
  assert.equal(rows[3]?.info, null);
  assert.equal(rows[9]?.n, 27_000_000_000);
  assert.deepStrictEqual(rows[7]?.tags, ['a', null, 'c']);
  assert.deepStrictEqual((rows[6]?.info as Record<string, unknown>).deep, null);
});

test("a schema the column reader does not take (a date) is read the reader's way", async () => {
  const file = path.join(dir, 'dates.parquet');
  const sink = await openRowSink(file, 'parquet', [
    { name: 'id', schema: str('id') },
    { name: 'day', schema: [{ name: 'day', type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' }] },
  ]);
  for (let i = 0; i < 5; i++) await sink.write({ id: `d${i}`, day: new Date(Date.UTC(2026, 0, 1 + i)) });
  await sink.close();
  assert.equal(await takenByColumns(file), false);
  const rows = await rowsOf(file);
  assert.deepStrictEqual(rows, await readerRows(file));
  assert.deepStrictEqual(
    rows.map((r) => r.id),
    ['d0', 'd1', 'd2', 'd3', 'd4'],
  );
});

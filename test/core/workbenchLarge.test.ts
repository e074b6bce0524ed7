// A million-row Parquet file in the workbench's worker thread (out/workbenchWorker.js, as the
// extension host starts it): every row is read, a sort, a search and a filter give the right
// rows at the start, the middle and the end of the view, and no answer the host takes in is
// more than a window's worth, however many rows a request asks for.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { after, test } from 'node:test';
import { MAX_WORKBENCH_WINDOW } from '../../src/core/base/workbenchProtocol';
import { double, str } from '../../src/core/datasets/parquetSchema';
import { openRowSink } from '../../src/core/datasets/rowFiles';
import { WorkbenchClient, type ViewResult } from '../../src/core/workbench/client';
import type { SortSpec, WorkbenchRowView } from '../../src/core/workbench/index';

const ROWS = 1_000_000;
/** The most a single answer to the host may weigh, as the structured clone it arrives as. */
const MAX_ANSWER_BYTES = 256 * 1024;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-workbench-large-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const worker = path.resolve(__dirname, '../../workbenchWorker.js');

const id = (i: number): string => `q${String(i).padStart(7, '0')}`;
const question = (i: number): string => `What is ${i} + ${i % 7}?${i % 1000 === 0 ? ' (rare)' : ''}`;

test('a million Parquet rows: paged, sorted, searched and filtered rightly, in answers of a window at most', async () => {
  const file = path.join(root, 'train.parquet');
  const sink = await openRowSink(file, 'parquet', [
    { name: 'id', schema: str('id') },
    { name: 'question', schema: str('question') },
    { name: 'answer', schema: str('answer') },
    { name: 'pass_rate', schema: double('pass_rate') },
    { name: 'band', schema: str('band') },
  ]);
  for (let i = 0; i < ROWS; i++) {
    const run = i % 10 === 0;
    await sink.write({
      id: id(i),
      question: question(i),
      answer: String(i + (i % 7)),
      pass_rate: run ? (i % 100) / 100 : null,
      band: run ? 'learnable' : null,
    });
  }
  await sink.close();

  const client = new WorkbenchClient(worker, { paths: [file], options: { root } });
  try {
    const opened = await client.opened;
    assert.equal(opened.rows, ROWS);
    assert.deepStrictEqual(opened.models, ['recorded']);
    let largest = 0;
    const weigh = <T>(got: T): T => {
      largest = Math.max(largest, v8.serialize(got).length);
      return got;
    };
    const view = async (query: string, sort?: SortSpec): Promise<ViewResult> =>
      weigh(await client.request({ op: 'view', query, ...(sort ? { sort } : {}) }));
    const rows = async (start: number, end: number): Promise<WorkbenchRowView[]> =>
      weigh(await client.request({ op: 'window', start, end }));
    const ids = async (start: number, end: number): Promise<string[]> => (await rows(start, end)).map((r) => r.id);

    // In the file's order, then sorted by id from the last.
    assert.deepStrictEqual(await ids(ROWS - 2, ROWS), [id(ROWS - 2), id(ROWS - 1)]);
    assert.deepStrictEqual(await view('', { column: 'id', descending: true }), { size: ROWS });
    assert.deepStrictEqual(await ids(0, 3), [id(999_999), id(999_998), id(999_997)]);
    assert.deepStrictEqual(await ids(500_000, 500_002), [id(499_999), id(499_998)]);
    assert.deepStrictEqual(await ids(ROWS - 1, ROWS + 10), [id(0)]);
    const [row] = await rows(123_456, 123_457);
    assert.deepStrictEqual([row?.id, row?.prompt, row?.kind], [id(876_543), question(876_543), 'math']);

    // A search: one row in a thousand, in the index's order.
    assert.deepStrictEqual(await view('rare'), { size: 1000 });
    assert.deepStrictEqual(await ids(0, 2), [id(0), id(1000)]);
    assert.deepStrictEqual(await ids(999, 1000), [id(999_000)]);

    // A filter on the recorded runs (every tenth row; rates 0, 0.1 and 0.2 are under 0.3), sorted by rate.
    assert.deepStrictEqual(await view('model:recorded rate<0.3', { column: 'rate:recorded', descending: true }), {
      size: 30_000,
    });
    const top = await rows(0, 2);
    assert.deepStrictEqual(
      top.map((r) => [r.id, r.runs[0]?.rate]),
      [
        [id(20), 0.2],
        [id(120), 0.2],
      ],
    );

    // However many rows a window asks for, one answer holds a window's worth.
    assert.equal((await rows(0, ROWS)).length, MAX_WORKBENCH_WINDOW);
    assert.ok(largest <= MAX_ANSWER_BYTES, `the largest answer was ${largest} bytes`);
  } finally {
    await client.close();
  }
});

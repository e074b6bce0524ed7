// The table view's core: row windows over a real 100,000-row Parquet file written by the
// exporter, rows summarised as `vtask import` reads them, unknown and corrupt files, and the
// conversion to a task file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import { CELL_CHARS, convertDataset, DatasetTable, MAX_WINDOW } from '../../src/core/datasets/datasetView';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { HOSTILE_PROMPT, rowTaskId, writeDataset } from '../support/datasetFixture';

const ROWS = 100_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-dataset-view-'));
const big = path.join(dir, 'big.parquet');

before(async () => {
  await writeDataset(big, ROWS);
});

async function writeColumns(
  file: string,
  columnData: { name: string; data: unknown[]; type?: string }[],
): Promise<void> {
  const { parquetWriteFile } = await import('hyparquet-writer');
  parquetWriteFile({ filename: file, columnData: columnData as never });
}

test('a 100,000-row verl file opens with its format and row count, reading rows on demand', async () => {
  const t = await DatasetTable.open(big);
  assert.equal(t.info.rows, ROWS);
  assert.equal(t.info.format, 'verl');
  assert.equal(t.info.banner, undefined);
  assert.deepEqual(t.info.columns, ['Task id', 'Prompt', 'Verifier']);
  assert.ok(t.info.fileColumns.includes('reward_model') && t.info.fileColumns.includes('extra_info'));

  const first = await t.window(0, 40);
  assert.deepEqual(
    first.map((r) => r.n),
    [...Array(40).keys()],
  );
  assert.deepEqual(first[0]?.cells, [
    rowTaskId(0),
    'Natalia sold clips to 48 of her friends in April, and then half as many in May. How many clips did she sell altogether? (#0)',
    'math · {"answer":"72"}',
  ]);
  assert.match(first[1]?.cells[2] ?? '', /^constraints · \{"instructions":\[\{"length_constraints:number_words"/);
  // The recorded run of the export, from verl's extra_info.
  assert.deepEqual(first[1]?.result, { passRate: 0.5, band: 'learnable', source: 'file' });
  assert.equal(first[0]?.result, undefined);
  // Hostile text is carried as text; the page sets it with textContent.
  assert.equal(first[2]?.cells[1], `${HOSTILE_PROMPT} (#2)`);
  // A system message does not hide the prompt.
  assert.equal(first[3]?.cells[1], 'What is the capital of France? (#3)');

  // The last rows, across a block boundary, and a window that runs past the end.
  const last = await t.window(ROWS - 30, ROWS + 50);
  assert.equal(last.length, 30);
  assert.deepEqual([last[0]?.n, last.at(-1)?.n], [ROWS - 30, ROWS - 1]);
  assert.equal(last.at(-1)?.cells[0], rowTaskId(ROWS - 1));
  const across = await t.window(49_990, 50_010);
  assert.deepEqual(
    across.map((r) => r.cells[0]),
    Array.from({ length: 20 }, (_, i) => rowTaskId(49_990 + i)),
  );

  // Bounded: one window is at most MAX_WINDOW rows; nothing outside the file.
  assert.equal((await t.window(0, 10 * MAX_WINDOW)).length, MAX_WINDOW);
  assert.deepEqual(await t.window(ROWS, ROWS + 10), []);
  assert.deepEqual(await t.window(-5, 0), []);
});

test('a row becomes a task file of one valid task, as vtask import writes it', async () => {
  const t = await DatasetTable.open(big);
  const r = await t.taskFile(ROWS - 3);
  assert.ok('text' in r, JSON.stringify(r));
  assert.equal(r.id, rowTaskId(ROWS - 3));
  const file = parseTaskFile(r.text);
  assert.deepEqual(
    file.issues.filter((i) => i.severity === 'error'),
    [],
  );
  const [task] = runnableTasks(file).tasks;
  assert.equal(task?.id, rowTaskId(ROWS - 3));
  assert.deepEqual(task?.verify, {
    constraints: [
      { 'length_constraints:number_words': { relation: 'less than', num_words: 50 } },
      'punctuation:no_comma',
    ],
  });
  assert.deepEqual(await t.task(ROWS), { error: `row ${ROWS} is not in the file (${ROWS} rows)` });
});

test('long cells are clipped to one line', async () => {
  const file = path.join(dir, 'long.parquet');
  await writeColumns(file, [
    { name: 'question', data: [`${'word '.repeat(2000)}\nend`] },
    { name: 'answer', data: ['#### 4'] },
  ]);
  const t = await DatasetTable.open(file);
  assert.equal(t.info.format, 'qa');
  const [row] = await t.window(0, 1);
  assert.equal(row?.cells[1]?.length, CELL_CHARS);
  assert.ok(row?.cells[1]?.endsWith('…'));
  assert.doesNotMatch(row?.cells[1] ?? '', /\n/);
});

test('a file of unknown columns opens as a table of its own columns, with a banner', async () => {
  const file = path.join(dir, 'other.parquet');
  await writeColumns(file, [
    { name: 'city', data: ['Paris', 'Oslo'] },
    { name: 'people', data: [2_100_000, 700_000], type: 'INT32' },
  ]);
  const t = await DatasetTable.open(file);
  assert.equal(t.info.format, undefined);
  assert.deepEqual(t.info.columns, ['city', 'people']);
  assert.match(t.info.banner ?? '', /Not a dataset vtask knows: its columns \(city, people\)/);
  assert.deepEqual(
    (await t.window(0, 5)).map((r) => r.cells),
    [
      ['Paris', '2100000'],
      ['Oslo', '700000'],
    ],
  );
  assert.deepEqual(await t.task(0), { error: 'the file is not a dataset vtask knows' });
});

test('a row that cannot become a task says why in its row', async () => {
  const file = path.join(dir, 'bad-rows.parquet');
  await writeColumns(file, [
    { name: 'prompt', data: ['What is 2 + 2?', 'What is 3 + 3?'] },
    { name: 'vtask_verifier', data: ['{"math": {"answer": "4"}}', '{not json'] },
    { name: 'task_id', data: ['ok/1', 'bad/2'] },
  ]);
  const t = await DatasetTable.open(file);
  assert.equal(t.info.format, 'trl');
  const rows = await t.window(0, 2);
  assert.equal(rows[0]?.error, undefined);
  assert.deepEqual([rows[1]?.cells[0], rows[1]?.error], ['bad/2', '`vtask_verifier` is not valid JSON']);
});

test('a corrupt or non-Parquet file is an error that says what is wrong', async () => {
  const text = path.join(dir, 'text.parquet');
  fs.writeFileSync(text, 'this is not parquet at all\n');
  await assert.rejects(DatasetTable.open(text), /not a Parquet file: it does not start and end with PAR1/);
  const tiny = path.join(dir, 'tiny.parquet');
  fs.writeFileSync(tiny, 'PAR1');
  await assert.rejects(DatasetTable.open(tiny), /not a Parquet file: 4 bytes/);
  // A footer length larger than the file.
  const lying = path.join(dir, 'lying.parquet');
  const bytes = fs.readFileSync(path.join(dir, 'other.parquet'));
  bytes.writeUInt32LE(0x7fffffff, bytes.length - 8);
  fs.writeFileSync(lying, bytes);
  await assert.rejects(DatasetTable.open(lying), /corrupt Parquet file: its footer claims/);
  // Metadata bytes scrambled: hyparquet's own error, named as corruption.
  const scrambled = path.join(dir, 'scrambled.parquet');
  const good = fs.readFileSync(path.join(dir, 'other.parquet'));
  const footer = good.readUInt32LE(good.length - 8);
  for (let i = good.length - 8 - footer; i < good.length - 8; i++) good[i] = 0xff;
  fs.writeFileSync(scrambled, good);
  await assert.rejects(DatasetTable.open(scrambled), /corrupt Parquet file/);
});

test('Convert writes the rows beside the file as a valid task file and lists the rows it left out', async () => {
  const file = path.join(dir, 'bad-rows.parquet');
  const first = await convertDataset(file);
  assert.equal(first.out, path.join(dir, 'bad-rows.vtask'));
  assert.deepEqual([first.format, first.tasks, first.errors], ['trl', 1, 0]);
  assert.deepEqual(first.bad, [{ where: 'row 1', reason: '`vtask_verifier` is not valid JSON' }]);
  assert.deepEqual(
    runnableTasks(parseTaskFile(fs.readFileSync(first.out, 'utf8'))).tasks.map((x) => x.id),
    ['ok/1'],
  );
  // An existing file is never overwritten.
  const second = await convertDataset(file);
  assert.equal(second.out, path.join(dir, 'bad-rows-2.vtask'));
});

// Telling a dataset file from other JSON lines and Parquet files by its first rows: the editor's
// view and dashboard list only the files `vtask stats` reads as tasks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { openRowSink } from '../../src/core/datasets/rowFiles';
import { rowFileFormat } from '../../src/core/datasets/rowFormat';
import { str } from '../../src/core/datasets/parquetSchema';
import { writeDataset } from '../support/datasetFixture';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-row-format-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a JSONL or Parquet dataset is told by its format; a benchmark, a log or a task file is none', async () => {
  assert.equal(await rowFileFormat(path.resolve('test/fixtures/workspace/rows.jsonl')), 'open-instruct');
  const parquet = path.join(dir, 'train.parquet');
  await writeDataset(parquet, 500);
  assert.equal(await rowFileFormat(parquet), 'verl');
  const bench = path.join(dir, 'bench.jsonl');
  fs.writeFileSync(bench, '{"prompt": "What is the capital of France?"}\n{"prompt": "Name a prime."}\n');
  assert.equal(await rowFileFormat(bench), undefined, 'prompts alone are no dataset');
  const log = path.join(dir, 'runs.jsonl');
  fs.writeFileSync(log, '{"file": "a.vtask", "task": "t", "model": "m"}\nnot json\n');
  assert.equal(await rowFileFormat(log), undefined);
  const table = path.join(dir, 'table.parquet');
  const sink = await openRowSink(table, 'parquet', [{ name: 'x', schema: str('x') }]);
  await sink.write({ x: 'a' });
  await sink.close();
  assert.equal(await rowFileFormat(table), undefined, 'a Parquet table of other rows');
  fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
  assert.equal(await rowFileFormat(path.join(dir, 'empty.jsonl')), undefined);
  assert.equal(await rowFileFormat('test/fixtures/workspace/sample.vtask'), undefined, 'not a row file');
});

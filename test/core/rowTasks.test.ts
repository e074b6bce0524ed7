// Dataset rows (JSONL) read as tasks for the editor: the same tasks `vtask import` makes from
// the same rows, one per row line; rows that cannot be tasks reported on their line; files that
// are no dataset left alone; large files read only around the requested lines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exportDataset } from '../../src/core/datasets/exportDataset';
import { EXPORT_FORMATS } from '../../src/core/datasets/formats';
import type { DatasetFormat } from '../../src/core/datasets/format';
import { importDataset } from '../../src/core/datasets/importDataset';
import { isRowTaskFile, parseRowTasks, RowTaskParser } from '../../src/core/datasets/rowTasks';
import { findTaskFiles } from '../../src/core/taskfile/discover';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks } from '../../src/core/taskfile/resolve';
import { verify } from '../../src/core/verifiers/verify';

const ROOT = process.cwd();
const EXAMPLES = findTaskFiles([path.join(ROOT, 'examples')]).map((f) => path.relative(ROOT, f));
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-rowtasks-'));
const jsonl = (rows: readonly unknown[]): string =>
  rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
const lineOf = (file: { lines: { position(o: number): { line: number } } }, offset: number): number =>
  file.lines.position(offset).line;

for (const name of EXPORT_FORMATS.keys()) {
  test(`${name} rows exported from the examples read as the tasks \`vtask import\` makes of them, one per line`, async () => {
    const dir = tmp();
    const out = path.join(dir, 'rows.jsonl');
    await exportDataset({
      files: EXAMPLES,
      format: EXPORT_FORMATS.get(name) as DatasetFormat,
      out,
      type: 'jsonl',
      settings: { version: 'test', promptStyle: 'conversational', viaVtask: false },
      seed: 1,
      dedupe: false,
      lossy: true,
      judgeModel: 'gpt-4o-mini',
      read: (f) => fs.readFileSync(f, 'utf8'),
    });
    const back = path.join(dir, 'back.vtask');
    // The examples' environments stay where they are, outside this temporary folder.
    await importDataset({ input: out, type: 'jsonl', out: back, allowOutsidePaths: true });
    const imported = runnableTasks(parseTaskFile(fs.readFileSync(back, 'utf8'))).tasks;
    const text = fs.readFileSync(out, 'utf8');
    const file = parseRowTasks(text);
    assert.equal(file.format, name);
    assert.deepEqual(
      file.issues.filter((i) => i.severity === 'error').map((i) => i.message),
      [],
    );
    const rows = runnableTasks(file).tasks;
    assert.ok(rows.length >= 5, `${rows.length} rows`);
    assert.deepEqual(
      rows.map((t) => ({ id: t.id, messages: t.messages, verify: t.verify })),
      imported.map((t) => ({ id: t.id, messages: t.messages, verify: t.verify })),
    );
    // Each task sits on its own row's line, and its anchor (where results show) ends the line.
    rows.forEach((t, i) => {
      assert.equal(lineOf(file, t.offset), i);
      const entry = file.tasks[i];
      assert.ok(entry);
      assert.equal(text[entry.offset + entry.anchor[1]], '\n');
    });
  });
}

test('question/answer rows become math tasks whose verifier passes the gold answer', async () => {
  const file = parseRowTasks(
    jsonl([
      {
        question: 'Natalia sold 48 clips in April and half as many in May. How many in all?',
        answer: '48 + 24 = 72\n#### 72',
      },
      { question: 'What is 6 * 7?', answer: '#### 42', id: 'q/42' },
    ]),
  );
  assert.equal(file.format, 'qa');
  const [a, b] = runnableTasks(file).tasks;
  assert.ok(a && b);
  assert.deepEqual([a.id, b.id], ['qa/1', 'q/42']);
  const task = { id: a.id, prompt: a.prompt, messages: a.messages, meta: a.meta, dir: os.tmpdir() };
  assert.equal((await verify(a.verify, 'So \\boxed{72}.', { task })).pass, true);
  assert.equal((await verify(a.verify, '\\boxed{71}', { task })).pass, false);
  assert.ok(isRowTaskFile(file));
  assert.equal(isRowTaskFile(parseTaskFile('vtask: 1\ntasks: []\n')), false);
});

test('rows that cannot be tasks get an error on their own line saying why; the others still map', () => {
  const text = jsonl([
    { question: 'What is 1 + 1?', answer: '2' },
    '{"question": "unterminated',
    '[1, 2]',
    { question: 7, answer: '3' },
    '',
    { question: 'What is 2 + 2?', answer: '4' },
  ]);
  const file = parseRowTasks(text);
  assert.equal(file.format, 'qa');
  assert.deepEqual(
    file.issues.map((i) => [lineOf(file, i.start), i.code, i.severity]),
    [
      [1, 'bad-row', 'error'],
      [2, 'bad-row', 'error'],
      [3, 'bad-row', 'error'],
    ],
  );
  const [json, array, noText] = file.issues;
  assert.match(json?.message ?? '', /^not JSON: /);
  assert.match(array?.message ?? '', /not a JSON object/);
  assert.match(noText?.message ?? '', /cannot be read as a qa task: no `question`/);
  // The whole row is underlined: it starts at the line and ends with it.
  assert.equal(text.slice(noText?.start, noText?.end), JSON.stringify({ question: 7, answer: '3' }));
  assert.deepEqual(
    runnableTasks(file).tasks.map((t) => [t.id, lineOf(file, t.offset)]),
    [
      ['qa/1', 0],
      // Row numbers skip blank lines, as `vtask import` counts them.
      ['qa/5', 5],
    ],
  );
});

test("a row whose task fails validation is reported with the validator's message and does not run", () => {
  const file = parseRowTasks(
    jsonl([
      { key: 1, prompt: 'Write a poem.', instruction_id_list: ['punctuation:no_comma'], kwargs: [{}] },
      { key: 2, prompt: 'Write a haiku.', instruction_id_list: ['punctuation:no_coma'], kwargs: [{}] },
    ]),
  );
  assert.equal(file.format, 'ifeval');
  assert.equal(file.issues.length, 1);
  const [issue] = file.issues;
  assert.equal(lineOf(file, issue?.start ?? -1), 1);
  assert.match(issue?.message ?? '', /^the task this row gives: .*no_coma/);
  assert.equal(issue?.fixes, undefined, 'a fix would write YAML into the JSON');
  assert.deepEqual(
    runnableTasks(file).tasks.map((t) => t.id),
    ['ifeval/1'],
  );
});

test('a JSONL file that is no dataset gets no tasks and no issues', () => {
  const logs = jsonl([{ level: 'info', msg: 'started' }, 'not json at all', { level: 'warn', msg: 'slow', ms: 830 }]);
  const file = parseRowTasks(logs);
  assert.equal(file.format, undefined);
  assert.deepEqual([file.tasks.length, file.issues.length], [0, 0]);
  assert.equal(parseRowTasks('').tasks.length, 0);
});

test('a repeated id is renamed as import renames it, with a warning naming the first line', () => {
  const file = parseRowTasks(
    jsonl([
      { id: 'q', question: 'a?', answer: '1' },
      { id: 'q', question: 'b?', answer: '2' },
    ]),
  );
  assert.deepEqual(
    file.tasks.map((t) => t.id),
    ['q', 'q-2'],
  );
  assert.deepEqual(
    runnableTasks(file).tasks.map((t) => t.id),
    ['q', 'q-2'],
  );
  assert.equal(file.issues.length, 1);
  assert.equal(file.issues[0]?.severity, 'warning');
  assert.match(file.issues[0]?.message ?? '', /already used on line 1: this row is shown as `q-2`/);
});

test('a large file maps at most maxRows rows: the first ones, or those in the requested lines', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => ({
    id: `r${i}`,
    question: `What is ${i} + 1?`,
    answer: String(i + 1),
  }));
  const text = jsonl(rows);
  const first = parseRowTasks(text, { maxRows: 100 });
  assert.equal(first.rows, 5000);
  assert.deepEqual([first.tasks.length, first.tasks[0]?.id, first.tasks[99]?.id], [100, 'r0', 'r99']);
  const around = parseRowTasks(text, {
    maxRows: 100,
    ranges: [
      [4000, 4030],
      [10, 20],
      [4020, 4040],
    ],
  });
  assert.deepEqual(
    around.tasks.map((t) => t.id),
    [...Array.from({ length: 10 }, (_, i) => `r${10 + i}`), ...Array.from({ length: 40 }, (_, i) => `r${4000 + i}`)],
  );
  assert.deepEqual(around.window, [
    [10, 20],
    [4000, 4040],
  ]);
  // A request for more than the budget is cut to it.
  const cut = parseRowTasks(text, { maxRows: 100, ranges: [[0, 5000]] });
  assert.equal(cut.tasks.length, 100);
  // Small files are read whole whatever is asked.
  assert.equal(parseRowTasks(jsonl(rows.slice(0, 50)), { maxRows: 100, ranges: [[3, 4]] }).tasks.length, 50);
});

test('re-parsing after an edit keeps the trees of the rows it did not touch', () => {
  const parser = new RowTaskParser();
  const rows = [
    { question: 'What is 1 + 1?', answer: '2' },
    { question: 'What is 2 + 2?', answer: '4' },
  ];
  const before = parser.parse(jsonl(rows));
  const after = parser.parse(jsonl([rows[0], { ...rows[1], answer: '5' }]));
  assert.equal(after.tasks[0]?.node, before.tasks[0]?.node);
  assert.notEqual(after.tasks[1]?.node, before.tasks[1]?.node);
  assert.deepEqual(runnableTasks(after).tasks[1]?.verify, { math: { answer: '5' } });
});

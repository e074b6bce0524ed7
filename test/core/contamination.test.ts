// Benchmark contamination: benchmarks read from JSONL (each prompt field, chat messages), Parquet
// and text lines, with their errors located and huge rows bounded; tasks that quote a benchmark
// row found with the row and the span as the task writes it; tasks that share less than n
// words, or share words out of order, not reported.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readBenchmark, MAX_ROW_CHARS } from '../../src/core/overview/prompts/benchmark';
import { findContamination } from '../../src/core/overview/prompts/contamination';
import type { TaskRef } from '../../src/core/overview/dataset/types';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-contamination-'));
const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const task = (id: string, text: string, line = 0): { ref: TaskRef; text: string } => ({
  ref: { file: 'tasks.vtask', task: id, line },
  text,
});

const GSM =
  'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?';
const MATH =
  'Find the number of ordered pairs of positive integers (a, b) such that a + b = 1000 and neither a nor b has a zero digit.';
const IFEVAL =
  'Write a 300+ word summary of the wikipedia page about Raymond III, Count of Tripoli. Do not use any commas and highlight at least 3 sections that have titles in markdown format.';
const CHAT =
  'Translate the following sentence into French, keeping the tone informal and the word order as close to the original as you can: the cat is sleeping on the warm windowsill.';
/** A span runs from word to word: the question without its closing mark. */
const GSM_WORDS = GSM.slice(0, -1);
const OTHER =
  'A rectangle has a perimeter of 56 centimeters and its length is three times its width. What is the area of the rectangle in square centimeters?';

void test('readBenchmark: JSONL rows by prompt, question, problem or the user messages; rows numbered by 0-based line', async () => {
  const file = write(
    'bench.jsonl',
    [
      JSON.stringify({ question: GSM, answer: '72' }),
      '',
      JSON.stringify({ problem: MATH, solution: '738' }),
      JSON.stringify({ prompt: IFEVAL, key: 1000 }),
      JSON.stringify({
        messages: [
          { role: 'system', content: 'You are a translator.' },
          { role: 'user', content: CHAT },
          { role: 'assistant', content: 'Le chat dort.' },
        ],
      }),
      JSON.stringify({ prompt: [{ role: 'user', content: [{ type: 'text', text: OTHER }] }] }),
    ].join('\r\n') + '\n',
  );
  const b = await readBenchmark(file);
  assert.deepEqual(b.rows, [
    { row: 0, text: GSM },
    { row: 2, text: MATH },
    { row: 3, text: IFEVAL },
    { row: 4, text: CHAT },
    { row: 5, text: OTHER },
  ]);
  assert.deepEqual(b.notes, []);
});

void test('readBenchmark: Parquet rows by prompt, question or problem, numbered by row', async () => {
  const { parquetWriteFile } = await import('hyparquet-writer');
  const file = path.join(dir, 'bench.parquet');
  parquetWriteFile({
    filename: file,
    columnData: [
      { name: 'question', data: [GSM, MATH, OTHER] },
      { name: 'answer', data: ['72', '738', '147'] },
    ] as never,
  });
  assert.deepEqual((await readBenchmark(file)).rows, [
    { row: 0, text: GSM },
    { row: 1, text: MATH },
    { row: 2, text: OTHER },
  ]);
  const problems = path.join(dir, 'problems.parquet');
  parquetWriteFile({ filename: problems, columnData: [{ name: 'problem', data: [MATH] }] as never });
  assert.deepEqual((await readBenchmark(problems)).rows, [{ row: 0, text: MATH }]);
  const prompts = path.join(dir, 'prompts.parquet');
  parquetWriteFile({ filename: prompts, columnData: [{ name: 'prompt', data: [IFEVAL, CHAT] }] as never });
  assert.deepEqual(
    (await readBenchmark(prompts)).rows.map((r) => r.text),
    [IFEVAL, CHAT],
  );
  const cities = path.join(dir, 'cities.parquet');
  parquetWriteFile({ filename: cities, columnData: [{ name: 'city', data: ['Paris'] }] as never });
  await assert.rejects(readBenchmark(cities), (e: Error) => e.message.startsWith(`${cities}: row 0: no \`prompt\``));
  const broken = write('broken.parquet', 'PAR1 and nothing else');
  await assert.rejects(readBenchmark(broken), (e: Error) =>
    e.message.startsWith(`${broken}: not a readable Parquet file`),
  );
});

void test('readBenchmark: plain text is one prompt per non-empty line', async () => {
  const file = write('bench.txt', `${GSM}\n\n   \n${MATH}\r\n${OTHER}`);
  assert.deepEqual((await readBenchmark(file)).rows, [
    { row: 0, text: GSM },
    { row: 3, text: MATH },
    { row: 4, text: OTHER },
  ]);
});

void test('readBenchmark: bad rows name the file and line; a missing file is an error', async () => {
  const bad = write(
    'bad.jsonl',
    `${JSON.stringify({ prompt: GSM })}\n${JSON.stringify({ prompt: MATH })}\n{"prompt": "unterminated\n`,
  );
  await assert.rejects(readBenchmark(bad), (e: Error) => e.message.startsWith(`${bad}: line 3: not JSON`));
  const array = write('array.jsonl', '[1, 2]\n');
  await assert.rejects(readBenchmark(array), (e: Error) => e.message === `${array}: line 1: not a JSON object`);
  const nofield = write('nofield.jsonl', `\n${JSON.stringify({ text: GSM, id: 1 })}\n`);
  await assert.rejects(
    readBenchmark(nofield),
    (e: Error) =>
      e.message === `${nofield}: line 2: no \`prompt\`, \`question\`, \`problem\` or \`messages\` (columns: text, id)`,
  );
  const nouser = write('nouser.jsonl', `${JSON.stringify({ messages: [{ role: 'system', content: 'x' }] })}\n`);
  await assert.rejects(readBenchmark(nouser), /line 1: `messages` has no user message with text/);
  await assert.rejects(readBenchmark(path.join(dir, 'missing.jsonl')), /missing\.jsonl: cannot be read/);
});

void test('readBenchmark: a row over 1 MB is skipped (JSONL) or cut (text) with a note, and the rows after it are read', async () => {
  const huge = 'word '.repeat(Math.ceil((MAX_ROW_CHARS * 3) / 5));
  const jsonl = write(
    'huge.jsonl',
    `${JSON.stringify({ prompt: GSM })}\n${JSON.stringify({ prompt: huge })}\n${JSON.stringify({ prompt: MATH })}\n`,
  );
  const b = await readBenchmark(jsonl);
  assert.deepEqual(b.rows, [
    { row: 0, text: GSM },
    { row: 2, text: MATH },
  ]);
  assert.deepEqual(b.notes, [`${jsonl}: line 2: skipped, longer than 1,048,576 bytes`]);
  const text = write('huge.txt', `${GSM}\n${huge}\n${MATH}\n`);
  const t = await readBenchmark(text);
  assert.deepEqual(
    t.rows.map((r) => [r.row, r.text.length]),
    [
      [0, GSM.length],
      [1, MAX_ROW_CHARS],
      [2, MATH.length],
    ],
  );
  assert.deepEqual(t.notes, [`${text}: line 2: cut to its first 1,048,576 characters`]);
});

void test('findContamination: a task quoting a row is found with the row and the longest shared span as the task writes it', () => {
  const rows = [
    { row: 0, text: GSM },
    { row: 3, text: MATH },
    { row: 4, text: IFEVAL },
    { row: 7, text: OTHER },
  ];
  const quoted =
    'Here is a puzzle for you. \u201cFIND THE NUMBER OF ORDERED PAIRS OF POSITIVE INTEGERS (A,B) SUCH THAT A+B = 1000\u201d \u2014 and explain your steps.';
  const tasks = [
    task(
      'clean',
      'Write a haiku about autumn leaves falling into a quiet river at dawn, in English, without using the letter e.',
    ),
    task('gsm', `Solve this: ${GSM} Show your work.`, 4),
    task('math', quoted, 9),
    // 12 words of the row in a row, then another word: below 13.
    task('short', 'Report: Natalia sold clips to 48 of her friends in April, and then bought more.'),
    // Every word of the row, but shuffled into another order: no 13 words in a row.
    task(
      'shuffled',
      'In April and May, how many clips did Natalia sell altogether? She sold half as many clips in May; in April, to 48 of her friends, Natalia sold clips.',
    ),
    // Exactly 13 words in a row.
    task('thirteen', 'Summary: write a 300+ word summary of the wikipedia page about Raymond III please.'),
  ];
  const hits = findContamination(tasks, rows, { benchmark: 'mixed.jsonl' });
  assert.deepEqual(hits, [
    { file: 'tasks.vtask', task: 'gsm', line: 4, benchmark_row: 0, overlap: GSM_WORDS, benchmark: 'mixed.jsonl' },
    {
      file: 'tasks.vtask',
      task: 'math',
      line: 9,
      benchmark_row: 3,
      overlap: 'FIND THE NUMBER OF ORDERED PAIRS OF POSITIVE INTEGERS (A,B) SUCH THAT A+B = 1000\u201d \u2014 and',
      benchmark: 'mixed.jsonl',
    },
    {
      file: 'tasks.vtask',
      task: 'thirteen',
      line: 0,
      benchmark_row: 4,
      overlap: 'write a 300+ word summary of the wikipedia page about Raymond III',
      benchmark: 'mixed.jsonl',
    },
  ]);
  // A shorter n finds the 12-word quote too.
  assert.deepEqual(
    findContamination(tasks, rows, { n: 12 }).map((h) => [h.task, h.benchmark_row, h.overlap]),
    [
      ['gsm', 0, GSM_WORDS],
      ['math', 3, 'FIND THE NUMBER OF ORDERED PAIRS OF POSITIVE INTEGERS (A,B) SUCH THAT A+B = 1000\u201d \u2014 and'],
      ['short', 0, 'Natalia sold clips to 48 of her friends in April, and then'],
      ['thirteen', 4, 'write a 300+ word summary of the wikipedia page about Raymond III'],
    ],
  );
  assert.throws(() => findContamination(tasks, rows, { n: 0 }), /n-gram length/);
});

void test('findContamination: rows shorter than n words count whole from 8 words; the longest overlap and then the first row wins', () => {
  const rows = [
    { row: 0, text: 'What is 2+2?' },
    { row: 1, text: 'Compute the sum of the first 100 odd numbers.' },
    { row: 2, text: `${GSM} Answer with a number.` },
    { row: 3, text: GSM },
  ];
  const hits = findContamination(
    [
      task('a', 'Warm-up: what is 2 + 2? Then compute the sum of the first 100 odd numbers, please.'),
      task('b', `${GSM} Answer with a number only.`),
      task('c', GSM),
      task('d', 'Compute the sum of the first 100 even numbers.'),
    ],
    rows,
  );
  assert.deepEqual(
    hits.map((h) => [h.task, h.benchmark_row, h.overlap]),
    [
      ['a', 1, 'compute the sum of the first 100 odd numbers'],
      ['b', 2, `${GSM} Answer with a number`],
      ['c', 2, GSM_WORDS],
    ],
  );
});

void test('findContamination: a templated row is told from its siblings that share its beginning or its end', () => {
  const row = (name: string, daily: number, pages: number): string =>
    `${name} reads ${daily} pages on weekdays and twice as many on weekends. How many weeks will it take to finish a book of ${pages} pages?`;
  const rows = [
    { row: 0, text: row('Natalia', 12, 300) },
    { row: 1, text: row('Mateo', 20, 400) },
    { row: 2, text: row('Natalia', 12, 400) },
  ];
  const [hit] = findContamination([task('quote', `Solve: ${row('Natalia', 12, 400)}`)], rows);
  assert.equal(hit?.benchmark_row, 2);
  assert.equal(hit?.overlap, row('Natalia', 12, 400).slice(0, -1));
});

void test('findContamination: spans map back to the prompt as written, through non-ASCII text', () => {
  const row = {
    row: 0,
    text: 'Le caf\u00e9 na\u00efve de la rue des Fleurs ouvre \u00e0 huit heures et ferme \u00e0 vingt heures tous les jours.',
  };
  const text =
    '\u{1F600}\u{1F600} R\u00e9sum\u00e9\u00a0: \u00ab LE CAF\u00c9 NAI\u0308VE DE LA RUE DES FLEURS OUVRE \u00c0 HUIT HEURES ET FERME \u00c0 VINGT HEURES \u00bb \u2014 fin.';
  const [hit] = findContamination([task('fr', text)], [row]);
  assert.equal(
    hit?.overlap,
    'LE CAF\u00c9 NAI\u0308VE DE LA RUE DES FLEURS OUVRE \u00c0 HUIT HEURES ET FERME \u00c0 VINGT HEURES',
  );
});

void test('findContamination: read benchmarks of every kind, then the tasks that quote them', async () => {
  const { parquetWriteFile } = await import('hyparquet-writer');
  const pq = path.join(dir, 'quoted.parquet');
  parquetWriteFile({ filename: pq, columnData: [{ name: 'prompt', data: [OTHER, IFEVAL] }] as never });
  const files = {
    jsonl: write(
      'quoted.jsonl',
      `${JSON.stringify({ question: OTHER })}\n${JSON.stringify({ messages: [{ role: 'user', content: CHAT }] })}\n`,
    ),
    parquet: pq,
    text: write('quoted.txt', `${MATH}\n\n${GSM}\n`),
  };
  const tasks = [
    task('chat', `Please do this. ${CHAT}`),
    task('ifeval', IFEVAL.toLowerCase()),
    task('gsm', GSM.replace(/,/g, '')),
    task('none', 'Write a limerick about a cat who learns to code in Rust and never finds the bug.'),
  ];
  const found: string[] = [];
  for (const [kind, file] of Object.entries(files)) {
    const { rows } = await readBenchmark(file);
    for (const h of findContamination(tasks, rows, { benchmark: path.basename(file) }))
      found.push(`${kind}: ${h.task} row ${h.benchmark_row} of ${h.benchmark}`);
  }
  assert.deepEqual(found, [
    'jsonl: chat row 1 of quoted.jsonl',
    'parquet: ifeval row 1 of quoted.parquet',
    'text: gsm row 2 of quoted.txt',
  ]);
});

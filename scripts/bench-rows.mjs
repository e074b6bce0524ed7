#!/usr/bin/env node
// Dataset rows in the editor: what reading a 100,000-row JSONL costs per document version, as
// the editor reads it (one parser per document, rows read around the visible lines), and the
// data the lenses need. Prints a human line per figure and the figures as JSON last.
//
//   node scripts/bench-rows.mjs [--rows N]
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const core = createRequire(import.meta.url)(path.join(root, 'out/core.js'));
const i = process.argv.indexOf('--rows');
const ROWS = i === -1 ? 100_000 : Number(process.argv[i + 1]);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const figures = {};

// GSM8K's layout: a question, a worked answer ending in `#### gold`.
const rows = Array.from({ length: ROWS }, (_, n) =>
  JSON.stringify({
    question: `Natalia sold clips to ${n} of her friends in April, and then half as many clips in May. How many clips did Natalia sell altogether in April and May?`,
    answer: `Natalia sold ${n}/2 = ${n / 2} clips in May. Natalia sold ${n}+${n / 2} = ${n * 1.5} clips altogether.\n#### ${n * 1.5}`,
  }),
);
let text = JSON.parse(JSON.stringify(rows.join('\n') + '\n')); // a flat string, like TextDocument.getText()
const mb = (text.length / 1e6).toFixed(1);
// What an editor scrolled to the middle shows (60 lines), with the margin the editor reads beyond it.
const middle = Math.floor(ROWS / 2);
const window = { ranges: [[middle - 100, middle + 160]] };

const parser = new core.RowTaskParser();
let t0 = performance.now();
let file = parser.parse(text, window);
figures.first_parse_ms = Math.round(performance.now() - t0);
console.log(
  `${ROWS.toLocaleString('en')} rows (${mb} MB): first read around line ${middle}: ${figures.first_parse_ms} ms, ${file.tasks.length} rows mapped`,
);

const edits = [];
const lens = [];
for (let e = 0; e < 30; e++) {
  // One character typed into a row in view.
  const at = file.tasks[e % file.tasks.length].offset + 20;
  text = JSON.parse(JSON.stringify(text.slice(0, at) + 'x' + text.slice(at)));
  t0 = performance.now();
  file = parser.parse(text, window);
  edits.push(performance.now() - t0);
  t0 = performance.now();
  let lines = 0;
  for (const t of core.runnableTasks(file).tasks) lines += file.lines.position(t.offset).line;
  lens.push(performance.now() - t0);
  if (lines < 0) throw new Error('unreachable');
}
figures.reparse_p50_ms = +quantile(edits, 0.5).toFixed(1);
figures.reparse_p95_ms = +quantile(edits, 0.95).toFixed(1);
figures.lens_data_p50_ms = +quantile(lens, 0.5).toFixed(1);
console.log(
  `re-read after an edit: p50 ${figures.reparse_p50_ms} ms, p95 ${figures.reparse_p95_ms} ms; lens data (runnable rows and their lines) p50 ${figures.lens_data_p50_ms} ms`,
);

// The most the editor ever maps at once: the first MAX_ROW_TASKS rows (a file not yet shown).
t0 = performance.now();
const top = new core.RowTaskParser().parse(text, {});
figures.first_rows_parse_ms = Math.round(performance.now() - t0);
console.log(
  `read of the first ${top.tasks.length} rows (the bound) with a fresh parser: ${figures.first_rows_parse_ms} ms`,
);
console.log(JSON.stringify(figures));

#!/usr/bin/env node
// Near-duplicate and contamination detection at dataset scale: 100,000 synthetic prompts (20 to
// 150 words, from templates whose numbers and names vary) with 1% planted near duplicates
// (a word or two reworded, sentences swapped, case and punctuation changed), then the same
// prompts against a 10,000-row benchmark of which 1% of the prompts quote a row. Prints the
// time, the process's peak memory and the recall of what was planted, then the figures as JSON.
//
//   node scripts/bench-duplicates.mjs [--prompts N] [--rows N]
import { loadBundled } from './bundle.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const PROMPTS = arg('--prompts', 100_000);
const ROWS = arg('--rows', 10_000);
const { findDuplicates, shingleJaccard } = await loadBundled('src/core/overview/prompts/duplicates.ts');
const { findContamination } = await loadBundled('src/core/overview/prompts/contamination.ts');
const figures = {};

// A seeded generator (mulberry32), so every run measures the same data.
let seed = 12345;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const NAMES = [
  'Natalia',
  'James',
  'Priya',
  'Mateo',
  'Aiko',
  'Olu',
  'Sven',
  'Fatima',
  'Chen',
  'Lucia',
  'Tomasz',
  'Amara',
  'Noah',
  'Ines',
  'Ravi',
  'Zoe',
];
const THINGS = ['apples', 'clips', 'books', 'marbles', 'tickets', 'cookies', 'stamps', 'pencils', 'shells', 'coins'];
const TOPICS = [
  'the history of the printing press',
  'volcanoes',
  'a trip to Lisbon',
  'urban beekeeping',
  'the water cycle',
  'a robot learning to paint',
  'quantum computing for children',
  'the first day at a new job',
  'migratory birds',
  'the invention of the telephone',
];
const TEMPLATES = [
  () =>
    `${pick(NAMES)} had ${int(2, 900)} ${pick(THINGS)}. ${pick(NAMES)} gave away ${int(2, 90)} of them and then bought ${int(2, 90)} more at the market on Saturday. How many ${pick(THINGS)} does ${pick(NAMES)} have now?`,
  () =>
    `A train leaves the station at ${int(1, 12)}:${int(10, 59)} and travels at ${int(40, 160)} km per hour. A second train leaves ${int(5, 55)} minutes later at ${int(60, 200)} km per hour on a parallel track. After how many minutes does the second train catch up with the first one?`,
  () =>
    `Write an essay of at least ${int(200, 5000)} words about ${pick(TOPICS)}. Mention ${pick(NAMES)} at least ${int(2, 9)} times, use exactly ${int(3, 7)} paragraphs separated by the markdown divider ***, and end your response with the phrase "Is there anything else I can help with?".`,
  () =>
    `Compute the sum of all positive integers below ${int(100, 100000)} that are divisible by ${int(3, 19)} or by ${int(20, 97)}. Give the final answer as a single integer inside \\boxed{}.`,
  () =>
    `Write a Python function that takes a list of ${int(2, 500)} integers and returns the length of the longest strictly increasing subsequence whose elements are all smaller than ${int(100, 99999)}. Include a docstring, handle the empty list, and explain the time complexity of your solution in one sentence.`,
  () =>
    `${pick(NAMES)} is planning a garden with ${int(3, 40)} rows of ${int(3, 40)} plants each. Each plant needs ${int(1, 9)} liters of water per day, and the rain barrel holds ${int(100, 2000)} liters. For how many full days can the barrel water the whole garden?`,
];
const FILLER = [
  'Think step by step before you answer.',
  'Show your reasoning clearly.',
  'Be concise.',
  'Explain each step so that a student can follow it.',
  'Do not use any commas in your response.',
  'Answer in English only.',
  'Use a formal tone throughout.',
  'Check your work before giving the final answer.',
  'The audience is a group of high school students who have never seen this kind of problem before.',
  'Avoid jargon where a plain word will do.',
];
const SYNONYMS = [
  ['gave', 'handed'],
  ['bought', 'purchased'],
  ['travels', 'moves'],
  ['Write', 'Compose'],
  ['longest', 'largest'],
  ['planning', 'designing'],
  ['full', 'complete'],
  ['returns', 'outputs'],
  ['Mention', 'Name'],
  ['Compute', 'Calculate'],
];

function prompt() {
  let s = pick(TEMPLATES)();
  const extra = int(0, 3);
  for (let k = 0; k < extra; k++) s += ` ${pick(FILLER)}`;
  return s;
}
/** A near duplicate of `s`, as a copy edited by hand would be. */
function variant(s, kind) {
  if (kind === 0) {
    // Reworded: up to two words replaced by synonyms (or one word added when none applies).
    let out = s;
    let changed = 0;
    for (const [a, b] of SYNONYMS) if (changed < 2 && out.includes(a)) ((out = out.replace(a, b)), changed++);
    return changed ? out : `${out} Thanks.`;
  }
  if (kind === 1) {
    // Sentences swapped: the last sentence first.
    const parts = s.split(/(?<=[.?!])\s+(?=[A-Z])/);
    return parts.length > 1 ? [parts[parts.length - 1], ...parts.slice(0, -1)].join(' ') : `${s} Please.`;
  }
  // Case, punctuation and quotes changed.
  return s.toUpperCase().replace(/[.,]/g, ' ;').replace(/"/g, '\u201c');
}

const tasks = [];
const planted = [];
for (let i = 0; i < PROMPTS; i++) {
  if (i > 100 && rand() < 0.01) {
    const of = int(0, i - 1);
    const base = tasks[of];
    if (base.planted === undefined) {
      planted.push([of, i]);
      tasks.push({ text: variant(base.text, planted.length % 3), planted: of });
      continue;
    }
  }
  tasks.push({ text: prompt() });
}
const input = tasks.map((t, i) => ({ ref: { file: 'bench.vtask', task: `t${i}`, line: i }, text: t.text }));
const words = input.reduce((n, p) => n + p.text.split(/\s+/).length, 0);

global.gc?.();
const rss0 = process.memoryUsage().rss;
let t0 = performance.now();
let cpu0 = process.cpuUsage();
const pairs = findDuplicates(input);
figures.duplicates_ms = Math.round(performance.now() - t0);
// CPU time too: on a shared machine the wall time measures the neighbours as well.
const cpuMs = (c) => Math.round((c.user + c.system) / 1000);
figures.duplicates_cpu_ms = cpuMs(process.cpuUsage(cpu0));
figures.peak_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
figures.rss_before_mb = Math.round(rss0 / 2 ** 20);
const found = new Set(pairs.map((p) => `${p.a.line}-${p.b.line}`));
const idx = new Map(input.map((p, i) => [p.ref.task, i]));
const inPair = new Set(pairs.flatMap((p) => [idx.get(p.a.task), idx.get(p.b.task)]));
const isFound = ([a, b]) => found.has(`${a}-${b}`) || (inPair.has(b) && inPair.has(a));
const hit = planted.filter(isFound).length;
// A planted edit may take a short prompt below the threshold: such a pair is not a near
// duplicate by the measure, so recall is also given over the planted pairs at or above it.
const above = planted.filter(([a, b]) => shingleJaccard(input[a].text, input[b].text) >= 0.8);
figures.planted_above_threshold = above.length;
figures.recall_above_threshold = +(above.filter(isFound).length / Math.max(1, above.length)).toFixed(4);
figures.prompts = PROMPTS;
figures.planted = planted.length;
figures.recall = +(hit / Math.max(1, planted.length)).toFixed(4);
figures.pairs = pairs.length;
figures.exact_pairs = pairs.filter((p) => p.exact).length;
const plantedKeys = new Set(planted.map(([a, b]) => `${a}-${b}`));
// Pairs not planted: the generator drew one template with the same numbers twice. Most are at
// most a name apart, a duplicate of the data; some are essays on another topic (a few words in a
// 50-word template with the same numbers), which the words alone cannot tell apart.
figures.unplanted_pairs = pairs.filter((p) => !plantedKeys.has(`${p.a.line}-${p.b.line}`)).length;
console.log(
  `findDuplicates, ${PROMPTS.toLocaleString('en')} prompts (${(words / PROMPTS).toFixed(0)} words on average): ${figures.duplicates_ms} ms (${figures.duplicates_cpu_ms} ms CPU), peak RSS ${figures.peak_rss_mb} MB (${figures.rss_before_mb} MB before, with the prompts)`,
);
console.log(
  `  recall of ${planted.length} planted near duplicates ${(figures.recall * 100).toFixed(1)}% (${(figures.recall_above_threshold * 100).toFixed(1)}% of the ${above.length} whose similarity is at least 0.8); ${figures.pairs} pairs reported (${figures.exact_pairs} exact, ${figures.unplanted_pairs} between prompts the generator repeated)`,
);

// Contamination: a benchmark of other prompts; 1% of the tasks quote a row inside their own text.
// Benchmark rows are worded apart from the tasks' templates, as another dataset's would be.
const BENCH = [
  () =>
    `In a school of ${int(100, 3000)} pupils, ${int(5, 60)} percent walk to school and a third of the others come by bus. How many pupils come by bus?`,
  () =>
    `A rectangle has a perimeter of ${int(20, 400)} centimeters and its length is ${int(2, 9)} times its width. What is the area of the rectangle in square centimeters?`,
  () =>
    `${pick(NAMES)} reads ${int(5, 80)} pages on weekdays and twice as many on weekends. How many weeks will it take to finish a book of ${int(300, 3000)} pages?`,
];
const rows = Array.from({ length: ROWS }, (_, row) => ({ row, text: pick(BENCH)() }));
const quoting = [];
const contaminated = input.map((p, i) => {
  if (rand() >= 0.01) return p;
  const row = int(0, ROWS - 1);
  quoting.push([i, row]);
  return { ref: p.ref, text: `Here is a problem for you. ${rows[row].text} ${pick(FILLER)}` };
});
t0 = performance.now();
cpu0 = process.cpuUsage();
const hits = findContamination(contaminated, rows);
figures.contamination_ms = Math.round(performance.now() - t0);
figures.contamination_cpu_ms = cpuMs(process.cpuUsage(cpu0));
const hitOf = new Map(hits.map((h) => [h.task, h.benchmark_row]));
// A benchmark may hold the same text twice; the first such row is the one reported.
const sameRow = (got, row) => got !== undefined && rows[got].text === rows[row].text;
figures.contamination_recall = +(
  quoting.filter(([i, row]) => sameRow(hitOf.get(`t${i}`), row)).length / Math.max(1, quoting.length)
).toFixed(4);
figures.contamination_hits = hits.length;
figures.peak_rss_after_contamination_mb = Math.round(process.resourceUsage().maxRSS / 1024);
console.log(
  `findContamination, ${PROMPTS.toLocaleString('en')} prompts against ${ROWS.toLocaleString('en')} rows (13-grams): ${figures.contamination_ms} ms (${figures.contamination_cpu_ms} ms CPU); ${quoting.length} planted quotes found ${(figures.contamination_recall * 100).toFixed(1)}% with their row; ${hits.length} hits; peak RSS ${figures.peak_rss_after_contamination_mb} MB`,
);
console.log(JSON.stringify(figures));

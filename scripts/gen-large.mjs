#!/usr/bin/env node
// Writes a large, realistic task file for tests and the benchmark: a deterministic (seeded) mix
// of math, constraints, code and match tasks, most with regression cases.
//
//   node scripts/gen-large.mjs [OUT] [--tasks N] [--seed S] [--errors K]
//
// OUT        where to write (stdout when omitted or `-`)
// --tasks N  how many tasks (default 10000, about 2.3 MB)
// --seed S   seed of the generator (default 1); the same arguments always give the same bytes
// --errors K put one validation mistake in every K-th task (default 0: a valid file)
//
// Also importable: `import { generateTaskFile } from './gen-large.mjs'`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** mulberry32: a small, fast, seedable PRNG; enough for fixtures, not for anything secret. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['Natalia', 'Weng', 'Betty', 'Julie', 'James', 'Albert', 'Mark', 'Alexis', 'Tina', 'Randy', 'Joy', 'Ken'];
const THINGS = ['clips', 'apples', 'pages', 'marbles', 'stickers', 'cookies', 'books', 'shells', 'coins', 'pencils'];
const TOPICS = [
  'the sea',
  'a mountain town',
  'autumn rain',
  'a lighthouse',
  'the night sky',
  'a busy market',
  'an old bridge',
  'winter trees',
];
const CAPITALS = [
  ['France', 'Paris'],
  ['Japan', 'Tokyo'],
  ['Kenya', 'Nairobi'],
  ['Peru', 'Lima'],
  ['Canada', 'Ottawa'],
  ['Norway', 'Oslo'],
  ['Egypt', 'Cairo'],
  ['Chile', 'Santiago'],
  ['Vietnam', 'Hanoi'],
  ['Poland', 'Warsaw'],
];
const FUNCS = [
  { name: 'add', doc: 'returns the sum of a and b', args: (r) => [r(), r()], fn: (a, b) => a + b },
  { name: 'mul', doc: 'returns the product of a and b', args: (r) => [r(), r()], fn: (a, b) => a * b },
  { name: 'maximum', doc: 'returns the larger of a and b', args: (r) => [r(), r()], fn: (a, b) => Math.max(a, b) },
  { name: 'square', doc: 'returns n squared', args: (r) => [r()], fn: (n) => n * n },
];

/** Every generator returns the lines of one task (indented for `tasks:`), without a trailing newline. */
function mathTask(i, rand, pick, int) {
  const who = pick(NAMES);
  const what = pick(THINGS);
  const a = int(2, 99);
  const b = int(2, 99);
  const sum = a + b;
  const lines = [
    `  - id: math/${String(i).padStart(5, '0')}`,
    `    prompt: ${who} has ${a} ${what} and buys ${b} more. How many now?`,
    `    verify:`,
    `      math: { answer: "${sum}" }`,
  ];
  if (rand() < 0.5) {
    lines.push(
      `    cases:`,
      `      - { response: "${a} + ${b} = ${sum}, so \\\\boxed{${sum}}.", expect: pass }`,
      `      - { response: "\\\\boxed{${sum + 1}}", expect: fail }`,
    );
  }
  if (rand() < 0.3) lines.push(`    tags: [math, arithmetic]`);
  return lines;
}

function constraintsTask(i, rand, pick, int) {
  const words = int(20, 200);
  const noComma = rand() < 0.5;
  const lines = [
    `  - id: ifeval/${String(i).padStart(5, '0')}`,
    `    prompt: Describe ${pick(TOPICS)} in under ${words} words${noComma ? ', with no commas' : ''}.`,
    `    verify:`,
    `      constraints:`,
    `        - length_constraints:number_words: { relation: less than, num_words: ${words} }`,
  ];
  if (noComma) lines.push(`        - punctuation:no_comma`);
  const bullets = rand() < 0.4 ? int(0, 3) : undefined;
  if (bullets !== undefined) lines.push(`        - detectable_format:number_bullet_lists: { num_bullets: ${bullets} }`);
  if (rand() < 0.4) {
    // The first case has no bullets, so it breaks only a bullet count above zero.
    const n = lines.length - 4;
    const expect = bullets ? `{ score: ${Number(((n - 1) / n).toFixed(7))} }` : 'pass';
    lines.push(`    cases:`, `      - { response: "Quiet waves fold over the stones.", expect: ${expect} }`);
    // Commas break only `no_comma`; without it a short answer holds every constraint.
    if (noComma) lines.push(`      - { response: "Waves, stones, and wind.", expect: fail }`);
  }
  return lines;
}

function codeTask(i, rand, pick, int) {
  const f = pick(FUNCS);
  const small = () => int(-20, 20);
  const python = rand() < 0.7;
  const lines = [
    `  - id: code/${String(i).padStart(5, '0')}`,
    `    prompt: Write a ${python ? 'Python' : 'JavaScript'} function ${f.name} that ${f.doc}.`,
    `    verify:`,
    `      code:`,
    `        language: ${python ? 'python' : 'javascript'}`,
  ];
  const cases = [];
  for (let k = 0; k < 2; k++) {
    const args = f.args(small);
    cases.push(`{ args: [${args.join(', ')}], returns: ${f.fn(...args)} }`);
  }
  lines.push(`        call: { function: ${f.name}, cases: [${cases.join(', ')}] }`);
  if (rand() < 0.3) lines.push(`        timeout_ms: ${pick([1000, 2000, 5000])}`);
  return lines;
}

function matchTask(i, rand, pick) {
  const [country, capital] = pick(CAPITALS);
  const lines = [
    `  - id: trivia/${String(i).padStart(5, '0')}`,
    `    prompt: "Capital of ${country}? Reply as <answer>...</answer>."`,
    `    verify:`,
    `      match: { answer: ${capital}, tag: answer }`,
    `    cases:`,
    `      - { response: "<answer>${capital}</answer>", expect: pass }`,
  ];
  if (rand() < 0.2) lines.push(`    meta: { source: capitals, country: ${country} }`);
  return lines;
}

const GENERATORS = [
  [mathTask, 0.4],
  [constraintsTask, 0.25],
  [codeTask, 0.1],
  [matchTask, 0.25],
];

/** One typical mistake, applied to the lines of a task (the task stays recognisable). */
const MISTAKES = [
  (lines) => lines.map((l) => l.replace(/^(\s+)prompt:/, '$1promt:')),
  (lines) => lines.map((l) => l.replace(/^(\s+)verify:/, '$1verfy:')),
  (lines) => lines.map((l) => l.replace(/^(\s+)(math|match|code|constraints):/, '$1$2s:')),
  (lines) => {
    const k = lines.findIndex((l) => /expect: pass\b/.test(l));
    if (k === -1) return [...lines, '    cases:', '      - { response: "x", expect: passes }'];
    return lines.map((l, j) => (j === k ? l.replace(/expect: pass\b/, 'expect: passes') : l));
  },
  (lines) => lines.map((l) => l.replace(/^(\s+- )id: [a-z]+\/0*(\d+)$/, '$1id: $2')),
];

/**
 * The text of a task file with `tasks` tasks. With `errorEvery` > 0, every errorEvery-th task
 * (the first being task errorEvery - 1) carries one mistake.
 */
export function generateTaskFile({ tasks = 10_000, seed = 1, errorEvery = 0 } = {}) {
  const rand = rng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const out = [
    `# Generated by scripts/gen-large.mjs: ${tasks} tasks, seed ${seed}${errorEvery ? `, a mistake every ${errorEvery} tasks` : ''}.`,
    'vtask: 1',
    'defaults:',
    '  system: "Put the final answer in \\\\boxed{}."',
    '  model: local',
    '  samples: 8',
    '  temperature: 1.0',
    '  max_tokens: 2048',
    'models:',
    '  local: { base_url: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen2.5-7B-Instruct" }',
    'tasks:',
  ];
  for (let i = 0; i < tasks; i++) {
    let x = rand();
    let gen = GENERATORS[0][0];
    for (const [g, w] of GENERATORS) {
      if (x < w) {
        gen = g;
        break;
      }
      x -= w;
    }
    let lines = gen(i, rand, pick, int);
    if (errorEvery > 0 && (i + 1) % errorEvery === 0)
      lines = MISTAKES[((i + 1) / errorEvery - 1) % MISTAKES.length](lines);
    out.push(...lines);
  }
  return out.join('\n') + '\n';
}

function main(argv) {
  let outPath = '-';
  const opts = {};
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    const value = () => {
      const v = Number(argv[++k]);
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} takes a non-negative integer`);
      return v;
    };
    if (a === '--tasks' || a === '-n') opts.tasks = value();
    else if (a === '--seed') opts.seed = value();
    else if (a === '--errors') opts.errorEvery = value();
    else if (a === '-h' || a === '--help') {
      process.stdout.write('Usage: node scripts/gen-large.mjs [OUT] [--tasks N] [--seed S] [--errors K]\n');
      return;
    } else if (a.startsWith('-') && a !== '-') throw new Error(`unknown option ${a}`);
    else outPath = a;
  }
  const text = generateTaskFile(opts);
  if (outPath === '-') {
    process.stdout.write(text);
  } else {
    fs.mkdirSync(path.dirname(path.resolve(outPath)), { recursive: true });
    fs.writeFileSync(outPath, text);
    process.stderr.write(
      `wrote ${outPath}: ${opts.tasks ?? 10_000} tasks, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB\n`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`gen-large: ${e.message}\n`);
    process.exitCode = 2;
  }
}

/**
 * The smallest tasks that still run cases: one verifier in `defaults`, each task one line, one in
 * ten with a passing case and a failing-expected one. A million of them fit the 64 MB a task file
 * may have (about 53 MB).
 */
export function generateCompactTaskFile(n, caseEvery = 10) {
  const lines = ['vtask: 1', 'defaults:', '  verify: {math: {answer: "4"}}', 'tasks:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `- {id: t${i}, prompt: "Task ${i}: 2+2?"${i % caseEvery === 0 ? ', cases: [{response: "\\\\boxed{4}", expect: pass}, {response: "5", expect: fail}]' : ''}}`,
    );
  return lines.join('\n') + '\n';
}

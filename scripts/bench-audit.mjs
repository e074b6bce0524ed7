#!/usr/bin/env node
// The audit's figures: `vtask audit` on a 1,000-task file of math and constraints tasks (the
// whole run, as a user starts it), and the time per task for each verifier kind. The last line
// printed is one JSON object of figures.
//
//   node scripts/bench-audit.mjs [--tasks N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'out/cli.js');
const i = process.argv.indexOf('--tasks');
const TASKS = i === -1 ? 1000 : Number(process.argv[i + 1]);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-audit-'));

const math = (k) =>
  `  - id: math/${k}\n    prompt: "Tom has ${k} apples and buys ${k + 3} more. How many apples does he have?"\n    verify: { math: { answer: "${2 * k + 3}" } }\n`;
const constraints = (k) =>
  `  - id: if/${k}\n    prompt: "Describe topic ${k} in under ${20 + (k % 30)} words without commas."\n    verify:\n      constraints:\n        - length_constraints:number_words: { relation: less than, num_words: ${20 + (k % 30)} }\n        - punctuation:no_comma\n`;
const code = (k) =>
  `  - id: code/${k}\n    prompt: "Read two numbers and print their sum plus ${k}."\n    verify:\n      code:\n        language: python\n        tests: [{ stdin: "1 2\\n", stdout: "${3 + k}\\n" }, { stdin: "5 5\\n", stdout: "${10 + k}\\n" }]\n        timeout_ms: 1000\n    cases:\n      - response: "a, b = map(int, input().split())\\nprint(a + b + ${k})"\n        expect: pass\n`;

function write(name, tasks) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${tasks.join('')}`);
  return file;
}

function audit(file) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'audit', file, '--json', '--fail-on', 'critical'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, VTASK_ALLOW_WEAK_ISOLATION: process.env.VTASK_ALLOW_WEAK_ISOLATION ?? '1' },
  });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1) throw new Error(`vtask audit failed (${r.status}): ${r.stderr.slice(-400)}`);
  const json = JSON.parse(r.stdout);
  return { ms, probes: json.tasks.reduce((n, t) => n + t.probes, 0), findings: json.findings };
}

const figures = {};
const half = Math.floor(TASKS / 2);
const mixed = audit(
  write('mixed.vtask', [
    ...Array.from({ length: half }, (_, k) => math(k)),
    ...Array.from({ length: TASKS - half }, (_, k) => constraints(k)),
  ]),
);
figures.audit_math_constraints = {
  tasks: TASKS,
  ms: Math.round(mixed.ms),
  probes: mixed.probes,
  probes_per_s: Math.round(mixed.probes / (mixed.ms / 1000)),
  findings: mixed.findings,
};
console.log(
  `vtask audit, ${TASKS} math and constraints tasks: ${Math.round(mixed.ms)} ms (${mixed.probes} probes, ${figures.audit_math_constraints.probes_per_s} probes/s)`,
);
for (const [kind, make, n] of [
  ['math', math, 200],
  ['constraints', constraints, 200],
  ['code', code, 5],
]) {
  const r = audit(
    write(
      `${kind}.vtask`,
      Array.from({ length: n }, (_, k) => make(k)),
    ),
  );
  figures[`audit_${kind}_per_task_ms`] = +(r.ms / n).toFixed(1);
  console.log(
    `vtask audit, ${kind}: ${figures[`audit_${kind}_per_task_ms`]} ms per task (${n} tasks, ${Math.round(r.probes / n)} probes each, process start included)`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));

// Mutation testing over the code whose mistakes would be wrong rewards or wrong figures (math
// comparison, constraints checks, match/choice/json, stats, overview counting, the audit's probe
// families): each mutation below (an operator swapped, a guard deleted,
// a bound moved) is applied alone to its source file, the test files that cover that file are
// bundled against the mutated source (an esbuild plugin serves it; the file on disk is never
// touched), and the mutant counts as killed when those tests fail. Survivors are listed: each is a
// missing test or an equivalent mutant; the equivalent mutants found are listed, with why, in
// test/mutation-equivalent.md and left out of the scope. The last line is one JSON object.
//   node scripts/mutation.mjs [--only=SUBSTRING|SUBSTRING...]   (npm run mutation)
//   node scripts/mutation.mjs --check   every target is still in its file (no test runs; a unit
//                                       test runs this, so an edit cannot silently retire a mutant)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
/** `--only=A|B`: only the mutations whose file and name contain A or B. */
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split('|');
const picked = (file, name) => !only || only.some((o) => `${file} ${name}`.includes(o));
/** A mutant whose tests run longer than this is counted killed (a hang is a failure too). */
const TIMEOUT_MS = 180_000;

/** Per source file: the tests that cover it and its mutations ([name, find, replace, nth occurrence]). */
const SCOPE = [
  {
    file: 'src/core/verifiers/math/compare.ts',
    tests: ['test/core/math.test.ts'],
    mutations: [
      ['exact values differ: tolerance applied anyway', "    if (!approxSide) return no('exact');\n", ''],
      ['exact equality negated', 'if (R.eq(eg, ep)) return EQ;', 'if (!R.eq(eg, ep)) return EQ;'],
      [
        'approximate side needs both sides',
        'const approxSide = hasApprox(g) || hasApprox(p);',
        'const approxSide = hasApprox(g) && hasApprox(p);',
      ],
      ['default tolerance widened', 'const tol = c.tolerance ?? 1e-6;', 'const tol = c.tolerance ?? 1e-2;'],
      [
        'float equality of exact-looking values widened',
        'return Math.abs(a - b) <= 1e-10 * Math.max(',
        'return Math.abs(a - b) <= 1e-4 * Math.max(',
      ],
      [
        'precision comparison negated',
        'return Math.round(a * k) === Math.round(b * k);',
        'return Math.round(a * k) !== Math.round(b * k);',
      ],
      ['infinity equals anything infinite', "return a === b ? EQ : no('exact');", 'return EQ;'],
      ['signs of huge values ignored', "    if (la.sign !== lb.sign) return no('numeric');\n", ''],
      [
        'zero against a cancelling sum: loose bound',
        "return Math.abs(other) < 1e-12 ? yes('numeric') : no('numeric');",
        "return Math.abs(other) < 1e-3 ? yes('numeric') : no('numeric');",
      ],
      [
        'undefined values compared',
        "  if (Number.isNaN(a) || Number.isNaN(b))\n    return { equal: 'undecided', method: 'numeric', note: 'a value is undefined' };\n  const tiny",
        '  const tiny',
      ],
    ],
  },
  {
    file: 'src/core/overview/dataset/modelCounts.ts',
    tests: ['test/core/datasetStats.test.ts', 'test/core/liveStats.test.ts'],
    mutations: [
      ['histogram bins by rounding', 'Math.floor(rate * HISTOGRAM_BINS + 1e-9)', 'Math.round(rate * HISTOGRAM_BINS)'],
      ['a pass rate of 1 past the last bin', 'Math.min(HISTOGRAM_BINS - 1,', 'Math.min(HISTOGRAM_BINS,'],
      [
        'error runs counted in the histogram',
        "if (run.band === 'error' || run.note !== undefined) return;",
        'if (run.note !== undefined) return;',
      ],
      ['samples counted per run', 'c.samples += run.samples;', 'c.samples++;'],
      [
        'signal share over error runs too',
        'c.signal / (c.tasks - c.bands.error - c.cannot)',
        'c.signal / (c.tasks - c.cannot)',
      ],
      ['band not counted', '  else if (run.band !== null) c.bands[run.band]++;\n', '\n'],
      ['bin upper edge wrong', 'to: (i + 1) / HISTOGRAM_BINS', 'to: i / HISTOGRAM_BINS'],
      ['stale runs of a part dropped', '  into.stale += part.stale;\n', ''],
    ],
  },
  {
    file: 'src/core/overview/dataset/summary.ts',
    tests: ['test/core/datasetStats.test.ts'],
    mutations: [
      [
        'skipped cases counted as passed or failed',
        'if (r.skipped) c.skipped++;\n      else if (r.ok) c.passed++;',
        'if (r.ok) c.passed++;',
      ],
      ['failed cases counted as passed', 'else c.failed++;', 'else c.passed++;'],
      [
        'a task with one case counted as without cases',
        'if (t.cases === 0) withoutCases++;',
        'if (t.cases <= 1) withoutCases++;',
      ],
      ['cases not run not counted as skipped', '    } else cases.skipped += t.cases;\n', '    }\n'],
      ['invalid tasks not counted', '    else invalid++;\n', '\n'],
    ],
  },
  {
    file: 'src/core/stats.ts',
    tests: ['test/core/stats.test.ts'],
    mutations: [
      ['pass@k of k > n defined', 'if (k > n || n === 0) return NaN;', 'if (n === 0) return NaN;'],
      ['n itself not among the reported ks', '  if (n > 0) ks.push(n);\n', ''],
      ['Wilson interval at 90%', 'z = 1.959964', 'z = 1.644854'],
      [
        'signal share ignores the group size',
        'flat += Math.pow(c / scores.length, groupSize);',
        'flat += Math.pow(c / scores.length, 2);',
      ],
      [
        'float noise makes rewards differ',
        'const roundScore = (s: number): number => Math.round(s * 1e9) / 1e9;',
        'const roundScore = (s: number): number => s;',
      ],
      [
        'undecided verdicts counted as decided',
        'const decided = verdicts.filter((v) => !v.error);',
        'const decided = verdicts;',
      ],
      [
        'all but one passing is too easy',
        "passed === n\n        ? 'too_easy'",
        "passed >= n - 1\n        ? 'too_easy'",
      ],
      ['equal partial scores are learnable', 'distinct <= 1 || (passed === 0 &&', '(passed === 0 &&'],
      ['a failed run keeps its band', 'runFailed || n === 0', 'n === 0'],
    ],
  },
  {
    file: 'src/core/verifiers/match.ts',
    tests: ['test/core/verify-basic.test.ts'],
    mutations: [
      ['f1 threshold ignored', 'const pass = best.f1 >= threshold - 1e-9;', 'const pass = best.f1 > 0;'],
      [
        'f1 as the mean of precision and recall',
        'return (2 * precision * recall) / (precision + recall);',
        'return (precision + recall) / 2;',
      ],
      [
        'contains read the wrong way round',
        'ok = normalizeAnswer(text).includes(normalizeAnswer(gold));',
        'ok = normalizeAnswer(gold).includes(normalizeAnswer(text));',
      ],
      [
        'exact mode normalises',
        "else if (mode === 'exact') ok = compared === gold.trim();",
        "else if (mode === 'exact') ok = normalizeAnswer(text) === normalizeAnswer(gold);",
      ],
      [
        'a missing tag passes',
        'if (inner === undefined) return verdict(false,',
        'if (inner === undefined) return verdict(true,',
      ],
      ['the default mode is exact', "const mode = p.mode ?? 'normalized';", "const mode = p.mode ?? 'exact';"],
    ],
  },
  {
    file: 'src/core/verifiers/choice.ts',
    tests: ['test/core/verify-basic.test.ts'],
    mutations: [
      ['a letter before any word is a choice', 'return !next || AFTER_LETTER.has(at(next, 1));', 'return true;'],
    ],
  },
  {
    file: 'src/core/verifiers/json.ts',
    tests: ['test/core/verify-basic.test.ts'],
    mutations: [
      ['schema ignored', '  if (!p.schema) return verdict(true,', '  if (true) return verdict(true,'],
      [
        'an invalid schema fails quietly',
        "return { ...verdict(false, `the schema is not a valid JSON Schema: ${errorMessage(e)}`), error: 'crash' };",
        'return verdict(false, `the schema is not a valid JSON Schema: ${errorMessage(e)}`);',
      ],
      ['the last fence not preferred', 'const last = fences[fences.length - 1];', 'const last = fences[0];'],
    ],
  },
  {
    file: 'src/core/verifiers/constraints/checks/ifeval.ts',
    tests: ['test/core/constraints.test.ts', 'test/core/ifeval-parity.test.ts'],
    mutations: [
      [
        'highlights: at least becomes exactly',
        "outcome(n >= want, `${plural(n, 'highlighted section')}",
        "outcome(n === want, `${plural(n, 'highlighted section')}",
      ],
      ['commas counted one short', "const n = value.split(',').length - 1;", "const n = value.split(',').length - 2;"],
      [
        'a lone quotation mark is quoted',
        "const pass = v.length > 1 && v.startsWith('\"')",
        "const pass = v.length > 0 && v.startsWith('\"')",
      ],
      ['two identical responses pass', 'return outcome(!same,', 'return outcome(true,'],
      [
        'end phrase compared with its case',
        "const phrase = pyStrip(str(k, 'end_phrase')).toLowerCase();",
        "const phrase = pyStrip(str(k, 'end_phrase'));",
      ],
      [
        'forbidden words found inside words',
        "new RegExp(`${B}${escapeRegExp(w)}${B}`, 'iu')",
        "new RegExp(escapeRegExp(w), 'iu')",
      ],
      [
        'dash bullets not counted',
        "countBulletLines(value, '*') + countBulletLines(value, '-')",
        "countBulletLines(value, '*')",
      ],
      ['a closing json fence kept', "    if (v.endsWith('```')) v = v.slice(0, -3);\n", ''],
    ],
  },
  {
    file: 'src/core/audit/probes.ts',
    tests: ['test/core/audit.test.ts'],
    mutations: [
      ['the judge injection probes dropped', "  if (kind === 'judge') out.push(...injectionProbes());\n", ''],
      ['the code probes dropped', "  if (kind === 'code') out.push(...codeProbes(task));\n", ''],
      ['the choice probes dropped', "  if (kind === 'choice') out.push(...choiceProbes(task.verify));\n", ''],
      ['the json probes dropped', "  if (kind === 'json') out.push(...jsonProbes(task.verify));\n", ''],
      [
        'no echo of the prompt',
        "if (task.prompt.trim())\n    out.push({\n      id: 'echo-prompt',",
        "if (!task.prompt)\n    out.push({\n      id: 'echo-prompt',",
      ],
      [
        'degenerate answers to a form-only verifier are critical',
        "const degenerate: Severity = formOnly ? 'medium' : 'critical';",
        "const degenerate: Severity = 'critical';",
      ],
      [
        'right-answer probes for composites too',
        "kind === 'math' || kind === 'match' || p.family !== 'right-answer'",
        'true',
      ],
    ],
  },
];

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// Inside out/ so that the bundles' external packages resolve from the project's node_modules.
const outDir = path.join(root, 'out', 'mutation');

/** Bundles `tests` with `file` read as `source`; the same options as the test build (scripts/build.mjs). */
async function bundle(file, source, tests) {
  fs.rmSync(outDir, { recursive: true, force: true });
  const abs = path.join(root, file);
  const serve = {
    name: 'mutant',
    setup: (b) =>
      b.onLoad({ filter: /\.ts$/ }, (a) => (a.path === abs ? { contents: source, loader: 'ts' } : undefined)),
  };
  await esbuild.build({
    entryPoints: tests,
    outdir: outDir,
    outbase: 'test',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    external: ['vscode'],
    define: { VTASK_VERSION: JSON.stringify(pkg.version) },
    loader: { '.py': 'text' },
    absWorkingDir: root,
    logLevel: 'silent',
    plugins: [serve],
  });
  return tests.map((t) => path.join(outDir, path.relative('test', t).replace(/\.ts$/, '.js')));
}

/** 'passed', 'failed' or 'timeout' for the bundled tests. */
function runTests(files) {
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=dot', ...files], {
    cwd: root,
    timeout: TIMEOUT_MS,
    stdio: 'ignore',
    killSignal: 'SIGKILL',
  });
  if (r.error || r.signal) return 'timeout';
  return r.status === 0 ? 'passed' : 'failed';
}

/** `source` with the `nth` occurrence of `find` replaced; throws when it is missing (the source moved on). */
function mutate(source, find, replace, nth = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = source.indexOf(find, at + 1);
    if (at < 0) throw new Error(`mutation target not found (occurrence ${nth}): ${JSON.stringify(find)}`);
  }
  return source.slice(0, at) + replace + source.slice(at + find.length);
}

if (process.argv.includes('--check')) {
  const missing = [];
  let n = 0;
  for (const { file, mutations } of SCOPE) {
    const source = fs.readFileSync(path.join(root, file), 'utf8');
    for (const [name, find, replace, nth] of mutations) {
      n++;
      try {
        if (mutate(source, find, replace, nth) === source)
          missing.push(`${file}: ${name}: the mutation changes nothing`);
      } catch (e) {
        missing.push(`${file}: ${name}: ${e.message}`);
      }
    }
  }
  for (const m of missing) console.error(m);
  console.log(`${n - missing.length}/${n} mutation targets found`);
  process.exit(missing.length ? 1 : 0);
}

const t0 = Date.now();
const survivors = [];
let total = 0;
let killed = 0;
try {
  for (const { file, tests, mutations } of SCOPE) {
    // With --only, a file none of whose mutations is picked is not even run unmutated.
    if (!mutations.some(([name]) => picked(file, name))) continue;
    const original = fs.readFileSync(path.join(root, file), 'utf8');
    const baseline = runTests(await bundle(file, original, tests));
    if (baseline !== 'passed') throw new Error(`${tests.join(' ')} ${baseline} without any mutation: fix that first`);
    for (const [name, find, replace, nth] of mutations) {
      if (!picked(file, name)) continue;
      const outcome = runTests(await bundle(file, mutate(original, find, replace, nth), tests));
      total++;
      if (outcome === 'passed') survivors.push(`${file}: ${name}`);
      else killed++;
      console.error(`${outcome === 'passed' ? 'SURVIVED' : `killed (${outcome})`}  ${file}: ${name}`);
    }
  }
} finally {
  fs.rmSync(outDir, { recursive: true, force: true });
}
const score = total ? Math.round((1000 * killed) / total) / 10 : 0;
console.error(`${killed}/${total} mutants killed (${score}%) in ${Math.round((Date.now() - t0) / 1000)} s`);
console.log(JSON.stringify({ total, killed, score, survivors }));
process.exitCode = survivors.length ? 1 : 0;

// Mutation testing over a small scope: each mutation below (an operator swapped, a guard deleted,
// a bound moved) is applied alone to its source file, the test files that cover that file are
// bundled against the mutated source (an esbuild plugin serves it; the file on disk is never
// touched), and the mutant counts as killed when those tests fail. Survivors are listed: each is a
// missing test or an equivalent mutant. The last line is one JSON object.
//   node scripts/mutation.mjs [--only=SUBSTRING]   (npm run mutation)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
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
      ['approximate side needs both sides', 'const approxSide = hasApprox(g) || hasApprox(p);', 'const approxSide = hasApprox(g) && hasApprox(p);'],
      ['default tolerance widened', 'const tol = c.tolerance ?? 1e-6;', 'const tol = c.tolerance ?? 1e-2;'],
      ['float equality of exact-looking values widened', 'return Math.abs(a - b) <= 1e-10 * Math.max(', 'return Math.abs(a - b) <= 1e-4 * Math.max('],
      ['precision comparison negated', 'return Math.round(a * k) === Math.round(b * k);', 'return Math.round(a * k) !== Math.round(b * k);'],
      ['infinity equals anything infinite', "return a === b ? EQ : no('exact');", 'return EQ;'],
      ['signs of huge values ignored', "    if (la.sign !== lb.sign) return no('numeric');\n", ''],
      ['zero against a cancelling sum: loose bound', "return Math.abs(other) < 1e-12 ? yes('numeric') : no('numeric');", "return Math.abs(other) < 1e-3 ? yes('numeric') : no('numeric');"],
      ['undefined values compared', "  if (Number.isNaN(a) || Number.isNaN(b)) return { equal: 'undecided', method: 'numeric', note: 'a value is undefined' };\n  const tiny", '  const tiny'],
    ],
  },
  {
    file: 'src/core/overview/modelCounts.ts',
    tests: ['test/core/datasetStats.test.ts', 'test/core/liveStats.test.ts'],
    mutations: [
      ['histogram bins by rounding', 'Math.floor(rate * HISTOGRAM_BINS + 1e-9)', 'Math.round(rate * HISTOGRAM_BINS)'],
      ['a pass rate of 1 past the last bin', 'Math.min(HISTOGRAM_BINS - 1,', 'Math.min(HISTOGRAM_BINS,'],
      ['error runs counted in the histogram', "  if (run.band === 'error') return;\n", ''],
      ['samples counted per run', 'c.samples += run.samples;', 'c.samples++;'],
      ['signal share over error runs too', 'c.signal / (c.tasks - c.bands.error)', 'c.signal / c.tasks'],
      ['band not counted', '  if (run.band !== null) c.bands[run.band]++;\n', ''],
      ['bin upper edge wrong', 'to: (i + 1) / HISTOGRAM_BINS', 'to: i / HISTOGRAM_BINS'],
      ['stale runs of a part dropped', '  into.stale += part.stale;\n', ''],
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
  const serve = { name: 'mutant', setup: (b) => b.onLoad({ filter: /\.ts$/ }, (a) => (a.path === abs ? { contents: source, loader: 'ts' } : undefined)) };
  await esbuild.build({ entryPoints: tests, outdir: outDir, outbase: 'test', bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external', external: ['vscode'], define: { VTASK_VERSION: JSON.stringify(pkg.version) }, loader: { '.py': 'text' }, absWorkingDir: root, logLevel: 'silent', plugins: [serve] });
  return tests.map((t) => path.join(outDir, path.relative('test', t).replace(/\.ts$/, '.js')));
}

/** 'passed', 'failed' or 'timeout' for the bundled tests. */
function runTests(files) {
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=dot', ...files], { cwd: root, timeout: TIMEOUT_MS, stdio: 'ignore', killSignal: 'SIGKILL' });
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

const t0 = Date.now();
const survivors = [];
let total = 0;
let killed = 0;
try {
  for (const { file, tests, mutations } of SCOPE) {
    const original = fs.readFileSync(path.join(root, file), 'utf8');
    const baseline = runTests(await bundle(file, original, tests));
    if (baseline !== 'passed') throw new Error(`${tests.join(' ')} ${baseline} without any mutation: fix that first`);
    for (const [name, find, replace, nth] of mutations) {
      if (only && !`${file} ${name}`.includes(only)) continue;
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

// Benchmarks the math verifier on the Math-Verify pairs, on one core (the main thread; the
// worker pool is only used for undecided pairs). Bundles the checker on the fly with esbuild,
// then reports checks/s and per-check latency; the last line is one JSON object.
//   node scripts/bench-math.mjs [--rounds N]
import fs from 'node:fs';
import path from 'node:path';
import { loadBundled } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 20;
const { checkMath, disposeMathPool } = await loadBundled('src/core/verifiers/math/checkMath.ts');

const dir = path.resolve(root, '../shared/conformance');
const rows = fs
  .readFileSync(path.join(dir, 'math_verify_pairs.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

// Warm-up: one pass so the JIT has seen every path.
for (const r of rows) await checkMath(r.pred, { answer: r.gold });

const lat = [];
const t0 = performance.now();
for (let k = 0; k < rounds; k++) {
  for (const r of rows) {
    const s = performance.now();
    await checkMath(r.pred, { answer: r.gold });
    lat.push(performance.now() - s);
  }
}
const total = performance.now() - t0;
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
const result = {
  bench: 'math',
  pairs: rows.length,
  checks: lat.length,
  checks_per_s: Math.round((lat.length / total) * 1000),
  p50_ms: Number(q(0.5).toFixed(3)),
  p99_ms: Number(q(0.99).toFixed(3)),
  max_ms: Number(lat[lat.length - 1].toFixed(3)),
};
await disposeMathPool();
console.log(
  `math: ${result.checks} checks in ${(total / 1000).toFixed(2)} s: ${result.checks_per_s} checks/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, max ${result.max_ms} ms`,
);
console.log(JSON.stringify(result));

// Speed and accuracy of the built-in demo models (pure TypeScript GGUF engine). Bundles the
// provider with esbuild (as the extension and CLI do), loads models/arith-*.gguf, then times
// greedy answers and seeded samples at T=1 (n=16 per request, the prompt prefill shared), and
// accuracy on the single-digit sums, where the models are weakest.
// Prints one JSON line at the end.   usage: node scripts/bench-builtin.mjs [--answers N]
import path from 'node:path';
import { loadBundled } from './bundle.mjs';

const root = path.resolve(import.meta.dirname, '..');
const argN = process.argv.indexOf('--answers');
const ANSWERS = argN > 0 ? Number(process.argv[argN + 1]) : 200;
const { BuiltinProvider, setBuiltinModelDir } = await loadBundled('src/core/sampling/builtin/index.ts');
setBuiltinModelDir(path.join(root, 'models'));

const never = new AbortController().signal;
function question(i) {
  const a = (i * 37 + 5) % 100, b = (i * 53 + 11) % 100;
  switch (i % 3) {
    case 0: return [`What is ${a}+${b}?`, a + b];
    case 1: return [`What is ${Math.max(a, b)}-${Math.min(a, b)}?`, Math.abs(a - b)];
    default: return [`What is ${a % 13}*${b % 13}?`, (a % 13) * (b % 13)];
  }
}

const result = { answers: ANSWERS };
for (const model of ['arith-weak', 'arith-strong']) {
  const p = new BuiltinProvider({ model });
  let t0 = performance.now();
  await p.sample({ messages: [{ role: 'user', content: 'What is 1+1?' }], temperature: 0 }, 1, never);
  result[`${model}.loadMs`] = +(performance.now() - t0).toFixed(1);
  // Greedy, one answer per request (prefill included).
  let ok = 0;
  t0 = performance.now();
  for (let i = 0; i < ANSWERS; i++) {
    const [q, want] = question(i);
    const [s] = await p.sample({ messages: [{ role: 'user', content: q }], temperature: 0 }, 1, never);
    if (s.text === String(want)) ok++;
  }
  result[`${model}.greedyMsPerAnswer`] = +((performance.now() - t0) / ANSWERS).toFixed(3);
  result[`${model}.greedyAccuracy`] = +(ok / ANSWERS).toFixed(3);
  // T=1, 16 samples per request.
  const requests = Math.max(1, Math.round(ANSWERS / 16));
  ok = 0;
  t0 = performance.now();
  for (let i = 0; i < requests; i++) {
    const [q, want] = question(i);
    const samples = await p.sample({ messages: [{ role: 'user', content: q }], temperature: 1, seed: i }, 16, never);
    ok += samples.filter((s) => s.text === String(want)).length;
  }
  result[`${model}.sampledMsPerAnswer`] = +((performance.now() - t0) / (requests * 16)).toFixed(3);
  result[`${model}.sampledAccuracyT1`] = +(ok / (requests * 16)).toFixed(3);
  // The 100 single-digit sums (a, b < 10): training drew operands from 0..99, so these are only
  // 1% of its additions and the model is least sure of them (`3+4`: "7" 0.64, "9" 0.32).
  let greedy = 0;
  ok = 0;
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      const messages = [{ role: 'user', content: `What is ${a}+${b}?` }];
      const [g] = await p.sample({ messages, temperature: 0 }, 1, never);
      if (g.text === String(a + b)) greedy++;
      const samples = await p.sample({ messages, temperature: 1, seed: a * 10 + b }, 8, never);
      ok += samples.filter((s) => s.text === String(a + b)).length;
    }
  }
  result[`${model}.singleDigitSumsGreedy`] = greedy / 100;
  result[`${model}.singleDigitSumsT1`] = +(ok / 800).toFixed(3);
}
console.log(JSON.stringify({ bench: 'builtin', node: process.version, ...result }));

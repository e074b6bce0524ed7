// Speed and accuracy of the built-in demo models (pure TypeScript GGUF engine). Bundles the
// provider with esbuild (as the extension and CLI do), loads models/arith-*.gguf, then times
// greedy answers and seeded samples at T=1 (n=16 per request, the prompt prefill shared), and
// accuracy on the single-digit sums, where the models are weakest; then the calculator model's
// tool calls: samples/s for tool requests, and how often whole episodes (call, the result
// computed here, answer) call the right tool with the right arguments and answer right.
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
  const a = (i * 37 + 5) % 100,
    b = (i * 53 + 11) % 100;
  switch (i % 3) {
    case 0:
      return [`What is ${a}+${b}?`, a + b];
    case 1:
      return [`What is ${Math.max(a, b)}-${Math.min(a, b)}?`, Math.abs(a - b)];
    default:
      return [`What is ${a % 13}*${b % 13}?`, (a % 13) * (b % 13)];
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

// ---- the calculator model (tool calls)
const operands = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' } },
  required: ['a', 'b'],
};
const TOOLS = ['add', 'sub', 'mul'].map((name) => ({ name, parameters: operands }));
const OPS = { add: ['+', (a, b) => a + b], sub: ['-', (a, b) => a - b], mul: ['*', (a, b) => a * b] };
/** Problem i: 1- to 3-digit operands, as in training (models/train.py, calc_number). */
function toolProblem(i) {
  const digits = (j) => [10, 100, 1000][(i * 7 + j) % 3];
  const a = (i * 7919 + 13) % digits(0),
    b = (i * 104729 + 7) % digits(1);
  const tool = ['add', 'sub', 'mul'][i % 3];
  return { tool, a, b, question: `What is ${a}${OPS[tool][0]}${b}? Use the calculator.`, value: OPS[tool][1](a, b) };
}
/** One episode as an agent loop runs it: the model's call, the tool's result, the model's answer. */
async function episode(p, prob, temperature, seed) {
  const messages = [{ role: 'user', content: prob.question }];
  const [first] = await p.sample({ messages, tools: TOOLS, temperature, seed }, 1, never);
  const call = first.toolCalls?.[0];
  if (!call) return { called: false, answer: first.text };
  let args;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return { called: true, answer: '' };
  }
  const op = OPS[call.name];
  const content =
    op && Number.isInteger(args.a) && Number.isInteger(args.b)
      ? JSON.stringify({ result: op[1](args.a, args.b) })
      : JSON.stringify({ error: 'bad call' });
  const next = [
    ...messages,
    { role: 'assistant', content: '', tool_calls: [call] },
    { role: 'tool', content, tool_call_id: call.id, name: call.name },
  ];
  const [final] = await p.sample({ messages: next, tools: TOOLS, temperature, seed }, 1, never);
  return {
    called: true,
    validJson: true,
    rightCall: call.name === prob.tool && args.a === prob.a && args.b === prob.b && Object.keys(args).length === 2,
    answer: final.text,
  };
}
const calc = new BuiltinProvider({ model: 'calculator' });
const EPISODES = Math.max(1, Math.round(ANSWERS / 2));
for (const [label, temperature, seeds] of [
  ['Greedy', 0, [0]],
  ['T1', 1, [0, 1, 2, 3]],
]) {
  const n = { episodes: 0, called: 0, validJson: 0, rightCall: 0, rightAnswer: 0 };
  for (let i = 0; i < EPISODES; i++) {
    const prob = toolProblem(i);
    for (const s of seeds) {
      const e = await episode(calc, prob, temperature, i * 100 + s);
      n.episodes++;
      n.called += e.called ? 1 : 0;
      n.validJson += e.validJson ? 1 : 0;
      n.rightCall += e.rightCall ? 1 : 0;
      n.rightAnswer += e.answer === `\\boxed{${prob.value}}` ? 1 : 0;
    }
  }
  for (const k of ['called', 'validJson', 'rightCall', 'rightAnswer'])
    result[`calculator.${k}${label}`] = +(n[k] / n.episodes).toFixed(3);
}
// Tool requests, 16 samples per request (the prompt prefill shared), as an agent task's first turn.
const requests = Math.max(1, Math.round(ANSWERS / 16));
let t0 = performance.now();
let calls = 0;
for (let i = 0; i < requests; i++) {
  const samples = await calc.sample(
    { messages: [{ role: 'user', content: toolProblem(i).question }], tools: TOOLS, temperature: 1, seed: i },
    16,
    never,
  );
  calls += samples.filter((s) => s.toolCalls).length;
}
result['calculator.toolCallSamplesPerSecond'] = +((requests * 16) / ((performance.now() - t0) / 1000)).toFixed(1);
result['calculator.toolCallShareT1'] = +(calls / (requests * 16)).toFixed(3);
console.log(JSON.stringify({ bench: 'builtin', node: process.version, ...result }));

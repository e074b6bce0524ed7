import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  BuiltinProvider,
  GgufError,
  Rng,
  extractQuestion,
  generate,
  halfToFloat,
  loadModel,
  parseGguf,
  pickToken,
  prefill,
  promptFor,
  setBuiltinModelDir,
} from '../../src/core/sampling/builtin';
import { SamplingError, createProvider, type ModelProfile, type Sample } from '../../src/core/sampling';
import { taskStats } from '../../src/core/stats';
import { needsShared, REPO_ROOT, SHARED_DIR } from '../support/conformance';

const MODELS = path.join(REPO_ROOT, 'models');
const WEAK = path.join(MODELS, 'arith-weak.gguf');
const STRONG = path.join(MODELS, 'arith-strong.gguf');
const REFERENCE_OUTPUTS = path.join(MODELS, 'reference-outputs.json');
// The worked example the engine was checked against: not shipped, it sits beside the repository
// in ../shared (as the conformance data does), wherever the checkout is.
const EXAMPLE_DIR = path.join(SHARED_DIR, 'reference/tiny-model');

setBuiltinModelDir(MODELS);

interface ReferenceOutputs {
  maxTokens: number;
  models: Record<
    string,
    {
      greedy: { prompt: string; text: string; finishReason: string }[];
      samples: { prompt: string; temperature: number; seed: number; text: string; finishReason: string }[];
    }
  >;
}

const user = (content: string) => [{ role: 'user', content }];
const never = new AbortController().signal;

test('GGUF: half floats, bad files', () => {
  assert.equal(halfToFloat(0x3c00), 1);
  assert.equal(halfToFloat(0xc000), -2);
  assert.equal(halfToFloat(0x0001), 2 ** -24);
  assert.equal(halfToFloat(0x7c00), Infinity);
  assert.ok(Number.isNaN(halfToFloat(0x7e00)));
  assert.throws(() => parseGguf(new TextEncoder().encode('nope')), GgufError);
  const truncated = fs.readFileSync(STRONG).subarray(0, 300);
  assert.throws(() => parseGguf(truncated), GgufError);
});

test('GGUF: the project model files are small, F16, and describe a llama model', () => {
  for (const file of [WEAK, STRONG]) {
    const bytes = fs.readFileSync(file);
    assert.ok(bytes.byteLength < 1_000_000, `${file} is ${bytes.byteLength} bytes`);
    const g = parseGguf(bytes);
    assert.equal(g.metadata.get('general.architecture'), 'llama');
    assert.match(String(g.metadata.get('general.name')), /^vtask-arith-/);
    assert.ok(g.tensors.has('blk.1.ffn_down.weight'));
  }
});

test('prompt format: arithmetic is extracted from the last user message', () => {
  assert.equal(extractQuestion('What is 17+25?'), 'What is 17+25?');
  assert.equal(extractQuestion('Compute 91 - 38, please.'), 'What is 91-38?');
  assert.equal(extractQuestion('7 × 8 = ?'), 'What is 7*8?');
  assert.equal(extractQuestion('  Hello\n  there '), 'Hello there');
  assert.equal(
    promptFor([
      { role: 'system', content: 'Be brief. 1+1' },
      { role: 'user', content: 'what is 3+4' },
      { role: 'assistant', content: '7' },
      { role: 'user', content: 'and 5*6?' },
    ]),
    'Q: What is 5*6?\nA: ',
  );
});

test("greedy answers reproduce the training script's reference outputs", () => {
  const ref = JSON.parse(fs.readFileSync(REFERENCE_OUTPUTS, 'utf8')) as ReferenceOutputs;
  assert.deepEqual(Object.keys(ref.models).sort(), ['arith-strong.gguf', 'arith-weak.gguf']);
  for (const [file, outputs] of Object.entries(ref.models)) {
    const model = loadModel(path.join(MODELS, file));
    assert.ok(outputs.greedy.length >= 10);
    for (const g of outputs.greedy) {
      const got = generate(model, prefill(model, g.prompt, ref.maxTokens), {
        maxTokens: ref.maxTokens,
        temperature: 0,
        topP: 1,
        seed: 0,
        stop: ['\n'],
      });
      assert.deepEqual(
        { text: got.text, finishReason: got.finishReason },
        { text: g.text, finishReason: g.finishReason },
        `${file} ${JSON.stringify(g.prompt)}`,
      );
    }
  }
});

test("seeded samples reproduce the training script's (same PRNG and sampling rule)", () => {
  const ref = JSON.parse(fs.readFileSync(REFERENCE_OUTPUTS, 'utf8')) as ReferenceOutputs;
  let same = 0;
  let total = 0;
  for (const [file, outputs] of Object.entries(ref.models)) {
    const model = loadModel(path.join(MODELS, file));
    for (const s of outputs.samples) {
      const got = generate(model, prefill(model, s.prompt, ref.maxTokens), {
        maxTokens: ref.maxTokens,
        temperature: s.temperature,
        topP: 1,
        seed: s.seed,
        stop: ['\n'],
      });
      total++;
      if (got.text === s.text && got.finishReason === s.finishReason) same++;
    }
  }
  // float64 PyTorch vs float32 activations here: a draw landing within ~1e-6 of a boundary may
  // flip, so allow one miss.
  assert.ok(same >= total - 1, `${same}/${total} seeded samples match`);
});

test('strong model: right on held-out style sums; weak model: often wrong', async () => {
  const strong = new BuiltinProvider({ model: 'arith-strong' });
  const weak = new BuiltinProvider({ model: 'arith-weak' });
  const questions: [string, number][] = [];
  for (let i = 0; i < 40; i++) {
    const a = (i * 37 + 5) % 100;
    const b = (i * 53 + 11) % 100;
    questions.push(
      i % 2 ? [`What is ${a}+${b}?`, a + b] : [`What is ${Math.max(a, b)}-${Math.min(a, b)}?`, Math.abs(a - b)],
    );
  }
  const score = async (p: BuiltinProvider) => {
    let ok = 0;
    for (const [q, want] of questions) {
      const [s] = await p.sample({ messages: user(q), temperature: 0 }, 1, never);
      if (s!.text === String(want)) ok++;
    }
    return ok / questions.length;
  };
  const s = await score(strong);
  const w = await score(weak);
  assert.ok(s >= 0.9, `strong greedy accuracy ${s}`);
  assert.ok(w < s, `weak ${w} < strong ${s}`);
});

test('long prompts keep their end and still leave room to answer', async () => {
  const p = new BuiltinProvider();
  const long = 'blah '.repeat(200) + 'What is 17+25?';
  const [s] = await p.sample({ messages: user(long), temperature: 0, maxTokens: 100000 }, 1, never);
  assert.equal(s!.text, '42');
  const [t] = await p.sample(
    { messages: user('word '.repeat(300)), temperature: 1, seed: 3, maxTokens: 100000 },
    1,
    never,
  );
  assert.ok(t!.usage!.promptTokens! + t!.usage!.completionTokens! <= 128);
});

test('provider: n samples, seeds seed + k, index, usage, model name', async () => {
  const p = new BuiltinProvider();
  assert.equal(p.id, 'builtin:arith-tiny');
  const req = { messages: user('What is 17+25?'), temperature: 1.5, seed: 11 };
  const a = await p.sample(req, 6, never);
  const b = await p.sample(req, 6, never);
  assert.equal(a.length, 6);
  assert.deepEqual(
    a.map((s) => s.text),
    b.map((s) => s.text),
  );
  // Samples 4 and 5 alone (index 4) are the same as in the full run.
  const tail = await p.sample({ ...req, index: 4 }, 2, never);
  assert.deepEqual(
    tail.map((s) => s.text),
    a.slice(4).map((s) => s.text),
  );
  // One sample with seed 11 + 3 is sample 3.
  const third = await p.sample({ ...req, seed: 14 }, 1, never);
  assert.equal(third[0]!.text, a[3]!.text);
  for (const s of a) {
    assert.equal(s.model, 'arith-tiny');
    assert.ok(s.finishReason === 'stop' || s.finishReason === 'length');
    assert.equal(s.usage?.promptTokens, 1 + 'Q: What is 17+25?\nA: '.length);
    assert.ok((s.usage?.completionTokens ?? 0) >= 1);
    assert.ok(!Number.isNaN(Date.parse(s.takenAt)));
  }
  // High temperature gives different answers across seeds.
  assert.ok(new Set(a.map((s) => s.text)).size > 1);
  // Greedy is the same whatever the seed; a tiny top_p is greedy too.
  const g1 = await p.sample({ messages: user('What is 17+25?'), temperature: 0, seed: 1 }, 3, never);
  const g2 = await p.sample({ messages: user('What is 17+25?'), temperature: 2, topP: 1e-9, seed: 99 }, 3, never);
  assert.deepEqual(
    g1.map((s) => s.text),
    ['42', '42', '42'],
  );
  assert.deepEqual(
    g2.map((s) => s.text),
    ['42', '42', '42'],
  );
  assert.equal(g1[0]!.finishReason, 'stop');
  assert.equal(g1[0]!.usage?.completionTokens, 3, 'two digits and the end of sequence');
});

test('provider: max_tokens truncates with finish reason length', async () => {
  const p = new BuiltinProvider();
  const [s] = await p.sample({ messages: user('What is 17+25?'), temperature: 0, maxTokens: 1 }, 1, never);
  assert.equal(s!.text, '4');
  assert.equal(s!.finishReason, 'length');
  assert.equal(s!.truncated, true);
  assert.equal(s!.usage?.completionTokens, 1);
  await assert.rejects(
    p.sample({ messages: user('1+1'), maxTokens: 0 }, 1, never),
    (e: unknown) => e instanceof SamplingError && e.kind === 'bad-request',
  );
});

test('provider: stop strings and off-format questions', async () => {
  const p = new BuiltinProvider();
  const [s] = await p.sample({ messages: user('What is 17+25?'), temperature: 0, stop: '2' }, 1, never);
  assert.equal(s!.text, '4');
  assert.equal(s!.finishReason, 'stop');
  // Not arithmetic: the model still answers something, on one line.
  const [t] = await p.sample({ messages: user('Tell me a story'), temperature: 0 }, 1, never);
  assert.equal(typeof t!.text, 'string');
  assert.ok(!t!.text.includes('\n'));
});

test('provider: abort before and between samples', async () => {
  const p = new BuiltinProvider();
  const pre = new AbortController();
  pre.abort();
  await assert.rejects(
    p.sample({ messages: user('What is 1+2?') }, 1, pre.signal),
    (e: unknown) => e instanceof SamplingError && e.kind === 'cancelled',
  );
  const mid = new AbortController();
  const run = p.sample({ messages: user('What is 1+2?'), seed: 1 }, 500, mid.signal);
  setImmediate(() => mid.abort());
  await assert.rejects(run, (e: unknown) => e instanceof SamplingError && e.kind === 'cancelled');
  // Abort between tokens: generate checks the signal before each token.
  const model = loadModel(STRONG);
  const gone = new AbortController();
  gone.abort();
  assert.throws(
    () =>
      generate(model, prefill(model, 'Q: What is 1+2?\nA: ', 8), {
        maxTokens: 8,
        temperature: 1,
        topP: 1,
        seed: 1,
        stop: [],
        signal: gone.signal,
      }),
    /cancelled/,
  );
});

test('createProvider: builtin profiles', async () => {
  const profile = (baseUrl: string, model = ''): ModelProfile => ({
    name: 'demo',
    baseUrl,
    model,
    endpoint: 'chat',
    concurrency: 1,
    timeoutMs: 1000,
    seed: 5,
  });
  const p = createProvider(profile('builtin:arith-weak'));
  assert.equal(p.id, 'builtin:arith-weak');
  assert.deepEqual(await p.listModels!(never), ['arith-tiny', 'arith-strong', 'arith-weak', 'calculator']);
  // The profile's seed applies when the request has none.
  const a = await p.sample({ messages: user('What is 9*6?'), temperature: 1 }, 3, never);
  const b = await p.sample({ messages: user('What is 9*6?'), temperature: 1, seed: 5 }, 3, never);
  assert.deepEqual(
    a.map((s) => s.text),
    b.map((s) => s.text),
  );
  assert.equal(createProvider(profile('builtin:', 'arith-strong')).id, 'builtin:arith-strong');
  assert.equal(createProvider(profile('builtin:')).id, 'builtin:arith-tiny');
  assert.throws(
    () => createProvider(profile('builtin:gpt-5')),
    (e: unknown) => e instanceof SamplingError && e.kind === 'not-found',
  );
});

test('statistics: the weak model puts some arithmetic task in the learnable band', async () => {
  const p = new BuiltinProvider({ model: 'arith-weak' });
  const tasks: [string, number][] = [
    ['What is 17+25?', 42],
    ['What is 45+37?', 82],
    ['What is 9*6?', 54],
    ['What is 71-46?', 25],
    ['What is 23+58?', 81],
    ['What is 3+4?', 7],
  ];
  const bands: string[] = [];
  let learnable = 0;
  for (const [q, want] of tasks) {
    const samples: Sample[] = await p.sample({ messages: user(q), temperature: 1, seed: 1000 }, 16, never);
    const stats = taskStats(
      samples.map((s) => ({ pass: s.text.trim() === String(want), score: s.text.trim() === String(want) ? 1 : 0 })),
    );
    bands.push(`${q} ${stats.passed}/16 ${stats.band}`);
    if (stats.passRate > 0 && stats.passRate < 1) {
      assert.equal(stats.band, 'learnable');
      learnable++;
    }
  }
  assert.ok(learnable >= 1, bands.join('; '));
});

test('rng and token picking are deterministic and respect top_p', () => {
  const a = new Rng(42);
  const b = new Rng(42);
  const xs = Array.from({ length: 5 }, () => a.next());
  assert.deepEqual(
    xs,
    Array.from({ length: 5 }, () => b.next()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(
    xs,
    Array.from({ length: 5 }, () => new Rng(43).next()),
  );
  assert.notEqual(new Rng(2 ** 40).next(), new Rng(0).next(), 'high seed bits count');
  const logits = new Float32Array([0, 3, 2.9, -1]);
  assert.equal(pickToken(logits, 0, 1, new Rng(1)), 1);
  const seen = new Set<number>();
  for (let s = 0; s < 200; s++) seen.add(pickToken(logits, 1, 0.6, new Rng(s)));
  assert.deepEqual([...seen].sort(), [1, 2], 'top_p 0.6 keeps the two likely tokens only');
});

test(
  "parity with the worked example's engine on its model files",
  { skip: needsShared('reference/tiny-model', 'the worked example the engine was checked against') },
  async () => {
    const engine = path.join(EXAMPLE_DIR, 'tinyllama.mjs');
    const mod = (await import(pathToFileURL(engine).href)) as {
      TinyLlama: new (p: string) => { generate(p: string, o: object): { text: string; finish: string } };
    };
    for (const f of ['arith-weak-f16.gguf', 'arith-strong-f16.gguf']) {
      const file = path.join(EXAMPLE_DIR, f);
      const theirs = new mod.TinyLlama(file);
      const ours = loadModel(file);
      for (let i = 0; i < 30; i++) {
        const prompt = `Q: What is ${(i * 37) % 100}${'+-*'[i % 3]}${(i * 53 + 11) % 100}?\nA: `;
        const r = theirs.generate(prompt, { maxTokens: 8, temperature: 0 });
        const g = generate(ours, prefill(ours, prompt, 8), {
          maxTokens: 8,
          temperature: 0,
          topP: 1,
          seed: 0,
          stop: [],
        });
        assert.deepEqual([g.text, g.finishReason], [r.text, r.finish], `${f} ${JSON.stringify(prompt)}`);
      }
    }
  },
);

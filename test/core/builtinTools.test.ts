import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ChatMessage, ToolSpec } from '../../src/core/base/chat';
import {
  BuiltinProvider,
  generate,
  loadModel,
  parseCall,
  parseGguf,
  prefill,
  renderToolResult,
  setBuiltinModelDir,
  toolPromptFor,
} from '../../src/core/sampling/builtin';
import { createProvider, type ModelProfile } from '../../src/core/sampling';

const MODELS = path.resolve(process.cwd(), 'models');
const CALCULATOR = path.join(MODELS, 'calculator.gguf');
const REFERENCE = path.join(MODELS, 'calculator-reference.json');
setBuiltinModelDir(MODELS);

const never = new AbortController().signal;
const operands = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' } },
  required: ['a', 'b'],
};
const TOOLS: ToolSpec[] = ['add', 'sub', 'mul'].map((name) => ({ name, parameters: operands }));
const ask = (q: string): ChatMessage[] => [
  { role: 'system', content: 'Use the tools.' },
  { role: 'user', content: q },
];
const OPS: Record<string, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
};

interface Reference {
  maxTokens: number;
  stops: string[];
  greedy: { prompt: string; text: string; finishReason: string }[];
  samples: { prompt: string; temperature: number; seed: number; text: string; finishReason: string }[];
}

test('tool prompt: tool names, the question, then each call and its result', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is 17 + 25? Use the calculator.' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'add', arguments: '{"a": 17, "b": 25}' }] },
    { role: 'tool', content: '{"result":42}', tool_call_id: 'c1', name: 'add' },
  ];
  assert.equal(toolPromptFor(messages.slice(0, 2), TOOLS), 'T: add sub mul\nQ: What is 17+25?\nA: ');
  assert.equal(
    toolPromptFor(messages, TOOLS),
    'T: add sub mul\nQ: What is 17+25?\nA: <call>add{"a":17,"b":25}</call>\nR: 42\nA: ',
  );
  assert.equal(toolPromptFor(messages.slice(0, 2), []), 'T: \nQ: What is 17+25?\nA: ');
  // Results: a bare value, an error, or text on one line (bounded).
  assert.equal(renderToolResult('1023'), '1023');
  assert.equal(renderToolResult('{"error":"a must be an integer"}'), 'error: a must be an integer');
  assert.equal(renderToolResult('two\nlines'), 'two lines');
  assert.ok(renderToolResult('x'.repeat(10_000)).length <= 41);
  assert.deepEqual(parseCall('<call>mul{"a":345,"b":12}</call>'), { name: 'mul', arguments: '{"a":345,"b":12}' });
  assert.equal(parseCall('\\boxed{42}'), null);
  assert.equal(parseCall('<call>{"a":1}</call>'), null, 'a call needs a tool name');
});

test('the calculator model file is small and says what it is', () => {
  const bytes = fs.readFileSync(CALCULATOR);
  assert.ok(bytes.byteLength < 1_000_000, `${bytes.byteLength} bytes`);
  const g = parseGguf(bytes);
  assert.equal(g.metadata.get('general.name'), 'vtask-calculator');
  assert.match(String(g.metadata.get('general.description')), /tools/);
});

test("the engine reproduces the training script's calculator outputs", () => {
  const ref = JSON.parse(fs.readFileSync(REFERENCE, 'utf8')) as Reference;
  const model = loadModel(CALCULATOR);
  const run = (prompt: string, temperature: number, seed: number) => {
    const g = generate(model, prefill(model, prompt, ref.maxTokens), {
      maxTokens: ref.maxTokens,
      temperature,
      topP: 1,
      seed,
      stop: ref.stops,
    });
    // The training script keeps `</call>` in the text; the engine reports it as the stop.
    return { text: g.stoppedBy === '</call>' ? `${g.text}</call>` : g.text, finishReason: g.finishReason };
  };
  assert.ok(
    ref.greedy.some((g) => g.text.startsWith('<call>')) && ref.greedy.some((g) => g.text.startsWith('\\boxed{')),
  );
  for (const g of ref.greedy)
    assert.deepEqual(run(g.prompt, 0, 0), { text: g.text, finishReason: g.finishReason }, JSON.stringify(g.prompt));
  const same = ref.samples.filter(
    (s) =>
      JSON.stringify(run(s.prompt, s.temperature, s.seed)) ===
      JSON.stringify({ text: s.text, finishReason: s.finishReason }),
  ).length;
  // float64 PyTorch vs float32 here: a draw within ~1e-6 of a boundary may flip.
  assert.ok(same >= ref.samples.length - 1, `${same}/${ref.samples.length} seeded samples match`);
});

test('a tool request gets OpenAI-shaped tool calls: unique ids, valid JSON arguments in most samples', async () => {
  const p = new BuiltinProvider({ model: 'calculator' });
  const samples = await p.sample(
    { messages: ask('What is 345*12? Use the calculator.'), tools: TOOLS, temperature: 1, seed: 2026 },
    50,
    never,
  );
  assert.equal(samples.length, 50);
  const withCalls = samples.filter((s) => s.toolCalls !== undefined);
  let validJson = 0;
  let right = 0;
  for (const s of withCalls) {
    assert.equal(s.finishReason, 'tool_calls');
    assert.equal(s.text, '');
    assert.equal(s.model, 'calculator');
    assert.equal(s.toolCalls!.length, 1);
    const c = s.toolCalls![0]!;
    assert.match(c.id, /^call_\w+$/);
    assert.equal(typeof c.arguments, 'string');
    try {
      const args = JSON.parse(c.arguments) as unknown;
      validJson++;
      if (c.name === 'mul' && JSON.stringify(args) === '{"a":345,"b":12}') right++;
    } catch {
      // counted as invalid
    }
  }
  const ids = withCalls.map((s) => s.toolCalls![0]!.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique across samples');
  // Measured with this seed: 44/50 call, all with valid JSON and exactly mul{345,12}; 6 answer from memory.
  assert.ok(withCalls.length >= 38, `${withCalls.length}/50 samples call a tool`);
  assert.ok(validJson >= 38, `${validJson}/50 samples have JSON arguments`);
  assert.ok(right >= 35, `${right}/50 samples call mul with 345 and 12`);
  // ... but not always: the rest answer in text (the failing trajectories an agent task shows).
  const inText = samples.filter((s) => s.toolCalls === undefined);
  assert.ok(inText.length >= 1, 'some samples answer without calling');
  for (const s of inText) assert.ok(s.text.length > 0 && s.finishReason !== 'tool_calls');
  // The same seed gives the same calls and ids.
  const again = await p.sample(
    { messages: ask('What is 345*12? Use the calculator.'), tools: TOOLS, temperature: 1, seed: 2026 },
    50,
    never,
  );
  assert.deepEqual(
    again.map((s) => s.toolCalls ?? s.text),
    samples.map((s) => s.toolCalls ?? s.text),
  );
});

test('after the tool result the model answers in text with the result; ids differ from the first turn', async () => {
  const p = new BuiltinProvider({ model: 'calculator' });
  const messages = ask('What is 908-77? Use the calculator.');
  const [first] = await p.sample({ messages, tools: TOOLS, temperature: 0, seed: 5 }, 1, never);
  const call = first!.toolCalls?.[0];
  assert.ok(call, `greedy calls a tool: ${JSON.stringify(first)}`);
  assert.equal(call.name, 'sub');
  const args = JSON.parse(call.arguments) as { a: number; b: number };
  assert.deepEqual(args, { a: 908, b: 77 });
  const result = OPS[call.name]!(args.a, args.b);
  const next: ChatMessage[] = [
    ...messages,
    { role: 'assistant', content: '', tool_calls: [call] },
    { role: 'tool', content: JSON.stringify({ result }), tool_call_id: call.id, name: call.name },
  ];
  const [answer] = await p.sample({ messages: next, tools: TOOLS, temperature: 0, seed: 5 }, 1, never);
  assert.equal(answer!.toolCalls, undefined);
  assert.equal(answer!.text, '\\boxed{831}');
  // A result the model cannot know is copied, not computed: the tool matters.
  const odd: ChatMessage[] = [
    ...next.slice(0, -1),
    { role: 'tool', content: '{"result":5555}', tool_call_id: call.id, name: call.name },
  ];
  const [copied] = await p.sample({ messages: odd, tools: TOOLS, temperature: 0 }, 1, never);
  assert.equal(copied!.text, '\\boxed{5555}');
  // Were it to call again, the id would be a new one (the turn is part of it).
  const [again] = await p.sample(
    {
      messages: [
        ...next.slice(0, -2),
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', content: '0' },
        { role: 'user', content: 'What is 908-77?' },
      ],
      tools: TOOLS,
      temperature: 0,
      seed: 5,
    },
    1,
    never,
  );
  assert.ok(again!.toolCalls?.[0], 'a new question gets a new call');
  assert.notEqual(again!.toolCalls[0]!.id, call.id);
});

test('without tools: text answers, and the arithmetic models are unchanged', async () => {
  const calc = new BuiltinProvider({ model: 'calculator' });
  const plain = await calc.sample({ messages: ask('What is 3+4?'), temperature: 1, seed: 1 }, 20, never);
  for (const s of plain) {
    assert.equal(s.toolCalls, undefined);
    assert.notEqual(s.finishReason, 'tool_calls');
  }
  const [greedy] = await calc.sample({ messages: ask('What is 3+4?'), temperature: 0 }, 1, never);
  // Without a calculator it answers from memory: a boxed number (wrong, mostly: it learned to call).
  assert.match(greedy!.text, /^\\boxed\{-?\d+\}$/);
  const arith = new BuiltinProvider();
  const [a] = await arith.sample({ messages: ask('What is 17+25?'), temperature: 0 }, 1, never);
  assert.deepEqual(
    { text: a!.text, calls: a!.toolCalls, model: a!.model },
    { text: '42', calls: undefined, model: 'arith-tiny' },
  );
});

test('a tool request to the default built-in model is answered by the calculator model', async () => {
  const profile: ModelProfile = {
    name: 'builtin',
    baseUrl: 'builtin:arith-tiny',
    model: 'arith-tiny',
    endpoint: 'chat',
    concurrency: 1,
    timeoutMs: 1000,
  };
  const [s] = await createProvider(profile).sample(
    { messages: ask('What is 17+25?'), tools: TOOLS, temperature: 0 },
    1,
    never,
  );
  assert.equal(s!.model, 'calculator');
  assert.deepEqual(
    s!.toolCalls?.map((c) => [c.name, c.arguments]),
    [['add', '{"a":17,"b":25}']],
  );
  const named: ModelProfile = { ...profile, baseUrl: 'builtin:calculator', model: 'calculator' };
  assert.equal(createProvider(named).id, 'builtin:calculator');
});

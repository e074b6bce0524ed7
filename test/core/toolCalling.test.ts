// Tool calling over the OpenAI API against the project's test server: tools and tool messages
// as the server receives them, tool calls parsed from whole bodies and from streamed deltas
// (arguments in pieces, several calls in one turn), the bounds on them, and the cache key.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage, ToolSpec } from '../../src/core/base/chat';
import { sampleKey, sampleKeyInput } from '../../src/core/sampling/cacheKey';
import { MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS_PER_TURN } from '../../src/core/sampling/limits';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { profileFromEntry } from '../../src/core/sampling/profiles';
import { SamplingError, type SampleRequest } from '../../src/core/sampling/types';
import { startOpenAIServer, type OpenAIServer } from '../support/openaiServer';

const never = new AbortController().signal;
const FAST = { policy: { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 2 } } as const;
const GET: ToolSpec = {
  name: 'get',
  description: 'Read a key.',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
};

async function serve(t: TestContext): Promise<OpenAIServer> {
  const server = await startOpenAIServer();
  t.after(() => server.close());
  return server;
}

const profile = (server: OpenAIServer) => profileFromEntry('test', { base_url: server.url, model: 'test-model' });
const provider = (server: OpenAIServer, stream: boolean) =>
  new OpenAIProvider(profile(server), { retry: FAST, stream });

const script = (turns: unknown[]): string => `Find fr.\nvtask-test-script: ${JSON.stringify(turns)}`;

for (const stream of [false, true]) {
  void test(`tool calls ${stream ? 'streamed' : 'in one body'}: parallel calls parsed in order, arguments whole`, async (t) => {
    const server = await serve(t);
    const args = { key: 'fr', note: 'a longer value so that a stream splits it into many pieces' };
    const req: SampleRequest = {
      messages: [
        { role: 'user', content: script([{ calls: [{ get: args }, { name: 'get', arguments: '{"key": "de"' }] }]) },
      ],
      tools: [GET],
    };
    const [s] = await provider(server, stream).sample(req, 1, never);
    assert.ok(s);
    assert.equal(s.finishReason, 'tool_calls');
    assert.deepEqual(s.toolCalls, [
      { id: 'call_0_0', name: 'get', arguments: JSON.stringify(args) },
      { id: 'call_0_1', name: 'get', arguments: '{"key": "de"' },
    ]);
    const body = server.samplingRequests[0]?.body as Record<string, unknown>;
    assert.deepEqual(body.tools, [
      { type: 'function', function: { name: 'get', description: 'Read a key.', parameters: GET.parameters } },
    ]);
  });
}

void test('an answer without tool calls has no toolCalls, and a request without tools sends none', async (t) => {
  const server = await serve(t);
  const [s] = await provider(server, false).sample({ messages: [{ role: 'user', content: 'hi' }] }, 1, never);
  assert.equal(s?.toolCalls, undefined);
  assert.equal((server.samplingRequests[0]?.body as Record<string, unknown>).tools, undefined);
});

void test('assistant tool calls and tool results go out as the API wants them', async (t) => {
  const server = await serve(t);
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Find fr.' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'get', arguments: '{"key":"fr"}' }] },
    { role: 'tool', tool_call_id: 'c1', name: 'get', content: 'Paris' },
  ];
  await provider(server, false).sample({ messages, tools: [GET] }, 1, never);
  const body = server.samplingRequests[0]?.body as { messages: unknown[] };
  assert.deepEqual(body.messages, [
    { role: 'user', content: 'Find fr.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"key":"fr"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'Paris' },
  ]);
});

void test('tool calls are bounded: too many in a turn, or arguments too long, is a too-large error', async (t) => {
  const server = await serve(t);
  for (const stream of [false, true]) {
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_TURN + 1 }, () => ({ get: { key: 'k' } }));
    const e1 = await provider(server, stream)
      .sample({ messages: [{ role: 'user', content: script([{ calls: many }]) }], tools: [GET] }, 1, never)
      .catch((e: unknown) => e);
    assert.ok(e1 instanceof SamplingError && e1.kind === 'too-large', String(e1));
    assert.match(e1.message, /more than 64 tool calls/);
    const long = 'x'.repeat(MAX_TOOL_ARGUMENT_CHARS + 1);
    const e2 = await provider(server, stream)
      .sample(
        {
          messages: [{ role: 'user', content: script([{ calls: [{ name: 'get', arguments: long }] }]) }],
          tools: [GET],
        },
        1,
        never,
      )
      .catch((e: unknown) => e);
    assert.ok(e2 instanceof SamplingError && e2.kind === 'too-large', String(e2));
    assert.match(e2.message, /arguments over/);
  }
});

void test('tools need the chat endpoint', async (t) => {
  const server = await serve(t);
  const p = new OpenAIProvider(
    profileFromEntry('test', { base_url: server.url, model: 'test-model', endpoint: 'completions' }),
    { retry: FAST },
  );
  await assert.rejects(
    p.sample({ messages: [{ role: 'user', content: 'x' }], tools: [GET] }, 1, never),
    /tools need the chat endpoint/,
  );
  assert.equal(server.samplingRequests.length, 0);
});

void test('cache key: tools and tool messages count; a plain request keys as it always did', () => {
  const p = profileFromEntry('test', { base_url: 'http://127.0.0.1:1/v1', model: 'm' });
  const plain: SampleRequest = { messages: [{ role: 'user', content: 'q' }] };
  const input = sampleKeyInput(p, plain, 0);
  assert.equal('tools' in input && input.tools !== undefined, false);
  assert.deepEqual(input.messages, [{ role: 'user', content: 'q' }]);
  // Pinned (the key before tools existed): plain keys must not move, or every cache would be missed.
  const pinned = profileFromEntry('test', { base_url: 'http://127.0.0.1:1/v1', model: 'm' });
  const old: SampleRequest = {
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'q' },
    ],
    temperature: 0.5,
    seed: 3,
  };
  assert.equal(sampleKey(pinned, old, 2), '67b78638e7dd07082a89a19df223c922107d07f037a080093016f2f3f76cf817');
  assert.equal(sampleKey(p, plain, 0), sampleKey(p, { ...plain, tools: [] }, 0));
  const withTools = sampleKey(p, { ...plain, tools: [GET] }, 0);
  assert.notEqual(withTools, sampleKey(p, plain, 0));
  assert.notEqual(withTools, sampleKey(p, { ...plain, tools: [{ ...GET, description: 'other' }] }, 0));
  const step = (result: string): SampleRequest => ({
    messages: [
      ...plain.messages,
      { role: 'assistant', content: '', tool_calls: [{ id: 'c', name: 'get', arguments: '{}' }] },
      { role: 'tool', tool_call_id: 'c', content: result },
    ],
    tools: [GET],
  });
  assert.notEqual(sampleKey(p, step('Paris'), 0), sampleKey(p, step('Berlin'), 0));
  assert.notEqual(sampleKey(p, step('Paris'), 0), withTools);
  const otherArgs = step('Paris');
  const changed: SampleRequest = {
    ...otherArgs,
    messages: otherArgs.messages.map((m) =>
      m.tool_calls ? { ...m, tool_calls: [{ id: 'c', name: 'get', arguments: '{"key":1}' }] } : m,
    ),
  };
  assert.notEqual(sampleKey(p, changed, 0), sampleKey(p, step('Paris'), 0));
});

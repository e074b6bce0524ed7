// The OpenAI-compatible provider against the project's own test server on 127.0.0.1: `n`,
// seeds, streaming, reasoning, truncation, usage, retries (429, 500, malformed JSON, streams cut
// mid-way), timeouts, the concurrency limit as the server sees it, cancellation, and the errors a
// person reads (401, 404, nothing listening), none of which may contain a key.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAIProvider, type OpenAIProviderOptions } from '../../src/core/sampling/openai';
import { profileFromEntry } from '../../src/core/sampling/profiles';
import { fetchTransport } from '../../src/core/sampling/transport';
import { SamplingError, type ModelProfile, type Sample, type SampleRequest } from '../../src/core/sampling/types';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../support/openaiServer';

const never = new AbortController().signal;
const ask = (prompt: string, extra: Partial<SampleRequest> = {}): SampleRequest => ({
  messages: [{ role: 'user', content: prompt }],
  ...extra,
});
/** Retries without real waits worth the name, so failures are quick to reach. */
const FAST = { policy: { baseDelayMs: 1, maxDelayMs: 4 } } as const;

async function serve(t: TestContext, options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const server = await startOpenAIServer(options);
  t.after(() => server.close());
  return server;
}

function profileFor(server: OpenAIServer | string, entry: Record<string, unknown> = {}): ModelProfile {
  return profileFromEntry('test', {
    base_url: typeof server === 'string' ? server : server.url,
    model: 'test-model',
    ...entry,
  });
}

function provider(
  server: OpenAIServer | string,
  entry: Record<string, unknown> = {},
  options: OpenAIProviderOptions = {},
): OpenAIProvider {
  return new OpenAIProvider(profileFor(server, entry), { retry: FAST, ...options });
}

async function failure(p: Promise<unknown>): Promise<SamplingError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SamplingError, `a SamplingError, not ${String(e)}`);
    return e;
  }
  assert.fail('expected a failure');
}

const texts = (samples: readonly Sample[]): string[] => samples.map((s) => s.text);

void test('n: one request with n answers, usage recorded and shared out exactly', async (t) => {
  const server = await serve(t);
  const samples = await provider(server).sample(ask('what is 2+2'), 4, never);
  assert.deepEqual(
    texts(samples),
    [0, 1, 2, 3].map((i) => `answer ${i}: what is 2+2`),
  );
  assert.equal(server.samplingRequests.length, 1);
  assert.equal((server.samplingRequests[0]!.body as { n: number }).n, 4);
  for (const s of samples) {
    assert.equal(s.finishReason, 'stop');
    assert.equal(s.truncated, undefined);
    assert.equal(s.model, 'test-model');
    assert.equal(s.usage?.promptTokens, 3);
    assert.ok(!Number.isNaN(Date.parse(s.takenAt)));
    assert.equal(typeof s.latencyMs, 'number');
  }
  // 4 answers of 5 words each: 20 completion tokens in all.
  assert.equal(
    samples.reduce((n, s) => n + (s.usage?.completionTokens ?? 0), 0),
    20,
  );
});

void test('n ignored by the server: the rest comes from separate requests, and later calls send n=1 at once', async (t) => {
  const server = await serve(t, { ignoreN: true });
  const p = provider(server);
  assert.equal((await p.sample(ask('q'), 3, never)).length, 3);
  const ns = server.samplingRequests.map((r) => (r.body as { n?: number }).n);
  assert.deepEqual(ns, [3, undefined, undefined]);
  server.reset();
  assert.equal((await p.sample(ask('q'), 2, never)).length, 2);
  assert.deepEqual(
    server.samplingRequests.map((r) => (r.body as { n?: number }).n),
    [undefined, undefined],
  );
});

void test('n capped by the server: asks again for the missing answers', async (t) => {
  const server = await serve(t);
  server.script({ choices: 2 });
  const samples = await provider(server).sample(ask('q'), 5, never);
  assert.equal(samples.length, 5);
  assert.deepEqual(
    server.samplingRequests.map((r) => (r.body as { n?: number }).n),
    [5, 3],
  );
});

void test('seeds: sample k is sent seed + k, from the first index asked for', async (t) => {
  const server = await serve(t);
  const samples = await provider(server, { seed: 100 }).sample(ask('q', { index: 3 }), 3, never);
  assert.equal(samples.length, 3);
  const seeds = server.samplingRequests.map((r) => r.body as { seed: number; n?: number }).map((b) => [b.seed, b.n]);
  assert.deepEqual(seeds.sort(), [
    [103, undefined],
    [104, undefined],
    [105, undefined],
  ]);
  server.reset();
  await provider(server).sample(ask('q', { seed: 7 }), 2, never);
  assert.deepEqual(server.samplingRequests.map((r) => (r.body as { seed: number }).seed).sort(), [7, 8]);
});

void test('sampling parameters reach the server as the API names them', async (t) => {
  const server = await serve(t);
  const messages = [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'one two three' },
  ];
  await provider(server).sample(
    { messages, temperature: 0.7, topP: 0.9, maxTokens: 64, stop: ['\n\n', 'END'] },
    1,
    never,
  );
  assert.deepEqual(server.samplingRequests[0]!.body, {
    model: 'test-model',
    messages,
    temperature: 0.7,
    top_p: 0.9,
    max_tokens: 64,
    stop: ['\n\n', 'END'],
  });
});

void test('a truncated answer is flagged (finish_reason length)', async (t) => {
  const server = await serve(t);
  const [s] = await provider(server).sample(ask('a b c d e f'), 1, never);
  assert.equal(s!.truncated, undefined);
  const [cut] = await provider(server).sample(ask('a b c d e f', { maxTokens: 3 }), 1, never);
  assert.equal(cut!.text, 'answer 0: a');
  assert.equal(cut!.finishReason, 'length');
  assert.equal(cut!.truncated, true);
});

void test('reasoning content is kept out of the answer (reasoning_content and <think> tags)', async (t) => {
  const server = await serve(t, {
    answer: (c) => ({ text: `The answer is ${c.index}.`, reasoning: `Let me think about ${c.index}` }),
  });
  const samples = await provider(server).sample(ask('q'), 2, never);
  assert.deepEqual(
    samples.map((s) => [s.text, s.reasoning]),
    [
      ['The answer is 0.', 'Let me think about 0'],
      ['The answer is 1.', 'Let me think about 1'],
    ],
  );

  const raw = await serve(t, { answer: () => '<think>scratch work 41</think>\n42' });
  const [s] = await provider(raw).sample(ask('q'), 1, never);
  assert.deepEqual([s!.text, s!.reasoning], ['42', 'scratch work 41']);
  const [kept] = await provider(raw, {}, { splitThinkTags: false }).sample(ask('q'), 1, never);
  assert.equal(kept!.text, '<think>scratch work 41</think>\n42');
});

void test('streaming: SSE chunks of several choices make the same samples, reasoning apart, usage recorded', async (t) => {
  const server = await serve(t, {
    answer: (c) => ({ text: `final answer ${c.index} for ${c.prompt}`, reasoning: `hmm ${c.index} ok` }),
  });
  const streamed = await provider(server, {}, { stream: true }).sample(ask('x y'), 3, never);
  const body = server.samplingRequests[0]!.body as { stream: boolean; stream_options: unknown };
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  const plain = await provider(server).sample(ask('x y'), 3, never);
  const strip = (s: Sample) => [s.text, s.reasoning, s.finishReason, s.usage];
  assert.deepEqual(streamed.map(strip), plain.map(strip));
  assert.deepEqual(
    texts(streamed),
    [0, 1, 2].map((i) => `final answer ${i} for x y`),
  );
  assert.equal(streamed[0]!.reasoning, 'hmm 0 ok');
  assert.ok(streamed.every((s) => s.usage?.promptTokens === 2 && (s.usage.completionTokens ?? 0) > 0));
});

void test('429 then success: waits at least what Retry-After says, then answers', async (t) => {
  const server = await serve(t);
  const waits: number[] = [];
  const sleep = async (ms: number): Promise<void> => void waits.push(ms);
  server.script(
    { status: 429, headers: { 'Retry-After': '2' } },
    { status: 429, headers: { 'Retry-After': new Date(Date.now() + 5000).toUTCString() } },
  );
  const samples = await provider(server, {}, { retry: { policy: { baseDelayMs: 10 }, sleep } }).sample(
    ask('q'),
    1,
    never,
  );
  assert.equal(samples.length, 1);
  assert.equal(server.samplingRequests.length, 3);
  assert.ok(waits[0]! >= 2000 && waits[0]! <= 2010, `Retry-After: 2 → ${waits[0]}`);
  assert.ok(waits[1]! >= 3000 && waits[1]! <= 5010, `Retry-After as a date → ${waits[1]}`);
});

void test('429 with real waiting (Retry-After: 0) and backoff with jitter', async (t) => {
  const server = await serve(t);
  server.script({ status: 429, headers: { 'Retry-After': '0' } }, { status: 429 });
  const retries: number[] = [];
  const samples = await provider(server, {}, { retry: { ...FAST, onRetry: (r) => retries.push(r.attempt) } }).sample(
    ask('q'),
    2,
    never,
  );
  assert.equal(samples.length, 2);
  assert.deepEqual(retries, [1, 2]);
});

void test('500: retried; when it persists, the error says so after the last attempt', async (t) => {
  const server = await serve(t);
  server.script({ status: 500, message: 'CUDA out of memory' });
  assert.equal((await provider(server).sample(ask('q'), 1, never)).length, 1);
  assert.equal(server.samplingRequests.length, 2);

  server.reset();
  server.behaviour = () => ({ status: 503, message: 'engine is dead' });
  const e = await failure(
    provider(server, {}, { retry: { policy: { maxAttempts: 3, baseDelayMs: 1 } } }).sample(ask('q'), 1, never),
  );
  assert.equal(e.kind, 'server');
  assert.equal(e.status, 503);
  assert.equal(e.message, `${server.url}/chat/completions failed (503): engine is dead (gave up after 3 attempts)`);
  assert.equal(server.samplingRequests.length, 3);
});

void test('malformed JSON: retried, then reported as such', async (t) => {
  const server = await serve(t);
  server.script({ body: '{"choices": [{"index": 0, "mess' });
  assert.equal((await provider(server).sample(ask('q'), 1, never))[0]!.text, 'answer 0: q');
  assert.equal(server.samplingRequests.length, 2);

  server.behaviour = () => ({ body: '<html>oops</html>' });
  const e = await failure(
    provider(server, {}, { retry: { policy: { maxAttempts: 2, baseDelayMs: 1 } } }).sample(ask('q'), 1, never),
  );
  assert.equal(e.kind, 'bad-response');
  assert.match(e.message, /answered with malformed JSON .*"<html>oops<\/html>".*gave up after 2 attempts/);
});

void test('a stream cut mid-way is retried and never half-recorded', async (t) => {
  const server = await serve(t, { answer: (c) => `one two three four five six seven ${c.index}` });
  // Reset connection after 4 events; a clean end without [DONE]; a JSON body cut in half.
  server.script({ cutAfter: 4 }, { cutAfter: 6, cutMode: 'end' });
  const p = provider(server, {}, { stream: true });
  const samples = await p.sample(ask('q'), 2, never);
  assert.deepEqual(texts(samples), ['one two three four five six seven 0', 'one two three four five six seven 1']);
  assert.equal(server.samplingRequests.length, 3);

  server.reset();
  server.script({ cutAfter: 1 });
  assert.deepEqual(texts(await provider(server).sample(ask('q'), 1, never)), ['one two three four five six seven 0']);
  assert.equal(server.samplingRequests.length, 2);

  server.reset();
  server.behaviour = () => ({ cutAfter: 3 });
  const e = await failure(
    provider(server, {}, { stream: true, retry: { policy: { maxAttempts: 2, baseDelayMs: 1 } } }).sample(
      ask('q'),
      1,
      never,
    ),
  );
  assert.equal(e.kind, 'unreachable');
  assert.match(e.message, /closed in the middle of the answer/);
});

void test('a slow server: each attempt times out, and the server sees the client leave', async (t) => {
  const server = await serve(t);
  server.behaviour = () => ({ delayMs: 30_000 });
  const t0 = Date.now();
  const e = await failure(
    provider(server, { timeout_ms: 150 }, { retry: { policy: { maxAttempts: 2, baseDelayMs: 1 } } }).sample(
      ask('q'),
      1,
      never,
    ),
  );
  assert.equal(e.kind, 'timeout');
  assert.match(
    e.message,
    new RegExp(
      `^no complete answer from ${server.url.replace(/\./g, '\\.')} within 0\\.\\d s \\(timeout_ms: 150\\) \\(gave up after 2 attempts\\)$`,
    ),
  );
  assert.ok(Date.now() - t0 < 5000);
  await server.waitFor(() => server.disconnects === 2, 2000, 'both attempts to be dropped');
});

void test('an answer that stalls after its first bytes times out too (streamed or not)', async (t) => {
  const server = await serve(t);
  server.behaviour = () => ({ cutAfter: 2, cutMode: 'stall' });
  for (const stream of [true, false]) {
    const e = await failure(
      provider(server, { timeout_ms: 150 }, { stream, retry: { policy: { maxAttempts: 1 } } }).sample(
        ask('q'),
        1,
        never,
      ),
    );
    assert.equal(e.kind, 'timeout', `stream: ${stream}`);
  }
  await server.waitFor(() => server.disconnects === 2, 2000, 'the stalled answers to be dropped');
  // Headers never sent at all.
  server.behaviour = () => ({ hang: true });
  const e = await failure(
    provider(server, { timeout_ms: 100 }, { stream: true, retry: { policy: { maxAttempts: 1 } } }).sample(
      ask('q'),
      1,
      never,
    ),
  );
  assert.equal(e.kind, 'timeout');
});

void test('the concurrency limit, measured at the server, holds across providers of one profile', async (t) => {
  const server = await serve(t);
  server.behaviour = () => ({ delayMs: 20 });
  const entry = { concurrency: 3, seed: 1 };
  const a = provider(server, entry);
  const b = provider(server, entry);
  const results = await Promise.all([
    a.sample(ask('a'), 10, never),
    b.sample(ask('b'), 10, never),
    a.sample(ask('c'), 4, never),
  ]);
  assert.equal(results.flat().length, 24);
  assert.equal(server.samplingRequests.length, 24);
  assert.equal(server.maxInFlight, 3);
});

void test('cancellation: in flight, waiting for a slot, during backoff, and before anything', async (t) => {
  const server = await serve(t);
  server.behaviour = () => ({ hang: true });
  const p = provider(server, { concurrency: 1 });
  const ctl = new AbortController();
  const inFlight = p.sample(ask('a'), 1, ctl.signal);
  const ctl2 = new AbortController();
  const queued = p.sample(ask('b'), 1, ctl2.signal);
  await server.waitFor(() => server.inFlight === 1, 2000, 'the first request');
  ctl2.abort();
  assert.equal((await failure(queued)).kind, 'cancelled');
  ctl.abort();
  assert.equal((await failure(inFlight)).kind, 'cancelled');
  await server.waitFor(
    () => server.disconnects === 1 && server.inFlight === 0,
    2000,
    'the server to see the client leave',
  );
  assert.equal(server.samplingRequests.length, 1, 'the queued request was never sent');

  server.reset();
  server.behaviour = () => ({ status: 500 });
  const ctl3 = new AbortController();
  const backingOff = new OpenAIProvider(profileFor(server), {
    retry: { policy: { baseDelayMs: 60_000 }, random: () => 1 },
  }).sample(ask('c'), 1, ctl3.signal);
  await server.waitFor(() => server.samplingRequests.length === 1, 2000, 'the first attempt');
  const t0 = Date.now();
  ctl3.abort();
  assert.equal((await failure(backingOff)).kind, 'cancelled');
  assert.ok(Date.now() - t0 < 1000);

  server.reset();
  assert.equal((await failure(p.sample(ask('d'), 1, AbortSignal.abort()))).kind, 'cancelled');
  assert.equal(server.received, 0);
});

void test('401: names the variable whose key was rejected, shows no key, is not retried', async (t) => {
  const server = await serve(t, { apiKey: 'sk-right-0000000000000000' });
  const key = 'sk-wrong-1234567890abcdefXYZ';
  process.env.VTASK_TEST_KEY = key;
  t.after(() => delete process.env.VTASK_TEST_KEY);
  const e = await failure(provider(server, { api_key_env: 'VTASK_TEST_KEY' }).sample(ask('q'), 1, never));
  assert.equal(e.kind, 'auth');
  assert.equal(e.status, 401);
  assert.match(
    e.message,
    /^the key in \$VTASK_TEST_KEY was rejected by http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(401\): Incorrect API key provided: \*\*\*$/,
  );
  assert.equal(server.samplingRequests.length, 1);

  const none = await failure(provider(server).sample(ask('q'), 1, never));
  assert.match(none.message, /wants an API key \(401\), and profile test sends none: set `api_key_env`/);

  process.env.VTASK_TEST_KEY = 'sk-right-0000000000000000';
  assert.equal(
    (await provider(server, { api_key_env: 'VTASK_TEST_KEY' }).sample(ask('q'), 1, never)).length,
    1,
    'the key is read when sending',
  );
  delete process.env.VTASK_TEST_KEY;
  const unset = await failure(provider(server, { api_key_env: 'VTASK_TEST_KEY' }).sample(ask('q'), 1, never));
  assert.match(unset.message, /\$VTASK_TEST_KEY is not set/);
});

void test('404 for a model: lists the models /v1/models offers; a wrong base URL says so', async (t) => {
  const server = await serve(t, { models: ['alpha', 'beta'] });
  const e = await failure(provider(server, { model: 'gamma' }).sample(ask('q'), 1, never));
  assert.equal(e.kind, 'not-found');
  assert.equal(e.message, `model "gamma" is not served at ${server.url}; it offers: alpha, beta`);
  assert.equal(server.samplingRequests.length, 1, 'not retried');
  assert.deepEqual(await provider(server).listModels(never), ['alpha', 'beta']);

  const noV1 = await failure(provider(server.url.replace(/\/v1$/, ''), { model: 'alpha' }).sample(ask('q'), 1, never));
  assert.match(noV1.message, /\/chat\/completions was not found \(404\): is base_url right\? It usually ends in \/v1/);
});

void test('nothing listening: says so and asks whether the server runs', async (t) => {
  const gone = await startOpenAIServer();
  const url = gone.url;
  await gone.close();
  const e = await failure(
    provider(url, {}, { retry: { policy: { maxAttempts: 2, baseDelayMs: 1 } } }).sample(ask('q'), 1, never),
  );
  assert.equal(e.kind, 'unreachable');
  assert.equal(e.message, `nothing listens at ${url}: is the server running? (gave up after 2 attempts)`);
  t.diagnostic(e.message);
});

void test('${env:VAR} in headers is expanded when sending, from the secret lookup', async (t) => {
  const server = await serve(t);
  const secrets: Record<string, string> = {};
  const p = provider(
    server,
    { headers: { 'X-Org': '${env:VT_ORG}', 'X-Trace': 'run-${env:VT_RUN}' } },
    { secrets: (n) => secrets[n] },
  );
  const unset = await failure(p.sample(ask('q'), 1, never));
  assert.match(unset.message, /header X-Org uses \$\{env:VT_ORG\}, and \$VT_ORG is not set/);
  assert.equal(server.received, 0);
  secrets.VT_ORG = 'org-1';
  secrets.VT_RUN = '7';
  await p.sample(ask('q'), 1, never);
  secrets.VT_ORG = 'org-2';
  await p.sample(ask('q'), 1, never);
  assert.deepEqual(
    server.samplingRequests.map((r) => [r.headers['x-org'], r.headers['x-trace']]),
    [
      ['org-1', 'run-7'],
      ['org-2', 'run-7'],
    ],
  );
});

void test('completions endpoint: the template renders the messages into the prompt, streamed or not', async (t) => {
  const server = await serve(t);
  const entry = { endpoint: 'completions', template: '{{system}}\n\nQuestion: {{prompt}}\nAnswer:' };
  const messages = [
    { role: 'system', content: 'Be exact.' },
    { role: 'user', content: 'What is 6*7?' },
  ];
  const prompt = 'Be exact.\n\nQuestion: What is 6*7?\nAnswer:';
  for (const stream of [false, true]) {
    server.reset();
    const samples = await provider(server, entry, { stream }).sample({ messages, maxTokens: 100 }, 2, never);
    const r = server.samplingRequests[0]!;
    assert.equal(r.path, '/v1/completions');
    assert.equal((r.body as { prompt: string }).prompt, prompt);
    assert.equal((r.body as { messages?: unknown }).messages, undefined);
    assert.deepEqual(texts(samples), [`answer 0: ${prompt}`, `answer 1: ${prompt}`]);
    assert.equal(samples[0]!.finishReason, 'stop');
  }
  // Without a template, a lone question goes as it is.
  server.reset();
  await provider(server, { endpoint: 'completions' }).sample(ask('Just this.'), 1, never);
  assert.equal((server.samplingRequests[0]!.body as { prompt: string }).prompt, 'Just this.');
});

void test('400: the server message is shown and the request is not retried', async (t) => {
  const server = await serve(t);
  server.script({ status: 400, message: 'max_tokens must be at most 4096' });
  const e = await failure(provider(server).sample(ask('q', { maxTokens: 10_000 }), 1, never));
  assert.equal(e.kind, 'bad-request');
  assert.match(e.message, /rejected the request \(400\): max_tokens must be at most 4096$/);
  assert.equal(server.samplingRequests.length, 1);
});

void test('no API key appears in any error, whatever the server echoes', async (t) => {
  const key = 'sk-proj-SECRETSECRETSECRET0123456789';
  const org = 'org-SECRETORGANISATION42';
  const secrets = (n: string): string | undefined => ({ K: key, ORG: org })[n];
  const server = await serve(t, { models: ['m'] });
  const gone = await startOpenAIServer();
  await gone.close();
  const entry = { model: 'm', api_key_env: 'K', headers: { 'X-Org': '${env:ORG}' } };
  const opts = { secrets, retry: { policy: { maxAttempts: 2, baseDelayMs: 1 } } };
  const cases: Array<[string, () => Promise<unknown>]> = [
    [
      '400 echo',
      () => (
        server.script({ status: 400, message: `bad request with key ${key} and org ${org}` }),
        provider(server, entry, opts).sample(ask('q'), 1, never)
      ),
    ],
    [
      '500 echo',
      () => (
        (server.behaviour = () => ({ status: 500, message: `Authorization: Bearer ${key}` })),
        provider(server, entry, opts).sample(ask('q'), 1, never)
      ),
    ],
    [
      'malformed echo',
      () => (
        (server.behaviour = () => ({ body: `${key} ${org}` })),
        provider(server, entry, opts).sample(ask('q'), 1, never)
      ),
    ],
    [
      '401 with key',
      async () => {
        const s = await serve(t, { apiKey: 'other', models: ['m'] });
        return provider(s, entry, opts).sample(ask('q'), 1, never);
      },
    ],
    [
      '404 model',
      () => (
        (server.behaviour = undefined),
        provider(server, { ...entry, model: 'zzz' }, opts).sample(ask('q'), 1, never)
      ),
    ],
    ['refused', () => provider(gone.url, entry, opts).sample(ask('q'), 1, never)],
    [
      'timeout',
      () => (
        (server.behaviour = () => ({ delayMs: 10_000 })),
        provider(server, { ...entry, timeout_ms: 50 }, opts).sample(ask('q'), 1, never)
      ),
    ],
  ];
  for (const [name, run] of cases) {
    const e = await failure(run());
    const shown = `${String(e)}\n${e.stack ?? ''}\n${JSON.stringify(e)}`;
    assert.ok(!shown.includes(key) && !shown.includes(key.slice(0, 8)) && !shown.includes(org), `${name}: ${shown}`);
  }
  assert.ok(
    server.requests.some((r) => r.headers.authorization === `Bearer ${key}` && r.headers['x-org'] === org),
    'the secrets were sent',
  );
});

void test('the fetch transport behaves the same on the wire: n, streams cut, timeouts, cancellation, refused', async (t) => {
  const transport = fetchTransport();
  const server = await serve(t, { answer: (c) => ({ text: `a b c d ${c.index}`, reasoning: 'r s' }) });
  const plain = await provider(server, {}, { transport }).sample(ask('q'), 2, never);
  assert.deepEqual(
    plain.map((s) => [s.text, s.reasoning]),
    [
      ['a b c d 0', 'r s'],
      ['a b c d 1', 'r s'],
    ],
  );

  server.reset();
  server.script({ cutAfter: 3 }, { cutAfter: 3, cutMode: 'end' });
  const streamed = await provider(server, {}, { transport, stream: true }).sample(ask('q'), 2, never);
  assert.deepEqual(texts(streamed), texts(plain));
  assert.equal(server.samplingRequests.length, 3);

  server.reset();
  server.script({ cutAfter: 1 });
  assert.deepEqual(texts(await provider(server, {}, { transport }).sample(ask('q'), 1, never)), ['a b c d 0']);
  assert.equal(server.samplingRequests.length, 2);

  server.reset();
  server.behaviour = () => ({ delayMs: 30_000 });
  const slow = await failure(
    provider(server, { timeout_ms: 100 }, { transport, retry: { policy: { maxAttempts: 1 } } }).sample(
      ask('q'),
      1,
      never,
    ),
  );
  assert.equal(slow.kind, 'timeout');
  const ctl = new AbortController();
  const pending = provider(server, {}, { transport }).sample(ask('q'), 1, ctl.signal);
  await server.waitFor(() => server.inFlight === 1 && server.samplingRequests.length === 2, 2000, 'the request');
  ctl.abort();
  assert.equal((await failure(pending)).kind, 'cancelled');
  await server.waitFor(() => server.inFlight === 0, 2000, 'the server to see the client leave');

  const gone = await startOpenAIServer();
  await gone.close();
  const refused = await failure(
    provider(gone.url, {}, { transport, retry: { policy: { maxAttempts: 1 } } }).sample(ask('q'), 1, never),
  );
  assert.equal(refused.message, `nothing listens at ${gone.url}: is the server running?`);
});

// The size caps of answers and streamed events, through the real provider over HTTP: each ends
// the request with an error naming the cap, at once (no retry), over node:http and over fetch.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { limitsOf } from '../../src/core/sampling/limits';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { profileFromEntry } from '../../src/core/sampling/profiles';
import { SseParser } from '../../src/core/sampling/sse';
import { fetchTransport } from '../../src/core/sampling/transport';
import { SamplingError } from '../../src/core/sampling/types';
import { FaultServer } from '../support/faultServer';

const server = new FaultServer({ maxBytes: 64 << 20 });
const never = new AbortController().signal;

before(async () => {
  await server.listen();
});
after(async () => {
  await server.close();
});

function ask(
  fault: string,
  entry: Record<string, unknown> = {},
  o: { stream?: boolean; fetch?: boolean; env?: Record<string, string> } = {},
): Promise<unknown> {
  const profile = profileFromEntry('faulty', { base_url: server.url, model: 'fault-model', ...entry });
  const provider = new OpenAIProvider(profile, {
    stream: o.stream ?? false,
    env: o.env ?? {},
    ...(o.fetch ? { transport: fetchTransport() } : {}),
  });
  return provider.sample({ messages: [{ role: 'user', content: `fault:${fault}` }] }, 1, never).then(
    () => 'answered',
    (e: unknown) => e,
  );
}

function assertTooLarge(e: unknown, message: RegExp): void {
  assert.ok(e instanceof SamplingError, String(e));
  assert.equal(e.kind, 'too-large');
  assert.equal(e.retryable, false);
  assert.match(e.message, message);
}

test('an endless body stops at the profile cap, over node:http and over fetch', async () => {
  for (const fetch of [false, true]) {
    assertTooLarge(
      await ask('endless', { max_response_bytes: 65536 }, { fetch }),
      /^the answer from http:\/\/127\.0\.0\.1:\d+\/v1 passed 64 KiB: stopped reading \(max_response_bytes: 65536, or \$VTASK_MAX_RESPONSE_BYTES\)$/,
    );
  }
  assert.equal(await ask('ok', { max_response_bytes: 65536 }), 'answered');
});

test('the environment overrides the profile; the default is 8 MiB', async () => {
  assertTooLarge(
    await ask('endless', { max_response_bytes: 1 << 30 }, { env: { VTASK_MAX_RESPONSE_BYTES: '1000' } }),
    /passed 1000 bytes/,
  );
  const p = profileFromEntry('p', { base_url: server.url, model: 'm' });
  assert.equal(limitsOf(p, {}).maxResponseBytes, 8 << 20);
  assert.throws(
    () => limitsOf(p, { VTASK_MAX_RESPONSE_BYTES: '8MB' }),
    /\$VTASK_MAX_RESPONSE_BYTES must be a positive whole number, not "8MB"/,
  );
  assert.throws(
    () => profileFromEntry('p', { base_url: server.url, model: 'm', max_response_bytes: 0 }),
    /max_response_bytes/,
  );
});

test('a streamed event that never ends stops at the event cap; endless small events at the answer cap', async () => {
  assertTooLarge(await ask('hugesse', {}, { stream: true }), /^one streamed event from .* passed 1 MiB/);
  assertTooLarge(
    await ask('manysse', { max_response_bytes: 2 << 20 }, { stream: true }),
    /^the streamed answer from .* passed 2 MiB/,
  );
});

test('the SSE parser bounds a line without end and an event of many lines', () => {
  assert.throws(() => new SseParser(100).push('data: ' + 'x'.repeat(200)), /one streamed event passed 100 bytes/);
  const p = new SseParser(100);
  assert.throws(() => {
    for (let i = 0; i < 20; i++) p.push('data: 0123456789\n');
  }, /one streamed event passed 100 bytes/);
  assert.deepEqual(new SseParser(100).push('data: a\n\ndata: b\n\n'), ['a', 'b']);
});

// The parts of sampling that need no server: retry timing, the limiter, SSE parsing, prompt
// templates, profile resolution and what of a profile may be shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter, withRetry } from '../../src/core/sampling/retry';
import { CancelledError, sleep } from '../../src/core/util/wait';
import { Limiter } from '../../src/core/sampling/limiter';
import { SseParser } from '../../src/core/sampling/sse';
import { renderPrompt, templateProblems } from '../../src/core/sampling/template';
import {
  apiKeyFor,
  describeProfile,
  expandHeaders,
  profileFromEntry,
  profileIdentity,
  ProfileError,
  redact,
  resolveProfile,
  safeUrl,
} from '../../src/core/sampling/profiles';
import { splitThinking } from '../../src/core/sampling/openai';
import { SamplingError } from '../../src/core/sampling/types';

const never = new AbortController().signal;

void test('Retry-After: delta seconds, HTTP dates, past dates, junk', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter(' 0.5 ', now), 500);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
  assert.equal(parseRetryAfter('', now), undefined);
});

void test('backoff: exponential ceiling, full jitter, capped', () => {
  const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    backoffDelay(1, p, () => 1),
    100,
  );
  assert.equal(
    backoffDelay(2, p, () => 1),
    200,
  );
  assert.equal(
    backoffDelay(3, p, () => 1),
    400,
  );
  assert.equal(
    backoffDelay(10, p, () => 1),
    1000,
  );
  assert.equal(
    backoffDelay(3, p, () => 0),
    0,
  );
  const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(4, p)));
  assert.ok(spread.size > 10, 'jitter spreads the delays');
  for (const d of spread) assert.ok(d >= 0 && d <= 800);
});

void test('withRetry: retries retryable errors, honours Retry-After, gives up after maxAttempts', async () => {
  const waits: number[] = [];
  const opts = {
    policy: { maxAttempts: 4, baseDelayMs: 100 },
    random: () => 0.5,
    sleep: async (ms: number) => void waits.push(ms),
  };
  let calls = 0;
  const r = await withRetry(
    async () => {
      calls++;
      if (calls === 1) throw new SamplingError('busy', 'rate-limit', 429, 2000);
      if (calls === 2) throw new SamplingError('oops', 'server', 500);
      return 'ok';
    },
    never,
    opts,
  );
  assert.equal(r, 'ok');
  assert.equal(calls, 3);
  assert.equal(waits[0], 2050, 'Retry-After is the floor, plus a little jitter');
  assert.equal(waits[1], 100, 'then backoff: second retry ceiling 200, jitter 0.5');

  calls = 0;
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw new SamplingError('down', 'server', 503);
      },
      never,
      opts,
    ),
    (e: SamplingError) => e.kind === 'server',
  );
  assert.equal(calls, 4);
});

void test('withRetry: never retries 400, 401, 403, 404', async () => {
  for (const [kind, status] of [
    ['bad-request', 400],
    ['auth', 401],
    ['auth', 403],
    ['not-found', 404],
  ] as const) {
    let calls = 0;
    await assert.rejects(
      withRetry(
        async () => {
          calls++;
          throw new SamplingError('no', kind, status);
        },
        never,
        { sleep: async () => undefined },
      ),
    );
    assert.equal(calls, 1, `${status} is not retried`);
  }
});

void test('withRetry: a Retry-After beyond the limit is reported, not waited out', async () => {
  await assert.rejects(
    withRetry(
      async () => {
        throw new SamplingError('busy', 'rate-limit', 429, 3_600_000);
      },
      never,
      { sleep: async () => assert.fail('must not wait') },
    ),
    /asks to wait 3600 s/,
  );
});

void test('withRetry: a deadline stops the retries with the error that caused them, not the cut-short attempt', async () => {
  // A clock the waits advance, so that the deadline is reached without waiting.
  let now = 0;
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const opts = {
      deadline: () => 1000,
      deadlineName: 'the budget',
      random: () => 1,
      policy: { baseDelayMs: 400 },
      sleep: async (ms: number) => void (now += ms),
    };
    let calls = 0;
    await assert.rejects(
      withRetry(
        async () => {
          calls++;
          if (calls === 1) throw new SamplingError('busy (429)', 'rate-limit', 429);
          // The second attempt is cut short by the deadline: it ends as a timeout, after the deadline.
          now = 1000;
          throw new SamplingError('no complete answer within 0.0 s', 'timeout');
        },
        never,
        opts,
      ),
      /^SamplingError: busy \(429\); the budget ran out after 2 attempts$/,
    );
    assert.equal(calls, 2);

    // A wait that would leave less than a moment for the next attempt does not start it.
    now = 0;
    calls = 0;
    await assert.rejects(
      withRetry(
        async () => {
          calls++;
          throw new SamplingError('down', 'server', 500);
        },
        never,
        { ...opts, deadline: () => 500, random: () => 0.9 },
      ),
      /down; the budget ran out after 1 attempt$/,
    );
    assert.equal(calls, 1, '360 ms of waiting leaves 140 ms: too little to try again');
  } finally {
    Date.now = realNow;
  }
});

void test('sleep and withRetry stop at once on abort', async () => {
  const ctl = new AbortController();
  const t0 = Date.now();
  const p = sleep(10_000, ctl.signal);
  ctl.abort();
  await assert.rejects(p, CancelledError);
  assert.ok(Date.now() - t0 < 1000);

  const ctl2 = new AbortController();
  const p2 = withRetry(
    async () => {
      throw new SamplingError('down', 'server', 500);
    },
    ctl2.signal,
    { policy: { baseDelayMs: 60_000 }, random: () => 1 },
  );
  setImmediate(() => ctl2.abort());
  await assert.rejects(p2, (e: SamplingError) => e.kind === 'cancelled');
});

void test('limiter: never more than the limit, first come first served, abort leaves the queue', async () => {
  const l = new Limiter(2);
  let active = 0;
  let max = 0;
  const order: number[] = [];
  const gates: Array<() => void> = [];
  const job = (i: number) =>
    l.run(async () => {
      active++;
      max = Math.max(max, active);
      order.push(i);
      await new Promise<void>((r) => gates.push(r));
      active--;
    }, never);
  const jobs = [0, 1, 2, 3, 4].map(job);
  // Wait on the queue's state rather than on time.
  const until = async (cond: () => boolean): Promise<void> => {
    for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
    assert.ok(cond());
  };
  await until(() => gates.length === 2);
  assert.equal(l.waiting, 3);
  const ctl = new AbortController();
  const aborted = l.acquire(ctl.signal);
  ctl.abort();
  await assert.rejects(aborted, (e: SamplingError) => e.kind === 'cancelled');
  while (gates.length || order.length < 5) {
    await until(() => gates.length > 0);
    gates.shift()!();
  }
  await Promise.all(jobs);
  assert.equal(max, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
  assert.equal(l.inFlight, 0);
  assert.equal(l.waiting, 0);
});

void test('SSE: events split anywhere, CRLF, comments, multi-line data, incomplete last event', () => {
  const text =
    ': keep-alive\r\ndata: {"a":1}\r\n\r\ndata: line1\ndata: line2\n\nevent: x\ndata:[DONE]\n\ndata: unfinished';
  for (let cut = 0; cut <= text.length; cut++) {
    const p = new SseParser();
    const bytes = new TextEncoder().encode(text);
    const events = [...p.push(bytes.slice(0, cut)), ...p.push(bytes.slice(cut)), ...p.end()];
    assert.deepEqual(events, ['{"a":1}', 'line1\nline2', '[DONE]'], `cut at ${cut}`);
  }
  // A multi-byte character split between chunks.
  const p = new SseParser();
  const bytes = new TextEncoder().encode('data: é€\n\n');
  assert.deepEqual([...p.push(bytes.slice(0, 8)), ...p.push(bytes.slice(8))], ['é€']);
  // A lone CR at a chunk end followed by LF makes one line break, not two.
  const q = new SseParser();
  assert.deepEqual([...q.push('data: a\r'), ...q.push('\n\r\n')], ['a']);
});

void test('template: variables, default rendering, unknown variables', () => {
  const msgs = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: '1+1?' },
    { role: 'assistant', content: '2' },
    { role: 'user', content: '2+2?' },
  ];
  assert.equal(renderPrompt(msgs, '{{system}}\n\nQ: {{prompt}}\nA:'), 'Be brief.\n\nQ: 2+2?\nA:');
  assert.equal(renderPrompt(msgs, '{{history}}\n---\n{{ prompt }}'), 'User: 1+1?\n\nAssistant: 2\n---\n2+2?');
  assert.equal(renderPrompt(msgs, '{{messages}}'), 'User: 1+1?\n\nAssistant: 2\n\nUser: 2+2?');
  // No system message: no blank lines at the top.
  assert.equal(renderPrompt([{ role: 'user', content: 'x' }], '{{system}}\n\nQ: {{prompt}}\nA:'), 'Q: x\nA:');
  assert.equal(renderPrompt([{ role: 'user', content: 'x' }]), 'x');
  assert.equal(
    renderPrompt([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'x' },
    ]),
    'S\n\nx',
  );
  assert.equal(renderPrompt(msgs), 'Be brief.\n\nUser: 1+1?\n\nAssistant: 2\n\nUser: 2+2?\n\nAssistant:');
  assert.deepEqual(templateProblems('{{promt}}'), [
    'the template uses {{promt}}, which is not one of {{system}}, {{prompt}}, {{messages}}, {{history}}',
  ]);
  assert.throws(
    () => renderPrompt(msgs, '{{promt}}'),
    (e: SamplingError) => e.kind === 'bad-request',
  );
});

void test('think tags: split out of the answer when the server has no reasoning parser', () => {
  assert.deepEqual(splitThinking('<think>a\nb</think>\n\nThe answer is 4.'), {
    text: 'The answer is 4.',
    reasoning: 'a\nb',
  });
  assert.deepEqual(splitThinking('thinking...</think>42'), { text: '42', reasoning: 'thinking...' });
  assert.deepEqual(splitThinking('<think>never closed'), { text: '', reasoning: 'never closed' });
  assert.deepEqual(splitThinking('plain'), { text: 'plain' });
});

void test('profiles: precedence of flags, models and environment', () => {
  const models = {
    local: { base_url: 'http://127.0.0.1:8000/v1/', model: 'Qwen/Qwen2.5-7B-Instruct', concurrency: 4 },
    other: { base_url: 'https://api.example.com/v1', model: 'm', api_key_env: 'EX_KEY' },
  };
  const env = { OPENAI_BASE_URL: 'http://10.0.0.1:9000/v1', OPENAI_API_KEY: 'sk-envkey-0123456789abcdef' };

  const flags = resolveProfile({ baseUrl: 'http://h:1/v1', model: 'x', models, name: 'local', env, concurrency: 16 });
  assert.deepEqual(
    [flags.name, flags.baseUrl, flags.model, flags.apiKeyEnv, flags.concurrency],
    ['--base-url', 'http://h:1/v1', 'x', 'OPENAI_API_KEY', 16],
  );
  assert.equal(
    resolveProfile({ baseUrl: 'http://h:1/v1', model: 'x', env: {} }).apiKeyEnv,
    undefined,
    'no key variable, no key',
  );

  const named = resolveProfile({ name: 'local', models, env });
  assert.deepEqual(
    [named.name, named.baseUrl, named.concurrency, named.endpoint, named.timeoutMs],
    ['local', 'http://127.0.0.1:8000/v1', 4, 'chat', 120000],
  );
  assert.equal(
    resolveProfile({ model: 'other', name: 'local', models, env }).name,
    'other',
    '--model may name a profile',
  );
  const viaEnv = resolveProfile({ model: 'gpt-x', models, env });
  assert.deepEqual(
    [viaEnv.name, viaEnv.baseUrl, viaEnv.model],
    ['OPENAI_BASE_URL', 'http://10.0.0.1:9000/v1', 'gpt-x'],
  );
  assert.equal(resolveProfile({ name: 'gpt-y', models, env }).model, 'gpt-y');

  assert.throws(() => resolveProfile({ baseUrl: 'http://h/v1', env: {} }), /--base-url needs --model/);
  assert.throws(
    () => resolveProfile({ name: 'nope', models, env: {} }),
    /`nope` is not a profile under `models:` \(the file has `local`, `other`\)/,
  );
  assert.throws(() => resolveProfile({ env: {} }), /no model to sample/);
  assert.throws(
    () => profileFromEntry('p', { base_url: 'http://u:pw@h/v1', model: 'm' }),
    (e: Error) => e instanceof ProfileError && !e.message.includes('pw'),
  );
  assert.throws(
    () => profileFromEntry('p', { base_url: 'http://h/v1', model: 'm', api_key_env: 'sk-live-abcdefghijklmnop' }),
    (e: Error) => !e.message.includes('sk-live'),
  );
  assert.throws(
    () =>
      profileFromEntry('p', {
        base_url: 'http://h/v1',
        model: 'm',
        headers: { Authorization: 'Bearer sk-abcdefghijklmnopqrstuvwx' },
      }),
    /literal credential/,
  );
  assert.throws(
    () =>
      profileFromEntry('p', { base_url: 'http://h/v1', model: 'm', endpoint: 'completions', template: '{{promt}}' }),
    /\{\{promt\}\}/,
  );
});

void test('profiles: secrets are read when sending, never shown', () => {
  const p = profileFromEntry('gw', {
    base_url: 'https://gw.example.com/v1?key=SECRETQUERY',
    model: 'm',
    api_key_env: 'GW_KEY',
    headers: { 'X-Org': '${env:GW_ORG}', 'X-Static': 'plain' },
  });
  const env: Record<string, string> = {};
  const lookup = (n: string): string | undefined => env[n];
  assert.throws(() => apiKeyFor(p, lookup), /\$GW_KEY is not set/);
  assert.throws(() => expandHeaders(p, lookup), /header X-Org uses \$\{env:GW_ORG\}, and \$GW_ORG is not set/);
  env.GW_KEY = 'sk-gw-0123456789abcdefghij';
  env.GW_ORG = 'org-42';
  assert.equal(apiKeyFor(p, lookup), env.GW_KEY);
  assert.deepEqual(expandHeaders(p, lookup), { 'X-Org': 'org-42', 'X-Static': 'plain' });

  const shown = describeProfile(p) + JSON.stringify(profileIdentity(p));
  assert.match(
    describeProfile(p),
    /^gw: m at https:\/\/gw\.example\.com\/v1 \(chat, key from \$GW_KEY, headers X-Org, X-Static, concurrency 8, timeout 120 s\)$/,
  );
  for (const secret of [env.GW_KEY, 'org-42', 'SECRETQUERY'])
    assert.ok(!shown.includes(secret), `${secret} is not shown`);
  assert.equal(safeUrl('http://user:pw@h:1/v1?key=x#y'), 'http://h:1/v1');
  assert.equal(redact(`bad key ${env.GW_KEY} (sk-gw-01...fghij)`, [env.GW_KEY]), 'bad key *** (***...fghij)');
});

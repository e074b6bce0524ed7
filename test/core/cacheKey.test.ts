// Cache keys: what splits the cache (every sampling input, the sample index) and what must not
// (paths, the verifier, credentials, names, concurrency), and where the cache folder is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  canonicalJson,
  normaliseBaseUrl,
  sampleKey,
  sampleKeyInput,
  sampleKeys,
  sampleParams,
} from '../../src/core/sampling/cacheKey';
import { findWorkspaceRoot, resolveCacheDir } from '../../src/core/sampling/cacheDir';
import { digestHex } from '../../src/core/util/digest';
import type { ModelProfile, SampleRequest } from '../../src/core/sampling/types';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks, type TaskSpec } from '../../src/core/taskfile/resolve';

const SECRET = 'sk-live-THIS-IS-A-SECRET-0123456789';

const profile: ModelProfile = {
  name: 'local',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'qwen3-8b',
  apiKeyEnv: 'MY_KEY',
  endpoint: 'chat',
  headers: { Authorization: `Bearer ${SECRET}`, 'X-Title': 'vtask' },
  concurrency: 8,
  timeoutMs: 60_000,
};

const request: SampleRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is 2+2?' },
  ],
  temperature: 0.7,
  topP: 0.95,
  maxTokens: 512,
  stop: ['</answer>'],
};

test('the same inputs give the same key: 64 hex digits', () => {
  const a = sampleKey(profile, request, 0);
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.equal(sampleKey({ ...profile }, { ...request, messages: request.messages.map((m) => ({ ...m })) }, 0), a);
});

test('every sampling input and the sample index change the key', () => {
  const base = sampleKey(profile, request, 0);
  const variants: [string, ModelProfile, SampleRequest, number][] = [
    ['index', profile, request, 1],
    ['base url', { ...profile, baseUrl: 'http://127.0.0.1:8001/v1' }, request, 0],
    ['model', { ...profile, model: 'qwen3-14b' }, request, 0],
    ['endpoint', { ...profile, endpoint: 'completions' }, request, 0],
    [
      'message content',
      profile,
      { ...request, messages: [request.messages[0]!, { role: 'user', content: 'What is 2+3?' }] },
      0,
    ],
    [
      'message role',
      profile,
      { ...request, messages: [{ role: 'user', content: 'Be brief.' }, request.messages[1]!] },
      0,
    ],
    ['message count', profile, { ...request, messages: [request.messages[1]!] }, 0],
    ['temperature', profile, { ...request, temperature: 0.6 }, 0],
    ['top_p', profile, { ...request, topP: 1 }, 0],
    ['max_tokens', profile, { ...request, maxTokens: 1024 }, 0],
    ['stop', profile, { ...request, stop: ['</a>'] }, 0],
    ['no stop', profile, { ...request, stop: undefined }, 0],
    ['seed', profile, { ...request, seed: 1 }, 0],
    ['profile seed', { ...profile, seed: 2 }, request, 0],
  ];
  const seen = new Map<string, string>([[base, 'base']]);
  for (const [what, p, r, i] of variants) {
    const k = sampleKey(p, r, i);
    assert.ok(!seen.has(k), `${what} gives the same key as ${seen.get(k)}`);
    seen.set(k, what);
  }
});

test("the keys of a task's samples, made together, are each sample's own key", () => {
  const variants: [ModelProfile, SampleRequest][] = [
    [profile, request],
    [profile, { ...request, seed: 10 }],
    [{ ...profile, seed: 5 }, { messages: request.messages }],
    [
      { ...profile, endpoint: 'completions', template: 'chatml' },
      { ...request, stop: undefined },
    ],
  ];
  for (const [p, r] of variants) {
    const keys = sampleKeys(p, r, 6);
    assert.deepEqual(
      keys,
      Array.from({ length: 6 }, (_, i) => sampleKey(p, r, i)),
    );
    assert.equal(new Set(keys).size, 6);
  }
  assert.deepEqual(sampleKeys(profile, request, 1), [sampleKey(profile, request, 0)]);
  assert.deepEqual(sampleKeys(profile, request, 0), []);
});

test('keys are the same digests with and without the one-shot crypto.hash (Node before 20.12)', () => {
  const texts = ['', '{"messages":[{"content":"2+2?","role":"user"}]}', 'π ≈ 3.14159, 名前, 🙂'];
  const expected = (algorithm: string, t: string): string => crypto.createHash(algorithm).update(t).digest('hex');
  const request: SampleRequest = { messages: [{ role: 'user', content: 'What is π? 🙂' }], temperature: 0.5 };
  const withOneShot = sampleKeys(profile, request, 3);
  for (const algorithm of ['sha1', 'sha256'] as const)
    for (const t of texts) assert.equal(digestHex(algorithm, t), expected(algorithm, t));
  const oneShot = Reflect.get(crypto, 'hash');
  assert.ok(Reflect.deleteProperty(crypto, 'hash') && !('hash' in crypto), 'crypto.hash can be taken away');
  try {
    for (const algorithm of ['sha1', 'sha256'] as const)
      for (const t of texts) assert.equal(digestHex(algorithm, t), expected(algorithm, t));
    assert.deepEqual(sampleKeys(profile, request, 3), withOneShot);
  } finally {
    Reflect.set(crypto, 'hash', oneShot);
  }
});

test('the template counts only for completions', () => {
  const completions: ModelProfile = { ...profile, endpoint: 'completions', template: '{{system}}\n{{prompt}}' };
  assert.notEqual(
    sampleKey(completions, request, 0),
    sampleKey({ ...completions, template: '{{prompt}}' }, request, 0),
  );
  assert.equal(
    sampleKey({ ...profile, template: 'a' }, request, 0),
    sampleKey({ ...profile, template: 'b' }, request, 0),
  );
});

test('seeded sample k is keyed by seed + k; the request seed wins over the profile seed', () => {
  assert.equal(sampleParams(profile, { ...request, seed: 10 }, 3).seed, 13);
  assert.equal(sampleParams({ ...profile, seed: 5 }, request, 2).seed, 7);
  assert.equal(sampleParams({ ...profile, seed: 5 }, { ...request, seed: 10 }, 0).seed, 10);
  assert.equal(sampleParams(profile, request, 2).seed, undefined);
  // The seed sent is what counts, not where it was set.
  assert.equal(sampleKey({ ...profile, seed: 4 }, request, 1), sampleKey(profile, { ...request, seed: 4 }, 1));
  // Seed 10 sample 1 and seed 11 sample 0 are both sent seed 11, but they are different samples.
  assert.notEqual(sampleKey(profile, { ...request, seed: 10 }, 1), sampleKey(profile, { ...request, seed: 11 }, 0));
});

test('what does not reach the model leaves the key alone: names, credentials, headers, concurrency, timeouts', () => {
  const base = sampleKey(profile, request, 0);
  const same: ModelProfile[] = [
    { ...profile, name: 'other' },
    { ...profile, apiKeyEnv: 'OTHER_KEY' },
    { ...profile, apiKeyEnv: undefined },
    { ...profile, headers: { Authorization: 'Bearer sk-rotated' } },
    { ...profile, headers: undefined },
    { ...profile, concurrency: 1, timeoutMs: 5 },
    { ...profile, baseUrl: 'http://127.0.0.1:8000/v1/' },
    { ...profile, baseUrl: 'HTTP://127.0.0.1:8000/v1//' },
    { ...profile, baseUrl: `http://user:${SECRET}@127.0.0.1:8000/v1` },
    { ...profile, baseUrl: `http://127.0.0.1:8000/v1?api_key=${SECRET}` },
  ];
  for (const p of same) assert.equal(sampleKey(p, request, 0), base, JSON.stringify(p));
  assert.equal(sampleKey(profile, { ...request, stop: '</answer>' }, 0), base, 'a stop string is a list of one');
  // request.index only says where a batch starts; the key takes the absolute sample index.
  assert.equal(
    sampleKey(profile, { ...request, index: 5 } as SampleRequest, 0),
    base,
    'request.index is not part of the key',
  );
});

test('the key input never holds a credential or a header value', () => {
  process.env.MY_KEY = SECRET;
  try {
    for (const baseUrl of [
      profile.baseUrl,
      `https://u:${SECRET}@api.example.com/v1?key=${SECRET}&api-version=2024-10-21`,
    ]) {
      const text =
        canonicalJson(sampleKeyInput({ ...profile, baseUrl }, request, 0)) +
        JSON.stringify(sampleParams({ ...profile, baseUrl }, request, 0));
      assert.ok(!text.includes(SECRET), text);
      assert.ok(!text.includes('Bearer'), text);
      assert.ok(!text.includes('vtask'), 'header values are left out');
      assert.ok(!text.includes('MY_KEY'), 'the key variable name is left out');
    }
    assert.equal(
      normaliseBaseUrl(`https://u:p@API.example.com:443/v1/?key=s&api-version=2024`),
      'https://api.example.com/v1?api-version=2024',
    );
  } finally {
    delete process.env.MY_KEY;
  }
});

test('canonical JSON sorts keys, drops undefined and refuses non-finite numbers', () => {
  assert.equal(canonicalJson({ b: 1, a: [1, undefined, 'x'], c: undefined }), '{"a":[1,null,"x"],"b":1}');
  assert.throws(() => canonicalJson({ t: Number.NaN }), TypeError);
  assert.throws(() => sampleKey(profile, request, -1), RangeError);
  assert.throws(() => sampleKey(profile, request, 1.5), RangeError);
});

/** What a runner sends for a task (the runner builds the same request). */
function requestOf(task: TaskSpec): SampleRequest {
  const s = task.sampling;
  return {
    messages: task.messages,
    temperature: s.temperature,
    topP: s.top_p,
    maxTokens: s.max_tokens,
    stop: s.stop,
    seed: s.seed,
  };
}

const TASKS = (verify: string) => `vtask: 1
defaults:
  system: Be brief.
  temperature: 0.6
  max_tokens: 256
tasks:
  - id: capital
    prompt: Capital of France?
    verify: ${verify}
`;

test('changing only the verifier, or the file the task lives in, keeps every key', () => {
  const keysOf = (text: string) =>
    runnableTasks(parseTaskFile(text)).tasks.map((t) => [0, 1, 2].map((i) => sampleKey(profile, requestOf(t), i)));
  const a = keysOf(TASKS('{ match: { answer: Paris } }'));
  assert.equal(a.length, 1);
  assert.deepEqual(keysOf(TASKS('{ match: { answer: Paris, mode: contains } }')), a);
  // The key is computed from the task alone: the same text read from another file is the same task.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-key-'));
  try {
    fs.mkdirSync(path.join(root, 'x/y'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a.vtask'), TASKS('{ match: { answer: Paris } }'));
    fs.copyFileSync(path.join(root, 'a.vtask'), path.join(root, 'x/y/b.vtask'));
    assert.deepEqual(keysOf(fs.readFileSync(path.join(root, 'x/y/b.vtask'), 'utf8')), a);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the cache folder is at the workspace root, whichever folder the task file is in', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-root-')));
  try {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'tasks/deep/er'), { recursive: true });
    const expected = path.join(ws, '.vtask-cache');
    assert.equal(resolveCacheDir(path.join(ws, 'a.vtask')), expected);
    assert.equal(resolveCacheDir(path.join(ws, 'tasks/deep/er/a.vtask')), expected);
    assert.equal(resolveCacheDir(path.join(ws, 'tasks/deep')), expected, 'a folder argument');
    assert.equal(findWorkspaceRoot(path.join(ws, 'tasks/deep/er/a.vtask')), ws);
    // package.json and an existing cache folder also mark a root; the nearest marker wins.
    fs.writeFileSync(path.join(ws, 'tasks/package.json'), '{}');
    assert.equal(findWorkspaceRoot(path.join(ws, 'tasks/deep/x.vtask')), path.join(ws, 'tasks'));
    fs.mkdirSync(path.join(ws, 'tasks/deep/.vtask-cache'));
    assert.equal(findWorkspaceRoot(path.join(ws, 'tasks/deep/er/x.vtask')), path.join(ws, 'tasks/deep'));
    // Overrides: the option, then VTASK_CACHE_DIR (relative to cwd).
    assert.equal(resolveCacheDir(path.join(ws, 'a.vtask'), { cacheDir: '/tmp/c1' }), '/tmp/c1');
    assert.equal(
      resolveCacheDir(path.join(ws, 'a.vtask'), { env: { VTASK_CACHE_DIR: 'rel' }, cwd: root }),
      path.join(root, 'rel'),
    );
    assert.equal(
      resolveCacheDir(path.join(ws, 'a.vtask'), { cacheDir: '/tmp/c1', env: { VTASK_CACHE_DIR: 'rel' } }),
      '/tmp/c1',
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('without any marker the cache is next to the task file', () => {
  // os.tmpdir() itself may sit under a folder with a marker; only check the walk stops at one.
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-nomark-')));
  try {
    const found = findWorkspaceRoot(path.join(root, 'a.vtask'));
    const markers = ['.git', 'package.json', '.vtask-cache'];
    if (found !== root) assert.ok(markers.some((m) => fs.existsSync(path.join(found, m))));
    else assert.equal(resolveCacheDir(path.join(root, 'a.vtask'), { env: {} }), path.join(root, '.vtask-cache'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

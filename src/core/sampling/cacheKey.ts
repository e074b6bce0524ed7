// Cache keys for samples: a sha256 of canonical JSON of everything that decides what the
// model is asked, and nothing else. Left out on purpose: the task file's path (a second run
// hits wherever the file lives, and the same task text in two files shares samples), the
// verifier (changing it reuses every sample), the API key, header values (credentials; and
// attribution headers such as X-Title do not change answers), the profile's name, concurrency
// and timeouts.
import { digestHex } from '../util/digest';
import { wireMessage, wireTools } from './toolCalls';
import type { ModelProfile, SampleRequest } from './types';

/** Bumped when the key's inputs change meaning, so old entries are missed rather than misread. */
export const CACHE_KEY_VERSION = 1;

/** The sampling parameters stored with each sample, so a cache entry says how it was taken. */
export interface SampleParams {
  readonly baseUrl: string;
  readonly model: string;
  readonly endpoint: 'chat' | 'completions';
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  /** The seed actually sent for this sample: `seed + index`. */
  readonly seed?: number;
  readonly index: number;
}

// Query parameters that carry credentials on some OpenAI-compatible gateways.
const SECRET_QUERY =
  /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|sig|signature|secret|password|code)$/i;

/**
 * The endpoint as it identifies a server: no trailing slash, scheme and host in lower case,
 * no user:password and no credential-like query parameters (both would make the key depend
 * on a secret, and rotating it would miss every entry).
 */
export function normaliseBaseUrl(baseUrl: string): string {
  // Every sample of a run has the same endpoint: parse it once.
  let normal = normalised.get(baseUrl);
  if (normal === undefined) {
    if (normalised.size >= 256) normalised.clear();
    normal = normaliseUncached(baseUrl);
    normalised.set(baseUrl, normal);
  }
  return normal;
}

const normalised = new Map<string, string>();

function normaliseUncached(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return trimmed.replace(/\/+$/, '');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return trimmed.replace(/\/+$/, '');
  const query = [...url.searchParams]
    .filter(([name]) => !SECRET_QUERY.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const search = query.length ? `?${new URLSearchParams(query).toString()}` : '';
  // URL.host drops default ports and lower-cases the host; userinfo is not part of it.
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}${search}`;
}

/** `stop` as a server sees it: a string is a list of one; an empty list is no stop. Order is irrelevant to the server. */
function normaliseStop(stop: SampleRequest['stop']): string[] | undefined {
  if (stop === undefined) return undefined;
  const list = typeof stop === 'string' ? [stop] : [...stop];
  return list.length ? list.sort() : undefined;
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new RangeError(`sample index must be a non-negative integer, got ${index}`);
}

/**
 * The parameters of sample `index` of a request. The request's seed wins over the profile's;
 * sample k is sent `seed + k` (spec §4), so the seed recorded is the one sent.
 */
export function sampleParams(profile: ModelProfile, request: SampleRequest, index: number): SampleParams {
  checkIndex(index);
  const seed = request.seed ?? profile.seed;
  const stop = normaliseStop(request.stop);
  return {
    baseUrl: normaliseBaseUrl(profile.baseUrl),
    model: profile.model,
    endpoint: profile.endpoint,
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.topP !== undefined && { topP: request.topP }),
    ...(request.maxTokens !== undefined && { maxTokens: request.maxTokens }),
    ...(stop && { stop }),
    ...(seed !== undefined && { seed: seed + index }),
    index,
  };
}

/** What the key hashes, as plain data (for tests and debugging; `sampleKey` hashes its canonical JSON). */
export function sampleKeyInput(profile: ModelProfile, request: SampleRequest, index: number): Record<string, unknown> {
  const p = sampleParams(profile, request, index);
  return {
    v: CACHE_KEY_VERSION,
    base_url: p.baseUrl,
    model: p.model,
    endpoint: p.endpoint,
    // A chat server applies its own template; only completions render ours into the prompt.
    template: p.endpoint === 'completions' ? profile.template : undefined,
    // What reaches the server (role and content; an agent's tool calls and tool results), nothing
    // else a caller attached: each step of a trajectory is keyed by the messages so far.
    messages: request.messages.map(wireMessage),
    // Absent without tools, so that keys of plain tasks are what they always were.
    tools: request.tools?.length ? wireTools(request.tools) : undefined,
    temperature: p.temperature,
    top_p: p.topP,
    max_tokens: p.maxTokens,
    stop: p.stop,
    seed: p.seed,
    index: p.index,
  };
}

/** The cache key of sample `index` of `request` on `profile`: 64 hex digits. */
export function sampleKey(profile: ModelProfile, request: SampleRequest, index: number): string {
  return digestHex('sha256', canonicalJson(sampleKeyInput(profile, request, index)));
}

/**
 * The keys of samples 0..count-1 of `request`: `sampleKey` of each, with the canonical JSON of
 * what they share (the messages above all) written once instead of once per sample: the text
 * is cut where `index` and `seed` go, the only members that vary, and each key fills them in.
 */
export function sampleKeys(profile: ModelProfile, request: SampleRequest, count: number): string[] {
  if (count <= 1) return count === 1 ? [sampleKey(profile, request, 0)] : [];
  const input = sampleKeyInput(profile, request, 0);
  const seed = typeof input.seed === 'number' ? input.seed : undefined;
  // canonicalJson of an object: its defined members in key order.
  const pieces: string[] = [];
  const holes: ('index' | 'seed')[] = [];
  let text = '{';
  let first = true;
  for (const k of Object.keys(input).sort()) {
    if (input[k] === undefined) continue;
    if (!first) text += ',';
    first = false;
    if (k === 'index' || k === 'seed') {
      pieces.push(`${text}"${k}":`);
      holes.push(k);
      text = '';
    } else text += `${JSON.stringify(k)}:${canonicalJson(input[k])}`;
  }
  pieces.push(`${text}}`);
  return Array.from({ length: count }, (_, i) => {
    let key = pieces[0] ?? '';
    for (let h = 0; h < holes.length; h++)
      key += (holes[h] === 'index' ? String(i) : canonicalJson((seed ?? 0) + i)) + (pieces[h + 1] ?? '');
    return digestHex('sha256', key);
  });
}

/**
 * JSON with object keys sorted and undefined members left out, so equal data always gives
 * equal text. Non-finite numbers throw: JSON would turn them into null and collide with "unset".
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot key a non-finite number (${value})`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const obj = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(obj).sort()) {
        if (obj[k] !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`cannot key a value of type ${typeof value}`);
  }
}

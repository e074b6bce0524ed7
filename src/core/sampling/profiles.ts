// Model profiles (spec §4): where they come from, and what of them may be shown.
//
// A profile holds names of secrets, never secrets: `api_key_env` names an environment variable
// and header values may say `${env:VAR}`. Both are read only when a request is sent (`apiKeyFor`,
// `expandHeaders`), so a profile can be printed, compared and used in cache keys as it is.
// In the extension, `lookup` reads SecretStorage instead of the environment.
import { looksLikeCredential } from '../schema/taskFields';
import { templateProblems } from './template';
import { ENV_REF, guardFileProfile } from './trust';
import { SamplingError, type ModelProfile, type Price } from './types';

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Reads a secret by its variable name: the environment in the CLI, SecretStorage in the editor. */
export type SecretLookup = (name: string) => string | undefined;

export const fromEnvironment: SecretLookup = (name) => process.env[name];

/** A profile that cannot be used, said so that the person can fix it. */
export class ProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileError';
  }
}

export interface ProfileSources {
  /** The profile a task names (`model:`), if any. */
  readonly name?: string;
  /**
   * The task file's `models:` mapping, as parsed. Its profiles get secrets only at endpoints the
   * user allowed (`guardFileProfile`).
   */
  readonly models?: Readonly<Record<string, unknown>>;
  /** Profiles the user defined in their own settings: used as they are (the file's win on a shared name). */
  readonly userModels?: Readonly<Record<string, unknown>>;
  /** `--base-url`. */
  readonly baseUrl?: string;
  /** `--model`: a model name for the base URL, or the name of a profile under `models:`. */
  readonly model?: string;
  /** `--concurrency`: overrides the profile's. */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  /** The environment for `OPENAI_BASE_URL` and `OPENAI_API_KEY` (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The profile to sample with, in this order:
 *   1. `--base-url URL --model NAME` (or `--model NAME` with `OPENAI_BASE_URL` set): ad hoc, the
 *      key from `OPENAI_API_KEY` when it is set;
 *   2. `--model NAME` naming a profile under `models:`;
 *   3. the task's `model:` naming a profile under `models:`;
 *   4. the task's `model:` as a model name at `OPENAI_BASE_URL`.
 */
export function resolveProfile(src: ProfileSources): ModelProfile {
  const env = src.env ?? process.env;
  const models = src.models ?? {};
  const userModels = src.userModels ?? {};
  const own = (table: Readonly<Record<string, unknown>>, n: string): boolean =>
    Object.prototype.hasOwnProperty.call(table, n);
  const has = (n: string | undefined): n is string => n !== undefined && (own(models, n) || own(userModels, n));
  const named = (n: string): ModelProfile =>
    own(models, n) ? guardFileProfile(profileFromEntry(n, models[n])) : profileFromEntry(n, userModels[n]);
  const override = (p: ModelProfile): ModelProfile => {
    const concurrency = src.concurrency ?? p.concurrency;
    const timeoutMs = src.timeoutMs ?? p.timeoutMs;
    checkPositive('--concurrency', concurrency);
    checkPositive('timeout', timeoutMs);
    return concurrency === p.concurrency && timeoutMs === p.timeoutMs ? p : { ...p, concurrency, timeoutMs };
  };
  const adHoc = (baseUrl: string, source: string, model: string): ModelProfile =>
    override(
      profileFromEntry(source, {
        base_url: baseUrl,
        model,
        // Only a key that is there: a local server needs none, and a missing variable is not an error then.
        ...(env.OPENAI_API_KEY ? { api_key_env: 'OPENAI_API_KEY' } : {}),
      }),
    );

  if (src.baseUrl !== undefined) {
    if (!src.model) throw new ProfileError('--base-url needs --model NAME: the model name the server expects');
    return adHoc(src.baseUrl, '--base-url', src.model);
  }
  if (src.model !== undefined) {
    if (has(src.model)) return override(named(src.model));
    if (env.OPENAI_BASE_URL) return adHoc(env.OPENAI_BASE_URL, 'OPENAI_BASE_URL', src.model);
    throw new ProfileError(
      `--model ${src.model}: no profile of that name${namesHint({ ...userModels, ...models })}, and no server to ask for it: give --base-url URL (or set OPENAI_BASE_URL)`,
    );
  }
  if (src.name !== undefined) {
    if (has(src.name)) return override(named(src.name));
    if (env.OPENAI_BASE_URL) return adHoc(env.OPENAI_BASE_URL, 'OPENAI_BASE_URL', src.name);
    throw new ProfileError(
      `model \`${src.name}\` is not a profile under \`models:\`${namesHint({ ...userModels, ...models })}: add it there, or give --base-url URL --model NAME`,
    );
  }
  if (env.OPENAI_BASE_URL)
    throw new ProfileError(
      'OPENAI_BASE_URL is set but no model is named: give --model NAME or `model:` in the task file',
    );
  throw new ProfileError(
    'no model to sample: give --base-url URL --model NAME, or name a profile with `model:` (see `models:` in the task file)',
  );
}

function namesHint(models: Readonly<Record<string, unknown>>): string {
  const names = Object.keys(models);
  return names.length ? ` (the file has ${names.map((n) => `\`${n}\``).join(', ')})` : '';
}

function checkPositive(what: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new ProfileError(`${what} must be a positive whole number, not ${v}`);
}

/** A profile from one entry under `models:` (snake_case keys, as in the task file). */
export function profileFromEntry(name: string, entry: unknown): ModelProfile {
  const where = `model profile \`${name}\``;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new ProfileError(`${where} is a mapping such as { base_url: ..., model: ... }`);
  const e = entry as Record<string, unknown>;
  const str = (k: string): string | undefined => {
    const v = e[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new ProfileError(`${where}: \`${k}\` is a string`);
    return v;
  };
  const int = (k: string, fallback?: number): number | undefined => {
    const v = e[k];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new ProfileError(`${where}: \`${k}\` is a whole number`);
    return v;
  };
  const baseUrl = normalizeBaseUrl(str('base_url'), where);
  const model = str('model');
  if (!model) throw new ProfileError(`${where} needs \`model\`: the model name the server expects`);
  const apiKeyEnv = str('api_key_env');
  if (apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
    // Most likely the key itself was pasted here; do not echo it.
    throw new ProfileError(
      `${where}: \`api_key_env\` is the name of an environment variable that holds the key, not the key`,
    );
  }
  const endpoint = str('endpoint') ?? 'chat';
  if (endpoint !== 'chat' && endpoint !== 'completions')
    throw new ProfileError(`${where}: \`endpoint\` is \`chat\` or \`completions\``);
  const template = str('template');
  if (template !== undefined) {
    const problems = templateProblems(template);
    if (problems.length) throw new ProfileError(`${where}: ${problems.join('; ')}`);
  }
  let headers: Record<string, string> | undefined;
  if (e.headers !== undefined && e.headers !== null) {
    if (typeof e.headers !== 'object' || Array.isArray(e.headers))
      throw new ProfileError(`${where}: \`headers\` is a mapping of header names to values`);
    headers = {};
    for (const [k, v] of Object.entries(e.headers as Record<string, unknown>)) {
      if (typeof v !== 'string') throw new ProfileError(`${where}: header \`${k}\` is a string`);
      if (looksLikeCredential(v))
        throw new ProfileError(
          `${where}: header \`${k}\` holds a literal credential: write \`\${env:VAR}\` and keep the key in the environment`,
        );
      headers[k] = v;
    }
  }
  const concurrency = int('concurrency', DEFAULT_CONCURRENCY)!;
  checkPositive(`${where}: \`concurrency\``, concurrency);
  const timeoutMs = int('timeout_ms', DEFAULT_TIMEOUT_MS)!;
  checkPositive(`${where}: \`timeout_ms\``, timeoutMs);
  const seed = int('seed');
  const maxResponseBytes = int('max_response_bytes');
  if (maxResponseBytes !== undefined) checkPositive(`${where}: \`max_response_bytes\``, maxResponseBytes);
  const retryBudgetMs = int('retry_budget_ms');
  if (retryBudgetMs !== undefined) checkPositive(`${where}: \`retry_budget_ms\``, retryBudgetMs);
  const price = priceOf(e.price, where);
  return {
    name,
    baseUrl,
    model,
    endpoint,
    concurrency,
    timeoutMs,
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    ...(template !== undefined ? { template } : {}),
    ...(headers ? { headers } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}),
    ...(retryBudgetMs !== undefined ? { retryBudgetMs } : {}),
    ...(price ? { price } : {}),
  };
}

/** `price: { prompt, completion }`: dollars per million tokens, both zero or more. */
function priceOf(v: unknown, where: string): Price | undefined {
  if (v === undefined || v === null) return undefined;
  const p = typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  if (!p || !ok(p.prompt) || !ok(p.completion))
    throw new ProfileError(
      `${where}: \`price\` is { prompt: ..., completion: ... }, dollars per million tokens (numbers, 0 or more)`,
    );
  return { prompt: p.prompt, completion: p.completion };
}

function normalizeBaseUrl(raw: string | undefined, where: string): string {
  if (!raw) throw new ProfileError(`${where} needs \`base_url\`, such as http://127.0.0.1:8000/v1`);
  // In-process models (`builtin:arith-tiny`) have no URL to normalise.
  if (raw.startsWith('builtin:')) return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ProfileError(`${where}: \`base_url\` is not a URL: ${JSON.stringify(safeUrl(raw))}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ProfileError(`${where}: \`base_url\` is an http:// or https:// URL`);
  if (u.username || u.password)
    throw new ProfileError(
      `${where}: \`base_url\` holds a user name or password: keep the key in an environment variable (\`api_key_env\`)`,
    );
  return raw.replace(/\/+$/, '');
}

/**
 * A URL that is safe to print: no user name, password or query string (which may carry
 * `?key=...`, as some gateways want).
 */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//').replace(/[?#].*$/, '');
  }
}

/** One line about a profile, safe to print and log: names of secrets, never their values. */
export function describeProfile(p: ModelProfile): string {
  const parts = [p.endpoint === 'completions' ? 'completions' : 'chat'];
  parts.push(p.apiKeyEnv ? `key from $${p.apiKeyEnv}` : 'no key');
  if (p.headers && Object.keys(p.headers).length) parts.push(`headers ${Object.keys(p.headers).join(', ')}`);
  parts.push(`concurrency ${p.concurrency}`);
  if (p.seed !== undefined) parts.push(`seed ${p.seed}`);
  parts.push(`timeout ${p.timeoutMs / 1000} s`);
  return `${p.name}: ${p.model} at ${safeUrl(p.baseUrl)} (${parts.join(', ')})`;
}

/**
 * What makes two profiles give the same samples, for cache keys and the shared limiter: the
 * endpoint, the model and how prompts are built. No key, no header value.
 */
export function profileIdentity(p: ModelProfile): {
  baseUrl: string;
  model: string;
  endpoint: string;
  template?: string;
} {
  return {
    baseUrl: safeUrl(p.baseUrl),
    model: p.model,
    endpoint: p.endpoint,
    ...(p.template !== undefined ? { template: p.template } : {}),
  };
}

/** The key to send, read now; throws when the profile names a variable that is not set. */
export function apiKeyFor(p: ModelProfile, lookup: SecretLookup = fromEnvironment): string | undefined {
  if (!p.apiKeyEnv) return undefined;
  const key = lookup(p.apiKeyEnv);
  if (!key)
    throw new SamplingError(
      `${p.name}: $${p.apiKeyEnv} is not set: export ${p.apiKeyEnv}=... with the API key for ${safeUrl(p.baseUrl)}`,
      'auth',
    );
  return key;
}

/** The profile's headers with `${env:VAR}` replaced, read now; throws when a variable is not set. */
export function expandHeaders(p: ModelProfile, lookup: SecretLookup = fromEnvironment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.headers ?? {})) {
    out[k] = v.replace(ENV_REF, (_, name: string) => {
      const value = lookup(name);
      if (value === undefined)
        throw new SamplingError(`${p.name}: header ${k} uses \${env:${name}}, and $${name} is not set`, 'auth');
      return value;
    });
  }
  return out;
}

/** The values of secrets a profile sends, to scrub from anything shown (server messages echo keys). */
export function secretValues(p: ModelProfile, lookup: SecretLookup = fromEnvironment): string[] {
  const found: string[] = [];
  if (p.apiKeyEnv) {
    const k = lookup(p.apiKeyEnv);
    if (k) found.push(k);
  }
  for (const v of Object.values(p.headers ?? {})) {
    for (const m of v.matchAll(ENV_REF)) {
      const value = lookup(m[1]!);
      if (value) found.push(value);
    }
  }
  return found;
}

/** `text` with every secret value (and any fragment of 8+ characters of one) replaced by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue;
    out = out.split(s).join('***');
    // Servers often echo a shortened key (`sk-abc...wxyz`): hide long enough pieces of it too.
    if (s.length >= 16) {
      for (const piece of [s.slice(0, 8), s.slice(-8)]) out = out.split(piece).join('***');
    }
  }
  return out;
}

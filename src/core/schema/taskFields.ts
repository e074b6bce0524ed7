import * as z from 'zod';
import { field, type Fields } from './fields';

const message = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  name: z.string().optional(),
});

/** Keys a task and `defaults` share: sampling settings and what every task inherits. */
export const INHERITABLE_FIELDS: Fields = {
  system: field(z.string(), 'A system message sent before the prompt.', 'Put the final answer in \\boxed{}.'),
  verify: field(
    z.unknown(),
    'The verifier: a mapping with exactly one key, the kind (`math`, `constraints`, `code`, ...).',
    { math: { answer: '72' } },
    false,
    'a verifier',
  ),
  model: field(
    z.string().min(1),
    'The model profile to sample, by name (from `models:` or the editor settings).',
    'local',
  ),
  samples: field(z.number().int().min(1).max(10_000), 'How many times `run` samples the task.', 8),
  temperature: field(z.number().min(0).max(5), 'Sampling temperature.', 1.0),
  top_p: field(
    z.number().gt(0).max(1),
    'Nucleus sampling: keep the smallest set of tokens whose probability reaches this.',
    1.0,
  ),
  max_tokens: field(z.number().int().min(1), 'The most tokens one sample may have.', 2048),
  seed: field(z.number().int(), 'Seed for sampling; sample k is sent `seed + k`.', 1),
  stop: field(z.union([z.string(), z.array(z.string()).max(16)]), 'Text at which sampling stops.', ['</answer>']),
  tags: field(z.array(z.string()), 'Free labels, carried into exports.', ['math']),
  meta: field(z.record(z.string(), z.unknown()), 'Free-form data carried into exports.', { source: 'gsm8k' }),
  environment: field(
    z.strictObject({
      run: z.string().min(1),
      args: z.record(z.string(), z.unknown()).optional(),
      timeout_ms: z.number().int().min(1).max(600_000).optional(),
    }),
    'An environment with tools for an agent task: a JS module or executable speaking the vtask environment protocol. `args` go to `reset`; `timeout_ms` bounds each reply (default 10000).',
    { run: './envs/kv_store.mjs' },
  ),
  max_turns: field(z.number().int().min(1).max(1000), 'The most assistant turns in an agent task.', 6),
};

/** The keys of one task. */
export const TASK_FIELDS: Fields = {
  id: field(
    z.string().min(1),
    'A unique id in the file, such as `gsm8k/0001`. Quote ids that look like numbers.',
    'task-1',
    true,
  ),
  prompt: field(z.string(), 'The user message (or use `messages`).', 'What is 2 + 2?'),
  messages: field(z.array(message).min(1), 'The conversation sent to the model: `{role, content}` items.', [
    { role: 'user', content: 'What is 2 + 2?' },
  ]),
  ...INHERITABLE_FIELDS,
  cases: field(
    z.array(z.unknown()),
    "Fixed responses with the verdict the verifier must give: the verifier's own tests.",
    [],
  ),
};

export const DEFAULTS_FIELDS: Fields = INHERITABLE_FIELDS;

/** One call of a case's scripted trajectory: one tool, its arguments a mapping or the text a model wrote. */
const scriptedCall = z
  .record(z.string(), z.unknown())
  .refine((c) => Object.keys(c).length === 1, { message: 'a call is one tool with its arguments: `{get: {key: fr}}`' });

/** The keys of one regression case. */
export const CASE_FIELDS: Fields = {
  response: field(z.string(), 'The response to verify.', '\\boxed{72}'),
  expect: field(
    z.unknown(),
    '`pass`, `fail`, or `{score: 0.5}`: the verdict the verifier must give.',
    'pass',
    true,
    '`pass`, `fail` or `{ score: 0.5 }`',
  ),
  name: field(z.string(), 'A short name shown in test results.', 'boxed answer'),
  calls: field(
    z.array(
      z.union([
        scriptedCall,
        z.array(scriptedCall).min(1, { message: 'a turn of parallel calls lists at least one call' }),
      ]),
    ),
    'A scripted trajectory for agent tasks: `[{tool: {args}}]`, one assistant turn per item (a list of calls is one turn of parallel calls; arguments given as a string are sent as written), replayed in the environment.',
    [{ get: { key: 'fr' } }],
  ),
};

const headerValue = z.string().refine((v) => !looksLikeCredential(v), {
  message: 'a literal credential: write `${env:VAR}` and keep the key in the environment',
});

/** A model profile under `models:`. */
export const MODEL_FIELDS: Fields = {
  base_url: field(
    z.union([z.url({ protocol: /^https?$/ }), z.string().regex(/^builtin:[\w.-]+$/)]),
    'The OpenAI-compatible endpoint, such as `http://127.0.0.1:8000/v1`, or `builtin:arith-tiny` for the built-in demo model.',
    'http://127.0.0.1:8000/v1',
    true,
    'an http(s) URL or `builtin:<model>`',
  ),
  model: field(z.string().min(1), 'The model name the server expects.', 'Qwen/Qwen2.5-7B-Instruct', true),
  api_key_env: field(
    z
      .string()
      .refine((v) => !looksLikeCredential(v), {
        message:
          'looks like a key itself, a literal credential: give the name of the environment variable that holds it',
        abort: true,
      })
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable'),
    'The environment variable that holds the API key (never the key itself).',
    'OPENAI_API_KEY',
  ),
  endpoint: field(z.enum(['chat', 'completions']), '`chat` (default) or `completions` for base models.', 'chat'),
  template: field(
    z.string(),
    'For `completions`: how messages become one prompt; `{{system}}`, `{{prompt}}`.',
    '{{system}}\n\nQ: {{prompt}}\nA:',
  ),
  headers: field(z.record(z.string(), headerValue), 'Extra HTTP headers; values may use `${env:VAR}`.', {
    'X-Org': '${env:ORG_ID}',
  }),
  concurrency: field(z.number().int().min(1).max(1024), 'How many requests may be in flight at once.', 8),
  seed: field(z.number().int(), 'Base seed: sample k is sent `seed + k`.', 1),
  timeout_ms: field(z.number().int().min(1), 'Per-request timeout in milliseconds.', 120000),
  max_response_bytes: field(z.number().int().min(1), 'The most bytes one answer may have (default 8 MiB).', 8388608),
  retry_budget_ms: field(
    z.number().int().min(1),
    'How long a task may go without a new sample while retrying (default 300000).',
    300000,
  ),
  price: field(
    z.object({ prompt: z.number().min(0), completion: z.number().min(0) }),
    'Dollars per million prompt and completion tokens: gives runs a `cost` in the run log and statistics.',
    { prompt: 0.15, completion: 0.6 },
  ),
};

/** The top level of a task file. */
export const FILE_FIELDS: Fields = {
  vtask: field(z.literal(1), 'The format version: `1`.', 1, true),
  defaults: field(z.record(z.string(), z.unknown()), 'Keys every task inherits unless it sets them itself.', {}),
  models: field(z.record(z.string(), z.unknown()), 'Model profiles, usable by name in `model:`.', {}),
  tasks: field(z.array(z.unknown()).nullable(), 'The tasks of this file.', [], true),
};

/**
 * True for header values that carry a secret rather than a reference to one: a bearer token,
 * a key with a known provider prefix, or any long opaque token without `${env:...}`.
 */
export function looksLikeCredential(v: string): boolean {
  if (v.includes('${env:')) return false;
  if (/^(bearer|basic|token)\s+\S{8,}/i.test(v)) return true;
  if (/\b(sk|pk|rk|hf|gsk|xai|ghp|gho|AIza)[-_][A-Za-z0-9_-]{8,}/.test(v)) return true;
  return /^[A-Za-z0-9_\-.=+/]{32,}$/.test(v);
}

// The provider for OpenAI-compatible servers (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenAI,
// OpenRouter...): Chat Completions, or Completions with the profile's template for base models.
//
// Every HTTP request goes through the profile's limiter and the retry loop, and has its own
// timeout. A request either yields complete answers or fails as a whole: a stream that breaks
// off is retried from the start, so nothing half-received is ever returned (or cached).
//
// The wire is a Transport (transport.ts): node:http with keep-alive by default.
import { errorMessage } from '../base/errorMessage';
import { formatSeconds, parseRetryAfter, withRetry, type RetryOptions } from './retry';
import { limiterFor, type Limiter } from './limiter';
import { networkError, serverMessage, withServerMessage } from './errors';
import {
  apiKeyFor,
  expandHeaders,
  fromEnvironment,
  profileIdentity,
  redact,
  safeUrl,
  secretValues,
  type SecretLookup,
} from './profiles';
import { tellWithheld } from './trust';
import { SseParser } from './sse';
import { limitsOf, TooLargeError, type ResponseLimits } from './limits';
import { nodeTransport, type Transport, type TransportRequest, type TransportResponse } from './transport';
import { renderPrompt } from './template';
import { parseToolCalls, ToolCallStream, wireMessage, wireTools } from './toolCalls';
import type { ToolCall } from '../base/chat';
import {
  SamplingError,
  type ModelProfile,
  type Provider,
  type Sample,
  type SampleHooks,
  type SampleRequest,
} from './types';
import { plural } from '../util/plural';
import { DeadlineError, withDeadline } from '../util/wait';
import { allowManyListeners } from '../util/listeners';

export interface OpenAIProviderOptions {
  /** Stream answers (SSE). Off by default: one JSON body is cheaper, and every server has it. */
  readonly stream?: boolean;
  /** Where keys and `${env:VAR}` values come from (default: the environment). */
  readonly secrets?: SecretLookup;
  /** The limiter to share; default: the one of this profile's endpoint and model. */
  readonly limiter?: Limiter;
  readonly retry?: RetryOptions;
  /**
   * Split a leading `<think>...</think>` out of the answer into `reasoning` when the server has no
   * reasoning parser (default on): a verifier must never read the model's scratch work.
   */
  readonly splitThinkTags?: boolean;
  /** How requests go out; default node:http with keep-alive (`fetchTransport()` for fetch). */
  readonly transport?: Transport;
  /** Where VTASK_MAX_RESPONSE_BYTES and the other overrides of limits.ts are read (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One answer of one HTTP response, before it becomes a Sample. */
interface Choice {
  text: string;
  reasoning: string;
  finishReason?: string;
  toolCalls?: ToolCall[];
}

interface Parsed {
  choices: Choice[];
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  latencyMs: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Splits `<think>…</think>` from an answer. Also the form without the opening tag, which chat
 * templates that open the think block in the prompt (Qwen3, DeepSeek-R1) leave in the output.
 * An unclosed `<think>` (cut by max_tokens) is all reasoning and no answer.
 */
export function splitThinking(text: string): { text: string; reasoning?: string } {
  const open = /^\s*<think>/.exec(text);
  const close = text.indexOf('</think>');
  if (open) {
    if (close < 0) return { text: '', reasoning: text.slice(open[0].length).trim() };
    return { text: text.slice(close + 8).trimStart(), reasoning: text.slice(open[0].length, close).trim() };
  }
  if (close >= 0 && !text.slice(0, close).includes('<think>') && text.indexOf('</think>', close + 8) < 0) {
    return { text: text.slice(close + 8).trimStart(), reasoning: text.slice(0, close).trim() };
  }
  return { text };
}

export class OpenAIProvider implements Provider {
  readonly id: string;
  private readonly limiter: Limiter;
  private readonly secrets: SecretLookup;
  private readonly transport: Transport;
  private readonly url: string;
  private readonly limits: ResponseLimits;
  // Learnt once per provider: a server that answers `n: 4` with one choice gets n separate requests.
  private ignoresN = false;

  constructor(
    readonly profile: ModelProfile,
    private readonly options: OpenAIProviderOptions = {},
  ) {
    this.id = `openai:${profile.name}`;
    this.secrets = options.secrets ?? fromEnvironment;
    this.transport = options.transport ?? nodeTransport;
    this.limits = limitsOf(profile, options.env);
    this.limiter = options.limiter ?? limiterFor(JSON.stringify(profileIdentity(profile)), profile.concurrency);
    this.url = `${profile.baseUrl}${profile.endpoint === 'completions' ? '/completions' : '/chat/completions'}`;
  }

  async sample(request: SampleRequest, n: number, signal: AbortSignal, hooks: SampleHooks = {}): Promise<Sample[]> {
    allowManyListeners(signal);
    try {
      return await this.sampleAll(request, n, signal, hooks);
    } catch (e) {
      throw this.scrub(e);
    }
  }

  async listModels(signal: AbortSignal): Promise<string[]> {
    try {
      return await this.fetchModels(signal);
    } catch (e) {
      throw this.scrub(e);
    }
  }

  private async sampleAll(
    request: SampleRequest,
    n: number,
    signal: AbortSignal,
    hooks: SampleHooks,
  ): Promise<Sample[]> {
    if (signal.aborted) throw SamplingError.cancelled();
    if (!Number.isInteger(n) || n < 0) throw new SamplingError(`n must be a whole number ≥ 0, not ${n}`, 'bad-request');
    if (n === 0) return [];
    // Fail before queueing when the prompt cannot be built, rather than once per retry.
    if (request.tools?.length && this.profile.endpoint === 'completions')
      throw new SamplingError(
        `${this.profile.name}: tools need the chat endpoint (endpoint: chat), not completions`,
        'bad-request',
      );
    const prompt =
      this.profile.endpoint === 'completions' ? renderPrompt(request.messages, this.profile.template) : undefined;
    const seed = request.seed ?? this.profile.seed;
    const first = request.index ?? 0;
    // Sample k carries seed + k, so each sample needs its own request.
    if (seed !== undefined)
      return this.parallel(n, (i, s) => this.request(request, prompt, 1, seed + first + i, s, hooks), signal);

    const out: Sample[] = [];
    while (out.length < n) {
      const missing = n - out.length;
      if (this.ignoresN || missing === 1) {
        out.push(
          ...(await this.parallel(missing, (_, s) => this.request(request, prompt, 1, undefined, s, hooks), signal)),
        );
        break;
      }
      const got = (await this.request(request, prompt, missing, undefined, signal, hooks)).slice(0, missing);
      if (got.length === 1) this.ignoresN = true;
      // A server may cap n below what was asked (a per-request limit): ask again for the rest.
      out.push(...got);
    }
    return out;
  }

  private async fetchModels(signal: AbortSignal): Promise<string[]> {
    const url = `${this.profile.baseUrl}/models`;
    return this.withTimeout(signal, async (s) => {
      const res = await this.send(url, { method: 'GET', headers: this.headers(), signal: s });
      const body = await this.readText(res, s);
      if (res.status < 200 || res.status > 299) throw this.httpError(res.status, res, body, url);
      let j: unknown;
      try {
        j = JSON.parse(body);
      } catch (e) {
        throw new SamplingError(`${safeUrl(url)} answered with malformed JSON: ${errorMessage(e)}`, 'bad-response');
      }
      const data = isObject(j) && Array.isArray(j.data) ? j.data : Array.isArray(j) ? j : undefined;
      if (!data) throw new SamplingError(`${safeUrl(url)} answered without a \`data\` list of models`, 'bad-response');
      return data.map((m) => (isObject(m) ? str(m.id) : str(m))).filter((id) => id);
    });
  }

  /** Runs `count` requests at once; the first failure cancels the others and is what is thrown. */
  private async parallel(
    count: number,
    one: (i: number, signal: AbortSignal) => Promise<Sample[]>,
    signal: AbortSignal,
  ): Promise<Sample[]> {
    if (count === 1) return one(0, signal);
    const inner = new AbortController();
    allowManyListeners(inner.signal);
    const onAbort = (): void => inner.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let firstError: unknown;
    try {
      const results = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          one(i, inner.signal).catch((e: unknown) => {
            if (firstError === undefined) firstError = e;
            inner.abort();
            throw e;
          }),
        ),
      );
      return results.flat();
    } catch {
      if (signal.aborted) throw SamplingError.cancelled();
      throw firstError;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** One logical request (retried as a whole), returning the samples of its choices. */
  private async request(
    req: SampleRequest,
    prompt: string | undefined,
    n: number,
    seed: number | undefined,
    signal: AbortSignal,
    hooks: SampleHooks = {},
  ): Promise<Sample[]> {
    const stream = this.options.stream ?? false;
    const body: Json = { model: this.profile.model };
    if (prompt !== undefined) body.prompt = prompt;
    else body.messages = req.messages.map(wireMessage);
    if (req.tools?.length && prompt === undefined) body.tools = wireTools(req.tools);
    if (n !== 1) body.n = n;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.topP !== undefined) body.top_p = req.topP;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (seed !== undefined) body.seed = seed;
    if (req.stop !== undefined) body.stop = typeof req.stop === 'string' ? req.stop : [...req.stop];
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    const payload = JSON.stringify(body);
    const attempts = { count: 0 };
    const deadline = hooks.retryDeadline;
    try {
      const res = await withRetry(
        (attempt) => {
          attempts.count = attempt;
          return this.limiter.run(() => {
            hooks.onRequest?.();
            return this.withTimeout(signal, (s) => this.post(payload, stream, s), deadline?.());
          }, signal);
        },
        signal,
        {
          ...this.options.retry,
          ...(deadline
            ? { deadline, deadlineName: `the retry budget (retry_budget_ms: ${this.limits.retryBudgetMs})` }
            : {}),
          onRetry: (info) => {
            this.options.retry?.onRetry?.(info);
            hooks.onRetry?.(info);
          },
        },
      );
      const samples = this.toSamples(res);
      hooks.onSamples?.(samples.slice(0, n));
      return samples;
    } catch (e) {
      if (e instanceof SamplingError && e.retryable && attempts.count > 1) {
        throw new SamplingError(
          `${e.message} (gave up after ${plural(attempts.count, 'attempt')})`,
          e.kind,
          e.status,
          e.retryAfterMs,
        );
      }
      throw e;
    }
  }

  private toSamples(res: Parsed): Sample[] {
    const takenAt = new Date().toISOString();
    const k = res.choices.length;
    return res.choices.map((c, i) => {
      let text = c.text;
      let reasoning = c.reasoning || undefined;
      if (reasoning === undefined && this.options.splitThinkTags !== false && text.includes('</think>')) {
        const split = splitThinking(text);
        text = split.text;
        reasoning = split.reasoning;
      }
      // Servers count the tokens of all choices together; sharing them out keeps totals exact
      // (the prompt is the same for every choice, so each carries its full count).
      let completionTokens = res.completionTokens;
      if (completionTokens !== undefined && k > 1)
        completionTokens = Math.floor(completionTokens / k) + (i < completionTokens % k ? 1 : 0);
      const finishReason = c.finishReason ?? 'unknown';
      const usage =
        res.promptTokens !== undefined || completionTokens !== undefined
          ? {
              ...(res.promptTokens !== undefined ? { promptTokens: res.promptTokens } : {}),
              ...(completionTokens !== undefined ? { completionTokens } : {}),
            }
          : undefined;
      return {
        text,
        ...(reasoning !== undefined ? { reasoning } : {}),
        finishReason,
        ...(finishReason === 'length' ? { truncated: true } : {}),
        ...(usage ? { usage } : {}),
        model: res.model ?? this.profile.model,
        takenAt,
        latencyMs: res.latencyMs,
        ...(c.toolCalls?.length ? { toolCalls: c.toolCalls } : {}),
      };
    });
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json' };
    // A task file's profile whose secrets were held back: said once, as its first request goes.
    tellWithheld(this.profile);
    const key = apiKeyFor(this.profile, this.secrets);
    if (key) h.authorization = `Bearer ${key}`;
    // The profile's own headers last: some gateways want the key under another name.
    return { ...h, ...expandHeaders(this.profile, this.secrets) };
  }

  /**
   * Runs `fn` with a signal that aborts on the caller's signal or after the profile's timeout,
   * telling the two apart afterwards.
   */
  private async withTimeout<T>(signal: AbortSignal, fn: (s: AbortSignal) => Promise<T>, deadline?: number): Promise<T> {
    const timeoutMs = this.limits.timeoutMs;
    // The retry budget cuts an attempt short too, so that a task's time is bounded as a whole.
    const budgetMs = deadline === undefined ? Infinity : Math.max(1, deadline - Date.now());
    const ms = Math.min(timeoutMs, budgetMs);
    try {
      return await withDeadline(fn, ms, signal, 'the request');
    } catch (e) {
      if (signal.aborted) throw SamplingError.cancelled();
      // Cut by the retry budget, the retry loop adds why it stops there.
      if (e instanceof DeadlineError)
        throw new SamplingError(
          `no complete answer from ${safeUrl(this.profile.baseUrl)} within ${formatSeconds(ms)}${budgetMs < timeoutMs ? '' : ` (timeout_ms: ${timeoutMs})`}`,
          'timeout',
        );
      throw e;
    }
  }

  /** The transport, with its failures as SamplingErrors. */
  private async send(url: string, init: TransportRequest): Promise<TransportResponse> {
    try {
      return await this.transport(url, init);
    } catch (e) {
      if (init.signal?.aborted) throw e;
      throw networkError(e, this.profile.baseUrl, false);
    }
  }

  private async post(payload: string, stream: boolean, signal: AbortSignal): Promise<Parsed> {
    const t0 = performance.now();
    const headers = this.headers();
    headers['content-type'] = 'application/json';
    if (stream) headers.accept = 'text/event-stream';
    const res = await this.send(this.url, { method: 'POST', headers, body: payload, signal });
    if (res.status < 200 || res.status > 299) {
      const text = await this.readText(res, signal);
      if (res.status === 404) throw await this.notFound(text, signal);
      throw this.httpError(res.status, res, text, this.url);
    }
    const isSse = stream && (res.header('content-type') ?? '').includes('text/event-stream');
    // A server that ignores `stream` answers with one JSON body; take it as such.
    const parsed = isSse ? await this.readStream(res, signal) : this.parseBody(await this.readText(res, signal));
    parsed.latencyMs = Math.round(performance.now() - t0);
    return parsed;
  }

  private async readText(res: TransportResponse, signal: AbortSignal): Promise<string> {
    try {
      return await res.text(this.limits.maxResponseBytes);
    } catch (e) {
      if (signal.aborted) throw e;
      throw networkError(e, this.profile.baseUrl, true);
    }
  }

  private parseBody(text: string): Parsed {
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch (e) {
      throw new SamplingError(
        `${safeUrl(this.url)} answered with malformed JSON (${errorMessage(e)}): ${JSON.stringify(text.slice(0, 80))}`,
        'bad-response',
      );
    }
    if (!isObject(j) || !Array.isArray(j.choices)) {
      if (isObject(j) && j.error !== undefined)
        throw new SamplingError(withServerMessage(`${safeUrl(this.url)} answered with an error`, text), 'server');
      throw new SamplingError(
        `${safeUrl(this.url)} answered without \`choices\`: ${JSON.stringify(text.slice(0, 80))}`,
        'bad-response',
      );
    }
    const choices: Choice[] = [];
    for (const [i, c] of (j.choices as unknown[]).entries()) {
      if (!isObject(c))
        throw new SamplingError(`${safeUrl(this.url)} answered with a malformed choice`, 'bad-response');
      const idx = num(c.index) ?? i;
      const msg = isObject(c.message) ? c.message : undefined;
      choices[idx] = {
        text: msg ? str(msg.content) : str(c.text),
        // vLLM has said `reasoning_content` and, lately, `reasoning`; OpenRouter says `reasoning`.
        reasoning: msg ? str(msg.reasoning_content) || str(msg.reasoning) : '',
        ...(typeof c.finish_reason === 'string' ? { finishReason: c.finish_reason } : {}),
        ...(msg?.tool_calls !== undefined ? { toolCalls: parseToolCalls(msg.tool_calls, safeUrl(this.url)) } : {}),
      };
    }
    const dense = choices.filter((c) => c !== undefined);
    if (!dense.length) throw new SamplingError(`${safeUrl(this.url)} answered with no choices`, 'bad-response');
    const usage = isObject(j.usage) ? j.usage : {};
    return {
      choices: dense,
      ...(typeof j.model === 'string' ? { model: j.model } : {}),
      ...(num(usage.prompt_tokens) !== undefined ? { promptTokens: num(usage.prompt_tokens) } : {}),
      ...(num(usage.completion_tokens) !== undefined ? { completionTokens: num(usage.completion_tokens) } : {}),
      latencyMs: 0,
    };
  }

  /** Collects a streamed answer; throws when it breaks off before every choice finished. */
  private async readStream(res: TransportResponse, signal: AbortSignal): Promise<Parsed> {
    const choices: Choice[] = [];
    const calls: ToolCallStream[] = [];
    let model: string | undefined;
    let promptTokens: number | undefined;
    let completionTokens: number | undefined;
    let done = false;
    let events = 0;
    const parser = new SseParser(this.limits.maxEventBytes);
    const maxBytes = this.limits.maxResponseBytes;
    let bytes = 0;
    const onEvent = (data: string): void => {
      if (done) return;
      if (data === '[DONE]') {
        done = true;
        return;
      }
      events++;
      let j: unknown;
      try {
        j = JSON.parse(data);
      } catch (e) {
        throw new SamplingError(
          `${safeUrl(this.url)} streamed malformed JSON (${errorMessage(e)}): ${JSON.stringify(data.slice(0, 80))}`,
          'bad-response',
        );
      }
      if (!isObject(j)) return;
      // vLLM reports an error inside the stream after the 200 has gone out.
      if (j.error !== undefined)
        throw new SamplingError(withServerMessage(`${safeUrl(this.url)} failed mid-stream`, data), 'server');
      if (typeof j.model === 'string') model = j.model;
      if (isObject(j.usage)) {
        promptTokens = num(j.usage.prompt_tokens) ?? promptTokens;
        completionTokens = num(j.usage.completion_tokens) ?? completionTokens;
      }
      if (!Array.isArray(j.choices)) return;
      for (const c of j.choices as unknown[]) {
        if (!isObject(c)) continue;
        const idx = num(c.index) ?? 0;
        const acc = (choices[idx] ??= { text: '', reasoning: '' });
        const delta = isObject(c.delta) ? c.delta : undefined;
        if (delta) {
          acc.text += str(delta.content);
          acc.reasoning += str(delta.reasoning_content) || str(delta.reasoning);
          if (delta.tool_calls !== undefined)
            (calls[idx] ??= new ToolCallStream(safeUrl(this.url))).push(delta.tool_calls);
        } else {
          acc.text += str(c.text);
        }
        if (typeof c.finish_reason === 'string') acc.finishReason = c.finish_reason;
      }
    };
    try {
      await res.read((chunk) => {
        bytes += chunk.length;
        if (bytes > maxBytes) throw new TooLargeError('the streamed answer', maxBytes);
        for (const data of parser.push(chunk)) onEvent(data);
      });
    } catch (e) {
      if (e instanceof SamplingError || signal.aborted) throw e;
      throw networkError(e, this.profile.baseUrl, true);
    }
    const dense = choices.filter((c) => c !== undefined);
    const finished = dense.length > 0 && dense.every((c) => c.finishReason !== undefined);
    // Without `[DONE]` and with a choice unfinished, the stream broke off: retry it whole.
    if (!finished && !done)
      throw new SamplingError(
        `the stream from ${safeUrl(this.url)} broke off after ${plural(events, 'event')}, before the answer was complete`,
        'bad-response',
      );
    if (!dense.length) throw new SamplingError(`${safeUrl(this.url)} streamed no choices`, 'bad-response');
    calls.forEach((c, i) => {
      const choice = choices[i];
      if (c && choice) choice.toolCalls = c.result();
    });
    return {
      choices: dense,
      ...(model !== undefined ? { model } : {}),
      ...(promptTokens !== undefined ? { promptTokens } : {}),
      ...(completionTokens !== undefined ? { completionTokens } : {}),
      latencyMs: 0,
    };
  }

  /** An HTTP error status as the SamplingError a person can act on. */
  private httpError(
    status: number,
    headers: Pick<TransportResponse, 'header'>,
    body: string,
    url: string,
  ): SamplingError {
    const where = safeUrl(url);
    const p = this.profile;
    let e: SamplingError;
    if (status === 401) {
      e = p.apiKeyEnv
        ? new SamplingError(
            withServerMessage(`the key in $${p.apiKeyEnv} was rejected by ${where} (401)`, body),
            'auth',
            status,
          )
        : new SamplingError(
            withServerMessage(
              `${where} wants an API key (401), and profile ${p.name} sends none: set \`api_key_env\` to the variable that holds it (OPENAI_API_KEY with --base-url)`,
              body,
            ),
            'auth',
            status,
          );
    } else if (status === 403) {
      e = new SamplingError(
        withServerMessage(
          `${where} refused (403)${p.apiKeyEnv ? `: the key in $${p.apiKeyEnv} may not use model ${p.model}` : ''}`,
          body,
        ),
        'auth',
        status,
      );
    } else if (status === 429) {
      e = new SamplingError(
        withServerMessage(`${where} is rate-limiting (429)`, body),
        'rate-limit',
        status,
        retryAfter(headers),
      );
    } else if (status === 408) {
      e = new SamplingError(
        withServerMessage(`${where} timed out the request (408)`, body),
        'timeout',
        status,
        retryAfter(headers),
      );
    } else if (status >= 500) {
      e = new SamplingError(
        withServerMessage(`${where} failed (${status})`, body),
        'server',
        status,
        retryAfter(headers),
      );
    } else if (status === 404) {
      e = new SamplingError(
        withServerMessage(`${where} was not found (404): is base_url right? It usually ends in /v1`, body),
        'not-found',
        status,
      );
    } else if (status === 413 || status === 400 || status === 422) {
      e = new SamplingError(
        withServerMessage(`${where} rejected the request (${status})`, body),
        'bad-request',
        status,
      );
    } else {
      e = new SamplingError(withServerMessage(`${where} answered ${status}`, body), 'bad-request', status);
    }
    return e;
  }

  /**
   * A 404 of the sampling endpoint: most often a model name the server does not serve, so ask
   * it what it does serve; otherwise a base URL without `/v1` or an endpoint the server lacks.
   */
  private async notFound(body: string, signal: AbortSignal): Promise<SamplingError> {
    const p = this.profile;
    let models: string[] | undefined;
    try {
      models = await this.fetchModels(signal);
    } catch (e) {
      if (signal.aborted) throw e;
      models = undefined;
    }
    const server = serverMessage(body);
    const tail = server ? ` (the server says: ${server})` : '';
    if (models && !models.includes(p.model)) {
      const shown =
        models.length > 20 ? `${models.slice(0, 20).join(', ')} and ${models.length - 20} more` : models.join(', ');
      return new SamplingError(
        `model "${p.model}" is not served at ${safeUrl(p.baseUrl)}; ${models.length ? `it offers: ${shown}` : 'it lists no models'}`,
        'not-found',
        404,
      );
    }
    if (models) {
      return new SamplingError(
        `${safeUrl(this.url)} was not found (404), though model "${p.model}" is served: the server may not offer the ${p.endpoint === 'completions' ? 'completions' : 'chat'} endpoint${p.endpoint === 'completions' ? ' (try `endpoint: chat`)' : ''}${tail}`,
        'not-found',
        404,
      );
    }
    return new SamplingError(
      `${safeUrl(this.url)} was not found (404): is base_url right? It usually ends in /v1${tail}`,
      'not-found',
      404,
    );
  }

  /**
   * The error with every secret the profile sends taken out: servers echo keys (and whatever
   * else they were sent) in messages. Applied once, where errors leave the provider; a new error
   * is made so that the stack, which repeats the message, is clean too.
   */
  private scrub(e: unknown): SamplingError {
    const err = SamplingError.from(e);
    let secrets: string[];
    try {
      secrets = secretValues(this.profile, this.secrets);
    } catch {
      secrets = [];
    }
    const message = redact(err.message, secrets);
    return message === err.message ? err : new SamplingError(message, err.kind, err.status, err.retryAfterMs);
  }
}

function retryAfter(res: Pick<TransportResponse, 'header'>): number | undefined {
  return parseRetryAfter(res.header('retry-after'));
}

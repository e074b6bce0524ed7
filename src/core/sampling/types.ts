import type { ChatMessage, ToolCall, ToolSpec } from '../base/chat';
import { CancelledError, DeadlineError } from '../util/wait';

/** A model endpoint as a task file or the settings describe it (spec §4), with names resolved. */
export interface ModelProfile {
  /** The profile's name (`local`), or a description for ad-hoc profiles (`--base-url`). */
  readonly name: string;
  /** `http://127.0.0.1:8000/v1`; `builtin:<model>` for in-process models. */
  readonly baseUrl: string;
  readonly model: string;
  /** The environment variable holding the key; the key itself is read only when sending. */
  readonly apiKeyEnv?: string;
  readonly endpoint: 'chat' | 'completions';
  /** For `completions`: renders messages into one prompt (`{{system}}`, `{{prompt}}`). */
  readonly template?: string;
  /** Extra headers; values may use `${env:VAR}`, expanded only when sending. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly concurrency: number;
  readonly seed?: number;
  readonly timeoutMs: number;
  /** The most bytes one answer may have (`max_response_bytes`); default in limits.ts. */
  readonly maxResponseBytes?: number;
  /** How long a task may go without a new sample while retrying (`retry_budget_ms`). */
  readonly retryBudgetMs?: number;
  /**
   * Set when a task file's profile names secrets the user did not allow for its endpoint: they
   * were dropped from the profile, and this says which and how to allow them (see trust.ts).
   */
  readonly withheld?: string;
  /** What the endpoint charges, to put a cost on runs' tokens (`price`); not part of what samples depend on. */
  readonly price?: Price;
}

/** Dollars per million tokens, of the prompt and of the completion. */
export interface Price {
  readonly prompt: number;
  readonly completion: number;
}

/** What to sample: the messages and the sampling parameters of one task. */
export interface SampleRequest {
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stop?: string | readonly string[];
  /** Sample k of the task is sent `seed + k` when a seed is set. */
  readonly seed?: number;
  /**
   * The k of the first sample asked for (default 0), so that sample k keeps seed + k when the
   * first samples of a task come from the cache and only the rest are asked for.
   */
  readonly index?: number;
  /** Tools the model may call (agent tasks), sent as OpenAI `tools` of type `function`. */
  readonly tools?: readonly ToolSpec[];
}

/** One model answer, as recorded in the cache. */
export interface Sample {
  /** The answer text (reasoning content is kept apart, in `reasoning`). */
  readonly text: string;
  /** `reasoning_content` of reasoning parsers (vLLM, DeepSeek), never part of `text`. */
  readonly reasoning?: string;
  /** `stop`, `length` (truncated: flagged), `content_filter`, ... */
  readonly finishReason: string;
  /** True when the answer was cut by `max_tokens` (`finishReason` is `length`): not a real answer. */
  readonly truncated?: boolean;
  readonly usage?: { readonly promptTokens?: number; readonly completionTokens?: number };
  readonly model: string;
  /** When it was taken, ISO 8601. */
  readonly takenAt: string;
  readonly latencyMs?: number;
  /** The turn's tool calls (OpenAI `tool_calls`), in the order the model wrote them; absent when none. */
  readonly toolCalls?: readonly ToolCall[];
}

/**
 * A source of samples. `sample` returns exactly `n` answers to one request or throws a
 * `SamplingError`; it honours `signal` at every wait.
 */
export interface Provider {
  readonly id: string;
  sample(request: SampleRequest, n: number, signal: AbortSignal, hooks?: SampleHooks): Promise<Sample[]>;
  /** Model names the endpoint offers, for error messages and pickers. */
  listModels?(signal: AbortSignal): Promise<string[]>;
}

/** What a caller may watch of one `sample` call, and the time bound it sets. */
export interface SampleHooks {
  /** Each HTTP request as it goes out, retries included. */
  onRequest?(): void;
  /** Before each wait for a retry: which attempt failed, why, and how long until the next. */
  onRetry?(info: { attempt: number; delayMs: number; error: SamplingError }): void;
  /** The samples of each answer as it arrives, before `sample` returns them all. */
  onSamples?(samples: readonly Sample[]): void;
  /**
   * When retrying must stop, in ms since the epoch (read at each retry: a caller may move it on
   * as samples arrive). Attempts are also cut short at it.
   */
  retryDeadline?(): number;
}

/** Errors a person can act on, with the kind that decides retrying. */
export class SamplingError extends Error {
  constructor(
    message: string,
    readonly kind:
      | 'auth'
      | 'not-found'
      | 'unreachable'
      | 'rate-limit'
      | 'server'
      | 'bad-response'
      | 'timeout'
      | 'cancelled'
      | 'bad-request'
      | 'too-large',
    readonly status?: number,
    /** How long the server asked to wait (`Retry-After`), in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SamplingError';
  }

  /** What a sampling call ends with when its caller aborts it. */
  static cancelled(): SamplingError {
    return new SamplingError('cancelled', 'cancelled');
  }

  /**
   * Whatever a step of sampling threw, as a SamplingError, so callers only ever see that type: a
   * cancelled wait is `cancelled`, a passed deadline `timeout`, anything else a bad response.
   */
  static from(e: unknown): SamplingError {
    if (e instanceof SamplingError) return e;
    if (e instanceof CancelledError) return SamplingError.cancelled();
    if (e instanceof DeadlineError) return new SamplingError(e.message, 'timeout');
    return new SamplingError(e instanceof Error ? e.message : String(e), 'bad-response');
  }

  get retryable(): boolean {
    return (
      this.kind === 'rate-limit' ||
      this.kind === 'server' ||
      this.kind === 'unreachable' ||
      this.kind === 'timeout' ||
      this.kind === 'bad-response'
    );
  }
}

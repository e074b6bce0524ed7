// An OpenAI-compatible server for tests, on 127.0.0.1: `/v1/models`, `/v1/chat/completions`
// and `/v1/completions`, with `n`, streaming (SSE), `reasoning_content`, `finish_reason` and
// usage. Answers come from a function of the request, so tests are deterministic, and each
// request can be scripted to misbehave: an error status with `Retry-After`, malformed JSON, a
// stream cut mid-way, a delay, a hang. It records every request and the most requests it had in
// flight at once (to check concurrency limits where they matter: at the server).
//
// No dependencies beyond node:http, so the VS Code tests (Node 24 extension host) can use it too.
// Standalone: `node out/test/support/openaiServer.js --port 0` prints `listening <port>`; it
// is then scripted over HTTP (`POST /_control/script`, `GET /_control/state`, `POST /_control/reset`).
//
// Tool calls: an answer may carry `toolCalls`; and a request whose messages contain a line
// `vtask-test-script: [TURN, ...]` is answered by that script, turn k (the number of assistant
// messages so far) by item k, the last item repeating: `{"calls": [{"get": {"key": "fr"}},
// {"name": "get", "arguments": "not json"}]}` calls tools (several at once: parallel calls),
// `{"answer": "text"}` answers. It needs no state, so agents may run it at any concurrency.
import http from 'node:http';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Answer {
  readonly text: string;
  readonly reasoning?: string;
  readonly finishReason?: string;
  /** Tool calls of the answer; `arguments` is sent as written (text that need not be JSON). */
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly arguments: string }>;
}

/** The line that scripts an agent's turns (see the header). */
export const SCRIPT_MARKER = 'vtask-test-script:';

type ScriptCall = Readonly<Record<string, unknown>>;
interface ScriptTurn {
  readonly calls?: readonly ScriptCall[];
  readonly answer?: string;
}

/** The scripted answer to a request whose messages carry a script, or undefined. */
export function scriptedAnswer(
  messages: ReadonlyArray<{ role: string; content: unknown }> | undefined,
): Answer | undefined {
  if (!messages) return undefined;
  let script: ScriptTurn[] | undefined;
  for (const m of messages) {
    const at = typeof m.content === 'string' ? m.content.indexOf(SCRIPT_MARKER) : -1;
    if (at < 0) continue;
    const line = (m.content as string).slice(at + SCRIPT_MARKER.length).split('\n')[0]!;
    try {
      script = JSON.parse(line) as ScriptTurn[];
    } catch (e) {
      return { text: `bad ${SCRIPT_MARKER} ${e instanceof Error ? e.message : String(e)}` };
    }
    break;
  }
  if (!script?.length) return undefined;
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const step = script[Math.min(turn, script.length - 1)]!;
  if (!step.calls?.length) return { text: step.answer ?? '' };
  const toolCalls = step.calls.map((c, i) => {
    const id = `call_${turn}_${i}`;
    if (typeof c.name === 'string')
      return {
        id,
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
      };
    const [name, args] = Object.entries(c)[0] ?? ['', {}];
    return { id, name, arguments: JSON.stringify(args ?? {}) };
  });
  return { text: step.answer ?? '', toolCalls, finishReason: 'tool_calls' };
}

export interface AnswerContext {
  readonly endpoint: 'chat' | 'completions';
  /** The last user message (chat) or the prompt (completions). */
  readonly prompt: string;
  readonly messages?: ReadonlyArray<{ role: string; content: string }>;
  /** The choice's index within the request (0..n-1). */
  readonly index: number;
  readonly body: Record<string, unknown>;
  /** The request's place among all requests the server received (0-based). */
  readonly request: number;
}

/** How to answer one sampling request; every field optional (the default is a normal answer). */
export interface Reply {
  /** An error status, answered with an OpenAI error body (`message`). */
  readonly status?: number;
  readonly message?: string;
  /** Extra response headers, such as `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A raw body sent as it is (with `status`, default 200): malformed JSON, HTML... */
  readonly body?: string;
  /** Wait this long before answering (the wait ends early if the client goes away). */
  readonly delayMs?: number;
  /** Never answer; the request ends when the client gives up. */
  readonly hang?: boolean;
  /** Answer when this settles: a test holds requests in flight while it checks something. */
  readonly until?: Promise<unknown>;
  /** Break the answer off after this many SSE events (or halfway through a JSON body). */
  readonly cutAfter?: number;
  /**
   * `destroy` (default) resets the connection; `end` ends the response cleanly, without `[DONE]`;
   * `stall` sends nothing more and keeps the connection open.
   */
  readonly cutMode?: 'destroy' | 'end' | 'stall';
  /** How many choices to return, whatever `n` asked. */
  readonly choices?: number;
  /** The answers, by choice index (overriding the answer function). */
  readonly answers?: ReadonlyArray<string | Answer>;
  readonly reasoning?: string;
  readonly finishReason?: string;
  /** Leave `usage` out. */
  readonly noUsage?: boolean;
}

export interface RecordedRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined for GET, or the raw text when it was not JSON). */
  readonly body: unknown;
}

export type Behaviour = (req: RecordedRequest) => Reply | undefined;

export interface OpenAIServerOptions {
  readonly host?: string;
  readonly port?: number;
  /** The models `/v1/models` lists and the sampling endpoints accept (default `test-model`). */
  readonly models?: readonly string[];
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  readonly answer?: (ctx: AnswerContext) => string | Answer;
  /** Answers with one choice whatever `n` says, as some servers do. */
  readonly ignoreN?: boolean;
  /** Consulted for each sampling request the script queue does not answer. */
  readonly behaviour?: Behaviour;
  /** Keep request bodies (default true; the benchmark turns it off to measure the client). */
  readonly record?: boolean;
}

/** The default answer: says which choice it is and echoes the prompt. */
export const echoAnswer = (ctx: AnswerContext): string => `answer ${ctx.index}: ${ctx.prompt}`;

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);

export class OpenAIServer extends EventEmitter {
  readonly requests: RecordedRequest[] = [];
  /** Sampling requests being served now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** Requests whose client went away before the answer was complete (cancellation, timeouts). */
  disconnects = 0;
  /** Every request, also those not recorded. */
  received = 0;
  behaviour: Behaviour | undefined;
  private readonly queue: Reply[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server!: http.Server;
  port = 0;

  constructor(private readonly options: OpenAIServerOptions = {}) {
    super();
    this.setMaxListeners(0);
    this.behaviour = options.behaviour;
  }

  /** `http://127.0.0.1:<port>/v1`: what a profile's `base_url` would be. */
  get url(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.port}/v1`;
  }

  get models(): readonly string[] {
    return this.options.models ?? ['test-model'];
  }

  /** Queues replies for the next sampling requests, in order. */
  script(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Sampling requests (chat and completions), in arrival order. */
  get samplingRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST');
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.maxInFlight = this.inFlight;
    this.disconnects = 0;
    this.received = 0;
  }

  /** Resolves when `predicate` holds (checked on every change); rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'the server state'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.off('change', check);
      };
      this.on('change', check);
    });
  }

  listen(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Idle keep-alive sockets must not hold `close()` up, nor be cut while a client reuses them.
    this.server.keepAliveTimeout = 5000;
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve(this);
      });
    });
  }

  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  private changed(): void {
    this.emit('change');
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
      }
      const path = (req.url ?? '/').split('?')[0]!;
      if (path.startsWith('/_control/')) {
        this.control(path, req.method ?? 'GET', body, res);
        return;
      }
      const record: RecordedRequest = {
        index: this.received++,
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body,
      };
      if (this.options.record !== false) this.requests.push(record);
      this.route(record, res);
      this.changed();
    });
  }

  private control(path: string, method: string, body: unknown, res: http.ServerResponse): void {
    if (path === '/_control/script' && method === 'POST') {
      const replies = (body as { replies?: Reply[] } | undefined)?.replies ?? [];
      this.script(...replies);
      json(res, 200, { queued: this.queue.length });
    } else if (path === '/_control/state') {
      json(res, 200, {
        received: this.received,
        inFlight: this.inFlight,
        maxInFlight: this.maxInFlight,
        disconnects: this.disconnects,
        requests: this.requests,
      });
    } else if (path === '/_control/reset' && method === 'POST') {
      this.reset();
      json(res, 200, { ok: true });
    } else {
      json(res, 404, { error: { message: `no control endpoint ${path}` } });
    }
  }

  private route(r: RecordedRequest, res: http.ServerResponse): void {
    const { path, method } = r;
    if (this.options.apiKey !== undefined) {
      const auth = String(r.headers.authorization ?? '');
      if (auth !== `Bearer ${this.options.apiKey}`) {
        // Echoes the key it was given, as real servers do (partly): clients must scrub it.
        const given = auth.replace(/^Bearer /, '');
        json(res, 401, {
          error: {
            message: `Incorrect API key provided: ${given || '(none)'}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        });
        return;
      }
    }
    if (method === 'GET' && path === '/v1/models') {
      json(res, 200, {
        object: 'list',
        data: this.models.map((id) => ({ id, object: 'model', owned_by: 'vtask-test' })),
      });
      return;
    }
    const endpoint = path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completions' : undefined;
    if (method !== 'POST' || !endpoint) {
      json(res, 404, { error: { message: `Not Found: ${method} ${path}`, type: 'NotFoundError', code: 404 } });
      return;
    }
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    res.on('close', () => {
      this.inFlight--;
      if (!res.writableFinished) this.disconnects++;
      this.changed();
    });
    const reply = this.queue.shift() ?? this.behaviour?.(r) ?? {};
    if (reply.hang) return;
    if (reply.until) {
      void reply.until.then(() => this.answer(r, endpoint, { ...reply, until: undefined }, res));
      return;
    }
    if (reply.delayMs) {
      const t = this.later(reply.delayMs, () => this.answer(r, endpoint, reply, res));
      res.on('close', () => {
        clearTimeout(t);
        this.timers.delete(t);
      });
      return;
    }
    this.answer(r, endpoint, reply, res);
  }

  private answer(r: RecordedRequest, endpoint: 'chat' | 'completions', reply: Reply, res: http.ServerResponse): void {
    if (res.destroyed) return;
    const headers = reply.headers ?? {};
    if (reply.body !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...headers });
      res.end(reply.body);
      return;
    }
    if (reply.status !== undefined && reply.status >= 400) {
      json(
        res,
        reply.status,
        {
          error: {
            message: reply.message ?? http.STATUS_CODES[reply.status] ?? 'error',
            type: 'error',
            code: reply.status,
          },
        },
        headers,
      );
      return;
    }
    const body = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<string, unknown>;
    const model = String(body.model ?? '');
    if (!this.models.includes(model)) {
      json(res, 404, {
        error: { message: `The model \`${model}\` does not exist.`, type: 'NotFoundError', code: 404 },
      });
      return;
    }
    const messages =
      endpoint === 'chat' && Array.isArray(body.messages)
        ? (body.messages as Array<{ role: string; content: string }>)
        : undefined;
    const prompt =
      endpoint === 'chat'
        ? ([...(messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '')
        : String(body.prompt ?? '');
    const n = typeof body.n === 'number' ? body.n : 1;
    const count = reply.choices ?? (this.options.ignoreN ? 1 : n);
    const answerFn = this.options.answer ?? echoAnswer;
    const choices = Array.from({ length: count }, (_, index) => {
      const given =
        reply.answers?.[index] ??
        scriptedAnswer(messages) ??
        answerFn({ endpoint, prompt, index, body, request: r.index, ...(messages ? { messages } : {}) });
      const a: Answer = typeof given === 'string' ? { text: given } : given;
      return limit(a, body, reply);
    });
    const usage = {
      prompt_tokens: words(endpoint === 'chat' ? (messages ?? []).map((m) => m.content).join(' ') : prompt).length,
      completion_tokens: choices.reduce((s, c) => s + words(c.text).length + words(c.reasoning ?? '').length, 0),
    };
    const id = `cmpl-${r.index}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream === true) {
      this.stream(res, endpoint, id, created, model, choices, body, reply, usage);
      return;
    }
    const out = {
      id,
      object: endpoint === 'chat' ? 'chat.completion' : 'text_completion',
      created,
      model,
      choices: choices.map((c, index) =>
        endpoint === 'chat'
          ? {
              index,
              message: {
                role: 'assistant',
                content: c.toolCalls?.length && !c.text ? null : c.text,
                ...(c.reasoning !== undefined ? { reasoning_content: c.reasoning } : {}),
                ...(c.toolCalls?.length
                  ? {
                      tool_calls: c.toolCalls.map((t, k) => ({
                        id: t.id ?? `call_${k}`,
                        type: 'function',
                        function: { name: t.name, arguments: t.arguments },
                      })),
                    }
                  : {}),
              },
              finish_reason: c.finishReason,
            }
          : { index, text: c.text, finish_reason: c.finishReason },
      ),
      ...(reply.noUsage ? {} : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    };
    const text = JSON.stringify(out);
    if (reply.cutAfter !== undefined) {
      // Promise the whole body, send half, then break the connection.
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
        ...headers,
      });
      res.write(text.slice(0, Math.floor(text.length / 2)));
      this.cut(res, reply.cutMode ?? 'destroy');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(text);
  }

  private stream(
    res: http.ServerResponse,
    endpoint: 'chat' | 'completions',
    id: string,
    created: number,
    model: string,
    choices: Answer[],
    body: Record<string, unknown>,
    reply: Reply,
    usage: { prompt_tokens: number; completion_tokens: number },
  ): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...(reply.headers ?? {}) });
    const object = endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const events: unknown[] = [];
    const chunk = (choice: Record<string, unknown>): unknown => ({ id, object, created, model, choices: [choice] });
    const pieces = (s: string): string[] => s.match(/\S+\s*|\s+/g) ?? [];
    if (endpoint === 'chat')
      for (let i = 0; i < choices.length; i++)
        events.push(chunk({ index: i, delta: { role: 'assistant', content: '' }, finish_reason: null }));
    // Interleave the choices, as a server generating them together does.
    const parts = choices.map((c) => [
      ...pieces(c.reasoning ?? '').map((p) => ({ reasoning: p })),
      ...pieces(c.text).map((p) => ({ text: p })),
    ]);
    const longest = Math.max(0, ...parts.map((p) => p.length));
    for (let k = 0; k < longest; k++) {
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]![k];
        if (!p) continue;
        if (endpoint === 'chat')
          events.push(
            chunk({
              index: i,
              delta: 'reasoning' in p ? { reasoning_content: p.reasoning } : { content: p.text },
              finish_reason: null,
            }),
          );
        else events.push(chunk({ index: i, text: 'text' in p ? p.text : '', finish_reason: null }));
      }
    }
    // Tool calls as servers stream them: the id and name first, then the arguments in pieces.
    if (endpoint === 'chat') {
      choices.forEach((c, i) =>
        c.toolCalls?.forEach((t, k) => {
          events.push(
            chunk({
              index: i,
              delta: {
                tool_calls: [
                  { index: k, id: t.id ?? `call_${k}`, type: 'function', function: { name: t.name, arguments: '' } },
                ],
              },
              finish_reason: null,
            }),
          );
          // Small pieces, but at most about 20 of them (long arguments would make a huge stream).
          const size = Math.max(5, Math.ceil(t.arguments.length / 20));
          for (let at = 0; at < t.arguments.length; at += size)
            events.push(
              chunk({
                index: i,
                delta: { tool_calls: [{ index: k, function: { arguments: t.arguments.slice(at, at + size) } }] },
                finish_reason: null,
              }),
            );
        }),
      );
    }
    for (let i = 0; i < choices.length; i++)
      events.push(
        chunk(
          endpoint === 'chat'
            ? { index: i, delta: {}, finish_reason: choices[i]!.finishReason }
            : { index: i, text: '', finish_reason: choices[i]!.finishReason },
        ),
      );
    const opts = body.stream_options as { include_usage?: boolean } | undefined;
    if (opts?.include_usage && !reply.noUsage)
      events.push({
        id,
        object,
        created,
        model,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    for (let k = 0; k < events.length; k++) {
      if (reply.cutAfter !== undefined && k >= reply.cutAfter) {
        this.cut(res, reply.cutMode ?? 'destroy');
        return;
      }
      res.write(`data: ${JSON.stringify(events[k])}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  private cut(res: http.ServerResponse, mode: 'destroy' | 'end' | 'stall'): void {
    if (mode === 'stall') return;
    if (mode === 'end') {
      res.end();
      return;
    }
    // Let what was written reach the client first, so the break is mid-answer, not before it.
    res.socket?.once('drain', () => res.destroy());
    if (!res.socket?.writableNeedDrain) setImmediate(() => res.destroy());
  }
}

/** `max_tokens` (counted in words) and `stop` applied to an answer, with its finish reason. */
function limit(a: Answer, body: Record<string, unknown>, reply: Reply): Answer & { finishReason: string } {
  let text = a.text;
  let finishReason = reply.finishReason ?? a.finishReason ?? 'stop';
  const stops = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? (body.stop as string[]) : [];
  for (const s of stops) {
    const at = text.indexOf(s);
    if (at >= 0) text = text.slice(0, at);
  }
  const max = typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  if (max !== undefined && words(text).length > max) {
    text = (text.match(/\S+\s*/g) ?? []).slice(0, max).join('').trimEnd();
    finishReason = 'length';
  }
  const reasoning = reply.reasoning ?? a.reasoning;
  return {
    text,
    finishReason,
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(a.toolCalls ? { toolCalls: a.toolCalls } : {}),
  };
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  return new OpenAIServer(options).listen();
}

/**
 * The standalone server: `--port N` (0: any free port), `--host H`, `--models a,b`,
 * `--api-key K`, `--delay-ms N` (every answer), `--no-record`. Prints `listening <port>`.
 */
export async function main(argv: readonly string[]): Promise<OpenAIServer> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const delay = Number(arg('--delay-ms') ?? 0);
  const models = arg('--models');
  const apiKey = arg('--api-key');
  const server = await startOpenAIServer({
    port: Number(arg('--port') ?? 0),
    host: arg('--host') ?? '127.0.0.1',
    record: !argv.includes('--no-record'),
    ...(models ? { models: models.split(',') } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(delay > 0 ? { behaviour: () => ({ delayMs: delay }) } : {}),
  });
  process.stdout.write(`listening ${server.port}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return server;
}

// Run as a program only when this very file is the script (test bundles import it).
if (/[\\/]openaiServer\.(c?js|mjs)$/.test(process.argv[1] ?? '')) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}

// A misbehaving OpenAI-compatible server for tests, on 127.0.0.1 only. The fault comes from the
// prompt: a user message `fault:<name>` picks one of FAULTS, anything else gets a normal answer.
// Every fault is bounded on this side too: endless bodies write with backpressure and stop when
// the client goes away or after `maxBytes`, and the whole server closes itself after `lifetimeMs`
// so that a test that forgets it cannot hang the test run.
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAULTS = [
  'ok',
  'endless',
  'drip',
  'reset',
  'hang',
  'badjson',
  'hugesse',
  'manysse',
  '429',
  '429once',
  '500',
] as const;
export type Fault = (typeof FAULTS)[number];

export interface FaultServerOptions {
  /** The answer of `ok` (and of prompts that name no fault). */
  readonly answer?: string;
  /** The most bytes any endless body sends before the server gives up itself. Default 1 GiB. */
  readonly maxBytes?: number;
  /** The server closes itself this long after `listen`. Default 60 s. */
  readonly lifetimeMs?: number;
}

export class FaultServer {
  /** Requests received per prompt (`429once` fails the first of each prompt). */
  readonly hits = new Map<string, number>();
  /** Bytes sent by endless bodies, all faults together. */
  bytesSent = 0;
  private server!: http.Server;
  private port = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Emits 'hit' on every request counted in `hits`. */
  private readonly received = new EventEmitter();

  constructor(private readonly options: FaultServerOptions = {}) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  listen(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    const lifetime = setTimeout(() => void this.close(), this.options.lifetimeMs ?? 60_000);
    lifetime.unref();
    this.timers.add(lifetime);
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve(this);
      });
    });
  }

  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    return new Promise((resolve) => {
      if (!this.server.listening) {
        resolve();
        return;
      }
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /**
   * Resolves once at least `n` requests with this prompt have been counted: a request the client
   * sent may still be in flight when the client has exited. The caller's test timeout bounds the wait.
   */
  hitsReached(prompt: string, n: number): Promise<number> {
    return new Promise((resolve) => {
      const check = (): void => {
        const hits = this.hits.get(prompt) ?? 0;
        if (hits < n) return;
        this.received.off('hit', check);
        resolve(hits);
      };
      this.received.on('hit', check);
      check();
    });
  }

  private every(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setInterval(fn, ms);
    this.timers.add(t);
    return t;
  }

  private stop(t: NodeJS.Timeout): void {
    clearInterval(t);
    this.timers.delete(t);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size < 1 << 20) chunks.push(c);
    });
    req.on('end', () => {
      let prompt = '';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          messages?: { role: string; content: string }[];
        };
        prompt = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
      } catch {
        // Not JSON: answered as `ok`, the client is not what is under test here.
      }
      const fault = (/^fault:(\S+)/.exec(prompt)?.[1] ?? 'ok') as Fault;
      const hit = (this.hits.get(prompt) ?? 0) + 1;
      this.hits.set(prompt, hit);
      this.received.emit('hit');
      this.serve(fault, hit, res);
    });
  }

  private serve(fault: Fault, hit: number, res: http.ServerResponse): void {
    const ok = JSON.stringify({
      model: 'fault-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: this.options.answer ?? 'The answer is \\boxed{4}.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 5 },
    });
    const json = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    switch (fault) {
      case 'endless':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":[{"index":0,"message":{"content":"');
        this.pump(res, Buffer.alloc(64 << 10, 'a'));
        return;
      case 'hugesse':
        // One event that never ends: no blank line ever comes.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"content":"');
        this.pump(res, Buffer.alloc(64 << 10, 'b'));
        return;
      case 'manysse':
        // Small, valid events, endlessly: only a cap on the whole stream stops it.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        this.pump(res, Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"c"}}]}\n\n'.repeat(1000)));
        return;
      case 'drip': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const t = this.every(20, () => res.write(' '));
        res.on('close', () => this.stop(t));
        return;
      }
      case 'reset':
        res.socket?.destroy();
        return;
      case 'hang':
        return;
      case 'badjson':
        json(200, '{"choices": [{"index": 0, "message": {"content": "cut');
        return;
      case '429':
        json(429, '{"error":{"message":"slow down"}}', { 'retry-after': '1' });
        return;
      case '429once':
        if (hit === 1) json(429, '{"error":{"message":"slow down"}}', { 'retry-after': '1' });
        else json(200, ok);
        return;
      case '500':
        json(500, '{"error":{"message":"the model crashed"}}');
        return;
      default:
        json(200, ok);
    }
  }

  /** Writes `chunk` again and again, as fast as the client reads, until it leaves or `maxBytes`. */
  private pump(res: http.ServerResponse, chunk: Buffer): void {
    const max = this.options.maxBytes ?? 1 << 30;
    let sent = 0;
    const write = (): void => {
      while (!res.destroyed && sent < max) {
        sent += chunk.length;
        this.bytesSent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', write);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    write();
  }
}

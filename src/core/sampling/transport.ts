// The HTTP layer under the provider. The default is node:http(s) with keep-alive agents, not the
// global fetch: on Node 20, fetch (undici over web streams) spent about 2 ms of CPU per request
// against the local test server, where node:http spends about 0.1 ms; at concurrency 64 that
// was the difference between ~250 and thousands of samples per second. `fetchTransport` remains
// for hosts that have fetch but no node:http.
import http from 'node:http';
import https from 'node:https';
import { TooLargeError } from './limits';

export interface TransportRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  header(name: string): string | undefined;
  /**
   * The whole body; rejects when the connection breaks before its end, or with a TooLargeError
   * (and the connection closed) as soon as it passes `maxBytes`.
   */
  text(maxBytes?: number): Promise<string>;
  /**
   * The body as it arrives, to a synchronous callback (cheaper per chunk than async iteration,
   * which matters for streams of one-token events). Resolves at the end of the body; when
   * `onChunk` throws, the connection is closed and the promise rejects with that error.
   */
  read(onChunk: (chunk: Uint8Array) => void): Promise<void>;
}

/**
 * Sends one request. Rejections carry Node's error codes (`ECONNREFUSED`, `ECONNRESET`...) on
 * the error or its `cause`, and `midResponse: true` when the answer had begun.
 */
export type Transport = (url: string, req: TransportRequest) => Promise<TransportResponse>;

/** An error of a body that broke off, marked so that the message can say "in the middle of the answer". */
function midResponse(e: unknown): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  (err as Error & { midResponse?: boolean }).midResponse = true;
  return err;
}

// One agent per protocol for the whole process: connections are kept per host and port, and the
// per-profile limiter, not the agent, decides how many requests are in flight.
const agents = {
  http: new http.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 256, scheduling: 'lifo' }),
  https: new https.Agent({ keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 256, scheduling: 'lifo' }),
};

export const nodeTransport: Transport = (url, req) => send(url, req, true);

// Parsed once per endpoint: URL parsing is a visible part of a request to a local server.
const targets = new Map<string, { secure: boolean; options: http.RequestOptions }>();

function target(url: string): { secure: boolean; options: http.RequestOptions } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    t = {
      secure,
      options: {
        protocol: u.protocol,
        hostname: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port || (secure ? 443 : 80),
        path: u.pathname + u.search,
        agent: secure ? agents.https : agents.http,
      },
    };
    if (targets.size > 1000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

function abortError(): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

function send(url: string, req: TransportRequest, mayRetryStale: boolean): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    if (req.signal.aborted) {
      reject(abortError());
      return;
    }
    const { secure, options } = target(url);
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const r = (secure ? https : http).request({ ...options, method: req.method, headers }, (res) => {
      res.once('close', cleanup);
      resolve(new NodeResponse(res));
    });
    // The signal is watched here rather than passed to http.request, whose own handling (through
    // stream.finished) costs more per request than the rest of the client together.
    const onAbort = (): void => {
      r.destroy(abortError());
    };
    const cleanup = (): void => req.signal.removeEventListener('abort', onAbort);
    req.signal.addEventListener('abort', onAbort, { once: true });
    r.on('error', (e: NodeJS.ErrnoException) => {
      cleanup();
      // A kept-alive socket the server closed while it sat idle fails at once; Node's advice is to
      // send again on a fresh one, which no server can have seen.
      if (mayRetryStale && r.reusedSocket && e.code === 'ECONNRESET' && !req.signal.aborted) {
        send(url, req, false).then(resolve, reject);
        return;
      }
      reject(e);
    });
    r.end(req.body);
  });
}

class NodeResponse implements TransportResponse {
  readonly status: number;

  constructor(private readonly res: http.IncomingMessage) {
    this.status = res.statusCode ?? 0;
  }

  header(name: string): string | undefined {
    const v = this.res.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  text(maxBytes = Infinity): Promise<string> {
    const res = this.res;
    return new Promise((resolve, reject) => {
      if (res.destroyed && !res.complete) {
        reject(
          midResponse(
            Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }),
          ),
        );
        return;
      }
      const parts: Buffer[] = [];
      let ended = false;
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        if (ended) return;
        bytes += c.length;
        if (bytes > maxBytes) {
          // Stop reading at once: an endless body must not grow memory while we wait for it.
          ended = true;
          parts.length = 0;
          res.destroy();
          reject(new TooLargeError('the answer', maxBytes));
          return;
        }
        parts.push(c);
      });
      res.once('end', () => {
        if (ended) return;
        ended = true;
        resolve(Buffer.concat(parts).toString('utf8'));
      });
      res.once('error', (e) => reject(midResponse(e)));
      // A body cut short of its Content-Length ends with `close` and no `end`.
      res.once('close', () => {
        if (!ended)
          reject(
            midResponse(
              Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }),
            ),
          );
      });
    });
  }

  read(onChunk: (chunk: Uint8Array) => void): Promise<void> {
    const res = this.res;
    return new Promise((resolve, reject) => {
      if (res.destroyed && !res.complete) {
        reject(
          midResponse(
            Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }),
          ),
        );
        return;
      }
      let settled = false;
      res.on('data', (c: Buffer) => {
        if (settled) return;
        try {
          onChunk(c);
        } catch (e) {
          settled = true;
          res.destroy();
          reject(e);
        }
      });
      res.once('end', () => {
        if (settled) return;
        settled = true;
        resolve();
      });
      res.once('error', (e) => {
        if (settled) return;
        settled = true;
        reject(midResponse(e));
      });
      res.once('close', () => {
        if (settled) return;
        settled = true;
        reject(
          midResponse(
            Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' }),
          ),
        );
      });
    });
  }
}

/** The same over a fetch function (the global one by default). */
export function fetchTransport(f: typeof fetch = fetch): Transport {
  return async (url, req) => {
    const res = await f(url, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      signal: req.signal,
    });
    /** Hands each chunk to `onChunk`; leaving early (an error, a cap, an abort) stops the download. */
    const read = async (onChunk: (chunk: Uint8Array) => void): Promise<void> => {
      if (!res.body) return;
      const reader = res.body.getReader();
      let finished = false;
      try {
        for (;;) {
          let step: ReadableStreamReadResult<Uint8Array>;
          try {
            step = await reader.read();
          } catch (e) {
            throw midResponse(e);
          }
          if (step.done) break;
          onChunk(step.value);
        }
        finished = true;
      } finally {
        if (!finished) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      }
    };
    return {
      status: res.status,
      header: (name) => res.headers.get(name) ?? undefined,
      text: async (maxBytes = Infinity) => {
        const parts: Uint8Array[] = [];
        let bytes = 0;
        await read((chunk) => {
          bytes += chunk.length;
          if (bytes > maxBytes) throw new TooLargeError('the answer', maxBytes);
          parts.push(chunk);
        });
        return Buffer.concat(parts).toString('utf8');
      },
      read,
    };
  };
}

// `vtask serve`: loads the task files and answers verdicts over HTTP (spec §5.1). Who may ask
// is decided here: the host it listens on, the token, the names, origins and programs allowed.
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVerifyServer, loadTasks } from '../core/serve/verifyServer';
import { boundHostNames, isLoopbackHost, normaliseHostName, normaliseOrigin } from '../core/serve/requestGate';
import { realPath } from '../core/serve/inlinePrograms';
import { findTaskFiles } from '../core/taskfile/discover';
import { plural } from '../core/util/plural';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
import * as z from 'zod';
import {
  boundedInt,
  defaultedOption,
  int,
  modelOptions,
  repeatedOption,
  switchOption,
  text,
  valueOption,
  type Parsed,
} from './options';

export const serveHelp = `Usage: vtask serve PATH... [--host 127.0.0.1] [--port N] [options]

Answers verdicts over HTTP for trainers (verl, TRL, open-instruct, Ray): GET /health,
POST /verify with {"task": ID, "responses": [...]} or {"verifier": {...}, "prompt": "...",
"responses": [...]} → {"results": [{"pass", "score", "reason"}, ...]} in order, or a batch of
such requests, {"items": [...]} → {"items": [{"results": [...]} or {"error", "status"}, ...]}.
Prints "listening on http://HOST:PORT" first (--port 0 picks a free port).
  --host H             the address to listen on (default 127.0.0.1). Beyond loopback a token
                       is required: --token, else VTASK_SERVE_TOKEN, else one is generated and
                       printed once on stderr
  --token T            requests need "Authorization: Bearer T" (default: VTASK_SERVE_TOKEN,
                       which other users cannot see in the process list; on loopback no token
                       unless one is given)
  --allow-host NAME    a name clients may send in the Host header besides loopback ones and the
                       listening address (repeatable); other names are refused (DNS rebinding)
  --allow-origin URL   a web page origin that may call the server (repeatable); requests
                       from any other page (an Origin header) are refused
  --allow-inline-programs   RISK: lets any client run programs of the served folders with
                       arguments of its choosing ("script" verifiers sent inline). Without it,
                       only the task files' own scripts run (send {"task": ID})
  --workers N          processes sharing the port (default 1; "auto" = one per core)
  --max-body-mb N      largest request body (default 32)
  --max-batch N        most responses per request (default 4096)
  --concurrency N      responses verified at once per request (default 64)
  --max-queue N        most responses queued per worker; past it a request gets 503 and
                       Retry-After (default 16384)
  --base-url URL --model NAME   the judge model for judge verifiers`;

interface ServeArgs {
  paths: string[];
  host: string;
  port: number;
  workers: number;
  maxBodyMb: number;
  maxBatch: number;
  concurrency: number;
  maxQueue: number;
  baseUrl?: string;
  model?: string;
  token?: string;
  allowHosts: string[];
  allowOrigins: string[];
  allowInlinePrograms: boolean;
}

/** The options of `vtask serve`. */
export const serveOptions = z.object({
  host: defaultedOption('--host', 'the address to listen on', text, '127.0.0.1'),
  port: defaultedOption('--port', 'the port (0: any free one)', int(0, 65535), 8765),
  token: valueOption('--token', 'requests must send Authorization: Bearer TOKEN', (v) => {
    if (!v.trim() || /\s/.test(v)) throw new UsageError('--token takes a token without spaces');
    return v;
  }),
  allowHosts: repeatedOption('--allow-host', 'another Host header to accept', (v) => normaliseHostName(v)),
  allowOrigins: repeatedOption('--allow-origin', 'a browser origin allowed to call', (v) => {
    const origin = normaliseOrigin(v);
    if (!origin) throw new UsageError(`--allow-origin takes an origin such as http://localhost:3000, not '${v}'`);
    return origin;
  }),
  allowInlinePrograms: switchOption('--allow-inline-programs', 'accept code and scripts sent in a request'),
  workers: defaultedOption(
    '--workers',
    'processes verifying (auto: one per core)',
    (v, flag) => (v === 'auto' ? Math.max(1, os.availableParallelism()) : boundedInt(v, flag, 1, 256)),
    1,
  ),
  maxBodyMb: defaultedOption('--max-body-mb', 'the largest request body', int(1, 1024), 32),
  maxBatch: defaultedOption('--max-batch', 'the most responses in one request', int(1, 1_000_000), 4096),
  concurrency: defaultedOption('--concurrency', 'responses verified at once per request', int(1, 4096), 64),
  maxQueue: defaultedOption('--max-queue', 'most responses queued per worker', int(1, 100_000_000), 16384),
  ...modelOptions,
});

function argsOf({ options, positional }: Parsed<typeof serveOptions>): ServeArgs {
  if (!positional.length) throw new UsageError('name the task files or folders to serve');
  return { ...options, paths: positional };
}

/** Runs until the process is stopped (SIGINT/SIGTERM) or `signal` aborts. */
export async function serveCommand(
  parsed: Parsed<typeof serveOptions>,
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const args = argsOf(parsed);
  const files = findTaskFiles(args.paths.map((p) => path.resolve(io.cwd, p))).map((f) => path.relative(io.cwd, f) || f);
  const { tasks, errors } = loadTasks(files, (f) => fs.readFileSync(path.resolve(io.cwd, f), 'utf8'));
  const primary = cluster.isPrimary;
  if (primary) for (const e of errors.slice(0, 20)) io.stderr.write(`${e} (this task is not served)\n`);
  const token = serveToken(args, io, primary);
  if (primary && args.workers > 1) return runPrimary(args, io, signal, token);
  const judge = judgeProviders({}, args, () => undefined);
  const server = createVerifyServer({
    tasks,
    token,
    allowedHosts: [...boundHostNames(args.host), ...args.allowHosts],
    allowedOrigins: args.allowOrigins,
    allowInlinePrograms: args.allowInlinePrograms,
    servedRoots: servedRoots(args.paths.map((p) => path.resolve(io.cwd, p))),
    maxBodyBytes: args.maxBodyMb * 1024 * 1024,
    maxBatch: args.maxBatch,
    concurrency: args.concurrency,
    maxQueued: args.maxQueue,
    judge: args.baseUrl && args.model ? judge : undefined,
    cwd: io.cwd,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.port, args.host, () => resolve());
  }).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(
      e.code === 'EADDRINUSE'
        ? `port ${args.port} on ${args.host} is in use (--port 0 picks a free one)`
        : `cannot listen on ${args.host}:${args.port}: ${e.message}`,
    );
  });
  if (primary) {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : args.port;
    io.stdout.write(`listening on http://${args.host.includes(':') ? `[${args.host}]` : args.host}:${port}\n`);
    io.stderr.write(
      `serving ${plural(
        [...tasks.values()].reduce((n, l) => n + l.length, 0),
        'task',
      )} from ${plural(files.length, 'file')}\n`,
    );
    warnings(args, io);
  } else process.send?.({ listening: true });
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  // Trainers keep connections alive: close them, or close() would wait for them forever.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  // A cluster worker's channel to the primary would keep it running.
  if (!primary) process.disconnect?.();
  return EXIT.ok;
}

/** The folders a served PATH names (a file's own folder), as real paths. */
function servedRoots(paths: readonly string[]): string[] {
  return [
    ...new Set(paths.map((p) => realPath(fs.statSync(p, { throwIfNoEntry: false })?.isFile() ? path.dirname(p) : p))),
  ];
}

/**
 * The token requests need: --token, else VTASK_SERVE_TOKEN, else (beyond loopback, where one is
 * required) a new one, printed once. Workers get the primary's in VTASK_SERVE_TOKEN.
 */
function serveToken(args: ServeArgs, io: CliIO, primary: boolean): string | undefined {
  const given = args.token ?? (process.env.VTASK_SERVE_TOKEN || undefined);
  if (given || isLoopbackHost(args.host)) return given;
  const made = randomBytes(24).toString('base64url');
  if (primary)
    io.stderr.write(
      `token: ${made} (generated: every request needs "Authorization: Bearer ${made}"; choose one with --token or VTASK_SERVE_TOKEN)\n`,
    );
  return made;
}

/** Says once, on stderr, what the operator opened beyond the defaults. */
function warnings(args: ServeArgs, io: CliIO): void {
  if (!isLoopbackHost(args.host)) {
    io.stderr.write(
      `warning: listening on ${args.host}, beyond this machine: anyone who can reach it and has the token can run the served verifiers (code answers run in the sandbox)\n`,
    );
  }
  if (args.allowInlinePrograms) {
    io.stderr.write(
      'warning: --allow-inline-programs: any client may run programs of the served folders, with arguments of its choosing, by sending a "script" verifier\n',
    );
  }
}

/**
 * Several processes on one port (node's cluster): verification is CPU-bound, so a server on
 * N cores answers about N times the verdicts. The primary only starts and stops workers.
 */
async function runPrimary(args: ServeArgs, io: CliIO, signal: AbortSignal, token: string | undefined): Promise<number> {
  // A fixed port for all workers: with port 0 each worker would get its own.
  let port = args.port;
  if (port === 0) {
    const net = await import('node:net');
    port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, args.host, () => {
        const a = s.address();
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
  }
  const argv = process.argv
    .slice(2)
    .filter((a, i, all) => !(a === '--port' || a.startsWith('--port=') || all[i - 1] === '--port'));
  cluster.setupPrimary({ args: [...argv, '--port', String(port)], silent: false });
  let ready = 0;
  // A generated token is the same in every worker.
  const workers = Array.from({ length: args.workers }, () => cluster.fork(token ? { VTASK_SERVE_TOKEN: token } : {}));
  await new Promise<void>((resolve, reject) => {
    for (const w of workers) {
      w.on('message', (m: { listening?: boolean }) => {
        if (m?.listening && ++ready === workers.length) resolve();
      });
      w.once('exit', (code) => reject(new Error(`a worker exited with code ${code} before listening`)));
    }
  });
  io.stdout.write(`listening on http://${args.host}:${port}\n`);
  io.stderr.write(`${plural(workers.length, 'worker')}\n`);
  warnings(args, io);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.isDead()) return resolve();
          w.once('exit', () => resolve());
          // Signalled directly: worker.kill() would first wait for the worker's connections to end.
          w.process.kill('SIGTERM');
        }),
    ),
  );
  return EXIT.ok;
}

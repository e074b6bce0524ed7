import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { ToolSpec } from '../base/chat';
import type { Isolation } from '../base/isolation';
import { findInterpreter, getSandbox, nodeMemoryArgs, type Sandbox, type SandboxRunResult } from '../sandbox';
import { readableFolders } from '../sandbox/projectRoot';
import { moduleAdapter } from './moduleAdapter';
import { checkCallReply, checkTools, cut, encodeRequest, LineSplitter, parseReply, type Request } from './protocol';
import type { EnvironmentSession, EnvironmentSpec, ToolOutcome } from './types';
import { CancelledError, DeadlineError, withDeadline } from '../util/wait';

/** How long one request may wait for its reply unless `timeout_ms` says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The longest an environment may live, whatever it is doing: a session left open does not leak. */
export const DEFAULT_LIFETIME_MS = 30 * 60_000;
/** Environments have no memory parameter: they get this much resident memory, watched. */
export const ENV_MEMORY_MB = 1024;
export const ENV_UNTRUSTED_REASON = 'environments do not run in an untrusted workspace';
/** How long `close` waits for the process to be gone. */
const CLOSE_WAIT_MS = 5000;
/** Stderr kept for error messages (its last lines say why a program died). */
const STDERR_TAIL = 8 * 1024;

const MODULE_EXT = /\.(m?js|cjs)$/i;

/**
 * Why an environment could not serve: `refused` (untrusted workspace), `unavailable` (not found,
 * not runnable, weak isolation without opt-in), `crash` (exited, wrong replies), `timeout`,
 * `cancelled`. Verdicts map these to their `error`.
 */
export type EnvironmentFailure = 'refused' | 'unavailable' | 'crash' | 'timeout' | 'cancelled';

export class EnvironmentError extends Error {
  constructor(
    message: string,
    readonly failure: EnvironmentFailure,
  ) {
    super(message);
    this.name = 'EnvironmentError';
  }
}

export interface EnvironmentContext {
  /** The task file's folder: `run` resolves against it. */
  readonly dir: string;
  /** False in an untrusted workspace: the environment is refused, like `script` verifiers. */
  readonly trusted: boolean;
  /** Ends the environment (killed) when aborted. */
  readonly signal: AbortSignal;
  /** Per-request reply timeout when the environment sets none (`timeout_ms`); default 10 s. */
  readonly timeoutMs?: number;
  /** Runs with weak isolation even without the process-wide opt-in. */
  readonly allowWeakIsolation?: boolean;
  /** The whole life's bound (default 30 min). */
  readonly lifetimeMs?: number;
  /** A sandbox other than the process-wide one (tests). */
  readonly sandbox?: Sandbox;
}

/** A started environment with what it measured. */
export interface StartedEnvironment extends EnvironmentSession {
  /** How the environment was isolated, as `code` verdicts give it in `details.isolation`. */
  readonly sandboxIsolation: Isolation;
  /** From the start to the `reset` reply, in milliseconds. */
  readonly startupMs: number;
}

/** The isolation of a run as one line: `bwrap (full): no network, own temporary folder, ...`. */
export function isolationText(i: Isolation): string {
  return `${i.method} (${i.level}): ${i.limits.join(', ')}${i.lost.length ? `; lacks ${i.lost.join('; ')}` : ''}`;
}

/**
 * Starts a task's environment in the sandbox (spec §6) and resets it with `spec.args` (`run`
 * resolves against `ctx.dir`; a task's `timeout_ms` comes as `spec.timeoutMs`). Resolves
 * once `reset` declared valid tools; rejects with an `EnvironmentError` that says what went
 * wrong (refused, not found, crashed with its last stderr lines, bad reply, timed out).
 */
export async function startEnvironment(
  spec: EnvironmentSpec & { readonly timeoutMs?: number },
  ctx: EnvironmentContext,
): Promise<StartedEnvironment> {
  if (!ctx.trusted) throw new EnvironmentError(ENV_UNTRUSTED_REASON, 'refused');
  if (ctx.signal.aborted) throw new EnvironmentError('cancelled', 'cancelled');
  const file = path.resolve(ctx.dir, spec.run);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new EnvironmentError(`the environment ${spec.run} was not found (looked for ${file})`, 'unavailable');
  }
  if (!st.isFile()) throw new EnvironmentError(`the environment ${spec.run} is not a file`, 'unavailable');
  const isModule = MODULE_EXT.test(file);
  if (!isModule) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      throw new EnvironmentError(
        `the environment ${spec.run} is neither a .js/.mjs/.cjs module nor executable (chmod +x it)`,
        'unavailable',
      );
    }
  }
  const node = isModule ? findInterpreter('javascript') : null;
  if (isModule && !node)
    throw new EnvironmentError('no node interpreter was found to run the environment', 'unavailable');

  // The task's own folder (or the root the user configured), never a project found above it.
  const readable = readableFolders(ctx.dir, file, 'environment');
  if ('error' in readable) throw new EnvironmentError(readable.error, 'unavailable');
  const sandbox = ctx.sandbox ?? (await getSandbox());
  const started = performance.now();
  const session = new Session(spec.run, spec.timeoutMs ?? ctx.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, ctx.signal);
  const readOnly = readable.folders;
  const adapter = '_vtask_env.mjs';
  session.attach(
    sandbox.run({
      // The module's path is an argument too, so that a process listing says which environment it is.
      argv: node ? (box) => [node.path, ...nodeMemoryArgs(ENV_MEMORY_MB), path.join(box, adapter), file] : [file],
      files: node ? { [adapter]: moduleAdapter(file) } : {},
      readOnly: [...readOnly, ...(node?.readOnly ?? [])],
      env: node?.env ?? {},
      timeoutMs: ctx.lifetimeMs ?? DEFAULT_LIFETIME_MS,
      memoryMb: ENV_MEMORY_MB,
      memoryPolicy: 'resident',
      signal: session.stopSignal,
      streams: session.streams,
      ...(ctx.allowWeakIsolation ? { allowWeakIsolation: true } : {}),
    }),
  );
  try {
    const reply = await session.request({ op: 'reset', args: spec.args ?? {} }, ctx.signal);
    const checked = checkTools(reply);
    if ('error' in checked)
      throw session.fail(new EnvironmentError(`the environment ${spec.run}: ${checked.error}`, 'crash'));
    session.ready(checked.tools, Math.round(performance.now() - started));
    return session;
  } catch (e) {
    await session.close();
    throw e;
  }
}

/** One environment process speaking the line protocol; every request waits for its one reply line. */
class Session implements StartedEnvironment {
  tools: readonly ToolSpec[] = [];
  startupMs = 0;
  isolation = '';
  sandboxIsolation: Isolation = { method: 'none', level: 'weak', lost: [], limits: [] };

  private readonly stdin = new PassThrough();
  private readonly stop = new AbortController();
  private readonly splitter = new LineSplitter();
  private stderrTail = '';
  /** The request waiting for its reply line. */
  private waiter: { resolve(line: string): void; reject(e: EnvironmentError): void } | undefined;
  /** Set once the session can no longer serve; every later request rejects with it. */
  private failure: EnvironmentError | undefined;
  private exit: Promise<SandboxRunResult> | undefined;
  private closing = false;
  /** Requests run one at a time, in order. */
  private queue: Promise<unknown> = Promise.resolve();

  readonly streams = {
    stdin: this.stdin,
    onStdout: (b: Buffer): void => this.onStdout(b),
    onStderr: (b: Buffer): void => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-STDERR_TAIL);
    },
    onStart: (isolation: Isolation): void => this.isolated(isolation),
  };

  constructor(
    private readonly name: string,
    private readonly timeoutMs: number,
    lifeSignal: AbortSignal,
  ) {
    // The caller's signal ends the environment; `close` ends it too.
    lifeSignal.addEventListener('abort', () => this.kill(new EnvironmentError('cancelled', 'cancelled')), {
      once: true,
      signal: this.stop.signal,
    });
    this.stdin.on('error', () => undefined);
  }

  get stopSignal(): AbortSignal {
    return this.stop.signal;
  }

  attach(run: Promise<SandboxRunResult>): void {
    this.exit = run.then((r) => {
      this.isolated(r.isolation);
      this.fail(this.exitError(r));
      return r;
    });
  }

  private isolated(i: Isolation): void {
    this.sandboxIsolation = i;
    this.isolation = isolationText(i);
  }

  ready(tools: readonly ToolSpec[], startupMs: number): void {
    this.tools = tools;
    this.startupMs = startupMs;
  }

  async call(tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolOutcome> {
    const reply = await this.request({ op: 'call', tool, args }, signal);
    const checked = checkCallReply(reply);
    if ('error' in checked)
      throw this.fail(new EnvironmentError(`the environment ${this.name}: ${checked.error}`, 'crash'));
    return checked.outcome;
  }

  state(signal: AbortSignal): Promise<unknown> {
    return this.request({ op: 'state' }, signal);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.kill(new EnvironmentError('the environment was closed', 'cancelled'));
    if (this.exit) await withDeadline(this.exit, CLOSE_WAIT_MS, undefined, 'closing').catch(() => undefined);
  }

  /** Sends one request and resolves with its reply as JSON; rejects with the session's failure. */
  request(req: Request, signal: AbortSignal): Promise<unknown> {
    const run = this.queue.then(() => this.exchange(req, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async exchange(req: Request, signal: AbortSignal): Promise<unknown> {
    if (this.failure) throw this.failure;
    if (signal.aborted) throw this.kill(new EnvironmentError('cancelled', 'cancelled'));
    const what = req.op === 'call' ? `the call of ${req.tool}` : `\`${req.op}\``;
    const reply = new Promise<string>((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
    this.stdin.write(encodeRequest(req));
    let line: string;
    try {
      line = await withDeadline(reply, this.timeoutMs, signal, what);
    } catch (e) {
      // Either way the process is out of step with its requests: it is stopped, not reused.
      if (e instanceof DeadlineError)
        throw this.kill(
          new EnvironmentError(`the environment ${this.name} did not answer ${what} within ${e.ms} ms`, 'timeout'),
        );
      if (e instanceof CancelledError) throw this.kill(new EnvironmentError('cancelled', 'cancelled'));
      throw e;
    } finally {
      this.waiter = undefined;
    }
    const parsed = parseReply(line);
    if ('error' in parsed)
      throw this.kill(new EnvironmentError(`the environment ${this.name} ${parsed.error}`, 'crash'));
    return parsed.value;
  }

  private onStdout(chunk: Buffer): void {
    if (this.failure) return;
    const r = this.splitter.push(chunk);
    if ('error' in r) {
      this.kill(new EnvironmentError(`the environment ${this.name} ${r.error}`, 'crash'));
      return;
    }
    for (const line of r.lines) {
      if (!line.trim()) continue;
      if (!this.waiter) {
        // A line nobody asked for would be taken as the next request's reply: the stream is out of step.
        this.kill(
          new EnvironmentError(
            `the environment ${this.name} printed a line no request asked for: '${cut(line)}' (print only one JSON reply per request; log to stderr)`,
            'crash',
          ),
        );
        return;
      }
      // Taken at once, so that a second line in the same chunk is seen to be one too many.
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve(line);
    }
  }

  /** Records the session's first failure and rejects the waiting request with it. */
  fail(e: EnvironmentError): EnvironmentError {
    if (!this.failure) this.failure = e;
    const w = this.waiter;
    if (w) w.reject(this.failure);
    return this.failure;
  }

  /** Fails the session and stops its process. */
  private kill(e: EnvironmentError): EnvironmentError {
    const f = this.fail(e);
    this.stdin.end();
    this.stop.abort();
    return f;
  }

  /** What the end of the process means for a session that was still in use. */
  private exitError(r: SandboxRunResult): EnvironmentError {
    if (r.refused) return new EnvironmentError(r.refused, 'unavailable');
    if (r.sandboxError)
      return new EnvironmentError(
        `the environment ${this.name} could not be started: ${r.sandboxError}`,
        'unavailable',
      );
    if (this.closing || r.aborted) return new EnvironmentError('the environment was closed', 'cancelled');
    if (r.timedOut)
      return new EnvironmentError(`the environment ${this.name} reached its lifetime limit and was stopped`, 'timeout');
    if (r.memoryExceeded)
      return new EnvironmentError(
        `the environment ${this.name} used more than ${ENV_MEMORY_MB} MiB and was stopped`,
        'crash',
      );
    if (r.outputExceeded)
      return new EnvironmentError(`the environment ${this.name} printed too much on stderr and was stopped`, 'crash');
    const how =
      r.exitCode !== null
        ? `exited with code ${r.exitCode}${r.signal ? ` (${r.signal})` : ''}`
        : `was killed by ${r.signal ?? 'a signal'}`;
    const last = lastLines(this.stderrTail || r.stderr);
    return new EnvironmentError(`the environment ${this.name} ${how}${last ? `: ${last}` : ''}`, 'crash');
  }
}

/** The last few lines of stderr, on one line: where a traceback says what went wrong. */
function lastLines(stderr: string, n = 3): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Node\.js v\d/.test(l));
  return cut(lines.slice(-n).join(' | '), 400);
}

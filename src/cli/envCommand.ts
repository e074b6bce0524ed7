// `vtask env RUN`: an agent task's environment behind vtask's sandbox, for programs outside
// vtask (the trainer-side Python package, other harnesses). It speaks the environment protocol
// of the task format on stdin/stdout itself, and relays each request to the environment it
// started in the sandbox: every `reset` starts a fresh one (as each sample gets), so a JS module
// environment and an executable are started the same way, with the same isolation and limits
// as in `vtask run`. Errors are protocol replies (`{"error": ...}`), never a crash of the relay.
import { recordOr } from '../core/base/record';
import path from 'node:path';
import { EnvironmentError, startEnvironment, type StartedEnvironment } from '../core/agent/environment';
import { LineSplitter } from '../core/agent/protocol';
import { toolOutcomeFor } from '../core/agent/toolCall';
import { errorMessage } from '../core/base/errorMessage';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import { int, valueOption, type Parsed } from './options';

export const envHelp = `Usage: vtask env RUN [--timeout-ms N] [--allow-weak-isolation]

Starts the agent environment RUN (a .js/.mjs/.cjs module or an executable) in vtask's sandbox
and speaks the environment protocol on stdin/stdout, one JSON object per line:
{"op": "reset", "args": {...}} starts a fresh environment and answers its tools;
{"op": "call", "tool": NAME, "args": {...}} and {"op": "state"} are relayed to it.
Ends when stdin closes. How the environment is isolated is said once on stderr; without the
full sandbox it is refused unless --allow-weak-isolation is given.
  --timeout-ms N       how long one request may wait for its reply (default 10000)`;

interface EnvArgs {
  run: string;
  timeoutMs?: number;
}

/** The options of `vtask env`. */
export const envOptions = z.object({
  timeoutMs: valueOption('--timeout-ms', 'how long one request may wait for its reply', int(1, 3_600_000)),
});

function argsOf({ options, positional }: Parsed<typeof envOptions>): EnvArgs {
  const [run, other] = positional;
  if (run === undefined) throw new UsageError('name the environment to start: vtask env RUN');
  if (other !== undefined) throw new UsageError(`one environment at a time: got ${run} and ${other}`);
  return { run, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
}

type Reply = Record<string, unknown>;

export async function envCommand(
  parsed: Parsed<typeof envOptions>,
  io: CliIO,
  signal: AbortSignal,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const args = argsOf(parsed);
  const file = path.resolve(io.cwd, args.run);
  let env: StartedEnvironment | undefined;
  const close = async (): Promise<void> => {
    const e = env;
    env = undefined;
    await e?.close();
  };

  const answer = async (line: string): Promise<Reply> => {
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch (e) {
      return { error: `a request must be one JSON object per line: ${errorMessage(e)}` };
    }
    const req = recordOr(m);
    const params = recordOr(req.args);
    if (req.op === 'reset') {
      await close();
      try {
        env = await startEnvironment(
          { run: file, args: params, ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}) },
          { dir: path.dirname(file), trusted: true, signal },
        );
      } catch (e) {
        return {
          error: e instanceof EnvironmentError ? e.message : `the environment could not be started: ${errorMessage(e)}`,
        };
      }
      return { tools: env.tools };
    }
    if (!env) return { error: 'no environment yet: send {"op": "reset"} first' };
    try {
      if (req.op === 'call') {
        if (typeof req.tool !== 'string')
          return { error: 'a call names its tool: {"op": "call", "tool": NAME, "args": {...}}' };
        // Checked against the tool's schema as in a run, so a trainer's model reads the same errors.
        const call = { id: 'relay', name: req.tool, arguments: JSON.stringify(req.args ?? {}) };
        return { ...(await toolOutcomeFor(env, call, signal)).outcome };
      }
      if (req.op === 'state') return { state: await env.state(signal) };
    } catch (e) {
      // The environment died or hung: it is gone, and the next reset starts another.
      await close();
      return { error: errorMessage(e) };
    }
    return { error: `unknown op ${JSON.stringify(req.op)}: the ops are reset, call and state` };
  };

  const lines = new LineSplitter();
  let queue = Promise.resolve();
  const write = (r: Reply): void => {
    // `state` answers the state itself, as the protocol says; everything else is an object reply.
    io.stdout.write(JSON.stringify('state' in r && Object.keys(r).length === 1 ? r.state : r) + '\n');
  };
  await new Promise<void>((resolve) => {
    const done = (): void => {
      stdin.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer | string): void => {
      const got = lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if ('error' in got) {
        write({ error: `a request line was too long: ${got.error.replace(/^replied with /, '')}` });
        done();
        return;
      }
      // One request at a time, in order: the protocol has no request ids.
      for (const line of got.lines) if (line.trim()) queue = queue.then(async () => write(await answer(line)));
    };
    stdin.on('data', onData);
    stdin.once('end', done);
    stdin.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
  await queue;
  await close();
  return EXIT.ok;
}

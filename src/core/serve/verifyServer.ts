// The reward server's HTTP handling (`vtask serve`): requests in, core verdicts out, no
// scoring logic of its own. Stateless beyond the task files it loaded, so any number of copies
// can run behind a load balancer. Who may ask is checked before anything runs (requestGate.ts),
// and an inline verifier may not name a program unless the operator allowed it (inlinePrograms.ts).
import { errorMessage } from '../base/errorMessage';
import http from 'node:http';
import path from 'node:path';
import { parseTaskFile } from '../taskfile/parse';
import { runnableTasks, type TaskSpec } from '../taskfile/resolve';
import type { TaskView, Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';
import type { Trajectory } from '../agent/types';
import { agentVerdict } from '../run/agentSamples';
import { wireTrajectory, WireTrajectoryError } from './wireTrajectory';
import { admit, corsHeaders, GateRefusal, requireJson, type GateOptions } from './requestGate';
import { inlinePrograms, insideRoots } from './inlinePrograms';
import { at } from '../util/must';
import { mapLimit } from '../util/limit';
import { isRecord } from '../base/record';

export interface LoadedTask {
  readonly file: string;
  readonly spec: TaskSpec;
}

export interface ServeOptions extends GateOptions {
  /** Tasks by id; an id may live in several files. */
  readonly tasks: ReadonlyMap<string, readonly LoadedTask[]>;
  /** Largest request body, in bytes. */
  readonly maxBodyBytes: number;
  /** Most responses in one request. */
  readonly maxBatch: number;
  /** Responses verified at once per request. */
  readonly concurrency: number;
  /**
   * Most responses waiting or being verified in this process: a request past it is answered 503
   * with `Retry-After` (unless the process is idle), so a trainer backs off instead of queueing.
   */
  readonly maxQueued: number;
  /** Judge models for `judge` verifiers (unavailable without). */
  readonly judge?: VerifyContext['judge'];
  /** Where verifiers given inline resolve relative paths (scripts). */
  readonly cwd: string;
  /**
   * Whether an inline verifier may name a program to run (`script`), and then only one inside
   * `servedRoots`. Off, such requests are refused: the served files' own verifiers still run.
   */
  readonly allowInlinePrograms: boolean;
  /** The served folders (real paths): where inline programs, when allowed, must lie. */
  readonly servedRoots: readonly string[];
}

/** A request answered with an error status and `{"error": message}`. */
class HttpError extends GateRefusal {}

/** Seconds a refused client should wait before it asks again (the Python client waits longer on each retry). */
const RETRY_AFTER_S = 1;

/** The verdict as the wire carries it: the spec's fields, plus why it could not decide. */
function wire(v: Verdict): Record<string, unknown> {
  return { pass: v.pass, score: v.score, reason: v.reason, ...(v.error ? { error: v.error } : {}) };
}

/** An inline verifier checked as a task file would check it; cached by its JSON. */
const inlineChecked = new Map<string, TaskSpec | string>();

function inlineTask(verifier: unknown, prompt: string): TaskSpec {
  const key = JSON.stringify([verifier, prompt]);
  let hit = inlineChecked.get(key);
  if (hit === undefined) {
    // JSON is YAML, so the task-file validator checks the verifier with its exact messages.
    const text = `vtask: 1\ntasks:\n  - id: inline\n    prompt: ${JSON.stringify(prompt)}\n    verify: ${JSON.stringify(verifier)}\n`;
    const parsed = parseTaskFile(text);
    const errors = parsed.issues.filter((i) => i.severity === 'error').map((i) => i.message);
    hit = errors.length
      ? `invalid verifier: ${errors.slice(0, 3).join('; ')}`
      : (runnableTasks(parsed).tasks[0] ?? 'invalid verifier');
    if (inlineChecked.size > 1000) inlineChecked.clear();
    inlineChecked.set(key, hit);
  }
  if (typeof hit === 'string') throw new HttpError(400, hit);
  return hit;
}

/**
 * Refuses an inline verifier that names a program, unless the operator allowed them; an allowed
 * one must lie inside the served folders (`..`, absolute paths and symlinks resolved first).
 */
function checkInlinePrograms(opts: ServeOptions, verifier: unknown): void {
  for (const p of inlinePrograms(verifier)) {
    if (!opts.allowInlinePrograms) {
      throw new HttpError(
        403,
        `${p.at} names a program to run, and this server runs only the programs its task files define: ` +
          'serve the task files that define this verifier and send {"task": ID} instead of {"verifier": ...}, ' +
          'or, if every client may run programs of the served folders, restart vtask serve with --allow-inline-programs',
      );
    }
    if (!insideRoots(path.resolve(opts.cwd, p.path), opts.servedRoots)) {
      throw new HttpError(
        403,
        `${p.at}.path '${p.path}' is outside the served folders (${opts.servedRoots.join(', ')}): inline programs must lie inside them`,
      );
    }
  }
}

function pickTask(opts: ServeOptions, id: string, file: unknown): LoadedTask {
  const found = opts.tasks.get(id);
  if (!found?.length) throw new HttpError(404, `no task '${id}' in the loaded files`);
  if (typeof file === 'string') {
    const want = path.resolve(opts.cwd, file);
    const t = found.find((x) => path.resolve(opts.cwd, x.file) === want || x.file === file);
    if (!t) throw new HttpError(404, `no task '${id}' in ${file}`);
    return t;
  }
  if (found.length > 1)
    throw new HttpError(
      400,
      `task '${id}' is in ${found.length} files (${found.map((t) => t.file).join(', ')}): add "file"`,
    );
  return at(found, 0);
}

/** One request's (or one batch item's) work, checked and ready to verify. */
interface Job {
  readonly spec: TaskSpec;
  readonly view: TaskView;
  readonly responses: readonly string[];
  readonly trajectories: readonly (Trajectory | undefined)[] | undefined;
}

/** The responses of a body or batch item, checked: a list of strings. */
function responsesOf(b: Record<string, unknown>): string[] {
  const responses = b.responses;
  if (!Array.isArray(responses) || !responses.every((r): r is string => typeof r === 'string'))
    throw new HttpError(400, '"responses" must be a list of strings');
  return responses;
}

/** Checks one request (or batch item) as spec section 5.1 says; throws the refusal. */
function prepare(opts: ServeOptions, body: unknown): Job {
  if (!isRecord(body)) throw new HttpError(400, 'the body is not a JSON object');
  const b = body;
  const responses = responsesOf(b);
  let spec: TaskSpec;
  let file: string;
  if (typeof b.task === 'string') {
    const t = pickTask(opts, b.task, b.file);
    spec = t.spec;
    file = t.file;
  } else if (b.verifier !== undefined) {
    const prompt = b.prompt === undefined ? '' : b.prompt;
    if (typeof prompt !== 'string') throw new HttpError(400, '"prompt" must be a string');
    spec = inlineTask(b.verifier, prompt);
    checkInlinePrograms(opts, spec.verify);
    file = path.join(opts.cwd, 'inline.vtask');
  } else throw new HttpError(400, 'name a "task" of the loaded files, or give a "verifier"');
  const view: TaskView = {
    id: spec.id,
    prompt: spec.prompt,
    messages: spec.messages,
    meta: spec.meta,
    dir: path.dirname(path.resolve(opts.cwd, file)),
  };
  return { spec, view, responses, trajectories: trajectoriesOf(b.trajectories, responses) };
}

/** How many responses a body asks to verify: a batch's items together (malformed items count 0). */
function responseCount(body: unknown): number {
  const b = isRecord(body) ? body : {};
  if (Array.isArray(b.items))
    return b.items.reduce((n: number, it: unknown) => n + (isRecord(it) ? countOf(it) : 0), 0);
  return countOf(b);
}

function countOf(b: Record<string, unknown>): number {
  return Array.isArray(b.responses) ? b.responses.length : 0;
}

/** The verdicts of every job's responses, in order; all jobs share the `concurrency` limit. */
async function runJobs(opts: ServeOptions, jobs: readonly Job[], signal: AbortSignal): Promise<Verdict[][]> {
  const flat = jobs.flatMap((job, j) => job.responses.map((r, i) => [j, i, r] as const));
  const verdicts = await mapLimit(flat, opts.concurrency, ([j, i, r]) => {
    const job = at(jobs, j);
    const options = { task: job.view, signal, trusted: true, judge: opts.judge };
    const t = job.trajectories?.[i];
    // An agent sample scores as in a run: its trajectory in context, the turn limit said.
    return t ? agentVerdict(job.spec.verify, r, t, options) : verify(job.spec.verify, r, options);
  });
  const out = jobs.map((): Verdict[] => []);
  flat.forEach(([j], k) => out[j]?.push(at(verdicts, k)));
  return out;
}

/**
 * A batch (`{"items": [...]}`): each item is checked as a single request is, and an item that is
 * refused gets `{"error", "status"}` in its slot while the others are verified.
 */
async function handleBatch(opts: ServeOptions, items: unknown, signal: AbortSignal): Promise<unknown> {
  if (!Array.isArray(items)) throw new HttpError(400, '"items" must be a list of requests');
  const prepared = items.map((item): Job | HttpError => {
    try {
      if (item && typeof item === 'object' && 'items' in item)
        throw new HttpError(400, 'a batch item cannot itself be a batch');
      return prepare(opts, item);
    } catch (e) {
      // The slot says which item; the message is the one a single request would get.
      if (e instanceof GateRefusal) return new HttpError(e.status, e.message);
      throw e;
    }
  });
  const jobs = prepared.filter((p): p is Job => !(p instanceof HttpError));
  const verdicts = await runJobs(opts, jobs, signal);
  let next = 0;
  return {
    items: prepared.map((p) =>
      p instanceof HttpError ? { error: p.message, status: p.status } : { results: at(verdicts, next++).map(wire) },
    ),
  };
}

async function handleVerify(opts: ServeOptions, body: unknown, signal: AbortSignal): Promise<unknown> {
  const n = responseCount(body);
  if (n > opts.maxBatch) throw new HttpError(413, `${n} responses in one request; the limit is ${opts.maxBatch}`);
  if (isRecord(body) && 'items' in body) return handleBatch(opts, body.items, signal);
  const results = at(await runJobs(opts, [prepare(opts, body)], signal), 0);
  return { results: results.map(wire) };
}

/** The `trajectories` sent beside `responses` (one each, or null for a response without one). */
function trajectoriesOf(value: unknown, responses: readonly string[]): (Trajectory | undefined)[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length !== responses.length)
    throw new HttpError(
      400,
      `"trajectories" must be a list with one trajectory (or null) per response: ${responses.length}`,
    );
  try {
    return value.map((t, i) => (t === null ? undefined : wireTrajectory(t, at(responses, i), `trajectories[${i}]`)));
  } catch (e) {
    if (e instanceof WireTrajectoryError) throw new HttpError(400, e.message);
    throw e;
  }
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return reject(new HttpError(413, `the body is ${declared} bytes; the limit is ${limit}`));
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= limit) return void chunks.push(c);
      // Answer 413 at once; the rest of the body is read and dropped so the answer arrives.
      req.off('data', onData);
      req.resume();
      reject(new HttpError(413, `the body is over the limit of ${limit} bytes`));
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** An HTTP server answering spec §5.1: `GET /health`, `POST /verify`. */
export function createVerifyServer(opts: ServeOptions): http.Server {
  const total = [...opts.tasks.values()].reduce((a, l) => a + l.length, 0);
  // Responses this process is verifying or holding; the /verify requests it has taken and the
  // connections it has accepted (/health shows those two, so that a client that batches and
  // keeps its connection alive can be seen to).
  let queued = 0;
  let verifyRequests = 0;
  let connections = 0;
  const server = http.createServer((req, res) => {
    let cors: Record<string, string> = {};
    const send = (status: number, payload: unknown, extra: Record<string, string> = {}): void => {
      const text = JSON.stringify(payload);
      res.writeHead(status, {
        ...cors,
        ...extra,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    void (async () => {
      try {
        cors = corsHeaders(admit(opts, req));
        const url = (req.url ?? '/').split('?')[0];
        // Only an allowed page's browser asks (a preflight); it gets the CORS headers and no body.
        if (req.method === 'OPTIONS' && cors['access-control-allow-origin']) return void res.writeHead(204, cors).end();
        if (url === '/health' && req.method === 'GET')
          return send(200, { ok: true, tasks: total, verify_requests: verifyRequests, connections });
        if (url === '/verify') {
          if (req.method !== 'POST') throw new HttpError(405, 'POST a JSON body to /verify');
          requireJson(req);
          const text = await readBody(req, opts.maxBodyBytes);
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new HttpError(400, 'the body is not valid JSON');
          }
          verifyRequests++;
          const n = responseCount(body);
          if (queued > 0 && queued + n > opts.maxQueued) {
            const message = `the server is busy (${queued} responses queued; the limit is ${opts.maxQueued}): retry after ${RETRY_AFTER_S} s`;
            return send(503, { error: message }, { 'retry-after': String(RETRY_AFTER_S) });
          }
          queued += n;
          try {
            return send(200, await handleVerify(opts, body, aborted.signal));
          } finally {
            queued -= n;
          }
        }
        throw new HttpError(404, `no route ${req.method ?? ''} ${url ?? ''}: use GET /health or POST /verify`);
      } catch (e) {
        // A refused body is read and dropped, so the answer reaches a client still sending it.
        req.resume();
        if (res.headersSent) return;
        if (e instanceof GateRefusal) send(e.status, { error: e.message });
        else send(500, { error: `internal error: ${errorMessage(e)}` });
      }
    })();
  });
  server.on('connection', () => connections++);
  return server;
}

/** Loads task files for serving: valid tasks by id, and the files' validation errors. */
export function loadTasks(
  files: readonly string[],
  read: (f: string) => string,
): { tasks: Map<string, LoadedTask[]>; errors: string[] } {
  const tasks = new Map<string, LoadedTask[]>();
  const errors: string[] = [];
  for (const file of files) {
    const parsed = parseTaskFile(read(file));
    for (const i of parsed.issues)
      if (i.severity === 'error') errors.push(`${file}:${parsed.lines.position(i.start).line + 1}: ${i.message}`);
    for (const spec of runnableTasks(parsed).tasks) {
      const list = tasks.get(spec.id) ?? [];
      list.push({ file, spec });
      tasks.set(spec.id, list);
    }
  }
  return { tasks, errors };
}

// `vtask serve` answers a batch of requests in one (`{"items": [...]}`): each item is checked and
// verified as a single request would be, an item's refusal stays in its slot, the response limit
// counts the whole batch, and a server past its queue bound answers 503 with Retry-After. The
// Python shims send a trainer's whole batch as one request over a kept-alive connection, and
// retry a busy server. Real `vtask serve` processes over HTTP, a real judge server for held work.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { startServe } from '../support/serveProcess';
import { OpenAIServer } from '../support/openaiServer';
import { PYTHON_PATH } from '../support/python';

interface Verdict {
  pass: boolean;
  score: number;
  reason: string;
}
interface Slot {
  results?: Verdict[];
  error?: string;
  status?: number;
}
interface Health {
  ok: boolean;
  verify_requests: number;
  connections: number;
}

const children: ChildProcess[] = [];
let url = '';
before(async () => {
  const s = await startServe(['examples/math.vtask', 'examples/constraints.vtask', '--max-batch', '8']);
  children.push(s.child);
  url = s.url;
});
after(() => {
  for (const c of children) c.kill();
});

async function post(
  base: string,
  body: unknown,
): Promise<{
  status: number;
  retryAfter: string | null;
  json: { items?: Slot[]; results?: Verdict[]; error?: string };
}> {
  const r = await fetch(`${base}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    json: (await r.json()) as { items?: Slot[]; error?: string },
  };
}

const health = async (base: string): Promise<Health> => (await (await fetch(`${base}/health`)).json()) as Health;
const MATH = { math: { answer: '72' } };

test('a batch mixes task ids and inline verifiers, answers in order, and refuses an item in its slot only', async () => {
  const r = await post(url, {
    items: [
      { verifier: MATH, responses: ['\\boxed{72}', '71'] },
      { task: 'gsm8k/clips', responses: ['so \\boxed{72}'] },
      { task: 'nope', responses: ['x'] },
      { verifier: { constraints: ['punctuation:no_comma'] }, prompt: 'p', responses: ['no commas', 'a, b'] },
      { verifier: { script: { path: 'x.mjs' } }, responses: ['x'] },
      { verifier: MATH, responses: 'not a list' },
      { verifier: MATH, responses: [] },
    ],
  });
  assert.equal(r.status, 200, r.json.error);
  const items = r.json.items ?? [];
  assert.equal(items.length, 7);
  assert.deepEqual(
    items[0]?.results?.map((v) => v.pass),
    [true, false],
  );
  assert.deepEqual(
    items[1]?.results?.map((v) => v.pass),
    [true],
  );
  // The refusals a single request would get, with the same status and message.
  const single = await post(url, { task: 'nope', responses: ['x'] });
  assert.deepEqual(items[2], { error: single.json.error, status: single.status });
  assert.equal(items[2]?.status, 404);
  assert.deepEqual(
    items[3]?.results?.map((v) => v.score),
    [1, 0],
  );
  assert.equal(items[4]?.status, 403);
  assert.match(items[4]?.error ?? '', /verifier\.script names a program to run/);
  assert.deepEqual(items[5], { error: '"responses" must be a list of strings', status: 400 });
  assert.deepEqual(items[6], { results: [] });
  // A single request is answered as before.
  const one = await post(url, { verifier: MATH, responses: ['72', '71'] });
  assert.deepEqual(
    one.json.results?.map((v) => v.pass),
    [true, false],
  );
});

test('the response limit counts the whole batch; a malformed batch is a 400', async () => {
  const over = await post(url, {
    items: [
      { verifier: MATH, responses: Array(5).fill('72') },
      { task: 'gsm8k/clips', responses: Array(4).fill('72') },
    ],
  });
  assert.equal(over.status, 413);
  assert.equal(over.json.error, '9 responses in one request; the limit is 8');
  const at = await post(url, {
    items: [
      { verifier: MATH, responses: Array(4).fill('72') },
      { task: 'gsm8k/clips', responses: Array(4).fill('72') },
    ],
  });
  assert.equal(at.status, 200);
  assert.equal(at.json.items?.flatMap((s) => s.results ?? []).length, 8);
  const bad = await post(url, { items: { verifier: MATH } });
  assert.deepEqual([bad.status, bad.json.error], [400, '"items" must be a list of requests']);
  const nested = await post(url, { items: [{ items: [] }] });
  assert.deepEqual(nested.json.items, [{ error: 'a batch item cannot itself be a batch', status: 400 }]);
});

test('past its queue bound the server answers 503 with Retry-After, and the Python client waits and retries', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const judge = new OpenAIServer({
    answer: () => '{"criteria": [{"id": 1, "met": true}]}',
    behaviour: () => ({ until: held }),
  });
  await judge.listen();
  const s = await startServe([
    'examples/math.vtask',
    '--max-queue',
    '2',
    '--base-url',
    judge.url,
    '--model',
    'test-model',
  ]);
  children.push(s.child);
  try {
    const JUDGE = { judge: { rubric: 'Names the capital' } };
    const first = post(s.url, {
      items: [{ verifier: JUDGE, prompt: 'Capital of France?', responses: ['Paris', 'Lyon'] }],
    });
    await judge.waitFor(() => judge.inFlight >= 2, 10_000, 'the judge holding both responses');
    const busy = await post(s.url, { verifier: MATH, responses: ['72'] });
    assert.equal(busy.status, 503);
    assert.equal(busy.retryAfter, '1');
    assert.match(busy.json.error ?? '', /the server is busy \(2 responses queued; the limit is 2\)/);
    // A shim call made now is turned away too, waits, and is answered once the held work is done.
    const shim = pythonRun(
      `
from vtask_reward.client import Client
print(json.dumps([v["pass"] for v in Client(url=sys.argv[1]).verify(["72", "71"], verifier={"math": {"answer": "72"}})]))
`,
      [s.url],
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    release();
    assert.equal((await first).status, 200);
    assert.deepEqual(JSON.parse(await shim), [true, false]);
    assert.ok((await health(s.url)).verify_requests >= 4, 'the shim was refused at least once before its answer');
  } finally {
    release();
    await judge.close();
  }
});

/** Runs a Python script (json and sys imported) with the package importable; resolves with stdout. */
function pythonRun(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', `import json, sys\n${script}`, ...args], {
      env: { ...process.env, PYTHONPATH: PYTHON_PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`python exited with ${code}: ${err}`))));
  });
}

test("the shims send a whole batch as one request (verl, TRL, open-instruct's gathered calls), and keep one connection for per-sample calls", async () => {
  const before = await health(url);
  const out = await pythonRun(
    `
from vtask_reward.verl import compute_score, compute_score_batch
from vtask_reward.trl import vtask_reward
math, commas = json.dumps({"math": {"answer": "72"}}), json.dumps({"constraints": ["punctuation:no_comma"]})
health = lambda: __import__("vtask_reward").default_client().health()
report = {"start": health()}
extras = [{"vtask_verifier": math}, {"vtask_verifier": commas, "prompt_text": "p"}, {"task_id": "gsm8k/clips"}, {}]
report["batch"] = [r["score"] for r in compute_score_batch(["vtask"] * 4, ["72", "a, b", "\\\\boxed{72}", "4"], ["72", None, "72", "5"], extras)]
report["after_batch"] = health()
report["trl"] = vtask_reward(["p"] * 3, ["72", "no commas", "a, b"], vtask_verifier=[math, commas, commas])
report["after_trl"] = health()
report["per_sample"] = [compute_score("vtask", r, "72", {"vtask_verifier": math})["score"] for r in ["72", "71", "72", "9"]]
report["after_per_sample"] = health()
import asyncio
from vtask_reward.open_instruct import VtaskVerifier
oi = VtaskVerifier()
label = lambda v: json.dumps({"task": "t", "verifier": json.loads(v), "prompt": "p"})
async def gathered(pairs):
    return await asyncio.gather(*(oi.async_call([], r, l) for r, l in pairs), return_exceptions=True)
found = asyncio.run(gathered([("72", label(math)), ("a, b", label(commas)), ("71", label(math)), ("no commas", label(commas))]))
report["open_instruct"] = [r.score for r in found]
report["after_open_instruct"] = health()
bad = json.dumps({"task": "nope", "verifier": {"script": {"path": "x.mjs"}}})
found = asyncio.run(gathered([("72", label(math)), ("x", bad)]))
report["open_instruct_refused"] = [getattr(r, "score", None) if not isinstance(r, Exception) else str(r) for r in found]
print(json.dumps(report))
`,
    [],
    { VTASK_URL: url },
  ).then(
    (o) =>
      JSON.parse(o) as Record<
        'start' | 'after_batch' | 'after_trl' | 'after_per_sample' | 'after_open_instruct',
        Health
      > & {
        batch: number[];
        trl: number[];
        per_sample: number[];
        open_instruct: number[];
        open_instruct_refused: [number, string];
      },
  );
  assert.deepEqual(out.batch, [1, 0, 1, 0]);
  assert.deepEqual(out.trl, [1, 1, 0]);
  assert.deepEqual(out.per_sample, [1, 0, 1, 0]);
  const requests = (h: Health): number => h.verify_requests;
  assert.equal(
    requests(out.after_batch) - requests(out.start),
    1,
    'verl compute_score_batch: one request for 4 rows of 3 verifiers',
  );
  assert.equal(requests(out.after_trl) - requests(out.after_batch), 1, 'TRL: one request per call');
  assert.equal(
    requests(out.after_per_sample) - requests(out.after_trl),
    4,
    'verl compute_score: one request per sample',
  );
  // open-instruct's gathered async calls go as one request; a refused row fails its own call only.
  assert.deepEqual(out.open_instruct, [1, 0, 0, 1]);
  assert.equal(
    requests(out.after_open_instruct) - requests(out.after_per_sample),
    1,
    'open-instruct: one request for the gathered calls',
  );
  assert.equal(out.open_instruct_refused[0], 1);
  assert.match(out.open_instruct_refused[1], /404 no task 'nope' in the loaded files/);
  // Every call of the process went over the one connection its first call opened.
  assert.equal(out.after_per_sample.connections, out.start.connections, 'no new connection per call');
  assert.ok(out.start.connections <= before.connections + 2);
});

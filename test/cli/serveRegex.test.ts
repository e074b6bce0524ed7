// `vtask serve` with a client's pattern that backtracks exponentially in JavaScript: the
// verdicts come back in linear time and the server keeps answering meanwhile; a pattern that
// cannot run in linear time is refused with the reason. A real server process over HTTP.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startServe } from '../support/serveProcess';

let server: { child: ChildProcess; url: string };
before(async () => {
  server = await startServe(['examples/math.vtask']);
});
after(() => server.child.kill());

interface Verdict {
  pass: boolean;
  reason: string;
}

async function verify(body: unknown): Promise<{ status: number; json: { results?: Verdict[]; error?: string } }> {
  const r = await fetch(`${server.url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as { results?: Verdict[]; error?: string } };
}

test('`^(a+)+$` against long `aaaa…!` responses: verdicts in linear time, /health answering meanwhile', async () => {
  // 29 characters held JavaScript's engine (and the whole server) for about 50 s.
  const responses = [29, 40, 10_000, 200_000].map((n) => 'a'.repeat(n) + '!');
  responses.push('a'.repeat(1000));
  const started = performance.now();
  const inFlight = verify({ verifier: { format: { regex: '^(a+)+$' } }, responses });
  const health = await fetch(`${server.url}/health`);
  const healthMs = performance.now() - started;
  assert.equal(health.status, 200);
  const { status, json } = await inFlight;
  const verifyMs = performance.now() - started;
  assert.equal(status, 200, json.error);
  assert.deepEqual(
    json.results?.map((r) => r.pass),
    [false, false, false, false, true],
  );
  // Wall time here only as a sanity bound: the verdicts themselves never depend on it.
  assert.ok(healthMs < 2000, `/health took ${Math.round(healthMs)} ms`);
  assert.ok(verifyMs < 5000, `the batch took ${Math.round(verifyMs)} ms`);
});

test("a client's pattern with lookahead is refused with the reason", async () => {
  const { status, json } = await verify({ verifier: { format: { regex: '^(?=.*\\d)(a+)+$' } }, responses: ['a1'] });
  assert.equal(status, 400);
  assert.match(json.error ?? '', /invalid verifier: .*`\(\?=` \(lookahead\), which cannot run in linear time/);
});

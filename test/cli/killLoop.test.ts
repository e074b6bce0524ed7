// kill -9 against real `vtask run` processes: after every kill the cache must be readable, hold
// each sample once, and keep every sample that arrived long enough before the kill to have been
// flushed (the cache flushes at most 100 ms after a sample arrives). The unit stage kills 5
// times; VTASK_KILL_LOOPS=N kills N times.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { listSegments, readSegment } from '../../src/core/sampling/cacheLog';
import { OpenAIServer } from '../support/openaiServer';
import { runCliProcess, startCli } from '../support/cliProcess';
import { runArgs } from '../support/runArgs';

const LOOPS = Number(process.env.VTASK_KILL_LOOPS ?? 5);
const KILL_AFTER = 30;
/** Answers older than this at the kill must be on disk: the flush bound (100 ms) with ample room for a loaded machine (a run that kept samples until the end would still lose them all). */
const SAVED_WITHIN_MS = 2000;
// One choice per request whatever `n` asks (as some servers do), so a task's samples arrive one
// by one: those that came before a kill must survive it, not wait for the task's last one.
const server = new OpenAIServer({ ignoreN: true, behaviour: () => ({ delayMs: 15 }) });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-kill-'));
const cacheDir = path.join(dir, 'cache');
/** When each answer was completed, by the server's clock (which is the test's). */
const answeredAt: number[] = [];
let seen = 0;

before(async () => {
  await server.listen();
  server.on('change', () => {
    const done = server.samplingRequests.length - server.inFlight - server.disconnects;
    while (seen < done) {
      answeredAt.push(Date.now());
      seen++;
    }
  });
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every record in the cache's log, and what could not be read. */
function readLog(): { keys: string[]; skipped: number } {
  const segments = path.join(cacheDir, 'samples');
  const keys: string[] = [];
  let skipped = 0;
  for (const name of fs.existsSync(segments) ? listSegments(segments) : []) {
    skipped += readSegment(path.join(segments, name), 0, (r) => keys.push(r.k)).skipped;
  }
  return { keys, skipped };
}

test(`kill -9 ${LOOPS} times mid-run: nothing saved is lost or duplicated, and the log stays readable`, async () => {
  const tasks = 3;
  const perTask = Math.ceil(((LOOPS + 1) * KILL_AFTER) / tasks) + 10;
  const file = path.join(dir, 'kill.vtask');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n${Array.from({ length: tasks }, (_, i) => `  - id: t${i}\n    prompt: "question ${i}"\n    samples: ${perTask}\n    verify: { match: { answer: "x" } }\n`).join('')}`,
  );
  const args = [...runArgs(file, server.url, cacheDir), '--concurrency', '2', '--json'];
  let kept = 0;
  let lost = 0;
  for (let loop = 0; loop < LOOPS; loop++) {
    const before = seen;
    const run = startCli(args);
    await server.waitFor(() => seen >= before + KILL_AFTER, 20_000, `${KILL_AFTER} answers in loop ${loop}`);
    const killedAt = Date.now();
    run.child.kill('SIGKILL');
    const r = await run.done;
    assert.equal(r.signal, 'SIGKILL', `loop ${loop} ended before the kill: ${r.stderr}`);
    const { keys, skipped } = readLog();
    assert.equal(skipped, 0, 'no malformed line in the log');
    assert.equal(new Set(keys).size, keys.length, `loop ${loop}: a sample was saved twice`);
    const mustHave = answeredAt.filter((t) => t <= killedAt - SAVED_WITHIN_MS).length;
    assert.ok(
      keys.length >= mustHave,
      `loop ${loop}: ${keys.length} samples saved, but ${mustHave} had arrived ${SAVED_WITHIN_MS} ms before the kill`,
    );
    lost += seen - before - (keys.length - kept);
    kept = keys.length;
  }
  // The last run completes: it asks only for what is missing, and ends with every sample once.
  const requestsBefore = server.samplingRequests.length;
  const last = await runCliProcess(args);
  assert.equal(last.code, 0, last.stderr);
  const { keys } = readLog();
  assert.equal(keys.length, tasks * perTask);
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(server.samplingRequests.length - requestsBefore, tasks * perTask - kept);
  // For the report: samples kept across the kills, and those in flight (or unflushed) at a kill.
  process.stdout.write(
    `# kill loop: ${LOOPS} kills, ${kept} samples kept, ${lost} answers lost in flight, ${tasks * perTask} at the end\n`,
  );
});

test('SIGTERM stops like Ctrl-C: every sample that arrived is saved', async () => {
  const file = path.join(dir, 'term.vtask');
  const termCache = path.join(dir, 'term-cache');
  fs.writeFileSync(
    file,
    `vtask: 1\ntasks:\n  - id: t\n    prompt: "sigterm"\n    samples: 40\n    verify: { match: { answer: "x" } }\n`,
  );
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const first = server.samplingRequests.length;
  let received = 0;
  // Twenty answers come at once; the rest are held. Once the server holds two more, the client
  // has taken in all twenty (it sends the next request only after handling an answer).
  server.behaviour = () => (++received <= 20 ? {} : { until: gate });
  try {
    const run = startCli([...runArgs(file, server.url, termCache), '--concurrency', '2', '--json']);
    await server.waitFor(() => server.samplingRequests.length - first >= 22, 20_000, '20 answers and 2 held requests');
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.equal(r.code, 130, r.stderr);
    const keys: string[] = [];
    const segments = path.join(termCache, 'samples');
    for (const name of listSegments(segments)) readSegment(path.join(segments, name), 0, (rec) => keys.push(rec.k));
    assert.equal(keys.length, 20);
  } finally {
    open();
    server.behaviour = () => ({ delayMs: 15 });
  }
});

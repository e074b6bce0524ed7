// streamTasks hands each task's result on in task order and keeps none of them: once handed on, a
// result (its samples and verdicts) can be collected while the run goes on, where sampleTasks
// holds every one until the end. Against the project's OpenAI-compatible server, with the heap
// inspected by the collector itself (WeakRefs cleared after a full collection), not by timing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, test } from 'node:test';
import { resolveProfile } from '../../src/core/sampling/profiles';
import { sampleTasks, streamTasks, type RunOptions, type TaskRunResult } from '../../src/core/run/sampleTasks';
import { SampleCache } from '../../src/core/sampling/cache';
import { OpenAIProvider } from '../../src/core/sampling/openai';
import { parseTaskFile } from '../../src/core/taskfile/parse';
import { runnableTasks, type TaskSpec } from '../../src/core/taskfile/resolve';
import { OpenAIServer } from '../support/openaiServer';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

const TASKS = 400;
/** Tasks at once: each worker may still hold the last result it handed on, no more. */
const SLOTS = 4;
const server = new OpenAIServer({ answer: () => `${'Some working. '.repeat(30)}\\boxed{4}`, record: false });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-stream-tasks-'));
let tasks: TaskSpec[] = [];

before(async () => {
  await server.listen();
  const lines = Array.from(
    { length: TASKS },
    (_, i) => `  - { id: t${i}, prompt: "Task ${i}: 2 + 2?", samples: 2, verify: { math: { answer: "4" } } }`,
  );
  tasks = runnableTasks(parseTaskFile(['vtask: 1', 'tasks:', ...lines].join('\n') + '\n')).tasks;
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function options(cache: SampleCache): RunOptions {
  const profile = resolveProfile({ baseUrl: server.url, model: 'test-model', concurrency: 8 });
  const provider = new OpenAIProvider(profile);
  return {
    file: path.join(dir, 'tasks.vtask'),
    cache,
    signal: new AbortController().signal,
    concurrency: SLOTS,
    profileFor: () => profile,
    providerFor: () => provider,
  };
}

/** How many of the results handed on are still alive after a full collection. */
function alive(refs: readonly WeakRef<TaskRunResult>[]): number {
  collect();
  return refs.filter((r) => r.deref() !== undefined).length;
}

test('streamTasks: results in task order, each collectable once handed on; sampleTasks keeps them all', async () => {
  const cache = SampleCache.open(path.join(dir, 'cache'));
  const refs: WeakRef<TaskRunResult>[] = [];
  const ids: string[] = [];
  // Sampled from the server: the results handed on before the last are gone by the end.
  let aliveMidway = -1;
  await streamTasks(tasks, options(cache), (r) => {
    refs.push(new WeakRef(r));
    ids.push(r.task.id);
    assert.equal(r.samples.length, 2, r.error);
    assert.equal(r.stats.passed, 2);
    if (refs.length === TASKS / 2) aliveMidway = alive(refs);
  });
  assert.deepEqual(
    ids,
    tasks.map((t) => t.id),
  );
  const held = alive(refs);
  assert.ok(aliveMidway >= 0 && aliveMidway <= SLOTS + 1, `${aliveMidway} of ${TASKS / 2} results alive half-way`);
  assert.ok(held <= SLOTS + 1, `${held} of ${TASKS} results alive at the end`);
  // The same tasks from the cache, kept by sampleTasks: every result stays, as its caller holds them.
  const kept = await sampleTasks(tasks, options(cache));
  const keptRefs = kept.map((r) => new WeakRef(r));
  assert.equal(alive(keptRefs), TASKS);
  assert.equal(
    kept.reduce((a, r) => a + r.requests, 0),
    0,
  );
  cache.close();
});

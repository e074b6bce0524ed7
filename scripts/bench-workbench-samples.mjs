// The workbench's samples view over 100,000 cached samples (1,000 math tasks of 100 samples,
// written to a cache as a run writes them; a third right, a third wrong, a third unparsable):
// reading and verifying them all in the worker thread, a state's groups (the collection held),
// a page of 50 of a group, and the samples of a group to add as cases, each as the extension
// host asks for it, with the host's event-loop delay watched (its max: the longest the host was
// blocked). Beside them the baseline: the editor's way of verifying cached samples, its restore
// on opening a file (sampleTasks over the cache, cache-only), in the host's own thread; and what
// the page is sent: the groups and a page, against every sample at once.
//   node --expose-gc scripts/bench-workbench-samples.mjs [--tasks 1000] [--samples 100]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const TASKS = arg('--tasks', 1000);
const SAMPLES = arg('--samples', 100);
const fig = (x) => +x.toFixed(1);
/** Watches this thread's event loop: `stop()` gives the longest it was held (a 2 ms tick's lateness). */
function watch() {
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last - 2);
    last = now;
  }, 2);
  return () => {
    clearInterval(timer);
    return fig(Math.max(max, performance.now() - last - 2, 0));
  };
}
const worker = path.join(ROOT, 'out/workbenchWorker.js');
if (!fs.existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
const core = await loadBundled('test/browser/workbenchSamplesMessages.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-wb-samples-'));
fs.mkdirSync(path.join(dir, '.git'));
const cacheDir = path.join(dir, '.vtask-cache');
const file = path.join(dir, 'tasks.vtask');
const models = { userModels: {}, workspaceModels: {}, model: 'local' };

// The task file, and its samples in the cache under the keys a run of it would use.
let text = 'vtask: 1\nmodels:\n  local: { base_url: "http://127.0.0.1:9/v1", model: bench }\ntasks:\n';
for (let i = 0; i < TASKS; i++)
  text += `  - id: t${i}\n    prompt: What is ${i} + 1?\n    samples: ${SAMPLES}\n    verify: { math: { answer: "${i + 1}" } }\n`;
fs.writeFileSync(file, text);
const parsed = core.parseTaskFile(text);
const tasks = core.runnableTasks(parsed).tasks;
const cache = core.SampleCache.open(cacheDir);
const answers = (i, s) => [`So \\boxed{${i + 1}}.`, `I get \\boxed{${i + 2}}.`, 'No idea, sorry.'][s % 3];
for (const [i, task] of tasks.entries()) {
  const profile = core.editorProfile(parsed, task, models);
  const request = core.requestOf(task, profile);
  for (let s = 0; s < SAMPLES; s++)
    cache.put(core.sampleKey(profile, request, s), {
      text: answers(i, s),
      finishReason: 'stop',
      model: 'bench',
      takenAt: new Date(0).toISOString(),
    });
}
cache.close();
const total = TASKS * SAMPLES;
const f = { bench: 'workbench-samples', node: process.version, tasks: TASKS, samples: total };

globalThis.gc?.();
await new Promise((r) => setTimeout(r, 200));
const idle = watch();
await new Promise((r) => setTimeout(r, 1000));
f.idle_max_delay_ms = idle();

const client = new core.WorkbenchClient(worker, { paths: [dir], options: { root: dir, cacheDir } });
await client.opened;
const delay = watch();
let t = performance.now();
const all = await client.request({ op: 'samples', state: 'all', models, trusted: true, fresh: true });
f.read_verify_ms = Math.round(performance.now() - t);
if (all.total !== total) throw new Error(`read ${all.total} of ${total} samples: ${all.notes.join('; ')}`);
t = performance.now();
const failed = await client.request({ op: 'samples', state: 'failed', models, trusted: true });
f.state_ms = fig(performance.now() - t);
const biggest = failed.groups[0];
t = performance.now();
const page = await client.request({
  op: 'sampleWindow',
  collection: failed.collection,
  group: biggest.key,
  start: 0,
  end: 50,
});
f.page_ms = fig(performance.now() - t);
t = performance.now();
const picked = await client.request({ op: 'sampleCases', collection: failed.collection, group: biggest.key });
f.group_cases_ms = fig(performance.now() - t);
f.host_max_blocked_ms = delay();
f.groups = failed.groups.map((g) => `${g.key} ${g.count}`);
// What the page is sent: the groups and one page, against every sample of the view at once.
f.page_message_kb = fig((JSON.stringify(failed).length + JSON.stringify(page).length) / 1024);
let everything = 0;
for (const g of all.groups)
  everything += JSON.stringify(
    await client.request({ op: 'sampleWindow', collection: all.collection, group: g.key, start: 0, end: total }),
  ).length;
f.unpaged_message_kb = fig(everything / 1024);
f.group_cases = picked.cases.length;
await client.close();

// The baseline: the editor's restore (cache-only sampleTasks) in this thread, watched the same way.
globalThis.gc?.();
const base = watch();
t = performance.now();
const again = core.SampleCache.open(cacheDir);
const runs = await core.sampleTasks(tasks, {
  file,
  cache: again,
  cacheOnly: true,
  signal: new AbortController().signal,
  trusted: true,
  profileFor: (task) => core.editorProfile(parsed, task, models),
  providerFor: () => {
    throw new Error('a cache-only run asked a model');
  },
});
f.baseline_in_thread_ms = Math.round(performance.now() - t);
f.baseline_host_max_blocked_ms = base();
again.close();
const verified = runs.reduce((a, r) => a + r.samples.length, 0);
if (verified !== total) throw new Error(`the baseline verified ${verified} of ${total}`);
fs.rmSync(dir, { recursive: true, force: true });
console.log(
  `workbench samples view, ${total.toLocaleString('en-US')} samples of ${TASKS.toLocaleString('en-US')} tasks: read and verified in the worker in ${f.read_verify_ms} ms, a state's groups ${f.state_ms} ms, a page of 50 ${f.page_ms} ms, a group's ${f.group_cases.toLocaleString('en-US')} samples as cases ${f.group_cases_ms} ms; host blocked at most ${f.host_max_blocked_ms} ms (idle: ${f.idle_max_delay_ms} ms); the page gets ${f.page_message_kb} KB, not ${f.unpaged_message_kb} KB; baseline (the editor's restore, in its thread) ${f.baseline_in_thread_ms} ms, host blocked up to ${f.baseline_host_max_blocked_ms} ms`,
);
console.log(JSON.stringify(f));

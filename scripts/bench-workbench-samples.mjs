// The workbench's samples view over 100,000 cached samples (1,000 math tasks of 100 samples,
// written to a cache as a run writes them; a third right, a third wrong, a third unparsable):
// reading and verifying them all in the worker thread, a state's groups (the collection held),
// a page of 50 of a group, and the samples of a group to add as cases, each as the extension
// host asks for it, with the host's event loop watched for each (scripts/holds.mjs: the longest
// it was held, in wall time and in the host thread's own CPU time, which a busy machine does not
// inflate). Beside them, in the same run, the build of commit `--old` (default 1ec360a) the same
// way (its worker and client, bundled from its sources); the editor's way of verifying cached
// samples, its restore on opening a file (sampleTasks over the cache, cache-only), in the host's
// own thread; and what the page is sent: the groups and a page, against every sample at once.
//   node --expose-gc scripts/bench-workbench-samples.mjs [--tasks 1000] [--samples 100] [--old REV]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkbenchWorker, loadBundled, ROOT, sourcesOf } from './bundle.mjs';
import { watchHolds } from './holds.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const TASKS = Number(arg('--tasks', 1000));
const SAMPLES = Number(arg('--samples', 100));
const OLD = arg('--old', '1ec360a');
const fig = (x) => +x.toFixed(1);
const worker = path.join(ROOT, 'out/workbenchWorker.js');
if (!fs.existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
const core = await loadBundled('test/browser/workbenchSamplesMessages.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-wb-samples-'));
// Apart from the dataset's folder, which the workbench reads whole.
const oldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-wb-samples-old-'));
const oldSources = sourcesOf(OLD, oldDir);
const old = {
  core: await loadBundled('test/browser/workbenchSamplesMessages.ts', oldSources),
  worker: await bundleWorkbenchWorker(oldSources, path.join(oldDir, 'oldWorkbenchWorker.js')),
};
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
const f = { bench: 'workbench-samples', node: process.version, old: OLD, tasks: TASKS, samples: total };

globalThis.gc?.();
await new Promise((r) => setTimeout(r, 200));
const idle = watchHolds();
await new Promise((r) => setTimeout(r, 1000));
f.idle_hold = idle();

/** Each action of the samples view as the host asks for it, from the client of `c` and `script`. */
async function samplesView(c, script) {
  const out = {};
  const client = new c.WorkbenchClient(script, { paths: [dir], options: { root: dir, cacheDir } });
  await client.opened;
  const act = async (name, request) => {
    globalThis.gc?.();
    const stop = watchHolds();
    const t0 = performance.now();
    const r = await client.request(request);
    out[`${name}_ms`] = fig(performance.now() - t0);
    out[`${name}_hold`] = stop();
    return r;
  };
  const all = await act('read_verify', { op: 'samples', state: 'all', models, trusted: true, fresh: true });
  if (all.total !== total) throw new Error(`read ${all.total} of ${total} samples: ${all.notes.join('; ')}`);
  const failed = await act('state', { op: 'samples', state: 'failed', models, trusted: true });
  const biggest = failed.groups[0];
  const page = await act('page', {
    op: 'sampleWindow',
    collection: failed.collection,
    group: biggest.key,
    start: 0,
    end: 50,
  });
  // A group to add as cases: what the host gets before it asks the user (this version: the count;
  // before, every sample of the group).
  const group = { collection: failed.collection, group: biggest.key };
  const picked = await act(
    'group_cases',
    c.casesEdits ? { op: 'casesSummary', ...group } : { op: 'sampleCases', ...group },
  );
  out.group_cases = typeof picked.cases === 'number' ? picked.cases : picked.cases.length;
  // The page of 50 ticked and added as cases expecting fail: the edit of the task file's text
  // (this version: made in the worker; before, in the host's thread).
  const ids = { collection: failed.collection, ids: page.map((x) => x.id) };
  globalThis.gc?.();
  const stop = watchHolds();
  const t0 = performance.now();
  let edited;
  if (c.casesEdits) {
    await client.request({ op: 'casesSummary', ...ids });
    const [e] = await client.request({ op: 'casesEdits', ...ids, expect: 'fail', texts: [['tasks.vtask', text]] });
    edited = text.slice(0, e.start) + e.text + text.slice(e.end);
  } else {
    const { cases } = await client.request({ op: 'sampleCases', ...ids });
    edited = c.addCasesToText(
      text,
      cases.map((x) => ({ task: x.task, response: x.response, expect: 'fail' })),
    ).text;
  }
  out.add_cases_ms = fig(performance.now() - t0);
  out.add_cases_hold = stop();
  out.added_cases = (edited.match(/expect: fail/g) ?? []).length;
  out.edited = edited;
  out.groups = failed.groups.map((g) => `${g.key} ${g.count}`);
  // What the page is sent: the groups and one page, against every sample of the view at once.
  out.page_message_kb = fig((JSON.stringify(failed).length + JSON.stringify(page).length) / 1024);
  let everything = 0;
  for (const g of all.groups)
    everything += JSON.stringify(
      await client.request({ op: 'sampleWindow', collection: all.collection, group: g.key, start: 0, end: total }),
    ).length;
  out.unpaged_message_kb = fig(everything / 1024);
  await client.close();
  return out;
}
f.before = await samplesView(old.core, old.worker);
f.now = await samplesView(core, worker);
// The same file, whichever version added the cases.
if (f.before.edited !== f.now.edited) throw new Error(`the cases added differ from ${OLD}'s`);
delete f.before.edited;
delete f.now.edited;

// The baseline: the editor's restore (cache-only sampleTasks) in this thread, watched the same way.
globalThis.gc?.();
const base = watchHolds();
const t = performance.now();
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
f.baseline_hold = base();
again.close();
const verified = runs.reduce((a, r) => a + r.samples.length, 0);
if (verified !== total) throw new Error(`the baseline verified ${verified} of ${total}`);
for (const d of [dir, oldDir]) fs.rmSync(d, { recursive: true, force: true });
const h = (x) => `${x.cpu_ms} ms CPU (${x.wall_ms} ms wall)`;
const line = (x) =>
  `read and verified in the worker in ${x.read_verify_ms} ms, a state's groups ${x.state_ms} ms, a page of 50 ${x.page_ms} ms, a group's ${x.group_cases.toLocaleString('en-US')} samples as cases ${x.group_cases_ms} ms, the page's ${x.added_cases} added as cases ${x.add_cases_ms} ms; the page gets ${x.page_message_kb} KB, not ${x.unpaged_message_kb} KB\n` +
  `    host held at most: reading ${h(x.read_verify_hold)}, a state ${h(x.state_hold)}, a page ${h(x.page_hold)}, a group as cases ${h(x.group_cases_hold)}, adding the page as cases ${h(x.add_cases_hold)}`;
console.log(
  `workbench samples view, ${total.toLocaleString('en-US')} samples of ${TASKS.toLocaleString('en-US')} tasks:\n  ${OLD}: ${line(f.before)}\n  now: ${line(f.now)}\n  idle: ${h(f.idle_hold)}; the editor's restore in its thread: ${f.baseline_in_thread_ms} ms, host held ${h(f.baseline_hold)}`,
);
console.log(JSON.stringify(f));

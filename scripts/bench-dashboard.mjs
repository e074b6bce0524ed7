// Benchmarks the dataset dashboard at 100,000 tasks in 1,000 files run by two models.
// (a) The extension host's side, on a dataset written to disk with its run log (the code the
// dashboard runs, without VS Code around it): the statistics the first time (every file parsed
// and its in-process cases run), when opened again (file summaries remembered), after an edit of
// one file and after a run appended to the run log, the comparison of two models and the view
// the page gets, and the duplicate diagnostics' search. Each phase gives its time and the longest
// the event loop was held (what a user waits for when they click during it; on a busy machine it
// includes waiting for a core). (b) The page drawing the statistics in Chromium (the
// message handled to a frame drawn). The last line is one JSON object of figures.
//   node scripts/build.mjs && node scripts/bench-dashboard.mjs [--files N] [--tasks-per-file N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadBundled, ROOT } from './bundle.mjs';
import { writeRunDataset } from './run-dataset.mjs';
import { chromiumPath, launchBrowser, openPanel, startPanelServer } from '../test/browser/panelPage.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const FILES = arg('--files', 1000);
const PER_FILE = arg('--tasks-per-file', 100);
const figures = {};

// --- (a) The host ---------------------------------------------------------------------------
const host = await loadBundled('scripts/dashboard-host.ts');
const {
  LiveDatasetStats,
  readRunLogIndex,
  TimeSlices,
  relativise,
  ComparisonPages,
  findFindingsInThread,
  parseTaskFile,
  runnableTasks,
  taskRunKey,
} = host;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-dashboard-'));
let t0 = performance.now();
const ds = await writeRunDataset({ dir, files: FILES, tasksPerFile: PER_FILE });
console.log(
  `generated ${ds.tasks.toLocaleString('en-US')} tasks in ${FILES} files and two models' runs in ${Math.round(performance.now() - t0)} ms`,
);

/**
 * Runs a phase and measures it: wall time, and the longest the event loop was held meanwhile (the
 * longest gap between the ticks of a 1 ms timer: what a click or a message waits at worst).
 */
async function phase(name, what, fn) {
  let last = performance.now();
  let held = 0;
  let on = true;
  const tick = () => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
    if (on) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const t = performance.now();
  const out = await fn();
  const ms = Math.round(performance.now() - t);
  // One more tick after work that never yielded: it measures that work.
  await new Promise((resolve) => setTimeout(resolve, 5));
  on = false;
  figures[name] = { ms, longest_block_ms: Math.round(held) };
  console.log(`${what}: ${ms.toLocaleString('en-US')} ms, the event loop held at most ${Math.round(held)} ms`);
  return out;
}

// The run log as the extension reads it (RunLogs): in the bundled worker thread.
const readLog = () =>
  readRunLogIndex(ds.cacheDir, { worker: path.join(ROOT, 'out/overviewWorker.js'), slices: new TimeSlices() });
let log = await phase(
  'dashboard_host_read_run_log',
  `the run log read (${ds.tasks.toLocaleString('en-US')} tasks × 2 models)`,
  readLog,
);
const files = ds.files.map((file) => ({ file, cacheDir: ds.cacheDir }));
const sources = () => ({
  read: (f) => fs.readFileSync(f, 'utf8'),
  runLog: async () => log,
  duplicates: [],
  contamination: [],
});
const compute = (live) => live.compute(files, sources(), { slices: new TimeSlices() });

let live = new LiveDatasetStats();
const first = await phase('dashboard_host_first', 'statistics, first time (every file parsed, its cases run)', () =>
  compute(live),
);
if (first.tasks !== ds.tasks || first.models['model-a']?.tasks !== ds.tasks)
  throw new Error(`saw ${first.tasks} tasks, ${first.models['model-a']?.tasks} runs of model-a; expected ${ds.tasks}`);
live = new LiveDatasetStats();
await phase('dashboard_host_reopen', 'statistics, opened again (summaries remembered in the cache folder)', () =>
  compute(live),
);

// An edit of one file: its first task's prompt changed, so its runs are stale.
const edited = ds.files[FILES >> 1];
fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace(/(\n {4}prompt: "?)/, '$1Again, '));
live.changed([edited]);
const afterEdit = await phase('dashboard_host_after_edit', 'statistics after an edit of one file', () => compute(live));
if (!afterEdit.models['model-a']?.stale) throw new Error('the edited task should have stale runs');

// A run of one file by model-a appended, as vtask run appends it; the log is read again.
const runFile = ds.files[0];
const parsed = parseTaskFile(fs.readFileSync(runFile, 'utf8'));
host.appendRunRecords(
  ds.cacheDir,
  parsed.tasks
    .filter((e) => e.id !== undefined)
    .map((e) => ({
      file: host.runLogPath(ds.cacheDir, runFile),
      task: e.id,
      model: 'model-a',
      key: taskRunKey(parsed, e),
      at: '2026-02-01T00:00:00.000Z',
      samples: 8,
      passed: 4,
      pass_rate: 0.5,
      band: 'learnable',
      signal_share: 1,
    })),
);
const afterRun = await phase(
  'dashboard_host_after_run',
  'statistics after a run appended to the run log (log read again)',
  async () => {
    log = await readLog();
    return compute(live);
  },
);

const names = new Map(ds.files.map((f) => [f, path.relative(dir, f)]));
const name = (f) => names.get(f) ?? f;
await phase(
  'dashboard_host_view',
  'the statistics as the page gets them (files named, without the per-task results)',
  () => relativise(afterRun, name),
);
await phase('dashboard_host_compare', 'the comparison of the two models, the first time', () =>
  new ComparisonPages(live.resultsByFile, name).page('model-a', 'model-b', undefined, 0, 0, 0, new TimeSlices()),
);
// After one more run of one file, only that file is compared again.
const parsedAgain = parseTaskFile(fs.readFileSync(ds.files[1], 'utf8'));
host.appendRunRecords(
  ds.cacheDir,
  parsedAgain.tasks
    .filter((e) => e.id !== undefined)
    .map((e) => ({
      file: host.runLogPath(ds.cacheDir, ds.files[1]),
      task: e.id,
      model: 'model-b',
      key: taskRunKey(parsedAgain, e),
      at: '2026-02-02T00:00:00.000Z',
      samples: 8,
      passed: 8,
      pass_rate: 1,
      band: 'too_easy',
      signal_share: 0,
    })),
);
const pages = await phase(
  'dashboard_host_run_and_compare',
  'another run of one file: the log read, the statistics and the comparison again',
  async () => {
    log = await readLog();
    await compute(live);
    const p = new ComparisonPages(live.resultsByFile, name);
    await p.page('model-a', 'model-b', undefined, 0, 0, 0, new TimeSlices());
    return p;
  },
);
t0 = performance.now();
await pages.page('model-a', 'model-b', [0, 0], 3, 2, 1);
figures.dashboard_host_compare_page_ms = +(performance.now() - t0).toFixed(1);
console.log(`then a page of each list: ${figures.dashboard_host_compare_page_ms} ms`);
// The duplicate diagnostics search the prompts the task index holds (each task's last user message).
const prompts = ds.files.flatMap((file) =>
  runnableTasks(parseTaskFile(fs.readFileSync(file, 'utf8'))).tasks.map((t) => ({
    ref: { file, task: t.id },
    text: t.prompt,
  })),
);
const found = await phase(
  'duplicate_search',
  `the duplicate diagnostics' search (${prompts.length.toLocaleString('en-US')} prompts, in the worker thread)`,
  () =>
    findFindingsInThread(
      { prompts, threshold: 0.8, benchmarks: [] },
      { worker: path.join(ROOT, 'out/overviewWorker.js') },
    ),
);
console.log(`  ${found.duplicates.length.toLocaleString('en-US')} duplicate pairs`);
fs.rmSync(dir, { recursive: true, force: true });

// --- (b) The page -------------------------------------------------------------------------
const core = await loadBundled('test/browser/dashboardMessages.ts');
const { results, ...stats } = core.makeStats({ files: FILES, tasksPerFile: PER_FILE });
const comparison = await new core.ComparisonPages([results]).page('model-a', 'model-b', undefined, 0);
if (chromiumPath()) {
  const server = await startPanelServer();
  const browser = await launchBrowser();
  try {
    const page = await openPanel(browser, server, { pageName: 'dashboard' });
    await page.evaluate(
      (s) => {
        window.__stats = s;
      },
      { type: 'stats', stats, folder: 'bench' },
    );
    const drawn = await page.evaluate(() => {
      const t = performance.now();
      return window.__deliver(window.__stats).then(() => performance.now() - t);
    });
    const compared = await page.evaluate(
      (c) => {
        const t = performance.now();
        return window.__deliver(c).then(() => performance.now() - t);
      },
      { type: 'comparison', comparison },
    );
    figures.dashboard_draw_100k_ms = Math.round(drawn);
    figures.dashboard_draw_comparison_ms = Math.round(compared);
    console.log(
      `dashboard page, ${(FILES * PER_FILE).toLocaleString('en-US')} tasks in ${FILES} files: drawn in ${figures.dashboard_draw_100k_ms} ms, the comparison in ${figures.dashboard_draw_comparison_ms} ms`,
    );
  } finally {
    await browser.close();
    await server.close();
  }
} else console.log('dashboard page: skipped (Chromium not found)');
console.log(JSON.stringify(figures));

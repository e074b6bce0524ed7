// The workbench's speed on Parquet datasets of 100,000 and 1,000,000 rows (written by the
// exporter; every fourth row carries a recorded pass rate): opening (reading every row into the
// index in its worker thread), a sort, a filter and a full-text search, each as the extension
// host asks for it (a request to the worker, then the first window of 100 rows). Beside them the
// baseline: the same filter and sort over plain row objects in the host's own thread (what a
// table without an index of its own does), and the old table view's open (footer and first
// row only; it had no sort or filter). The host's event-loop delay (perf_hooks) is measured
// during the worker's work: its max is the longest the host was blocked.
//   node --expose-gc scripts/bench-workbench.mjs [--rows 100000,1000000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const SIZES = arg('--rows', '100000,1000000').split(',').map(Number);
const fig = (x) => +x.toFixed(1);
const worker = path.join(ROOT, 'out/workbenchWorker.js');
if (!fs.existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
const core = await loadBundled('test/browser/workbenchMessages.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-workbench-'));
fs.mkdirSync(path.join(dir, '.git'));
const figures = { bench: 'workbench', node: process.version };

const QUERY = 'kind:constraints model:recorded rate<0.6';
const SEARCH = 'clips';
const SORT = { column: 'id', descending: true };

for (const rows of SIZES) {
  const file = path.join(dir, `train-${rows}.parquet`);
  let t = performance.now();
  await core.writeDataset(file, rows);
  const f = { file_mb: +(fs.statSync(file).size / 1e6).toFixed(1), write_ms: Math.round(performance.now() - t) };

  // The workbench: every call from the host, with the host's event loop watched (after the
  // garbage of writing the file is collected, so that its pause is not counted as the workbench's).
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  // The machine's own noise: the same measure over a second of doing nothing.
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 1000));
  idle.disable();
  f.idle_max_delay_ms = fig(idle.max / 1e6);
  const openDelay = monitorEventLoopDelay({ resolution: 5 });
  openDelay.enable();
  t = performance.now();
  const client = new core.WorkbenchClient(worker, { paths: [file], options: { root: dir } });
  const opened = await client.opened;
  f.open_ms = Math.round(performance.now() - t);
  openDelay.disable();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  if (opened.rows !== rows) throw new Error(`read ${opened.rows} of ${rows} rows`);
  const timed = async (request) => {
    const t0 = performance.now();
    const r = await client.request(request);
    await client.request({ op: 'window', start: 0, end: 100 });
    return { ms: fig(performance.now() - t0), r };
  };
  const sort = await timed({ op: 'view', query: '', sort: SORT });
  const filter = await timed({ op: 'view', query: QUERY });
  const search = await timed({ op: 'view', query: SEARCH });
  const filterSorted = await timed({ op: 'view', query: QUERY, sort: { column: 'rate:recorded', descending: true } });
  delay.disable();
  Object.assign(f, {
    sort_ms: sort.ms,
    filter_ms: filter.ms,
    filter_rows: filter.r.size,
    search_ms: search.ms,
    search_rows: search.r.size,
    filter_sort_ms: filterSorted.ms,
    host_max_blocked_ms: fig(delay.max / 1e6),
    host_p99_delay_ms: fig(delay.percentile(99) / 1e6),
    host_max_blocked_open_ms: fig(openDelay.max / 1e6),
  });
  // Every row, as objects, for the baseline (taken from the worker a window at a time).
  const all = [];
  await client.request({ op: 'view', query: '' });
  for (let s = 0; s < rows; s += 50_000)
    all.push(...(await client.request({ op: 'window', start: s, end: s + 50_000 })));
  await client.close();

  // The baseline: plain objects filtered and sorted in this thread (it blocks for all of it).
  t = performance.now();
  const kept = all.filter(
    (r) =>
      r.kind === 'constraints' &&
      r.runs.some((x, i) => opened.models[i] === 'recorded' && x && x.band !== 'error' && x.rate < 0.6),
  );
  f.baseline_filter_ms = fig(performance.now() - t);
  if (kept.length !== filter.r.size) throw new Error(`baseline kept ${kept.length}, the index ${filter.r.size}`);
  t = performance.now();
  [...all].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : a.n - b.n));
  f.baseline_sort_ms = fig(performance.now() - t);
  t = performance.now();
  f.baseline_search_rows = all.filter((r) => r.prompt.toLowerCase().includes(SEARCH)).length;
  f.baseline_search_ms = fig(performance.now() - t);
  t = performance.now();
  const old = await core.DatasetTable.open(file);
  await old.window(0, 100);
  f.old_table_open_ms = fig(performance.now() - t);
  figures[`rows_${rows}`] = f;
  console.log(
    `workbench, ${rows.toLocaleString('en-US')} rows (${f.file_mb} MB Parquet): open ${f.open_ms} ms, sort ${f.sort_ms} ms, filter ${f.filter_ms} ms, search ${f.search_ms} ms, host blocked at most ${f.host_max_blocked_open_ms} ms while opening, ${f.host_max_blocked_ms} ms while sorting and filtering (idle: ${f.idle_max_delay_ms} ms); baseline in-thread filter ${f.baseline_filter_ms} ms, sort ${f.baseline_sort_ms} ms, search ${f.baseline_search_ms} ms; old table open ${f.old_table_open_ms} ms (no sort or filter)`,
  );
  fs.rmSync(file);
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));

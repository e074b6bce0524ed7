// The workbench's speed on Parquet datasets of 100,000 and 1,000,000 rows (written by the
// exporter; every fourth row carries a recorded pass rate): opening (reading every row into the
// index in its worker thread), a sort, a filter and a full-text search, each as the extension
// host asks for it (a request to the worker, then the first window of 100 rows); then "Select all
// matching" as the host passes it to the page (the worker's answer, serialized as postMessage
// does), and a bulk action's message back (parsed and checked as the host does) up to the
// selection the action starts with. Each open runs in a process of its own, so that its peak
// memory is its own; beside this version, in the same run on the same file, the build of commit
// `--old` (default 1ec360a, before the selection crossed the host as runs and bulk actions got
// their own worker): its worker and its host side, bundled from its sources (`git archive`). CPU
// is the whole process's (the worker's thread included): on a busy machine wall time mostly
// measures the others. For each action, the longest the host's event loop was held
// (scripts/holds.mjs): in wall time, and in the host thread's own CPU time, which a busy machine
// does not inflate; beside the same over a second of idling.
//   node --expose-gc scripts/bench-workbench.mjs [--rows 100000,1000000] [--old REV]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { bundleWorkbenchWorker, loadBundled, ROOT, sourcesOf } from './bundle.mjs';
import { watchHolds } from './holds.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const fig = (x) => +x.toFixed(1);
const QUERY = 'kind:constraints model:recorded rate<0.6';
const SEARCH = 'clips';
const SORT = { column: 'id', descending: true };

if (process.argv.includes('--child'))
  await child(arg('--worker'), arg('--file'), Number(arg('--expect')), arg('--sources', ROOT));
else await main();

/**
 * One open of `file` by the worker `worker`, as the host of the sources in `sources` drives it;
 * prints its figures as JSON.
 */
async function child(worker, file, rows, sources) {
  const core = await loadBundled('test/browser/workbenchMessages.ts', sources);
  globalThis.gc?.();
  const idle = watchHolds();
  await new Promise((r) => setTimeout(r, 1000));
  const f = { idle_hold: idle() };
  const cpu = (c0) => Math.round((process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000);
  let hold = watchHolds();
  let t = performance.now();
  let c0 = process.cpuUsage();
  const client = new core.WorkbenchClient(worker, { paths: [file], options: { root: path.dirname(file) } });
  const opened = await client.opened;
  f.open_ms = Math.round(performance.now() - t);
  f.open_cpu_ms = cpu(c0);
  f.open_hold = hold();
  if (opened.rows !== rows) throw new Error(`read ${opened.rows} of ${rows} rows`);
  // The largest answer the host takes in, as the structured clone it arrives as.
  let largest = 0;
  const timed = async (request) => {
    const stop = watchHolds();
    const t0 = performance.now();
    const r = await client.request(request);
    const w = await client.request({ op: 'window', start: 0, end: 100 });
    largest = Math.max(largest, v8.serialize(r).length, v8.serialize(w).length);
    return { ms: fig(performance.now() - t0), hold: stop(), r };
  };
  const sort = await timed({ op: 'view', query: '', sort: SORT });
  const filter = await timed({ op: 'view', query: QUERY });
  const search = await timed({ op: 'view', query: SEARCH });
  const searchAgain = await timed({ op: 'view', query: 'natalia' });
  const filterSorted = await timed({ op: 'view', query: QUERY, sort: { column: 'rate:recorded', descending: true } });
  // Select all matching, of the whole dataset: the worker's answer, and the message the page gets
  // (postMessage serializes it as JSON).
  await client.request({ op: 'view', query: '' });
  hold = watchHolds();
  t = performance.now();
  const selected = await client.request({ op: 'rows', start: 0, end: rows });
  const toPage = JSON.stringify({ type: 'select', rows: selected });
  f.select_all_ms = fig(performance.now() - t);
  f.select_all_hold = hold();
  f.select_all_message_bytes = toPage.length;
  // The page audits that selection: its message is parsed and checked, then the selection the
  // action starts with is gathered (this version: packed by the worker; before: every row's view
  // in the host, grouped there).
  const fromPage = JSON.stringify({ type: 'audit', rows: selected });
  hold = watchHolds();
  t = performance.now();
  const msg = core.fromWorkbench.parse(JSON.parse(fromPage));
  const s =
    typeof msg.rows === 'string'
      ? await client.request({ op: 'selection', rows: msg.rows })
      : core.selectionFiles(await client.request({ op: 'rowsByNumber', rows: msg.rows }));
  f.bulk_selection_ms = fig(performance.now() - t);
  f.bulk_selection_hold = hold();
  f.bulk_selection_rows = s.rowFileRows + s.invalidRows + s.tasks;
  Object.assign(f, {
    sort_ms: sort.ms,
    sort_hold: sort.hold,
    filter_ms: filter.ms,
    filter_hold: filter.hold,
    filter_rows: filter.r.size,
    search_ms: search.ms,
    search_hold: search.hold,
    search_rows: search.r.size,
    search_again_ms: searchAgain.ms,
    search_again_hold: searchAgain.hold,
    filter_sort_ms: filterSorted.ms,
    filter_sort_hold: filterSorted.hold,
    largest_answer_kb: fig(largest / 1024),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  });
  await client.close();
  console.log(JSON.stringify(f));
}

/** The sources of commit `rev` (src and test) and its worker, bundled from them. */
async function oldBuild(rev, dir) {
  const sources = sourcesOf(rev, dir);
  return { worker: await bundleWorkbenchWorker(sources, path.join(dir, 'oldWorkbenchWorker.js')), sources };
}

async function main() {
  const SIZES = arg('--rows', '100000,1000000').split(',').map(Number);
  const OLD = arg('--old', '1ec360a');
  const worker = path.join(ROOT, 'out/workbenchWorker.js');
  if (!fs.existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
  const core = await loadBundled('test/browser/workbenchMessages.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-workbench-'));
  fs.mkdirSync(path.join(dir, '.git'));
  const old = await oldBuild(OLD, dir);
  const figures = { bench: 'workbench', node: process.version, old: OLD };
  const run = (build, file, rows) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--expose-gc',
          import.meta.filename,
          '--child',
          '--worker',
          build.worker,
          '--sources',
          build.sources,
          '--file',
          file,
          '--expect',
          String(rows),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      )
        .trim()
        .split('\n')
        .at(-1),
    );
  for (const rows of SIZES) {
    const file = path.join(dir, `train-${rows}.parquet`);
    const t = performance.now();
    await core.writeDataset(file, rows);
    const f = { file_mb: +(fs.statSync(file).size / 1e6).toFixed(1), write_ms: Math.round(performance.now() - t) };
    f.before = run(old, file, rows);
    f.after = run({ worker, sources: ROOT }, file, rows);
    figures[`rows_${rows}`] = f;
    const h = (x) => `${x.cpu_ms} ms CPU (${x.wall_ms} ms wall)`;
    const line = (x) =>
      `open ${x.open_ms} ms (${x.open_cpu_ms} ms CPU), sort ${x.sort_ms} ms, filter ${x.filter_ms} ms, search ${x.search_ms} ms (again ${x.search_again_ms} ms), select all ${x.select_all_ms} ms (${x.select_all_message_bytes} bytes to the page), a bulk action's selection ${x.bulk_selection_ms} ms, largest answer ${x.largest_answer_kb} KB, peak RSS ${x.peak_rss_mb} MB\n` +
      `    host held at most: open ${h(x.open_hold)}, sort ${h(x.sort_hold)}, filter ${h(x.filter_hold)}, search ${h(x.search_hold)}, again ${h(x.search_again_hold)}, filter+sort ${h(x.filter_sort_hold)}, select all ${h(x.select_all_hold)}, bulk selection ${h(x.bulk_selection_hold)}; idle ${h(x.idle_hold)}`;
    console.log(
      `workbench, ${rows.toLocaleString('en-US')} rows (${f.file_mb} MB Parquet):\n  ${OLD}: ${line(f.before)}\n  now: ${line(f.after)}`,
    );
    fs.rmSync(file);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(figures));
}

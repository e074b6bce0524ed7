// The workbench's speed on Parquet datasets of 100,000 and 1,000,000 rows (written by the
// exporter; every fourth row carries a recorded pass rate): opening (reading every row into the
// index in its worker thread), a sort, a filter and a full-text search, each as the extension
// host asks for it (a request to the worker, then the first window of 100 rows). Each open runs
// in a process of its own, so that its peak memory is its own; beside this version's worker, in
// the same run on the same file, the worker of commit `--old` (default df093ee, before the
// Parquet rows were built from their columns), bundled from its sources (`git archive`). CPU is
// the whole process's (the worker's thread included): on a busy machine wall time mostly measures
// the others. The host's event-loop delay (perf_hooks) is measured during the worker's work: its
// max is the longest the host was kept waiting, beside the same measure over a second of idling.
//   node --expose-gc scripts/bench-workbench.mjs [--rows 100000,1000000] [--old REV]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import * as esbuild from 'esbuild';
import { loadBundled, ROOT } from './bundle.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const fig = (x) => +x.toFixed(1);
const QUERY = 'kind:constraints model:recorded rate<0.6';
const SEARCH = 'clips';
const SORT = { column: 'id', descending: true };

if (process.argv.includes('--child')) await child(arg('--worker'), arg('--file'), Number(arg('--expect')));
else await main();

/** One open of `file` by the worker `worker`, as the host drives it; prints its figures as JSON. */
async function child(worker, file, rows) {
  const core = await loadBundled('test/browser/workbenchMessages.ts');
  globalThis.gc?.();
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 1000));
  idle.disable();
  const f = { idle_max_delay_ms: fig(idle.max / 1e6) };
  const cpu = (c0) => Math.round((process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1000);
  const openDelay = monitorEventLoopDelay({ resolution: 5 });
  openDelay.enable();
  let t = performance.now();
  let c0 = process.cpuUsage();
  const client = new core.WorkbenchClient(worker, { paths: [file], options: { root: path.dirname(file) } });
  const opened = await client.opened;
  f.open_ms = Math.round(performance.now() - t);
  f.open_cpu_ms = cpu(c0);
  openDelay.disable();
  if (opened.rows !== rows) throw new Error(`read ${opened.rows} of ${rows} rows`);
  // The largest answer the host takes in, as the structured clone it arrives as.
  let largest = 0;
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const timed = async (request) => {
    const t0 = performance.now();
    const r = await client.request(request);
    const w = await client.request({ op: 'window', start: 0, end: 100 });
    largest = Math.max(largest, v8.serialize(r).length, v8.serialize(w).length);
    return { ms: fig(performance.now() - t0), r };
  };
  const sort = await timed({ op: 'view', query: '', sort: SORT });
  const filter = await timed({ op: 'view', query: QUERY });
  const search = await timed({ op: 'view', query: SEARCH });
  const searchAgain = await timed({ op: 'view', query: 'natalia' });
  const filterSorted = await timed({ op: 'view', query: QUERY, sort: { column: 'rate:recorded', descending: true } });
  const selectAll = await timed({ op: 'rows', start: 0, end: rows });
  delay.disable();
  Object.assign(f, {
    sort_ms: sort.ms,
    filter_ms: filter.ms,
    filter_rows: filter.r.size,
    search_ms: search.ms,
    search_rows: search.r.size,
    search_again_ms: searchAgain.ms,
    filter_sort_ms: filterSorted.ms,
    select_all_ms: selectAll.ms,
    largest_answer_kb: fig(largest / 1024),
    host_max_delay_open_ms: fig(openDelay.max / 1e6),
    host_max_delay_queries_ms: fig(delay.max / 1e6),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  });
  await client.close();
  console.log(JSON.stringify(f));
}

/** The worker of commit `rev`, bundled from its sources. */
async function oldWorker(rev, dir) {
  const src = path.join(dir, 'old');
  fs.mkdirSync(src);
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${rev} src | tar -x -C "${src}"`]);
  const outfile = path.join(dir, 'oldWorkbenchWorker.js');
  await esbuild.build({
    entryPoints: [path.join(src, 'src/core/workbench/workbenchWorker.ts')],
    nodePaths: [path.join(ROOT, 'node_modules')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    define: { VTASK_VERSION: '"bench"' },
    loader: { '.py': 'text' },
  });
  return outfile;
}

async function main() {
  const SIZES = arg('--rows', '100000,1000000').split(',').map(Number);
  const OLD = arg('--old', 'df093ee');
  const worker = path.join(ROOT, 'out/workbenchWorker.js');
  if (!fs.existsSync(worker)) throw new Error(`${worker} is not built: run npm run build`);
  const core = await loadBundled('test/browser/workbenchMessages.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-workbench-'));
  fs.mkdirSync(path.join(dir, '.git'));
  const old = await oldWorker(OLD, dir);
  const figures = { bench: 'workbench', node: process.version, old: OLD };
  const run = (w, file, rows) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--expose-gc', import.meta.filename, '--child', '--worker', w, '--file', file, '--expect', String(rows)],
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
    f.after = run(worker, file, rows);
    figures[`rows_${rows}`] = f;
    const line = (x) =>
      `open ${x.open_ms} ms (${x.open_cpu_ms} ms CPU), sort ${x.sort_ms} ms, filter ${x.filter_ms} ms, search ${x.search_ms} ms (again ${x.search_again_ms} ms), select all ${x.select_all_ms} ms, largest answer ${x.largest_answer_kb} KB, peak RSS ${x.peak_rss_mb} MB, host delay at most ${x.host_max_delay_open_ms} ms opening, ${x.host_max_delay_queries_ms} ms querying (idle ${x.idle_max_delay_ms} ms)`;
    console.log(
      `workbench, ${rows.toLocaleString('en-US')} rows (${f.file_mb} MB Parquet):\n  ${OLD}: ${line(f.before)}\n  now: ${line(f.after)}`,
    );
    fs.rmSync(file);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(figures));
}

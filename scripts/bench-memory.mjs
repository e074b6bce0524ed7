#!/usr/bin/env node
// Peak RSS (and CPU time) of `vtask test`, `vtask stats` and `vtask check` on one task file of
// 100,000 and 1,000,000 tasks, as a user runs them (a real process each; the peak read from the
// process itself at exit, threads included). The file is gen-large's compact layout (a million
// tasks in 53 MB, under the 64 MB a task file may have); one task in ten has two cases.
//
//   node scripts/bench-memory.mjs [--sizes 100000,1000000] [--commands test,stats,check,stats-cached,stats-checks]
//                                 [--baseline PATH/TO/cli.js [--baseline PATH/TO/another/cli.js]] [--rounds N]
//
// --baseline    another build of the CLI (say, the merge base's) measured beside this one; given
//               again, a third build (`baseline_2`), and so on
// stats-cached  `vtask stats` a second time: the file's summary, its case outcomes and its
//               duplicates all remembered (a summary read back, no parse)
// stats-checks  `vtask stats` once the file's summary is remembered, with the duplicate search
//               run again (its remembered result removed): the search without the parse
// --rounds      each run N times, the builds in turn; the least peak and CPU are kept, and beside
//               them the most peak (`most_peak_rss_mb`): a peak moves by tens of megabytes with
//               when the collector's full collections come
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateCompactTaskFile } from './gen-large.mjs';

const root = path.resolve(import.meta.dirname, '..');
const opt = (name, def) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? def : process.argv[i + 1];
};
const SIZES = opt('--sizes', '100000,1000000').split(',').map(Number);
const COMMANDS = opt('--commands', 'test,stats,check').split(',');
const ROUNDS = Number(opt('--rounds', 1));
const baselines = process.argv.flatMap((a, i) => (a === '--baseline' ? [path.resolve(process.argv[i + 1])] : []));
const clis = {
  current: path.join(root, 'out/cli.js'),
  ...Object.fromEntries(baselines.map((cli, i) => [i ? `baseline_${i + 1}` : 'baseline', cli])),
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-bench-memory-'));
const preload = path.join(dir, 'usage.cjs');
fs.writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\npeak-rss ' + u.maxRSS + ' cpu-us ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n",
);

/** Each command's arguments; `stats` in its own folder, so that one run's memo does not serve the next. */
const ARGS = {
  test: (f) => ['test', f],
  stats: (f) => ['stats', f, '--json', '--cache-dir', fs.mkdtempSync(path.join(dir, 'cache-'))],
  check: (f) => ['check', f],
  'stats-cached': (f) => ['stats', f, '--json', '--cache-dir', fs.mkdtempSync(path.join(dir, 'cache-'))],
  'stats-checks': (f) => ['stats', f, '--json', '--cache-dir', fs.mkdtempSync(path.join(dir, 'cache-'))],
};

/**
 * Before a measured run: `stats-cached` has everything remembered, `stats-checks` the summary and
 * no remembered check. The figures of the run that filled the cache, if one did.
 */
function prepare(cli, command, args) {
  if (command !== 'stats-checks' && command !== 'stats-cached') return undefined;
  const first = run(cli, args);
  if (command === 'stats-cached') return first;
  const stats = path.join(args[args.indexOf('--cache-dir') + 1], 'stats');
  for (const v of fs.readdirSync(stats)) fs.rmSync(path.join(stats, v, 'checks'), { recursive: true, force: true });
  return first;
}

function run(cli, args) {
  const r = spawnSync(process.execPath, ['-r', preload, cli, ...args], {
    encoding: 'utf8',
    cwd: dir,
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const m = /peak-rss (\d+) cpu-us (\d+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !m)
    throw new Error(`vtask ${args.join(' ')} failed (${r.status}): ${(r.stderr ?? '').slice(-400)}`);
  return { peak_rss_mb: Math.round(Number(m[1]) / 1024), cpu_ms: Math.round(Number(m[2]) / 1000) };
}

/** A run's figures; beside them, those of the run that filled the cache before it (`first_run`). */
function measure(cli, command, args) {
  const first = prepare(cli, command, args);
  return { ...run(cli, args), ...(first ? { first_run: first } : {}) };
}

/** The least of two rounds' figures (a first run's too), and the most peak seen. */
function least(a, b) {
  const both = (x, y) => ({
    peak_rss_mb: Math.min(x.peak_rss_mb, y.peak_rss_mb),
    cpu_ms: Math.min(x.cpu_ms, y.cpu_ms),
  });
  return {
    ...both(a, b),
    most_peak_rss_mb: Math.max(a.most_peak_rss_mb ?? a.peak_rss_mb, b.peak_rss_mb),
    ...(a.first_run && b.first_run ? { first_run: both(a.first_run, b.first_run) } : {}),
  };
}

const figures = { load_average: +os.loadavg()[0].toFixed(2) };
try {
  for (const n of SIZES) {
    const file = path.join(dir, `tasks-${n}.vtask`);
    fs.writeFileSync(file, generateCompactTaskFile(n));
    // A file changed less than 2 s (statIndex.ts's RACY_MS) before a run read it is hashed again by
    // the next run, which then reads its text whole: the cached runs would measure that read.
    if (COMMANDS.some((c) => c.startsWith('stats-')))
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
    const mb = (fs.statSync(file).size / 1e6).toFixed(1);
    for (const command of COMMANDS) {
      const f = {};
      for (let round = 0; round < ROUNDS; round++)
        for (const [name, cli] of Object.entries(clis)) {
          const m = measure(cli, command, ARGS[command](file));
          f[name] = f[name] ? least(f[name], m) : m;
        }
      figures[`${command}_${n}`] = f;
      console.log(
        `vtask ${command}, ${n} tasks in one file (${mb} MB): ${Object.entries(f)
          .map(
            ([k, v]) =>
              `${k} peak RSS ${v.peak_rss_mb} MB${v.most_peak_rss_mb === undefined ? '' : ` (most ${v.most_peak_rss_mb} MB)`} (CPU ${v.cpu_ms} ms)` +
              (v.first_run ? ` [first run ${v.first_run.peak_rss_mb} MB, CPU ${v.first_run.cpu_ms} ms]` : ''),
          )
          .join(', ')}`,
      );
    }
    fs.rmSync(file);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(figures));

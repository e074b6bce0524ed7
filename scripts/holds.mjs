// How long a thread's event loop is held, for the benchmarks of work the extension host must not
// wait for. A timer ticks every few milliseconds; the longest gap between two ticks is the longest
// hold in wall time, which on a busy machine mostly measures the other processes (a thread ready
// to run waits for a core). So beside it, the thread's own CPU time within each gap (Linux's
// /proc/thread-self/schedstat, in nanoseconds): the longest of those is the longest the thread's
// own work ran without giving its loop back.
import fs from 'node:fs';

const SCHEDSTAT = '/proc/thread-self/schedstat';
const hasSchedstat = fs.existsSync(SCHEDSTAT);

/** This thread's CPU time so far in ms (NaN where Linux's schedstat is missing). */
function threadCpuMs() {
  if (!hasSchedstat) return NaN;
  return Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;
}

const fig = (x) => (Number.isFinite(x) ? +x.toFixed(1) : null);

/**
 * Starts watching this thread's event loop; `stop()` gives the longest hold: `wall_ms` (a tick's
 * gap, less the tick) and `cpu_ms` (this thread's CPU time within its busiest gap).
 */
export function watchHolds(tickMs = 2) {
  let last = performance.now();
  let lastCpu = threadCpuMs();
  let wall = 0;
  let cpu = 0;
  const gap = () => {
    const now = performance.now();
    const nowCpu = threadCpuMs();
    wall = Math.max(wall, now - last - tickMs);
    cpu = Math.max(cpu, nowCpu - lastCpu);
    last = now;
    lastCpu = nowCpu;
  };
  const timer = setInterval(gap, tickMs);
  return () => {
    clearInterval(timer);
    gap();
    return { wall_ms: fig(Math.max(0, wall)), cpu_ms: fig(cpu) };
  };
}

/** Runs `work` watched: its result, its wall time and its longest hold. */
export async function watched(work, tickMs = 2) {
  const stop = watchHolds(tickMs);
  const t = performance.now();
  const result = await work();
  const ms = Math.round(performance.now() - t);
  return { result, ms, hold: stop() };
}

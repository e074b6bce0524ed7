// The CPU time of a benchmark and of every process it starts, sandboxed ones included: from a
// cgroup of its own when one can be made (v1 cpuacct or v2), else from the rusage of reaped
// children (which misses what runs inside bubblewrap's PID namespace). Shared by the benchmarks.
import fs from 'node:fs';
import path from 'node:path';

/** CPU ms of the children this process has reaped, from /proc/self/stat (fields 16 and 17, in ticks of 10 ms). */
export function childrenCpuMs() {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** CPU ms another process (by pid) has used so far, from /proc/<pid>/stat (fields 14 and 15, in ticks of 10 ms). */
export function processCpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

export const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * The CPU ms used so far by this process and every process it starts. From a cgroup of its own
 * when one can be made (v1 cpuacct or v2): the sandboxed programs stay in it. Otherwise from the
 * reaped children's rusage, which misses what runs inside bubblewrap's PID namespace.
 */
export function cpuMeter() {
  const name = `vtask-bench-${process.pid}`;
  const kinds = [
    ['/sys/fs/cgroup/cpuacct', (d) => Number(fs.readFileSync(path.join(d, 'cpuacct.usage'), 'utf8')) / 1e6],
    [
      '/sys/fs/cgroup',
      (d) => Number(/usage_usec (\d+)/.exec(fs.readFileSync(path.join(d, 'cpu.stat'), 'utf8'))?.[1]) / 1e3,
    ],
  ];
  for (const [root, read] of kinds) {
    const dir = path.join(root, name);
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
      if (!Number.isFinite(read(dir))) throw new Error('no CPU figure');
      const close = () => {
        try {
          fs.writeFileSync(path.join(root, 'cgroup.procs'), String(process.pid));
          fs.rmdirSync(dir);
        } catch {
          // Left for the system to clean up.
        }
      };
      return { source: `cgroup ${dir}`, ms: () => read(dir), close };
    } catch {
      try {
        fs.rmdirSync(dir);
      } catch {
        // Never made.
      }
    }
  }
  return {
    source: 'rusage of reaped children (misses what runs inside a PID namespace)',
    ms: () => childrenCpuMs() + ownCpuMs(),
    close: () => undefined,
  };
}

import fs from 'node:fs';
import path from 'node:path';
import type { SandboxRunOptions } from './types';

/**
 * The ways a program can be started, strongest first. A backend only builds the command line;
 * `run.ts` spawns it, enforces the wall-clock and memory limits and cleans up.
 */
export type Method = 'bwrap' | 'unshare' | 'sandbox-exec' | 'process';

/** A command ready for `child_process.spawn`. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly uid?: number;
  readonly gid?: number;
}

export interface Backend {
  readonly method: Method;
  /** Facts for the verdict's `isolation.limits` that hold for every run. */
  readonly facts: readonly string[];
  /** True when RLIMIT_NPROC bounds the program's own processes (not a whole user's). */
  readonly processLimit: boolean;
  /** The program's folder as the program sees it. */
  boxPath(hostDir: string): string;
  /**
   * True when the backend mounts the read-only folders as the run's own user: one that user
   * cannot reach must then come from a copy (`staging.ts`).
   */
  readonly mounts?: boolean;
  /**
   * `uid`: the run's own user (`runUid`), when vtask runs as root. `copies`: read-only paths (and
   * the working directory) to mount from a copy the run's user can read, path → copy.
   */
  launch(
    o: SandboxRunOptions,
    hostDir: string,
    argv: readonly string[],
    uid?: number,
    copies?: ReadonlyMap<string, string>,
  ): Launch;
  /**
   * A sandbox started before its program is known (bubblewrap only): an empty folder, no files,
   * no rlimits yet (the program applies them to itself when its run starts, see `pool.ts`).
   */
  prestart?(o: SandboxRunOptions, argv: readonly string[], uid?: number): Launch;
}

const MIB = 1024 * 1024;
/** What the verdict says of the user a run gets when vtask runs as root. */
const RUNS_AS = 'runs as an unprivileged user of its own';
/** The user inside bubblewrap's user namespace when bwrap itself runs as root. */
export const NOBODY = 65534;

/** The users runs get when vtask runs as root: a range no account uses. */
const RUN_UID_BASE = 1_200_000_000;
const RUN_UID_SPAN = 800_000_000;
let runs = 0;

/**
 * A user of its own for one run, when vtask runs as root (undefined otherwise: programs then run
 * as vtask's own user). A run's processes then count against its own RLIMIT_NPROC, not against
 * every sandbox's at once (the kernel counts that limit per user: with one shared user, a few
 * JavaScript programs' threads could starve the next one), and one run cannot signal another's
 * processes. Distinct across the runs of a process; across processes, by their pid.
 */
export function runUid(): number | undefined {
  if (!isRoot()) return undefined;
  return RUN_UID_BASE + ((process.pid * 4096 + (runs++ % 4096)) % RUN_UID_SPAN);
}
/** Where the program's folder appears under bubblewrap. */
const BOX = '/box';

export function which(name: string, extra: readonly string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extra, '/usr/bin', '/bin', '/usr/sbin', '/sbin'];
  for (const d of dirs) {
    if (!d) continue;
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

const PRLIMIT = process.platform === 'linux' ? which('prlimit') : undefined;

/** True when the host runs as root and programs must be dropped to an unprivileged user. */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The rlimits of one run, in the units `setrlimit` takes; undefined where `prlimit` is missing. */
export interface RlimitValues {
  /** Seconds of CPU time. */
  readonly cpu: number;
  readonly core: number;
  readonly fsize: number;
  readonly nofile: number;
  readonly nproc?: number;
  readonly as?: number;
}

/** The resource limits of a run, whether `prlimit` or a pre-started sandbox applies them. */
export function rlimitValues(o: SandboxRunOptions, withNproc: boolean): RlimitValues | undefined {
  if (!PRLIMIT) return undefined;
  return {
    cpu: Math.ceil(o.timeoutMs / 1000) + 1,
    core: 0,
    fsize: Math.max(64, o.memoryMb) * MIB,
    nofile: 1024,
    ...(withNproc ? { nproc: o.maxProcesses ?? 64 } : {}),
    ...((o.memoryPolicy ?? 'address-space') === 'address-space' ? { as: o.memoryMb * MIB } : {}),
  };
}

/** Resource limits applied by `prlimit` right before the program starts. */
function rlimits(o: SandboxRunOptions, withNproc: boolean): string[] {
  const v = rlimitValues(o, withNproc);
  if (!PRLIMIT || !v) return [];
  const a = [PRLIMIT, `--cpu=${v.cpu}`, `--core=${v.core}`, `--fsize=${v.fsize}`, `--nofile=${v.nofile}`];
  if (v.nproc !== undefined) a.push(`--nproc=${v.nproc}`);
  if (v.as !== undefined) a.push(`--as=${v.as}`);
  a.push('--');
  return a;
}

/** The environment every program gets: nothing of the host's passes through. */
export function baseEnv(box: string, o: SandboxRunOptions): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: box,
    TMPDIR: box,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    NO_COLOR: '1',
    NODE_DISABLE_COLORS: '1',
    ...(o.env ?? {}),
  };
}

function dropUid(uid: number | undefined): { uid?: number; gid?: number } {
  return uid !== undefined ? { uid, gid: uid } : {};
}

function limitFacts(withNproc: boolean): string[] {
  const f: string[] = [];
  if (PRLIMIT) f.push('CPU-time, file-size and open-file rlimits');
  f.push(withNproc ? 'process count limited' : 'process count not limited');
  return f;
}

/** The system folders a program needs, visible read-only; merged-/usr symlinks are recreated. */
function systemMounts(): string[] {
  const a: string[] = [];
  for (const p of ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc']) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) a.push('--symlink', fs.readlinkSync(p), p);
    else if (st.isDirectory()) a.push('--ro-bind', p, p);
  }
  return a;
}

/** True when `p` lies inside one of the system folders that are mounted anyway. */
function underSystem(p: string): boolean {
  return ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/etc/'].some((d) => p.startsWith(d));
}

/**
 * bubblewrap: new user, pid, network, ipc, uts and cgroup namespaces; an empty read-only root
 * with the system folders bound read-only; the program's folder a tmpfs of 64 MiB at /box
 * holding its files; killed with its parent. As root, bwrap runs as the run's own user
 * (`runUid`) so that the kernel counts the program's processes (root is exempt from RLIMIT_NPROC).
 */
export function bwrapBackend(bwrap: string, asRoot = false): Backend {
  const sys = systemMounts();
  const processLimit = !!PRLIMIT && !(isRoot() && asRoot);
  return {
    method: 'bwrap',
    facts: [
      'no network',
      'own temporary folder',
      'read-only file system',
      'own pid namespace',
      ...(isRoot() ? [RUNS_AS] : []),
      ...limitFacts(processLimit),
    ],
    processLimit,
    // As root, bubblewrap mounts them itself, before the program's user takes over.
    mounts: !asRoot,
    boxPath: () => BOX,
    launch(o, hostDir, argv, uid, copies) {
      const a = args(o, hostDir, copies);
      a.push('--', ...rlimits(o, processLimit), ...argv);
      return { command: bwrap, args: a, cwd: hostDir, env: {}, ...(asRoot ? {} : dropUid(uid)) };
    },
    prestart(o, argv, uid) {
      // The program's files are written by the sandbox itself once its program is known.
      const a = args({ ...o, files: {}, cwd: undefined }, BOX);
      a.push('--', ...argv);
      return { command: bwrap, args: a, cwd: '/', env: {}, ...(asRoot ? {} : dropUid(uid)) };
    },
  };

  function args(o: SandboxRunOptions, hostDir: string, copies: ReadonlyMap<string, string> = new Map()): string[] {
    const a = ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv'];
    if (asRoot) a.push('--unshare-user', '--uid', String(NOBODY), '--gid', String(NOBODY), '--cap-drop', 'ALL');
    a.push(...sys);
    for (const p of o.readOnly ?? []) if (!underSystem(p)) a.push('--ro-bind', copies.get(p) ?? p, p);
    a.push('--dev', '/dev', '--size', String(16 * MIB), '--tmpfs', '/dev/shm', '--proc', '/proc');
    a.push('--size', String(BOX_TMPFS_MB * MIB), '--tmpfs', BOX);
    for (const name of Object.keys(o.files ?? {}))
      a.push('--ro-bind', path.join(hostDir, name), path.posix.join(BOX, name));
    if (o.cwd && !underSystem(o.cwd)) a.push('--ro-bind', copies.get(o.cwd) ?? o.cwd, o.cwd);
    a.push('--remount-ro', '/dev', '--remount-ro', '/');
    a.push('--chdir', o.cwd ?? BOX);
    for (const [k, v] of Object.entries(baseEnv(BOX, o))) a.push('--setenv', k, v);
    return a;
  }
}

/**
 * The size of the program's folder (a tmpfs) under bubblewrap, whatever the memory limit: a
 * tmpfs is memory too, so a larger one would let a program keep that much beside its limit.
 */
export const BOX_TMPFS_MB = 64;

/**
 * util-linux `unshare`: new user, pid, mount and network namespaces (no network, processes
 * killed with the child), but the host file system stays visible: writes are limited only by
 * file permissions (as the run's own unprivileged user when vtask runs as root).
 */
export function unshareBackend(unshare: string): Backend {
  return {
    method: 'unshare',
    facts: [
      'no network',
      'own temporary folder',
      'own pid namespace',
      'file system writable where file permissions allow',
      ...(isRoot() ? [RUNS_AS] : []),
      ...limitFacts(!!PRLIMIT),
    ],
    processLimit: !!PRLIMIT,
    boxPath: (hostDir) => hostDir,
    launch(o, hostDir, argv, uid) {
      const a = [
        '--user',
        '--net',
        '--pid',
        '--fork',
        '--kill-child',
        '--mount-proc',
        '--',
        ...rlimits(o, true),
        ...argv,
      ];
      return { command: unshare, args: a, cwd: o.cwd ?? hostDir, env: baseEnv(hostDir, o), ...dropUid(uid) };
    },
  };
}

/** macOS Seatbelt: no network, writes only in the program's folder. */
export function sandboxExecBackend(sandboxExec: string): Backend {
  return {
    method: 'sandbox-exec',
    facts: [
      'no network',
      'own temporary folder',
      'writes only in its folder',
      'memory and CPU limited by ulimit where macOS honours it',
    ],
    processLimit: false,
    boxPath: (hostDir) => hostDir,
    launch(o, hostDir, argv) {
      const real = fs.realpathSync(hostDir);
      const profile = [
        '(version 1)',
        '(allow default)',
        '(deny network*)',
        '(deny file-write*)',
        `(allow file-write* (subpath ${JSON.stringify(real)}) (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))`,
      ].join('\n');
      const kb = o.memoryMb * 1024;
      const limits = `ulimit -t ${Math.ceil(o.timeoutMs / 1000) + 1} 2>/dev/null; ulimit -c 0 2>/dev/null; ${(o.memoryPolicy ?? 'address-space') === 'address-space' ? `ulimit -v ${kb} 2>/dev/null; ` : ''}exec "$@"`;
      return {
        command: sandboxExec,
        args: ['-p', profile, '/bin/sh', '-c', limits, 'sh', ...argv],
        cwd: o.cwd ?? hostDir,
        env: baseEnv(hostDir, o),
      };
    },
  };
}

/** A plain process in its own process group, with rlimits where `prlimit` exists. */
export function processBackend(): Backend {
  // A non-root user's RLIMIT_NPROC counts every process of that user, so it cannot be used here.
  const nproc = isRoot() && !!PRLIMIT;
  return {
    method: 'process',
    facts: [
      'own temporary folder',
      'network not isolated',
      'file system writable where file permissions allow',
      ...(isRoot() ? [RUNS_AS] : []),
      ...limitFacts(nproc),
    ],
    processLimit: nproc,
    boxPath: (hostDir) => hostDir,
    launch(o, hostDir, argv, uid) {
      const r = rlimits(o, nproc);
      const [command, ...args] = [...r, ...argv];
      return { command: command as string, args, cwd: o.cwd ?? hostDir, env: baseEnv(hostDir, o), ...dropUid(uid) };
    },
  };
}

import { errorMessage } from '../base/errorMessage';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runUid, type Backend, type Launch } from './backends';
import { lostBy, levelOf } from './policy';
import { Reaper, sumRssKib } from './procfs';
import { stageUnreachable, StageError } from './staging';
import type { SandboxRunOptions, SandboxRunResult } from './types';

const MIB = 1024 * 1024;
/** How often the resident-memory watchdog looks at the process tree. */
const WATCH_MS = 40;
/** How long to wait for pipes to close after the program exited (a leftover child may hold them). */
export const CLOSE_GRACE_MS = 500;
/** How long a SIGKILLed process may take to be reaped before the run is given up on. */
export const KILL_GRACE_MS = 5000;

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(
  Object.entries(os.constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]),
);

/** The name of signal number `n` (`SIGKILL` for 9), or null for a number that is none. */
export function signalName(n: number): NodeJS.Signals | null {
  return SIGNAL_NAMES.get(n) ?? null;
}

/** Runs one program with a backend; never throws for anything the program does, and never hangs. */
export async function runWith(backend: Backend, o: SandboxRunOptions): Promise<SandboxRunResult> {
  const empty = notRun(backend, o);
  const isolation = empty.isolation;
  if (o.signal?.aborted) return { ...empty, aborted: true };

  const uid = runUid();
  let hostDir: string;
  try {
    hostDir = await prepareFolder(o.files ?? {}, uid);
  } catch (e) {
    return { ...empty, sandboxError: `could not prepare the program's folder: ${errorMessage(e)}` };
  }
  try {
    // Folders the run's own user could not reach (a task under /root as root) come as copies.
    let copies = new Map<string, string>();
    if (uid !== undefined && backend.mounts) {
      try {
        copies = await stageUnreachable([...(o.readOnly ?? []), ...(o.cwd ? [o.cwd] : [])], hostDir, uid);
      } catch (e) {
        return {
          ...empty,
          sandboxError:
            e instanceof StageError
              ? e.message
              : `could not copy the task's folder for the sandbox's user: ${errorMessage(e)}`,
        };
      }
    }
    const argv = typeof o.argv === 'function' ? o.argv(backend.boxPath(hostDir)) : o.argv;
    return await spawnAndWait(backend, o, hostDir, argv, isolation, uid, copies);
  } finally {
    await fs.promises.rm(hostDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** The result of a program that did not run (yet): nothing printed, nothing measured. */
export function notRun(backend: Backend, o: SandboxRunOptions): SandboxRunResult {
  const limitFacts = [
    ...backend.facts,
    `${o.memoryMb} MiB ${(o.memoryPolicy ?? 'address-space') === 'address-space' ? 'address space' : 'resident (watchdog)'}`,
    `${o.timeoutMs} ms`,
  ];
  const isolation = {
    method: backend.method,
    level: levelOf(backend.method),
    lost: lostBy(backend.method),
    limits: limitFacts,
  };
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false,
    memoryExceeded: false,
    outputExceeded: false,
    aborted: false,
    durationMs: 0,
    peakRssMb: 0,
    isolation,
  };
}

async function prepareFolder(
  files: Readonly<Record<string, string | Buffer>>,
  uid: number | undefined,
): Promise<string> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'vtask-box-'));
  for (const [name, content] of Object.entries(files)) {
    const target = path.resolve(dir, name);
    if (!target.startsWith(dir + path.sep)) throw new Error(`file name ${JSON.stringify(name)} leaves the folder`);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.writeFile(target, content, { mode: 0o644 });
    if (uid !== undefined) await fs.promises.chown(target, uid, uid);
  }
  // The program runs as a user of its own when vtask runs as root: its folder must be that user's.
  if (uid !== undefined) await fs.promises.chown(dir, uid, uid);
  return dir;
}

/** Output kept up to a cap; `total` counts every byte seen. */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.total += b.length;
    const room = this.cap - this.kept;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = b.length > room ? b.subarray(0, room) : b;
    if (part.length < b.length) this.truncated = true;
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function spawnAndWait(
  backend: Backend,
  o: SandboxRunOptions,
  hostDir: string,
  argv: readonly string[],
  isolation: SandboxRunResult['isolation'],
  uid: number | undefined,
  copies: ReadonlyMap<string, string>,
): Promise<SandboxRunResult> {
  const launch = backend.launch(o, hostDir, argv, uid, copies);
  // Without a PID namespace, a process that left the run's session is still found by this entry.
  const tag = backend.method === 'process' ? `VTASK_RUN=${path.basename(hostDir)}` : undefined;
  if (tag) launch.env.VTASK_RUN = path.basename(hostDir);
  let child: ChildProcess;
  try {
    child = spawnLaunch(launch);
  } catch (e) {
    return Promise.resolve({
      ...notRun(backend, o),
      isolation,
      sandboxError: `could not start ${launch.command}: ${errorMessage(e)}`,
    });
  }
  return supervise(backend, o, isolation, { child, command: launch.command, tag, input: o.stdin ?? '' });
}

/** Spawns a backend's command with piped stdio (plus `extraPipes` more pipes from fd 3 on). */
export function spawnLaunch(launch: Launch, extraPipes = 0): ChildProcess {
  return spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe', ...Array.from({ length: extraPipes }, () => 'pipe' as const)],
    detached: process.platform !== 'win32',
    windowsHide: true,
    ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid } : {}),
  });
}

/** A started process to watch over for one run. */
export interface Supervised {
  readonly child: ChildProcess;
  /** The command, for error messages. */
  readonly command: string;
  /** The `NAME=value` environment entry the reaper searches for (runs without a PID namespace). */
  readonly tag?: string | undefined;
  /** Everything written to the process's stdin, which is then closed. */
  readonly input: string | Buffer;
  /** What the process printed before the run began (a pre-started sandbox's start-up messages). */
  readonly early?: { readonly stdout: readonly Buffer[]; readonly stderr: readonly Buffer[] };
}

/**
 * Watches over one run of a started process: feeds its input, captures its output up to the
 * cap, enforces the wall-clock, memory and output limits (counted from this call), honours the
 * AbortSignal and kills whatever the run left behind. Never rejects, never hangs.
 */
export function supervise(
  backend: Backend,
  o: SandboxRunOptions,
  isolation: SandboxRunResult['isolation'],
  s: Supervised,
): Promise<SandboxRunResult> {
  const { child, tag } = s;
  const cap = o.outputLimitBytes ?? MIB;
  const out = new Capture(cap);
  const err = new Capture(cap);
  for (const b of s.early?.stdout ?? []) out.push(b);
  for (const b of s.early?.stderr ?? []) err.push(b);
  let timedOut = false;
  let memoryExceeded = false;
  let outputExceeded = false;
  let aborted = false;
  let peakKib = 0;
  const started = performance.now();

  return new Promise<SandboxRunResult>((resolve) => {
    const pid = child.pid;
    let exited = false;
    let settled = false;
    let killed = false;

    const reaper = pid !== undefined ? new Reaper(pid, tag) : undefined;
    const kill = (): void => {
      if (killed && exited) return;
      killed = true;
      if (pid === undefined) return;
      if (process.platform === 'win32') spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
      else reaper?.reap();
    };

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutMs);
    const memLimitKib = o.memoryMb * 1024;
    const watchdog =
      process.platform === 'linux' && pid !== undefined
        ? setInterval(() => {
            const kib = sumRssKib(reaper?.watch() ?? [pid]);
            if (kib > peakKib) peakKib = kib;
            if (kib > memLimitKib && !exited) {
              memoryExceeded = true;
              kill();
            }
          }, WATCH_MS)
        : undefined;
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    // Cancelled between the caller's check and this point (while the folder or sandbox was made ready).
    if (o.signal?.aborted) onAbort();
    let hardStop: NodeJS.Timeout | undefined;

    const onData = (c: Capture, tap?: (b: Buffer) => void) => (b: Buffer) => {
      tap?.(b);
      c.push(b);
      if (out.total + err.total > 16 * cap && !outputExceeded) {
        outputExceeded = true;
        kill();
      }
    };
    const streams = o.streams;
    if (streams) child.stdout?.on('data', (b: Buffer) => streams.onStdout(b));
    else child.stdout?.on('data', onData(out));
    child.stderr?.on('data', onData(err, streams?.onStderr?.bind(streams)));
    // A program that exits without reading its input closes the pipe: that is not an error.
    child.stdin?.on('error', () => undefined);
    if (streams && child.stdin) {
      streams.stdin.pipe(child.stdin);
      streams.onStart?.(isolation);
    } else child.stdin?.end(s.input);

    const cleanup = (): void => {
      clearTimeout(timer);
      if (watchdog) clearInterval(watchdog);
      if (hardStop) clearTimeout(hardStop);
      o.signal?.removeEventListener('abort', onAbort);
    };

    function finish(code: number | null, sig: NodeJS.Signals | null, sandboxError?: string): SandboxRunResult {
      const exitCode = code;
      let signal = sig;
      // bubblewrap reports a child killed by signal N as exit code 128 + N (indistinguishable from
      // a program exiting with that code, so the code is kept and the signal added).
      if (backend.method === 'bwrap' && signal === null && exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
        signal = signalName(exitCode - 128);
      }
      const stderr = err.text();
      let error = sandboxError;
      if (!error && code !== 0 && !timedOut && !memoryExceeded && !aborted && !outputExceeded) {
        const m = /^(bwrap|unshare|prlimit|sandbox-exec): (.*)/.exec(stderr);
        if (m) error = `${m[1]}: ${m[2]}`;
      }
      return {
        exitCode,
        signal,
        stdout: out.text(),
        stderr,
        stdoutTruncated: out.truncated,
        stderrTruncated: err.truncated,
        timedOut,
        memoryExceeded,
        outputExceeded,
        aborted,
        ...(error ? { sandboxError: error } : {}),
        durationMs: Math.round(performance.now() - started),
        peakRssMb: Math.round(peakKib / 1024),
        isolation,
      };
    }

    const settle = (r: SandboxRunResult): void => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(r);
    };

    child.on('error', (e) => {
      exited = true;
      settle(finish(null, null, `could not start ${s.command}: ${e.message}`));
    });
    child.on('exit', (code, sig) => {
      exited = true;
      if (timer) clearTimeout(timer);
      // Whatever the program left behind (a daemonised child holding the pipes) goes with it.
      if (process.platform !== 'win32') reaper?.reap();
      const done = (): void => settle(finish(code, sig));
      if (child.stdout?.closed !== false && child.stderr?.closed !== false) return done();
      const grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        done();
      }, CLOSE_GRACE_MS);
      child.on('close', () => {
        clearTimeout(grace);
        done();
      });
    });
    // Every wait has a bound: if even SIGKILL does not end the program, give up on it.
    const armHardStop = (): void => {
      hardStop = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle(finish(null, null, 'the program could not be stopped'));
      }, o.timeoutMs + KILL_GRACE_MS);
    };
    armHardStop();
  });
}

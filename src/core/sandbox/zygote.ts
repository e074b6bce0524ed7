import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { BOX_TMPFS_MB, rlimitValues, runUid, type Backend } from './backends';
import { encodeFields, frame, FrameReader, programFields } from './frames';
import { findInterpreter } from './interpreters';
import {
  IDLE_MS,
  onDisposeSandboxPools,
  pythonCommand,
  START_TIMEOUT_MS,
  toBuffer,
  waitFor,
  DISPOSE_WAIT_MS,
} from './pool';
import { Reaper } from './procfs';
import { Capture, CLOSE_GRACE_MS, KILL_GRACE_MS, notRun, signalName, spawnLaunch } from './run';
import { defaultConcurrency } from './slots';
import type { SandboxRunOptions, SandboxRunResult } from './types';
import { ZYGOTE_BOOT } from './zygoteBoot';

/**
 * Zygotes: answers checked without starting a sandbox per run (nor, for Python, an interpreter;
 * a JavaScript test execs `node` inside, see `ZygoteJob`). A zygote is one long-lived bubblewrap
 * sandbox (the same flags as a run's) whose interpreter forks, ahead of any job, a keeper per
 * slot; each keeper unshares fresh user, mount, pid, network, ipc and uts namespaces for one
 * answer and waits (see zygoteBoot.ts). An answer takes a ready slot, and its tests run one after
 * the other in that slot's namespaces, each in a fresh process on a fresh tmpfs with its rlimits
 * (CPU time, address space, file size, open files, processes) and no capabilities; the time
 * budget is the CPU time of its process tree (a wall-clock backstop stops a program that sleeps).
 * Only the program's files and stdin enter the sandbox; expected outputs stay here. A zygote that
 * dies is replaced; one that cannot make the namespaces (nested user namespaces refused) makes
 * this shape fall back, once and for good, to a bubblewrap sandbox per run: the same isolation,
 * never a weaker one.
 */

/** The isolation fact every run in a zygote adds to its verdict. */
export const ZYGOTE_FACT = 'zygote: fresh user, mount, pid, network, ipc and uts namespaces and folder per answer';
/** Keepers each zygote holds ready: one serves an answer while the next is being forked. */
const SLOTS_PER_ZYGOTE = 2;
const MIB = 1024 * 1024;
/** Start-up output of a zygote kept for its error message. */
const EARLY_CAP = 64 * 1024;
/** `VTASK_ZYGOTE=0` turns zygotes off (every run then starts its own sandbox). */
const OFF_ENV = 'VTASK_ZYGOTE';

/**
 * The wall-clock bound of one test, a backstop only. The budget is kept inside the zygote: the
 * CPU time of the test's whole process tree (RLIMIT_CPU per process, and the tree's CPU time it
 * measures), so the machine's load does not count. This bound stops a program that sleeps or
 * blocks; it is generous enough that a loaded machine does not change a verdict.
 */
export function wallBoundMs(timeoutMs: number): number {
  return 5 * timeoutMs + 2000;
}

/** How the zygote runs a test's program: `py` in its own forked interpreter, `exec` by exec. */
interface ZygoteJob {
  readonly mode: 'py' | 'exec';
  /** `py`: `FILE args` or `-c CODE args`; `exec`: the whole command, an absolute path first. */
  readonly argv: readonly string[];
  /** `py`: the interpreter and its flags, which the zygote itself must run. */
  readonly interpreter?: readonly string[];
}

/** The zygote a run needs: its interpreter and flags, the folders it shows, its environment. */
interface ZygoteShape {
  readonly mode: ZygoteJob['mode'];
  readonly argv: readonly string[];
  readonly readOnly: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** What stopped a test inside the zygote (the last word of its `X` frame). */
const STOPPED_BY_CPU = 1;
const STOPPED_BY_WALL = 2;
const STOPPED_BY_MEMORY = 3;

const taps = new Set<(sent: Buffer) => void>();

/**
 * Calls `tap` with every byte vtask sends into any zygote (for tests that check what enters the
 * sandbox). Returns the unsubscribe.
 */
export function tapZygoteInput(tap: (sent: Buffer) => void): () => void {
  taps.add(tap);
  return () => taps.delete(tap);
}

/** One keeper's socket: the frames of the answer it serves. */
class Slot {
  /** Its keeper said `R`: namespaces made, waiting for a job. */
  ready = false;
  busy = false;
  /** Answers given to this slot, and keepers of it that ended: the n-th keeper serves the n-th answer. */
  jobs = 0;
  exits = 0;
  onFrame: ((kind: string, payload: Buffer) => void) | undefined;
  onExit: (() => void) | undefined;

  constructor(
    readonly socket: Duplex,
    onFrame: (slot: Slot, kind: string, payload: Buffer) => void,
  ) {
    const reader = new FrameReader((kind, payload) => onFrame(this, kind, payload));
    socket.on('data', (b: Buffer) => reader.push(b));
    socket.on('error', () => undefined);
  }

  send(b: Buffer): void {
    for (const tap of taps) tap(b);
    if (!this.socket.destroyed) this.socket.write(b);
  }
}

/** One zygote: a bubblewrap sandbox holding `SLOTS_PER_ZYGOTE` keepers. */
class Zygote {
  readonly child: ChildProcess;
  readonly slots: Slot[] = [];
  /** Set when the zygote cannot serve: its keepers could not make their namespaces, or it stopped. */
  failure: string | undefined;
  private exited = false;
  private servedOne = false;
  private readonly stderr: Buffer[] = [];
  private stderrBytes = 0;
  private changed: { promise: Promise<void>; resolve: () => void } = deferred();

  constructor(
    private readonly backend: Backend,
    template: SandboxRunOptions & { readonly argv: readonly string[] },
  ) {
    const argv = [...template.argv, '-c', ZYGOTE_BOOT, String(SLOTS_PER_ZYGOTE), String(BOX_TMPFS_MB * MIB)];
    // The zygote's sandbox gets a user of its own when vtask runs as root, as a run does.
    const launch = backend.prestart?.(template, argv, runUid());
    if (!launch) throw new Error(`${backend.method} cannot start a zygote`);
    const child = spawnLaunch(launch, 1 + SLOTS_PER_ZYGOTE);
    this.child = child;
    child.stdout?.on('data', () => undefined);
    child.stderr?.on('data', (b: Buffer) => {
      if (this.stderrBytes >= EARLY_CAP) return;
      this.stderrBytes += b.length;
      this.stderr.push(b);
    });
    let lines = '';
    child.stdio[3]?.on('data', (b: Buffer) => {
      lines += b.toString('latin1');
      const all = lines.split('\n');
      lines = all.pop() ?? '';
      for (const line of all) this.keeperEnded(line);
    });
    for (let i = 0; i < SLOTS_PER_ZYGOTE; i++)
      this.slots.push(new Slot(child.stdio[4 + i] as Duplex, (s, k, p) => this.onFrame(s, k, p)));
    for (const s of child.stdio)
      (s as { on?: (e: string, f: () => void) => void } | null)?.on?.('error', () => undefined);
    child.once('exit', () => this.stopped(`the zygote stopped${this.firstStderrLine()}`));
    child.once('error', (e) => this.stopped(`could not start ${launch.command}: ${e.message}`));
    // An idle zygote must not keep vtask running: it dies with it (bubblewrap's --die-with-parent).
    this.unref();
  }

  get alive(): boolean {
    return !this.exited && !this.failure;
  }

  /** A ready slot, now this caller's; undefined when none is ready. */
  take(): Slot | undefined {
    const slot = this.slots.find((s) => s.ready && !s.busy);
    if (!slot) return undefined;
    slot.busy = true;
    slot.ready = false;
    slot.jobs++;
    this.servedOne = true;
    this.child.ref();
    return slot;
  }

  /** Ends the answer in `slot`: its namespaces go with its init; the zygote forks the next keeper. */
  release(slot: Slot): void {
    slot.send(frame('Q'));
    slot.busy = false;
    slot.onFrame = undefined;
    slot.onExit = undefined;
    if (!this.slots.some((s) => s.busy)) this.unref();
  }

  /** Resolves at the next change of any slot (ready, failed, stopped). */
  next(): Promise<void> {
    return this.changed.promise;
  }

  kill(): void {
    if (this.child.pid !== undefined && !this.exited) new Reaper(this.child.pid).reap();
  }

  gone(): Promise<void> {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  private unref(): void {
    this.child.unref();
    for (const s of this.child.stdio) (s as { unref?: () => void } | null)?.unref?.();
  }

  private wake(): void {
    const c = this.changed;
    this.changed = deferred();
    c.resolve();
  }

  private onFrame(slot: Slot, kind: string, payload: Buffer): void {
    if (kind === 'R') {
      slot.ready = true;
      this.wake();
    } else if (kind === 'F' && !slot.busy) {
      // A keeper could not make its namespaces: this zygote cannot serve at all.
      this.failure = payload.toString('utf8');
      this.kill();
      this.wake();
    } else slot.onFrame?.(kind, payload);
  }

  /** `exit SLOT STATUS`: a keeper ended; when it is the busy one's, its answer lost its sandbox. */
  private keeperEnded(line: string): void {
    const m = /^exit (\d+) -?\d+$/.exec(line);
    const slot = m ? this.slots[Number(m[1])] : undefined;
    if (!slot) return;
    slot.exits++;
    if (slot.busy && slot.exits === slot.jobs) slot.onExit?.();
  }

  private stopped(why: string): void {
    if (this.exited) return;
    this.exited = true;
    // Stopped before serving anything: it cannot start here.
    if (!this.servedOne) this.failure ??= why;
    for (const s of this.slots) if (s.busy) s.onExit?.();
    this.wake();
  }

  private firstStderrLine(): string {
    const first = Buffer.concat(this.stderr).toString('utf8').trim().split('\n')[0];
    return first ? `: ${first}` : '';
  }

  /** Runs the tests of one answer in `slot`, one after the other. */
  async runAll(
    slot: Slot,
    runs: readonly SandboxRunOptions[],
    jobs: readonly ZygoteJob[],
  ): Promise<SandboxRunResult[]> {
    const results: SandboxRunResult[] = [];
    let broken: string | undefined;
    try {
      for (let i = 0; i < runs.length; i++) {
        const o = runs[i] as SandboxRunOptions;
        const base = zygoteResult(this.backend, o);
        if (o.signal?.aborted) results.push({ ...base, aborted: true });
        else if (broken) results.push({ ...base, sandboxError: broken });
        else {
          const r = await this.runOne(slot, i, o, jobs[i] as ZygoteJob);
          if (r.broken) broken = r.broken;
          results.push(r.result);
        }
      }
    } finally {
      this.release(slot);
    }
    return results;
  }

  /**
   * One test: sends its files and stdin, gathers its output up to the cap, kills it past 16x the
   * cap or on cancel. The zygote stops it at its budget, bound or backstop; vtask's own timer, a
   * moment past the backstop, is the last resort. `broken` when the slot cannot serve further tests.
   */
  private runOne(
    slot: Slot,
    index: number,
    o: SandboxRunOptions,
    job: ZygoteJob,
  ): Promise<{ result: SandboxRunResult; broken?: string }> {
    const base = zygoteResult(this.backend, o);
    let payload: Buffer;
    try {
      const limits = rlimitValues(o, true);
      // The answer's keeper and init count against its process limit too.
      const withKeepers = limits?.nproc !== undefined ? { ...limits, nproc: limits.nproc + 2 } : limits;
      // Node reserves address space it never uses: its memory is bounded by what is resident.
      const resident = (o.memoryPolicy ?? 'address-space') === 'resident' ? o.memoryMb * MIB : 0;
      payload = encodeFields([
        String(index),
        String(o.timeoutMs),
        String(wallBoundMs(o.timeoutMs)),
        String(resident),
        job.mode,
        ...programFields(job.argv, o.files ?? {}, withKeepers),
        toBuffer(o.stdin),
      ]);
    } catch (e) {
      return Promise.resolve({
        result: {
          ...base,
          sandboxError: `could not prepare the program's folder: ${e instanceof Error ? e.message : String(e)}`,
        },
      });
    }
    const cap = o.outputLimitBytes ?? MIB;
    const out = new Capture(cap);
    const err = new Capture(cap);
    let wallStop = false;
    let outputExceeded = false;
    let aborted = false;
    let setupError: string | undefined;
    const started = performance.now();
    return new Promise((resolve) => {
      const timers: NodeJS.Timeout[] = [];
      const kill = (): void => slot.send(frame('K', String(index)));
      const onAbort = (): void => {
        aborted = true;
        kill();
        armHardStop();
      };
      const armHardStop = (): void => {
        timers.push(
          setTimeout(() => {
            // The keeper did not end the program: the zygote is not to be trusted further.
            this.kill();
            finish(undefined, 'the program could not be stopped');
          }, KILL_GRACE_MS),
        );
      };
      const finish = (end: string | undefined, error?: string): void => {
        for (const t of timers) clearTimeout(t);
        o.signal?.removeEventListener('abort', onAbort);
        slot.onFrame = undefined;
        slot.onExit = undefined;
        const [status, cpuMs, rssKib, over] = (end ?? '').split(' ').map(Number);
        const signaled = status !== undefined && end !== undefined && (status & 0x7f) !== 0 && (status & 0x7f) !== 0x7f;
        const exitCode = end === undefined ? null : signaled ? 128 + (status & 0x7f) : ((status ?? 0) >> 8) & 0xff;
        const signal = signaled ? signalName(status & 0x7f) : null;
        const overCpu = (cpuMs !== undefined && cpuMs > o.timeoutMs) || over === STOPPED_BY_CPU;
        const overWall = !overCpu && (wallStop || over === STOPPED_BY_WALL);
        const sandboxError = error ?? setupError;
        resolve({
          result: {
            ...base,
            exitCode,
            signal,
            stdout: out.text(),
            stderr: err.text(),
            stdoutTruncated: out.truncated,
            stderrTruncated: err.truncated,
            timedOut: overCpu || overWall,
            ...(overWall ? { wallBackstopMs: wallBoundMs(o.timeoutMs) } : {}),
            memoryExceeded: over === STOPPED_BY_MEMORY || (rssKib ?? 0) > o.memoryMb * 1024,
            outputExceeded,
            aborted,
            ...(sandboxError ? { sandboxError } : {}),
            durationMs: Math.round(performance.now() - started),
            peakRssMb: Math.round((rssKib ?? 0) / 1024),
            ...(cpuMs !== undefined && end !== undefined ? { cpuMs } : {}),
          },
          ...(error ? { broken: error } : {}),
        });
      };
      slot.onFrame = (kind, data) => {
        if (kind === 'O' || kind === 'E') {
          (kind === 'O' ? out : err).push(data);
          if (out.total + err.total > 16 * cap && !outputExceeded) {
            outputExceeded = true;
            kill();
            armHardStop();
          }
        } else if (kind === 'F') setupError = `the sandbox could not start the program: ${data.toString('utf8')}`;
        else if (kind === 'X') finish(data.toString('latin1'));
      };
      // The keeper ended without the test's end: what it sent before is already here, give it a moment.
      slot.onExit = () =>
        timers.push(
          setTimeout(
            () => finish(undefined, `the sandbox stopped while the program ran${this.firstStderrLine()}`),
            CLOSE_GRACE_MS,
          ),
        );
      timers.push(
        setTimeout(
          () => {
            wallStop = true;
            kill();
            armHardStop();
          },
          wallBoundMs(o.timeoutMs) + CLOSE_GRACE_MS,
        ),
      );
      o.signal?.addEventListener('abort', onAbort, { once: true });
      slot.send(frame('T', payload));
    });
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The result of a run in a zygote before it ran: its isolation says so. */
function zygoteResult(backend: Backend, o: SandboxRunOptions): SandboxRunResult {
  const base = notRun(backend, o);
  return { ...base, isolation: { ...base.isolation, limits: [...base.isolation.limits, ZYGOTE_FACT] } };
}

/** The zygotes of one shape (interpreter, flags, folders, environment): one per core, started on demand. */
export class ZygotePool {
  private readonly zygotes: Zygote[] = [];
  /** Set once this shape cannot use zygotes here; its runs then start sandboxes of their own. */
  failure: string | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly backend: Backend,
    private readonly template: SandboxRunOptions & { readonly argv: readonly string[] },
    private readonly count = defaultConcurrency(),
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Zygote processes running (for tests). */
  get started(): number {
    return this.zygotes.filter((z) => z.alive).length;
  }

  /**
   * Runs the tests of one answer in one slot, in order. Undefined when zygotes cannot serve here
   * (the caller then runs each test in a sandbox of its own).
   */
  async run(runs: readonly SandboxRunOptions[]): Promise<SandboxRunResult[] | undefined> {
    const jobs = runs.map((o) => zygoteJob(this.backend, o));
    if (this.failure || this.closed || jobs.some((j) => !j)) return undefined;
    this.armIdleTimer();
    const signal = runs[0]?.signal;
    const end = Date.now() + START_TIMEOUT_MS;
    let retried = false;
    answer: for (;;) {
      for (const z of [...this.zygotes]) {
        if (z.failure && !this.zygotes.some((y) => y !== z && y.alive)) this.fail(z.failure);
        if (!z.alive) this.zygotes.splice(this.zygotes.indexOf(z), 1);
      }
      if (this.failure) return undefined;
      for (const z of this.zygotes) {
        const slot = z.take();
        if (!slot) continue;
        const results = await z.runAll(slot, runs, jobs as ZygoteJob[]);
        // A zygote that died as the answer reached it: the answer goes to another, once.
        if (!z.alive && !retried && results.every((r) => r.sandboxError && !r.stdout && !r.stderr)) {
          retried = true;
          continue answer;
        }
        return results;
      }
      if (this.zygotes.length < this.count) {
        try {
          this.zygotes.push(new Zygote(this.backend, this.template));
        } catch (e) {
          this.fail(e instanceof Error ? e.message : String(e));
          return undefined;
        }
      }
      const outcome = await waitFor(Promise.race(this.zygotes.map((z) => z.next())), end - Date.now(), signal);
      if (outcome === 'aborted') return runs.map((o) => ({ ...zygoteResult(this.backend, o), aborted: true }));
      if (outcome === 'timeout')
        return runs.map((o) => ({
          ...zygoteResult(this.backend, o),
          sandboxError: `the sandbox did not start within ${START_TIMEOUT_MS / 1000} s`,
        }));
    }
  }

  /** Stops every zygote (runs in them end with a sandbox error) and waits until they are gone. */
  async dispose(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const all = this.zygotes.splice(0);
    for (const z of all) z.kill();
    await waitFor(Promise.all(all.map((z) => z.gone())), DISPOSE_WAIT_MS, undefined);
  }

  private fail(why: string): void {
    this.failure = why;
    for (const z of this.zygotes.splice(0)) z.kill();
    warnOnce(why);
  }

  /** Stops the zygotes once answers stop coming, so an idle vtask holds none. */
  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      for (const z of [...this.zygotes]) {
        if (z.slots.some((s) => s.busy)) continue;
        z.kill();
        this.zygotes.splice(this.zygotes.indexOf(z), 1);
      }
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

let warned = false;

/** Says once per process why answers run without zygotes. */
function warnOnce(why: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `zygote sandboxes cannot start here (${why}): each test starts a bubblewrap sandbox of its own instead (same isolation, more CPU)`,
    { code: 'VTASK_ZYGOTE' },
  );
}

const MAX_POOLS = 4;
const pools = new Map<string, ZygotePool>();

/** How a zygote would run `o`, or undefined when it cannot. */
function zygoteJob(backend: Backend, o: SandboxRunOptions): ZygoteJob | undefined {
  const py = o.prestarted && typeof o.argv !== 'function' ? pythonCommand(o.argv) : undefined;
  if (py) return { mode: 'py', argv: py.rest, interpreter: [py.exe, ...py.flags] };
  if (!o.zygoteExec) return undefined;
  const argv = typeof o.argv === 'function' ? o.argv(backend.boxPath('')) : o.argv;
  return argv[0] && path.posix.isAbsolute(argv[0]) ? { mode: 'exec', argv } : undefined;
}

/**
 * The zygote's own interpreter and flags, the folders it shows and its environment for a run:
 * the run's Python for `py` runs; for `exec` runs, the Python found here beside the program's
 * folders. Undefined when the run cannot use a zygote.
 */
function zygoteShape(backend: Backend, o: SandboxRunOptions): ZygoteShape | undefined {
  const job = zygoteJob(backend, o);
  if (!job) return undefined;
  if (job.interpreter) return { mode: 'py', argv: job.interpreter, readOnly: o.readOnly ?? [], env: o.env ?? {} };
  const python = findInterpreter('python');
  if (!python) return undefined;
  const readOnly = [...new Set([...python.readOnly, ...(o.readOnly ?? [])])];
  return { mode: 'exec', argv: [python.path, ...python.args], readOnly, env: o.env ?? {} };
}

/**
 * The process-wide zygotes for these runs (the tests of one answer), or undefined when they
 * cannot use one: zygotes serve only runs under bubblewrap (the full sandbox) of one shape, either
 * pre-started Python runs with the address-space memory limit, or runs that may be exec'd
 * (`zygoteExec`: Node answers).
 */
export function zygoteFor(backend: Backend, runs: readonly SandboxRunOptions[]): ZygotePool | undefined {
  if (process.platform !== 'linux' || backend.method !== 'bwrap' || !backend.prestart || process.env[OFF_ENV] === '0')
    return undefined;
  const first = runs[0];
  const shape = first && zygoteShape(backend, first);
  if (!first || !shape) return undefined;
  const key = JSON.stringify([backend.facts, shape]);
  for (const o of runs) {
    if (
      o.cwd !== undefined ||
      o.streams ||
      (shape.mode === 'py' && (o.memoryPolicy ?? 'address-space') !== 'address-space')
    )
      return undefined;
    if (JSON.stringify([backend.facts, zygoteShape(backend, o)]) !== key) return undefined;
  }
  let pool = pools.get(key);
  if (pool) pools.delete(key);
  else
    pool = new ZygotePool(backend, {
      ...first,
      argv: shape.argv,
      readOnly: shape.readOnly,
      env: shape.env,
      files: {},
      stdin: '',
    });
  pools.set(key, pool);
  for (const [k, p] of pools) {
    if (pools.size <= MAX_POOLS) break;
    pools.delete(k);
    void p.dispose();
  }
  return pool;
}

onDisposeSandboxPools(async () => {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.dispose()));
});

import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { errorMessage } from '../base/errorMessage';
import { rlimitValues, runUid, type Backend } from './backends';
import { encodeFields, programFields } from './frames';
import { Reaper } from './procfs';
import { PYTHON_BOOT } from './pythonBoot';
import { notRun, spawnLaunch, supervise } from './run';
import { defaultConcurrency } from './slots';
import type { SandboxRunOptions, SandboxRunResult } from './types';
import { CancelledError, DeadlineError, withDeadline } from '../util/wait';

/**
 * Pre-started sandboxes for Python programs. Starting bubblewrap and then the interpreter is
 * most of a short run's time, so a pool keeps a few sandboxes started ahead, each a complete
 * bubblewrap sandbox of its own (fresh namespaces, an empty private folder) with its
 * interpreter up and blocked reading stdin. A run takes one, sends it the program, and the
 * sandbox exits with the program: nothing is ever reused, and a new one is started in the
 * background to take its place. Limits count from when the program arrives.
 */

/** The isolation fact every pooled run adds to its verdict. */
export const PRESTARTED_FACT = 'pre-started sandbox, used for this run only';
/** How long a sandbox may take to start before the run reports a sandbox error. */
export const START_TIMEOUT_MS = 15_000;
/** Unused sandboxes are stopped after this long without a run. */
export const IDLE_MS = 30_000;
/** How long `dispose` waits for the killed processes to be gone. */
export const DISPOSE_WAIT_MS = 5000;
/** A pre-started sandbox's start-up output kept for its error message (it normally prints nothing). */
const EARLY_CAP = 64 * 1024;

/** A Python command line split into the interpreter with its flags and what it runs. */
export interface PythonCommand {
  readonly exe: string;
  readonly flags: readonly string[];
  /** `FILE args...` or `-c CODE args...`. */
  readonly rest: readonly string[];
}

/** Splits `python [flags] FILE args` or `python [flags] -c CODE args`; undefined for anything else. */
export function pythonCommand(argv: readonly string[]): PythonCommand | undefined {
  const [exe, ...a] = argv;
  if (!exe) return undefined;
  let i = 0;
  // Only flags without a value and without an effect after start-up (no -i, -m, -W, -X).
  while (i < a.length && /^-[BEIOSsu]+$/.test(a[i] as string)) i++;
  const rest = a.slice(i);
  if (rest[0] === '-c' ? rest.length < 2 : !rest[0] || rest[0].startsWith('-')) return undefined;
  return { exe, flags: a.slice(0, i), rest };
}

/** One sandbox, from its start until it is handed to a run or killed. */
class Prestarted {
  ready = false;
  exited = false;
  readonly early = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private earlyBytes = 0;
  /** Settles when the sandbox is ready for its program, or has exited. */
  readonly settled: Promise<void>;
  private readonly listeners: [Readable | null, (b: Buffer) => void][];

  constructor(
    readonly child: ChildProcess,
    readonly command: string,
  ) {
    const keep = (into: Buffer[]) => (b: Buffer) => {
      if (this.earlyBytes >= EARLY_CAP) return;
      this.earlyBytes += b.length;
      into.push(b);
    };
    this.listeners = [
      [child.stdout, keep(this.early.stdout)],
      [child.stderr, keep(this.early.stderr)],
    ];
    for (const [stream, fn] of this.listeners) stream?.on('data', fn);
    // Idle sandboxes must not keep vtask running: they die with it (bubblewrap's --die-with-parent).
    child.unref();
    for (const s of child.stdio) (s as { unref?: () => void } | null)?.unref?.();
    this.settled = new Promise<void>((resolve) => {
      child.stdio[3]?.once('data', () => {
        this.ready = true;
        resolve();
      });
      child.once('exit', () => {
        this.exited = true;
        resolve();
      });
      child.once('error', (e) => {
        this.exited = true;
        this.early.stderr.push(Buffer.from(`could not start ${command}: ${e.message}\n`));
        resolve();
      });
    });
    child.stdin?.on('error', () => undefined);
    child.stdio[3]?.on('error', () => undefined);
  }

  get alive(): boolean {
    return !this.exited && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Hands the process over to a run: the start-up listeners go, the run's own take over. */
  detach(): void {
    for (const [stream, fn] of this.listeners) stream?.off('data', fn);
    this.child.ref();
    for (const s of this.child.stdio) (s as { ref?: () => void } | null)?.ref?.();
  }

  kill(): void {
    if (this.child.pid !== undefined && this.alive) new Reaper(this.child.pid).reap();
  }

  /** Resolves when the process has exited (at once if it has). */
  gone(): Promise<void> {
    if (!this.alive) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}

/** A bounded set of pre-started sandboxes of one shape (interpreter, flags, folders, environment). */
export class SandboxPool {
  private readonly idle: Prestarted[] = [];
  private readonly starting = new Set<Prestarted>();
  private readonly running = new Set<Prestarted>();
  private readonly stop = new AbortController();
  private closed = false;
  /** Set while pre-starts fail, so that a broken interpreter is not restarted in a loop. */
  private failing = false;
  private idleTimer: NodeJS.Timeout | undefined;

  /**
   * `template`: the options that fix the shape (`argv`: the interpreter and its flags, `readOnly`,
   * `env`); `size`: the most sandboxes kept started ahead.
   */
  constructor(
    private readonly backend: Backend,
    private readonly template: SandboxRunOptions & { readonly argv: readonly string[] },
    readonly size: number,
    private readonly startConcurrency = Math.max(1, defaultConcurrency()),
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Sandboxes started ahead and not yet taken (ready or starting). */
  get prestarted(): number {
    return this.idle.length + this.starting.size;
  }

  /** Resolves when the pool is full of ready sandboxes (or starts fail): for benchmarks and tests. */
  async warm(): Promise<void> {
    this.armIdleTimer();
    this.refill();
    const end = Date.now() + START_TIMEOUT_MS;
    // Bounded, and a timer keeps the process alive meanwhile (the sandboxes themselves do not).
    while (this.starting.size && Date.now() < end)
      await waitFor(Promise.race([...this.starting].map((b) => b.settled)), end - Date.now(), undefined);
  }

  /** Runs one Python program (`o.argv` as `pythonCommand` accepts it) in a pre-started sandbox. */
  async run(o: SandboxRunOptions): Promise<SandboxRunResult> {
    const base = notRun(this.backend, o);
    const isolation = { ...base.isolation, limits: [...base.isolation.limits, PRESTARTED_FACT] };
    const cmd = typeof o.argv === 'function' ? undefined : pythonCommand(o.argv);
    if (!cmd)
      return { ...base, isolation, sandboxError: 'a pre-started sandbox runs only `python FILE` or `python -c CODE`' };
    if (o.signal?.aborted) return { ...base, isolation, aborted: true };
    if (this.closed) return { ...base, isolation, sandboxError: 'the sandbox pool was shut down' };
    let frame: Buffer;
    try {
      frame = jobFrame(o, cmd, this.backend);
    } catch (e) {
      return { ...base, isolation, sandboxError: `could not prepare the program's folder: ${errorMessage(e)}` };
    }
    this.armIdleTimer();
    let box: Prestarted;
    try {
      box = this.take();
    } catch (e) {
      return { ...base, isolation, sandboxError: `could not start the sandbox: ${errorMessage(e)}` };
    }
    this.running.add(box);
    // The replacement starts while this run goes on.
    this.refill();
    try {
      const signal = o.signal ? AbortSignal.any([o.signal, this.stop.signal]) : this.stop.signal;
      const outcome = await waitFor(box.settled, START_TIMEOUT_MS, signal);
      if (outcome !== 'done' || !box.ready || !box.alive) {
        box.kill();
        if (outcome === 'aborted') return { ...base, isolation, aborted: true };
        if (outcome === 'timeout')
          return { ...base, isolation, sandboxError: `the sandbox did not start within ${START_TIMEOUT_MS / 1000} s` };
        this.failing = true;
        return startFailure(base, isolation, box);
      }
      this.failing = false;
      box.detach();
      return await supervise(this.backend, { ...o, signal }, isolation, {
        child: box.child,
        command: box.command,
        input: Buffer.concat([frame, toBuffer(o.stdin)]),
        early: box.early,
      });
    } finally {
      this.running.delete(box);
      this.refill();
    }
  }

  /** Stops every sandbox, idle or running (runs end as aborted), and waits until their processes are gone. */
  async dispose(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.stop.abort();
    const all = [...this.idle, ...this.starting, ...this.running];
    this.idle.length = 0;
    this.starting.clear();
    for (const b of all) b.kill();
    await waitFor(Promise.all(all.map((b) => b.gone())), DISPOSE_WAIT_MS, undefined);
  }

  /** A ready sandbox if there is one, else the one furthest into its start, else a new one. */
  private take(): Prestarted {
    while (this.idle.length) {
      const b = this.idle.shift() as Prestarted;
      if (b.alive) return b;
    }
    const first = this.starting.values().next();
    if (!first.done) {
      this.starting.delete(first.value);
      return first.value;
    }
    return this.start();
  }

  private start(): Prestarted {
    // Each pre-started sandbox serves one answer: it gets a user of its own, as a run does.
    const launch = this.backend.prestart?.(this.template, [...this.template.argv, '-c', PYTHON_BOOT], runUid());
    if (!launch) throw new Error(`${this.backend.method} cannot pre-start sandboxes`);
    return new Prestarted(spawnLaunch(launch, 1), launch.command);
  }

  /** Starts sandboxes in the background until `size` are started ahead, a few at a time. */
  private refill(): void {
    if (this.closed || this.failing || !this.idleTimer) return;
    while (this.prestarted < this.size && this.starting.size < this.startConcurrency) {
      let b: Prestarted;
      try {
        b = this.start();
      } catch {
        this.failing = true;
        return;
      }
      this.starting.add(b);
      void b.settled.then(() => {
        if (!this.starting.delete(b)) return;
        if (b.ready && b.alive && !this.closed) this.idle.push(b);
        else {
          b.kill();
          this.failing = true;
        }
        this.refill();
      });
    }
  }

  /** Stops the sandboxes started ahead once runs stop coming, so an idle vtask holds none. */
  private armIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      for (const b of [...this.idle, ...this.starting]) b.kill();
      this.idle.length = 0;
      this.starting.clear();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** The job a pre-started sandbox reads from stdin before the program's own input: its length (8 bytes), then its fields. */
function jobFrame(o: SandboxRunOptions, cmd: PythonCommand, backend: Backend): Buffer {
  const fields = encodeFields(programFields(cmd.rest, o.files ?? {}, rlimitValues(o, backend.processLimit)));
  const head = Buffer.alloc(8);
  head.writeBigUInt64BE(BigInt(fields.length));
  return Buffer.concat([head, fields]);
}

export function toBuffer(s: string | Buffer | undefined): Buffer {
  return typeof s === 'string' ? Buffer.from(s) : (s ?? Buffer.alloc(0));
}

/** The result of a sandbox that stopped before its program arrived: what it printed says why. */
function startFailure(
  base: SandboxRunResult,
  isolation: SandboxRunResult['isolation'],
  box: Prestarted,
): SandboxRunResult {
  const stderr = Buffer.concat(box.early.stderr).toString('utf8');
  const bwrapLine = /^(bwrap|could not start [^:]*): (.*)$/m.exec(stderr);
  const first = stderr.trim().split('\n')[0];
  const why = bwrapLine ? bwrapLine[0] : `the sandbox stopped before its program started${first ? `: ${first}` : ''}`;
  return { ...base, isolation, exitCode: box.child.exitCode, signal: box.child.signalCode, stderr, sandboxError: why };
}

/** Waits for `p`, at most `ms`, or until `signal` aborts; a failure of `p` counts as done. */
export async function waitFor(
  p: Promise<unknown>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<'done' | 'timeout' | 'aborted'> {
  try {
    await withDeadline(p, ms, signal, 'the wait');
    return 'done';
  } catch (e) {
    return e instanceof DeadlineError ? 'timeout' : e instanceof CancelledError ? 'aborted' : 'done';
  }
}

/** Largest number of pool shapes kept at once; the least recently used beyond it is disposed. */
const MAX_POOLS = 4;
const pools = new Map<string, SandboxPool>();

/**
 * How many sandboxes each pool keeps started ahead: `VTASK_SANDBOX_POOL` (0 turns pre-starting
 * off), else twice the cores, at least 4.
 */
export function defaultPoolSize(): number {
  const env = process.env.VTASK_SANDBOX_POOL;
  if (env !== undefined && env !== '' && Number.isInteger(Number(env)) && Number(env) >= 0) return Number(env);
  return Math.max(4, 2 * defaultConcurrency());
}

/** The process-wide pool for this run's shape, or undefined when the run cannot be pre-started. */
export function poolFor(backend: Backend, o: SandboxRunOptions): SandboxPool | undefined {
  if (!backend.prestart || o.cwd !== undefined || typeof o.argv === 'function') return undefined;
  const size = defaultPoolSize();
  const cmd = pythonCommand(o.argv);
  if (!cmd || size === 0) return undefined;
  const key = JSON.stringify([backend.method, backend.facts, cmd.exe, cmd.flags, o.readOnly ?? [], o.env ?? {}, size]);
  let pool = pools.get(key);
  if (pool) pools.delete(key);
  else pool = new SandboxPool(backend, { ...o, argv: [cmd.exe, ...cmd.flags], files: {}, stdin: '' }, size);
  pools.set(key, pool);
  for (const [k, p] of pools) {
    if (pools.size <= MAX_POOLS) break;
    pools.delete(k);
    void p.dispose();
  }
  return pool;
}

/** Stops every pre-started sandbox of this process (`vtask serve` on shutdown, tests). */
export async function disposeSandboxPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all([...all.map((p) => p.dispose()), ...[...disposers].map((d) => d())]);
}

/** Other kinds of started-ahead sandboxes (zygotes), stopped with the pools. */
const disposers = new Set<() => Promise<void>>();

export function onDisposeSandboxPools(dispose: () => Promise<void>): void {
  disposers.add(dispose);
}

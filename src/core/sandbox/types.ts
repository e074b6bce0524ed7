import type { Readable } from 'node:stream';
import type { Isolation } from '../base/isolation';

/**
 * How a program's memory is bounded. `address-space` sets RLIMIT_AS (right for Python and
 * native programs); `resident` only watches the resident memory of the process tree, for
 * runtimes such as Node that reserve huge address ranges at start and abort under RLIMIT_AS.
 * Both also get the resident-memory watchdog as a backstop.
 */
export type MemoryPolicy = 'address-space' | 'resident';

export interface SandboxRunOptions {
  /**
   * The command. Either a list, or a function of the program's folder as the program sees it
   * (`/box` under bubblewrap, the host path otherwise) for commands that name files in it from
   * another working directory. A bare name is looked up on the sandbox's PATH.
   */
  readonly argv: readonly string[] | ((dir: string) => readonly string[]);
  readonly stdin?: string | Buffer;
  /** Files written into the program's folder before it starts, by relative name. */
  readonly files?: Readonly<Record<string, string | Buffer>>;
  /**
   * A host folder made visible read-only (at the same path) and used as the working directory.
   * Without it the program runs in its own temporary folder.
   */
  readonly cwd?: string;
  /** Further host paths made visible read-only at the same path (an interpreter's prefix). */
  readonly readOnly?: readonly string[];
  /** Extra environment variables; the host's environment is never passed through. */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /** Default `address-space`. */
  readonly memoryPolicy?: MemoryPolicy;
  /** Most processes and threads the program may have at once (default 64). */
  readonly maxProcesses?: number;
  /** Cap of stdout and of stderr each (default 1 MiB); past 16x the cap the program is killed. */
  readonly outputLimitBytes?: number;
  readonly signal?: AbortSignal;
  /**
   * Run in a pre-started sandbox whose Python interpreter is already up, waiting for this
   * program (bubblewrap only; see `pool.ts`). `argv` must be `python [flags] FILE args` or
   * `python [flags] -c CODE args`; other runs, and other isolation methods, start as usual.
   */
  readonly prestarted?: boolean;
  /**
   * May run in a zygote (bubblewrap only; see `zygote.ts`) as a fresh process of the answer's
   * namespaces that execs `argv` (an absolute path): for interpreters that cannot be forked warm
   * (Node). A function `argv` gets the folder as the sandbox shows it (`/box`).
   */
  readonly zygoteExec?: boolean;
  /**
   * For a long-lived program that talks over its pipes (an agent task's environment) instead of
   * running to completion on a fixed input: `stdin` is then ignored and `timeoutMs` bounds the
   * program's whole life.
   */
  readonly streams?: SandboxStreams;
  /** Runs with weak isolation even without the process-wide opt-in (a caller's own opt-in). */
  readonly allowWeakIsolation?: boolean;
}

/** The pipes of an interactive program. */
export interface SandboxStreams {
  /** What is written here reaches the program's stdin as it comes; ending it closes that stdin. */
  readonly stdin: Readable;
  /** Each chunk of stdout as it arrives. Streamed stdout is neither kept in the result nor counted against the output cap: the reader bounds it. */
  onStdout(chunk: Buffer): void;
  /** Each chunk of stderr as it arrives; stderr is also kept in the result, up to the cap. */
  onStderr?(chunk: Buffer): void;
  /** Called once the program has been started, with how it is isolated. */
  onStart?(isolation: Isolation): void;
}

export interface SandboxRunResult {
  /** Null when the program was killed by a signal or never started. */
  readonly exitCode: number | null;
  /**
   * The signal that ended the program. Under bubblewrap, which reports a child killed by signal N
   * as exit code 128 + N, it is derived from such exit codes and `exitCode` is kept as well.
   */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly timedOut: boolean;
  /**
   * Set (to that bound, in ms) when the time limit ran out on the wall-clock backstop rather than
   * on the CPU-time budget: the program slept or blocked (a zygote's runs, whose budget is CPU time).
   */
  readonly wallBackstopMs?: number;
  /** The resident-memory watchdog killed the program. */
  readonly memoryExceeded: boolean;
  /** The program printed more than 16x the output cap and was killed. */
  readonly outputExceeded: boolean;
  /** Cancelled through the AbortSignal. */
  readonly aborted: boolean;
  /** Set when the sandbox itself failed (could not start, bubblewrap refused): the program did not run. */
  readonly sandboxError?: string;
  /**
   * Set when the program was not run because only weak isolation is available and the user did
   * not opt in: the reason says what is missing and how to fix it.
   */
  readonly refused?: string;
  readonly durationMs: number;
  /** Peak resident memory of the process tree seen by the watchdog, in MiB. */
  readonly peakRssMb: number;
  /** CPU time the program used, in ms, where the sandbox measures it (a zygote's runs). */
  readonly cpuMs?: number;
  readonly isolation: Isolation;
}

/** Runs one program, isolated as well as the platform allows. */
export interface Sandbox {
  /** `bwrap`, `unshare`, `sandbox-exec`, `process`. */
  readonly method: string;
  run(options: SandboxRunOptions): Promise<SandboxRunResult>;
  /**
   * Runs the tests of one answer (the same program on several inputs), results in order. Where
   * it can, the full sandbox runs them one after the other in one zygote slot (see zygote.ts);
   * otherwise each is a `run`.
   */
  runAll?(runs: readonly SandboxRunOptions[]): Promise<SandboxRunResult[]>;
}

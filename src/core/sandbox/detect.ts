import fs from 'node:fs';
import {
  bwrapBackend,
  isRoot,
  processBackend,
  sandboxExecBackend,
  unshareBackend,
  which,
  type Backend,
  type Method,
} from './backends';
import { isolationNotice, levelOf, refusalReason, weakIsolationAllowed } from './policy';
import { poolFor } from './pool';
import { notRun, runWith } from './run';
import { SLOTS } from './slots';
import type { Sandbox, SandboxRunOptions, SandboxRunResult } from './types';
import { zygoteFor } from './zygote';

/** A sandbox together with why stronger methods were not used. */
export interface DetectedSandbox extends Sandbox {
  /** One line per stronger method that was tried and failed, e.g. `bwrap: bwrap: No permissions to creating new namespace`. */
  readonly notes: readonly string[];
  readonly facts: readonly string[];
  /** `full` (bubblewrap) or `weak`: weak levels run programs only when the user opted in. */
  readonly level: 'full' | 'weak';
  /** The line the CLI and the output channel print once per run. */
  notice(): string;
}

function sandboxOf(backend: Backend, notes: string[]): DetectedSandbox {
  const level = levelOf(backend.method);
  const sandbox: DetectedSandbox = {
    method: backend.method,
    notes,
    facts: backend.facts,
    level,
    notice: () => isolationNotice(backend.method, notes, backend.facts),
    run: (o) => {
      // Checked on every run, not at detection: the opt-in can change while vtask runs (a setting).
      if (level === 'weak' && !o.allowWeakIsolation && !weakIsolationAllowed())
        return Promise.resolve({ ...notRun(backend, o), refused: refusalReason(backend.method, notes) });
      // An interactive program idles most of its life (an environment waits for its model):
      // holding a slot would stall the checks that compute, so it does not take one.
      if (o.streams) return runWith(backend, o);
      return SLOTS.use(async () => (await zygoteFor(backend, [o])?.run([o]))?.[0] ?? runAlone(backend, o), o.signal);
    },
    runAll: async (runs) => {
      const zygotes = level === 'full' ? zygoteFor(backend, runs) : undefined;
      // The tests of one answer run one after the other in one zygote slot: one slot of the machine.
      const done = zygotes && runs.length ? await SLOTS.use(() => zygotes.run(runs), runs[0]?.signal) : undefined;
      return done ?? Promise.all(runs.map((o) => sandbox.run(o)));
    },
  };
  return sandbox;
}

/** One run in a sandbox of its own: pre-started when it can be. */
function runAlone(backend: Backend, o: SandboxRunOptions): Promise<SandboxRunResult> {
  const pool = o.prestarted ? poolFor(backend, o) : undefined;
  return pool ? pool.run(o) : runWith(backend, o);
}

/** The backends worth trying on this platform, strongest first. */
function candidates(): Backend[] {
  const list: Backend[] = [];
  if (process.platform === 'linux') {
    const bwrap = which('bwrap');
    if (bwrap) {
      list.push(bwrapBackend(bwrap));
      if (isRoot()) list.push(bwrapBackend(bwrap, true));
    }
    const unshare = which('unshare');
    if (unshare) list.push(unshareBackend(unshare));
  } else if (process.platform === 'darwin' && fs.existsSync('/usr/bin/sandbox-exec')) {
    list.push(sandboxExecBackend('/usr/bin/sandbox-exec'));
  }
  list.push(processBackend());
  return list;
}

/** Runs a tiny program that reads a file from its folder and prints; the backend works if it prints. */
async function probe(b: Backend): Promise<string | undefined> {
  const r = await runWith(b, {
    argv: ['/bin/sh', '-c', 'read x < probe.txt && echo "$x"'],
    files: { 'probe.txt': 'vtask-ok\n' },
    timeoutMs: 15_000,
    memoryMb: 256,
    memoryPolicy: 'resident',
  });
  if (r.exitCode === 0 && r.stdout.trim() === 'vtask-ok') return undefined;
  return (r.sandboxError ?? r.stderr.trim().split('\n')[0]) || `exit code ${r.exitCode ?? r.signal}`;
}

/**
 * Finds the strongest isolation that works here, by trying each method once.
 * `VTASK_SANDBOX=bwrap|unshare|process` forces a method (its runs then fail visibly if it cannot work).
 */
export async function detectSandbox(force?: Method): Promise<DetectedSandbox> {
  const all = candidates();
  const wanted = force ?? (process.env.VTASK_SANDBOX as Method | undefined);
  if (wanted) {
    const b = all.find((c) => c.method === wanted);
    if (b) return sandboxOf(b, []);
  }
  const notes: string[] = [];
  for (const b of all) {
    if (b.method === 'process') return sandboxOf(b, notes);
    const failure = await probe(b);
    if (failure === undefined) return sandboxOf(b, notes);
    notes.push(`${b.method}: ${failure}`);
  }
  return sandboxOf(processBackend(), notes);
}

let cached: Promise<DetectedSandbox> | undefined;
const listeners = new Set<(sandbox: DetectedSandbox) => void>();

/** The process-wide sandbox, detected on first use. Every call tells the `onSandboxUse` listeners. */
export async function getSandbox(): Promise<DetectedSandbox> {
  cached ??= detectSandbox();
  const sb = await cached;
  for (const l of listeners) l(sb);
  return sb;
}

/**
 * Calls `listener` each time a code or script check takes the sandbox, so that front ends say
 * which isolation is in use when (and only when) code is about to run. Returns the unsubscribe.
 */
export function onSandboxUse(listener: (sandbox: DetectedSandbox) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

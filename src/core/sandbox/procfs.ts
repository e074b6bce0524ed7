import fs from 'node:fs';

/**
 * Process-tree helpers over Linux's /proc. Everything here is best effort: a process can exit
 * between two reads, so a missing file is never an error. On other platforms /proc does not
 * exist and the functions return nothing.
 */

const HAS_PROC = process.platform === 'linux' && fs.existsSync('/proc/self/status');

/** The pids of a process and all its descendants (threads' children included). */
export function processTree(root: number, limit = 4096): number[] {
  if (!HAS_PROC) return [root];
  const seen = new Set<number>([root]);
  const queue = [root];
  while (queue.length && seen.size < limit) {
    const pid = queue.shift() as number;
    for (const child of childrenOf(pid)) {
      if (!seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return [...seen];
}

function childrenOf(pid: number): number[] {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tids) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
    } catch {
      continue;
    }
    for (const s of text.split(' ')) {
      const n = Number(s);
      if (n > 0) out.push(n);
    }
  }
  return out;
}

/** Resident memory of one process in KiB (0 when it is gone or unreadable). */
export function rssKib(pid: number): number {
  if (!HAS_PROC) return 0;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Sum of the resident memory of processes, in KiB. */
export function sumRssKib(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) sum += rssKib(pid);
  return sum;
}

/** Fields of /proc/PID/stat after the command name: [state, ppid, pgrp, session, ...]; undefined when gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The start time of a process (clock ticks since boot), to tell it from a later one with the same pid. */
function startTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** Processes whose process group or session is `id`, wherever they were reparented to. */
function groupAndSession(id: number): number[] {
  if (!HAS_PROC) return [];
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(e);
    if (f && (Number(f[2]) === id || Number(f[3]) === id)) out.push(Number(e));
  }
  return out;
}

/** Processes whose environment holds the entry `tag` (those we may read: our own user's, or all as root). */
function withEnvironment(tag: string): number[] {
  if (!HAS_PROC) return [];
  const needle = Buffer.from(`\0${tag}\0`);
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (Buffer.concat([Buffer.from([0]), fs.readFileSync(`/proc/${e}/environ`), Buffer.from([0])]).includes(needle))
        out.push(Number(e));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

/**
 * Makes sure no process of a run outlives it. A program that backgrounds a child and exits
 * leaves an orphan that is no longer in its tree; it is still found through its process group
 * or session (the program leads both), or because the watchdog saw it earlier (`watch`), which
 * also catches one that called setsid() while its parent still lived.
 */
export class Reaper {
  private readonly seen = new Map<number, string | undefined>();
  /**
   * `tag`: a `NAME=value` environment entry the run's processes inherit, given for runs without a
   * PID namespace: then the group, the session and the tag are searched as well.
   */
  constructor(
    private readonly root: number,
    private readonly tag?: string,
  ) {}

  /** The current tree; remembers every member. */
  watch(): number[] {
    const pids = processTree(this.root);
    for (const pid of pids) if (!this.seen.has(pid)) this.seen.set(pid, startTime(pid));
    return pids;
  }

  reap(): void {
    this.watch();
    killTree(this.root, this.root);
    // Scanning /proc costs a few milliseconds: only runs without a PID namespace need it (they carry a tag).
    if (this.tag)
      for (const pid of [...groupAndSession(this.root), ...withEnvironment(this.tag)]) killTree(pid, undefined);
    for (const [pid, started] of this.seen)
      if (pid !== this.root && started !== undefined && startTime(pid) === started) killTree(pid, undefined);
  }
}

/** Sends SIGKILL to a process group and to every process of a tree (which may have left the group). */
export function killTree(root: number, pgid: number | undefined): void {
  // Stop the tree first so that nobody forks while we walk it, then kill.
  const pids = processTree(root);
  for (const pid of pids) trySignal(pid, 'SIGSTOP');
  if (pgid !== undefined) trySignal(-pgid, 'SIGKILL');
  for (const pid of processTree(root).concat(pids)) trySignal(pid, 'SIGKILL');
}

function trySignal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone, or not ours to signal.
  }
}

import type { Method } from './backends';

/**
 * Which isolation levels may run untrusted code. Only bubblewrap gives the full sandbox (own
 * folder, no network, read-only system, scrubbed environment, own PID namespace, limits); every
 * other method loses part of it, so code runs there only when the user opted in, and both the
 * refusal and the opt-in say exactly what is lost.
 */

export type IsolationLevel = 'full' | 'weak';

/** The environment variable that opts in to weak isolation (for CI and tests; `1` or `true`). */
export const ALLOW_WEAK_ENV = 'VTASK_ALLOW_WEAK_ISOLATION';

let allowedBySetting = false;

/** Set by the CLI's `--allow-weak-isolation` and by the `vtask.allowWeakIsolation` setting. */
export function setAllowWeakIsolation(allow: boolean): void {
  allowedBySetting = allow;
}

export function weakIsolationAllowed(): boolean {
  const env = (process.env[ALLOW_WEAK_ENV] ?? '').toLowerCase();
  return allowedBySetting || env === '1' || env === 'true';
}

export function levelOf(method: Method): IsolationLevel {
  return method === 'bwrap' ? 'full' : 'weak';
}

/** What a method loses compared with the full sandbox, in words a user can weigh. */
export function lostBy(method: Method, platform: NodeJS.Platform = process.platform): string[] {
  switch (method) {
    case 'bwrap':
      return [];
    case 'unshare':
      return [
        'read-only file system: the program can read the whole host file system (your home folder and project included) and write wherever file permissions allow',
      ];
    case 'sandbox-exec':
      return [
        'private file system: the program can read your files (your home folder included)',
        'own PID namespace: the program can see and signal your other processes',
        'process-count limit',
      ];
    case 'process':
      return [
        'network isolation: the program can reach servers on this machine (127.0.0.1) and the internet',
        'file-system isolation: the program can read your files (~/.ssh included) and write wherever file permissions allow',
        'own PID namespace: the program can see and signal your other processes, vtask included',
        ...(platform === 'win32'
          ? ['memory, CPU and process limits (only the wall-clock limit holds on Windows)']
          : []),
      ];
  }
}

/** What to install or enable to get the full sandbox here. */
export function remedy(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'linux') {
    return 'install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in a container, run it with --security-opt seccomp=unconfined or --privileged)';
  }
  if (platform === 'darwin')
    return 'macOS has no full sandbox for vtask (sandbox-exec has no PID namespace and cannot hide your files): run vtask in a Linux VM or container with bubblewrap';
  if (platform === 'win32')
    return 'on Windows, code verifiers need WSL or a container: run vtask inside WSL (with bubblewrap installed) or a Linux container';
  return 'run vtask on Linux with bubblewrap installed';
}

/** The flag, setting and variable that opt in, named once for every message. */
export const OPT_IN = `--allow-weak-isolation (CLI), the vtask.allowWeakIsolation setting (VS Code) or ${ALLOW_WEAK_ENV}=1`;

/** The reason of a refused run: what is missing, what it would lose, how to fix or opt in. */
export function refusalReason(method: Method, notes: readonly string[]): string {
  const why = notes.length ? ` (${notes.join('; ')})` : '';
  return `code does not run: the full sandbox (bubblewrap) is unavailable${why}; the best isolation here is '${method}', which lacks ${lostBy(method).join('; ')}. To fix: ${remedy()}. To run anyway with weak isolation: ${OPT_IN}`;
}

/** One line, printed once per run by the CLI and the VS Code output channel. */
export function isolationNotice(method: Method, notes: readonly string[], facts: readonly string[]): string {
  if (levelOf(method) === 'full') return `isolation: full sandbox (${method}: ${facts.join(', ')})`;
  const why = notes.length ? `; stronger methods failed: ${notes.join('; ')}` : '';
  const state = weakIsolationAllowed()
    ? `code runs anyway because weak isolation is allowed; it lacks ${lostBy(method).join('; ')}`
    : `code and script verifiers are refused; to fix: ${remedy()}; to run anyway: ${OPT_IN}`;
  return `isolation: WEAK (${method}: ${facts.join(', ')})${why}; ${state}`;
}

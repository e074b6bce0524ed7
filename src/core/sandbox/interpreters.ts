import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isRoot, which } from './backends';
import type { MemoryPolicy } from './types';

/** An interpreter as the sandbox runs it. */
export interface Interpreter {
  readonly language: 'python' | 'javascript';
  /** Absolute path of the executable. */
  readonly path: string;
  /** Arguments placed before the program's file. */
  readonly args: readonly string[];
  /** Host folders the interpreter needs besides the system ones (its install prefix). */
  readonly readOnly: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly memoryPolicy: MemoryPolicy;
}

const SYSTEM = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];

/** The folder to make visible for an executable outside the system folders (`<prefix>/bin/x` → `<prefix>`). */
function prefixOf(exe: string): string[] {
  const real = fs.realpathSync(exe);
  if (process.platform !== 'linux' || SYSTEM.some((d) => real.startsWith(d))) return [];
  return [path.dirname(path.dirname(real))];
}

/**
 * True when every folder on the way to `p` can be searched by anyone and `p` can be read by
 * anyone: the sandbox runs programs as an unprivileged user of their own when vtask runs as root, so an interpreter under
 * /root (pyenv, nvm) would be out of its reach.
 */
function reachableByAnyone(p: string): boolean {
  if (!isRoot()) return true;
  try {
    const real = fs.realpathSync(p);
    if ((fs.statSync(real).mode & 0o005) !== 0o005) return false;
    for (let d = path.dirname(real); ; d = path.dirname(d)) {
      if ((fs.statSync(d).mode & 0o001) === 0) return false;
      if (d === path.dirname(d)) return true;
    }
  } catch {
    return false;
  }
}

function resolvePython(): string | undefined {
  const names = process.platform === 'win32' ? ['python.exe', 'python3.exe'] : ['python3'];
  const found: string[] = [];
  if (process.env.VTASK_PYTHON) found.push(process.env.VTASK_PYTHON);
  if (process.platform !== 'win32') found.push('/usr/bin/python3', '/usr/local/bin/python3');
  for (const n of names) {
    const p = which(n);
    if (!p) continue;
    // Version managers install shell-script shims: ask the interpreter where it really is.
    const r = spawnSync(p, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 });
    const exe = r.status === 0 ? r.stdout.trim() : '';
    if (exe) found.push(exe);
  }
  const existing = found.filter((p) => {
    try {
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
  return existing.find(reachableByAnyone) ?? existing[0];
}

function resolveNode(): { path: string; env: Record<string, string> } | undefined {
  if (process.env.VTASK_NODE) return { path: process.env.VTASK_NODE, env: {} };
  const candidates: string[] = [];
  // Inside VS Code the host is Electron: prefer a real `node`, else Electron in Node mode.
  if (!process.versions.electron) candidates.push(process.execPath);
  const onPath = which(process.platform === 'win32' ? 'node.exe' : 'node');
  if (onPath) candidates.push(onPath);
  const pick = candidates.find(reachableByAnyone) ?? candidates[0];
  if (pick) return { path: pick, env: {} };
  return { path: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

const cache = new Map<string, Interpreter | null>();

/** The interpreter for a language, or null when none is installed. Looked up once. */
export function findInterpreter(language: 'python' | 'javascript'): Interpreter | null {
  const hit = cache.get(language);
  if (hit !== undefined) return hit;
  let result: Interpreter | null = null;
  if (language === 'python') {
    const exe = resolvePython();
    // -B: no bytecode files; -s: no user site-packages. The script's folder stays on sys.path.
    if (exe)
      result = {
        language,
        path: exe,
        args: ['-B', '-s'],
        readOnly: prefixOf(exe),
        env: {},
        memoryPolicy: 'address-space',
      };
  } else {
    const node = resolveNode();
    if (node)
      result = {
        language,
        path: node.path,
        args: [],
        readOnly: prefixOf(node.path),
        env: node.env,
        memoryPolicy: 'resident',
      };
  }
  cache.set(language, result);
  return result;
}

/** The V8 flags that bound a Node program's heap to its memory limit. */
export function nodeMemoryArgs(memoryMb: number): string[] {
  const heap = Math.max(8, Math.floor(memoryMb * 0.75));
  return [
    `--max-old-space-size=${heap}`,
    `--max-semi-space-size=${Math.max(1, Math.min(16, Math.floor(memoryMb / 32)))}`,
  ];
}

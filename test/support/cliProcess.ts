// The real `vtask` CLI as a child process, for tests that drive it against local servers. The
// child's peak memory is read from the process itself at exit (`resourceUsage().maxRSS`, via a
// preloaded script), so it is exact and needs no polling of /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CLI = path.resolve(process.cwd(), 'out/cli.js');

const PRELOAD = path.join(os.tmpdir(), `vtask-peak-rss-${process.pid}.cjs`);
const RSS_LINE = /^vtask-test-peak-rss (\d+)$/m;

function preload(): string {
  if (!fs.existsSync(PRELOAD))
    fs.writeFileSync(
      PRELOAD,
      `process.on('exit', () => process.stderr.write('\\nvtask-test-peak-rss ' + process.resourceUsage().maxRSS + '\\n'));\n`,
    );
  return PRELOAD;
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident memory of the child in bytes (undefined if it was killed before exit). */
  readonly peakRss?: number;
  readonly ms: number;
}

export interface CliRun {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
}

/** Starts `vtask ARGS`; `done` resolves when it has exited and all its output is read, and rejects if it outlives `timeoutMs` (it is then killed). */
export function startCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  timeoutMs = 30_000,
): CliRun {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-r', preload(), CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vtask ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    // 'close', not 'exit': the child may have exited before the last of its output (the summary,
    // the peak RSS line) has been read from the pipes; 'close' comes once they are drained.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const m = RSS_LINE.exec(stderr);
      resolve({
        code,
        signal,
        stdout,
        stderr: stderr.replace(RSS_LINE, '').trimEnd(),
        ms: performance.now() - t0,
        ...(m ? { peakRss: Number(m[1]) * 1024 } : {}),
      });
    });
  });
  return { child, done, stderr: () => stderr };
}

export function runCliProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  timeoutMs?: number,
): Promise<CliResult> {
  return startCli(args, env, timeoutMs).done;
}

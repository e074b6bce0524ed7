// `vtask serve` as a child process on a free port, for tests that score through it over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cliProcess';

/**
 * Starts `vtask serve ARGS --port 0` (in `cwd`, else this process's); resolves with its URL once
 * it prints "listening on URL", and `stderr()`, what it has written there so far.
 */
export async function startServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  cwd?: string,
): Promise<{ child: ChildProcess; url: string; stderr(): string }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args, '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd,
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vtask serve printed nothing in ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vtask serve exited with ${code}: ${err}`));
    });
  });
  const m = /^listening on (http:\/\/(?:[\w.-]+|\[[0-9a-f:]+\]):\d+)$/.exec(first);
  if (!m) {
    child.kill('SIGKILL');
    throw new Error(`vtask serve's first line: ${first}`);
  }
  return { child, url: m[1]!, stderr: () => err };
}

// The test server (a bundle of test/support/openaiServer.ts) as a process of its own for the
// benchmarks, so that its work is not counted as the client's.
import { spawn } from 'node:child_process';

/** Starts `node serverJs --port 0 ...args`; resolves with the process and its port once it listens. */
export async function startServerProcess(serverJs, args = ['--no-record']) {
  const server = spawn(process.execPath, [serverJs, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the test server did not start within 10 s')), 10_000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    server.once('exit', (code) => reject(new Error(`the test server exited (${code})`)));
  });
  return { server, port };
}

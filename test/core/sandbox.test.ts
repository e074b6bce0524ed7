// The sandbox against hostile programs: endless loops, fork bombs, memory bombs, writes outside
// the program's folder, network access, floods of input and output, cancellation. Each test
// checks the outcome and that nothing of the program is left running afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  ALLOW_WEAK_ENV,
  detectSandbox,
  findInterpreter,
  getSandbox,
  nodeMemoryArgs,
  type SandboxRunOptions,
} from '../../src/core/sandbox';
import { which } from '../../src/core/sandbox/backends';
import { countingListener } from '../support/listener';
import { noSurvivors, survivors } from '../support/survivors';

const PY = findInterpreter('python');
const JS = findInterpreter('javascript');
const LINUX = process.platform === 'linux';

function token(): string {
  return `vtask-t-${randomBytes(5).toString('hex')}`;
}

function py(code: string, extra: Partial<SandboxRunOptions> = {}, args: string[] = []): SandboxRunOptions {
  assert.ok(PY, 'python3 is installed');
  return {
    argv: [PY.path, ...PY.args, 'main.py', ...args],
    files: { 'main.py': code },
    timeoutMs: 10_000,
    memoryMb: 256,
    readOnly: PY.readOnly,
    ...extra,
  };
}

function js(code: string, extra: Partial<SandboxRunOptions> = {}, args: string[] = []): SandboxRunOptions {
  assert.ok(JS, 'node is installed');
  const memoryMb = extra.memoryMb ?? 256;
  return {
    argv: [JS.path, ...nodeMemoryArgs(memoryMb), 'main.js', ...args],
    files: { 'main.js': code },
    timeoutMs: 10_000,
    memoryMb,
    memoryPolicy: 'resident',
    readOnly: JS.readOnly,
    env: JS.env,
    ...extra,
  };
}

void test('uses the strongest isolation available and says so', async (t) => {
  const sb = await getSandbox();
  t.diagnostic(
    `method: ${sb.method}; ${sb.facts.join(', ')}${sb.notes.length ? `; not used: ${sb.notes.join(' | ')}` : ''}`,
  );
  if (LINUX && which('bwrap') && !process.env.VTASK_SANDBOX)
    assert.equal(sb.method, 'bwrap', `bubblewrap is installed but unusable: ${sb.notes.join('; ')}`);
  const r = await sb.run(py('import sys\nprint(sum(map(int, sys.stdin.read().split())))', { stdin: '1 2 3\n' }));
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, '6\n');
  assert.equal(r.isolation.method, sb.method);
  assert.ok(r.isolation.limits.some((l) => /ms$/.test(l)));
  assert.ok(r.isolation.limits.some((l) => /MiB/.test(l)));
  if (sb.method === 'bwrap') {
    for (const fact of ['no network', 'own temporary folder', 'read-only file system'])
      assert.ok(r.isolation.limits.includes(fact), fact);
  }
});

void test('an endless loop times out and the whole process group is killed', async () => {
  const sb = await getSandbox();
  const tok = token();
  // The program starts children that loop too, one of them in a new session (out of the group).
  const code = [
    'import os, subprocess, sys',
    'subprocess.Popen([sys.executable, "-c", "while True: pass", sys.argv[1]])',
    'subprocess.Popen([sys.executable, "-c", "while True: pass", sys.argv[1]], start_new_session=True)',
    'if os.fork() == 0:',
    '    os.setsid()',
    '    while True: pass',
    'while True: pass',
  ].join('\n');
  const t0 = Date.now();
  const r = await sb.run(py(code, { timeoutMs: 1000 }, [tok]));
  assert.equal(r.timedOut, true);
  assert.ok(Date.now() - t0 < 8000, `returned after ${Date.now() - t0} ms`);
  await noSurvivors(tok);
});

void test('a fork bomb is contained and killed', { skip: !LINUX && 'needs: Linux (process limits)' }, async () => {
  const sb = await getSandbox();
  const tok = token();
  const code = [
    'import os',
    'while True:',
    '    try:',
    '        os.fork()',
    '    except OSError:',
    '        pass',
  ].join('\n');
  let peak = 0;
  const watch = setInterval(() => (peak = Math.max(peak, survivors(tok).length)), 100);
  const r = await sb.run(py(code, { timeoutMs: 2500, maxProcesses: 32 }, [tok]));
  clearInterval(watch);
  assert.ok(r.timedOut || r.exitCode !== 0);
  if (sb.method === 'bwrap' || sb.method === 'unshare')
    assert.ok(peak <= 40, `at most the process limit ran at once (saw ${peak})`);
  await noSurvivors(tok);
  // The host can still start processes.
  const again = await sb.run(py('print("alive")'));
  assert.equal(again.stdout, 'alive\n');
});

void test('a Python memory bomb hits the memory limit', async () => {
  const sb = await getSandbox();
  const r = await sb.run(py('a = []\nwhile True:\n    a.append(bytearray(10**6))', { memoryMb: 128 }));
  assert.notEqual(r.exitCode, 0);
  assert.ok(r.memoryExceeded || /MemoryError/.test(r.stderr), `memory error expected: ${r.stderr.slice(-300)}`);
});

void test(
  'a JavaScript memory bomb outside the V8 heap is stopped by the watchdog',
  { skip: !LINUX && 'needs: Linux (the watchdog reads /proc)' },
  async () => {
    const sb = await getSandbox();
    const r = await sb.run(js('const a = []; while (true) a.push(Buffer.alloc(1e7, 1));', { memoryMb: 128 }));
    assert.equal(r.memoryExceeded, true, r.stderr.slice(-300));
    assert.ok(r.peakRssMb >= 128);
  },
);

void test('a JavaScript heap bomb fails with V8 heap limits', async () => {
  const sb = await getSandbox();
  const r = await sb.run(
    js('const a = []; while (true) a.push(new Array(1e5).fill(Math.random()));', { memoryMb: 128 }),
  );
  assert.notEqual(r.exitCode, 0);
  assert.ok(r.memoryExceeded || /heap out of memory|Reached heap limit/.test(r.stderr), r.stderr.slice(-300));
});

void test('writes outside the program folder fail and create nothing', async (t) => {
  const sb = await getSandbox();
  if (sb.method !== 'bwrap' && sb.method !== 'sandbox-exec')
    return t.skip(`needs: bwrap or sandbox-exec (${sb.method} does not make the file system read-only)`);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-outside-'));
  fs.chmodSync(outside, 0o777);
  const targets = [
    path.join(outside, 'pwned.txt'),
    path.join(os.tmpdir(), `${token()}.txt`),
    path.join(process.cwd(), `${token()}.txt`),
  ];
  const code = [
    'import sys',
    'ok = 0',
    'for p in sys.argv[1:]:',
    '    try:',
    '        open(p, "w").write("x")',
    '        print("wrote", p)',
    '    except OSError as e:',
    '        print("refused", p, e.strerror)',
    'open("mine.txt", "w").write("fine")',
    'print(open("mine.txt").read())',
  ].join('\n');
  try {
    const r = await sb.run(py(code, {}, targets));
    assert.equal(r.exitCode, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /^wrote/m);
    assert.match(r.stdout, /^fine$/m, 'the program can write in its own folder');
    for (const p of targets) assert.equal(fs.existsSync(p), false, `${p} was not created`);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

void test('the program has no network, not even to 127.0.0.1', async (t) => {
  const sb = await getSandbox();
  if (sb.method === 'process') return t.skip('needs: bwrap or sandbox-exec (a plain process is not network-isolated)');
  const listener = await countingListener();
  const port = listener.port;
  try {
    const code = [
      'import socket, sys',
      'try:',
      '    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)',
      '    print("connected")',
      'except OSError as e:',
      '    print("no network:", e)',
      '    sys.exit(1)',
    ].join('\n');
    const r = await sb.run(py(code, {}, [String(port)]));
    assert.equal(r.exitCode, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /no network/);
    assert.equal(listener.connections(), 0);
  } finally {
    await listener.close();
  }
});

void test('huge input is delivered, or dropped without a hang when unread', async () => {
  const sb = await getSandbox();
  const big = 'x'.repeat(20 * 1024 * 1024) + '\n';
  const read = await sb.run(py('import sys\nprint(len(sys.stdin.buffer.read()))', { stdin: big }));
  assert.equal(read.stdout.trim(), String(big.length));
  const unread = await sb.run(py('print("done")', { stdin: big }));
  assert.equal(unread.exitCode, 0, unread.stderr);
  assert.equal(unread.stdout, 'done\n');
});

void test('100 MB of output is capped and the program stopped', async () => {
  const sb = await getSandbox();
  const t0 = Date.now();
  const r = await sb.run(
    py('import sys\nchunk = "y" * 65536 + "\\n"\nfor _ in range(1600):\n    sys.stdout.write(chunk)', {
      timeoutMs: 20_000,
    }),
  );
  assert.equal(r.stdoutTruncated, true);
  assert.ok(r.stdout.length <= 1024 * 1024, `kept ${r.stdout.length} bytes`);
  assert.equal(r.outputExceeded, true);
  assert.equal(r.timedOut, false);
  assert.ok(Date.now() - t0 < 15_000);
});

void test('an AbortSignal cancels a running program and kills it', async () => {
  const sb = await getSandbox();
  const tok = token();
  const ac = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ac.abort(), 500);
  const r = await sb.run(py('while True: pass', { timeoutMs: 30_000, signal: ac.signal }, [tok]));
  assert.equal(r.aborted, true);
  assert.ok(Date.now() - t0 < 5000);
  await noSurvivors(tok);
  const pre = await sb.run(py('print(1)', { signal: AbortSignal.abort() }));
  assert.equal(pre.aborted, true);
});

void test('the program folder is temporary and removed afterwards', async () => {
  const sb = await getSandbox();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-tmpdir-'));
  fs.chmodSync(tmp, 0o755);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const r = await sb.run(py('open("out.txt", "w").write("x" * 1000)\nprint("ok")'));
    assert.equal(r.stdout, 'ok\n', r.stderr);
    assert.deepEqual(fs.readdirSync(tmp), []);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

void test('the program does not see the host environment', async () => {
  const sb = await getSandbox();
  process.env.VTASK_SECRET_FOR_TEST = 'hunter2';
  try {
    const r = await sb.run(py('import os\nprint(os.environ.get("VTASK_SECRET_FOR_TEST", "none"))'));
    assert.equal(r.stdout, 'none\n');
  } finally {
    delete process.env.VTASK_SECRET_FOR_TEST;
  }
});

void test(
  'the weaker methods run programs when opted in, and report themselves',
  { skip: !LINUX && 'needs: Linux (Linux methods)' },
  async (t) => {
    process.env[ALLOW_WEAK_ENV] = '1';
    t.after(() => delete process.env[ALLOW_WEAK_ENV]);
    for (const method of ['unshare', 'process'] as const) {
      if (method === 'unshare' && !which('unshare')) continue;
      const sb = await detectSandbox(method);
      const tok = token();
      const r = await sb.run(
        py(
          'import sys\nprint(input(), flush=True)\nopen("mine.txt", "w").write("x")\nwhile len(sys.argv) > 2: pass',
          { stdin: 'hello\n', timeoutMs: 1500 },
          [tok, 'loop'],
        ),
      );
      if (r.sandboxError) {
        t.diagnostic(`${method}: ${r.sandboxError}`);
        continue;
      }
      assert.equal(r.isolation.method, method);
      assert.equal(r.isolation.level, 'weak');
      assert.equal(r.stdout, 'hello\n', `${method}: ${r.stderr}`);
      assert.equal(r.timedOut, true);
      await noSurvivors(tok);
    }
  },
);

void test(
  'as root, each run has an unprivileged user of its own: runs at once do not share a process limit or signal each other',
  { skip: !(LINUX && process.getuid?.() === 0) && 'needs: Linux, run as root' },
  async (t) => {
    process.env[ALLOW_WEAK_ENV] = '1';
    t.after(() => delete process.env[ALLOW_WEAK_ENV]);
    for (const method of ['bwrap', 'process'] as const) {
      if (method === 'bwrap' && !which('bwrap')) continue;
      const sb = await detectSandbox(method);
      // The first run prints its user and pid, then waits; the second tries to signal it.
      const first = sb.run(
        py('import os, sys, time\nprint(os.getuid(), os.getpid(), flush=True)\ntime.sleep(3)', { timeoutMs: 8000 }),
      );
      const uids = await Promise.all([first, sb.run(py('import os\nprint(os.getuid())'))]);
      const [a, b] = uids.map((r) => Number(r.stdout.trim().split(' ')[0]));
      assert.ok(a && b && a !== b, `${method}: two runs ran as ${a} and ${b}`);
      for (const uid of [a, b]) assert.ok(uid !== 0 && uid !== 65534, `${method}: uid ${uid}`);
      assert.ok(
        uids[0]?.isolation.limits.includes('runs as an unprivileged user of its own'),
        uids[0]?.isolation.limits.join(', '),
      );
    }
    // Without a PID namespace another run's processes are visible: a run of its own user cannot kill them.
    const sb = await detectSandbox('process');
    const waiting = sb.run(py('import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(4)', { timeoutMs: 8000 }));
    await new Promise((r) => setTimeout(r, 600));
    const pids = fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('main.py');
        } catch {
          return false;
        }
      });
    assert.ok(pids.length > 0, 'the waiting program is running');
    const killer = await sb.run(
      py(
        `import os\nfor p in ${JSON.stringify(pids.map(Number))}:\n    try:\n        os.kill(p, 9)\n        print("killed", p)\n    except PermissionError:\n        print("denied", p)\n    except ProcessLookupError:\n        pass`,
      ),
    );
    assert.doesNotMatch(killer.stdout, /killed/, killer.stdout);
    assert.match(killer.stdout, /denied/, 'the other run was found, and the kill refused');
    const r = await waiting;
    assert.equal(r.signal, null, 'the waiting run was not killed');
    assert.match(r.stdout, /^\d+\n$/);
  },
);

// Pre-started sandboxes: each serves exactly one answer (no folder, file or process of one
// answer reaches the next), the pool stays within its size, stops without leaving a process
// (on dispose, on cancel, when vtask exits), limits count from the answer's arrival, and the
// sandbox still denies what the full sandbox denies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  detectSandbox,
  disposeSandboxPools,
  findInterpreter,
  type SandboxRunOptions,
  type SandboxRunResult,
} from '../../src/core/sandbox';
import { bwrapBackend, which, type Backend } from '../../src/core/sandbox/backends';
import { PRESTARTED_FACT, pythonCommand, SandboxPool } from '../../src/core/sandbox/pool';
import { ZYGOTE_FACT } from '../../src/core/sandbox/zygote';
import { checkCode, type CodeParams } from '../../src/core/verifiers/code/checkCode';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

const PY = findInterpreter('python');
const CHILD_ENV = 'VTASK_POOL_TEST_CHILD';

/** Processes (not zombies) whose command line or environment holds `tok`: a pool's sandboxes carry it in their environment. */
function holders(tok: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    for (const f of ['cmdline', 'environ']) {
      try {
        if (fs.readFileSync(`/proc/${e}/${f}`, 'latin1').includes(tok)) {
          out.push(Number(e));
          break;
        }
      } catch {
        // Gone, or a kernel thread.
      }
    }
  }
  return out;
}

/** Pids of interpreters (host view) holding `tok` in their environment: one per pre-started or running sandbox. */
function interpreters(tok: string): number[] {
  return holders(tok).filter((pid) => /python/.test(readOr(`/proc/${pid}/comm`)));
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

/** Waits (bounded) until `check` holds; killed processes take a moment to be reaped. */
async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (check()) return true;
  return check();
}

/** A bubblewrap backend that works here, or the reason there is none. */
async function backend(): Promise<Backend | string> {
  if (process.platform !== 'linux') return 'needs: Linux with bubblewrap';
  if (!PY) return 'needs: python3';
  const sb = await detectSandbox();
  const bwrap = which('bwrap');
  if (sb.method !== 'bwrap' || !bwrap) return `needs: a working bubblewrap (${sb.notes.join('; ') || sb.method})`;
  // As root, the variant that maps to `nobody` inside is used only when the plain one failed.
  return bwrapBackend(
    bwrap,
    sb.notes.some((n) => n.startsWith('bwrap:')),
  );
}

function pyRun(code: string, extra: Partial<SandboxRunOptions> = {}, args: readonly string[] = []): SandboxRunOptions {
  assert.ok(PY);
  return {
    argv: [PY.path, ...PY.args, 'main.py', ...args],
    files: { 'main.py': code },
    timeoutMs: 8000,
    memoryMb: 256,
    readOnly: PY.readOnly,
    ...extra,
  };
}

/** A pool whose sandboxes carry `tok` in their environment, so the test can find their processes. */
function poolOf(b: Backend, size: number, tok: string): SandboxPool {
  assert.ok(PY);
  return new SandboxPool(b, { ...pyRun(''), argv: [PY.path, ...PY.args], env: { VTASK_POOL_TEST: tok } }, size);
}

function tok(): string {
  return `vtask-pool-${randomBytes(5).toString('hex')}`;
}

function ok(r: SandboxRunResult): string {
  assert.equal(r.sandboxError, undefined);
  assert.equal(r.exitCode, 0, r.stderr.slice(-500));
  return r.stdout;
}

const IDENTITY = [
  'import json, os, sys',
  'ns = {k: os.readlink("/proc/self/ns/" + k) for k in ("mnt", "pid", "net", "user", "ipc")}',
  'seen = [p for p in os.listdir("/proc") if p.isdigit() and sys.argv[1] in open("/proc/" + p + "/cmdline").read()]',
  'print(json.dumps({"ns": ns, "files": sorted(os.listdir("/box")), "mark": os.path.exists("/box/mark.txt"), "seen": seen}))',
].join('\n');

if (process.env[CHILD_ENV]) {
  // Run as a child by the exit test: start a pool, say so, and exit without disposing of it.
  void (async () => {
    const b = await backend();
    if (typeof b === 'string') process.exit(2);
    const pool = poolOf(b, 2, process.env[CHILD_ENV] as string);
    await pool.warm();
    process.stdout.write(`ready ${pool.prestarted}\n`);
  })();
} else {
  void test('pythonCommand accepts `python [flags] FILE` and `python [flags] -c CODE` only', () => {
    assert.deepEqual(pythonCommand(['/usr/bin/python3', '-B', '-s', 'main.py', 'x']), {
      exe: '/usr/bin/python3',
      flags: ['-B', '-s'],
      rest: ['main.py', 'x'],
    });
    assert.deepEqual(pythonCommand(['py', '-Bs', '-c', 'print(1)', 'a']), {
      exe: 'py',
      flags: ['-Bs'],
      rest: ['-c', 'print(1)', 'a'],
    });
    assert.equal(pythonCommand(['py', '-m', 'mod']), undefined);
    assert.equal(pythonCommand(['py', '-c']), undefined);
    assert.equal(pythonCommand(['py', '-W', 'error', 'main.py']), undefined);
    assert.equal(pythonCommand(['py']), undefined);
  });

  void test('a pre-started sandbox serves one answer: two answers share no folder, file or process', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const tag = tok();
    const left = tok();
    const pool = poolOf(b, 2, tag);
    try {
      await pool.warm();
      assert.equal(interpreters(tag).length, 2, 'two interpreters wait');
      // Answer 1 writes a file and leaves a process in a new session behind.
      const leave = `import subprocess, sys\nopen("/box/mark.txt", "w").write("secret of answer 1")\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", sys.argv[1]], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n${IDENTITY}`;
      const first = JSON.parse(ok(await pool.run(pyRun(leave, {}, [left]))));
      assert.equal(first.mark, true);
      assert.ok(await eventually(() => holders(left).length === 0), 'the process answer 1 left is gone');
      // Nothing on the host is in answer 1's namespaces any more: its whole sandbox is gone.
      assert.ok(
        await eventually(() =>
          holders(tag).every(
            (pid) => readOr(`/proc/${pid}/ns/pid`) === '' || fs.readlinkSync(`/proc/${pid}/ns/pid`) !== first.ns.pid,
          ),
        ),
        'no process of the first sandbox survives',
      );
      const second = JSON.parse(ok(await pool.run(pyRun(IDENTITY, {}, [left]))));
      assert.equal(second.mark, false, 'answer 2 does not see the file of answer 1');
      assert.deepEqual(second.files, ['main.py'], 'answer 2 starts in an empty folder of its own');
      assert.deepEqual(second.seen, []);
      for (const k of ['mnt', 'pid', 'net', 'user', 'ipc'])
        assert.notEqual(second.ns[k], first.ns[k], `a new ${k} namespace per answer`);
    } finally {
      await pool.dispose();
    }
  });

  void test('the pool keeps at most its size started ahead and refills in the background', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const tag = tok();
    const pool = poolOf(b, 3, tag);
    try {
      await pool.warm();
      assert.equal(pool.prestarted, 3);
      assert.equal(interpreters(tag).length, 3);
      let most = 0;
      const runs = Array.from({ length: 7 }, (_, i) =>
        pool.run(pyRun('import time, sys\ntime.sleep(0.2)\nprint(sys.argv[1])', {}, [String(i)])).then((r) => {
          most = Math.max(most, pool.prestarted);
          return r;
        }),
      );
      const results = await Promise.all(runs);
      results.forEach((r, i) => assert.equal(ok(r).trim(), String(i)));
      assert.ok(most <= 3, `never more than 3 started ahead (saw ${most})`);
      await pool.warm();
      assert.equal(pool.prestarted, 3, 'refilled');
      // Seven sandboxes were used and are gone; only the three waiting ones are left.
      assert.ok(
        await eventually(() => interpreters(tag).length === 3),
        `3 interpreters left, saw ${interpreters(tag).length}`,
      );
    } finally {
      await pool.dispose();
    }
  });

  void test('dispose stops waiting and running sandboxes, and a cancelled run leaves nothing behind', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const tag = tok();
    const pool = poolOf(b, 2, tag);
    await pool.warm();
    const cancel = new AbortController();
    const cancelled = pool.run(pyRun('while True: pass', { timeoutMs: 30_000, signal: cancel.signal }));
    const running = pool.run(pyRun('import time\nwhile True: time.sleep(1)', { timeoutMs: 30_000 }));
    await eventually(() => pool.prestarted === 2);
    cancel.abort();
    const c = await cancelled;
    assert.equal(c.aborted, true);
    assert.ok(holders(tag).length > 0, 'the other sandboxes still run');
    await pool.dispose();
    const r = await running;
    assert.equal(r.aborted, true, 'a run cut short by dispose is aborted');
    assert.ok(
      await eventually(() => holders(tag).length === 0),
      `no bwrap or python process left: ${holders(tag).join(', ')}`,
    );
    const after = await pool.run(pyRun('print(1)'));
    assert.match(after.sandboxError ?? '', /shut down/);
  });

  void test('sandboxes started ahead end with vtask even without dispose', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const tag = tok();
    const child = spawn(process.execPath, [process.argv[1] as string], {
      env: { ...process.env, [CHILD_ENV]: tag },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    assert.equal(out.trim(), 'ready 2', 'the child had two sandboxes started ahead');
    assert.ok(
      await eventually(() => holders(tag).length === 0),
      `no process of the child's pool survives: ${holders(tag).join(', ')}`,
    );
  });

  void test('time limits count from when the answer arrives, not from the pre-start', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const pool = poolOf(b, 1, tok());
    try {
      await pool.warm();
      await new Promise((r) => setTimeout(r, 1500));
      // Started 1.5 s ago: a 1 s limit still gives a 0.5 s answer its whole second.
      const slow = await pool.run(pyRun('import time\ntime.sleep(0.5)\nprint("done")', { timeoutMs: 1000 }));
      assert.equal(slow.timedOut, false);
      assert.equal(ok(slow).trim(), 'done');
      // The CPU-time rlimit is the interpreter's start-up use plus the answer's allowance.
      await pool.warm();
      const cpu = await pool.run(
        pyRun('import os, resource\nprint(resource.getrlimit(resource.RLIMIT_CPU)[0], sum(os.times()[:2]))', {
          timeoutMs: 3000,
        }),
      );
      const [limit, used] = ok(cpu).trim().split(' ').map(Number) as [number, number];
      assert.ok(limit - used >= 4 && limit - used <= 6, `CPU limit ${limit} s after ${used} s used`);
      const loop = await pool.run(pyRun('while True: pass', { timeoutMs: 1000 }));
      assert.equal(loop.timedOut || loop.signal === 'SIGXCPU', true);
      assert.ok(loop.durationMs >= 1000, `ran its full second: ${loop.durationMs} ms`);
      assert.ok(loop.isolation.limits.includes(PRESTARTED_FACT));
    } finally {
      await pool.dispose();
    }
  });

  void test('a pre-started sandbox denies what the full sandbox denies', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const tag = tok();
    const pool = poolOf(b, 2, tag);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-pool-host-'));
    fs.chmodSync(dir, 0o777);
    const server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.VTASK_FAKE_SECRET = 'sk-fake-pool';
    try {
      const env = await pool.run(pyRun('import os\nprint(os.environ.get("VTASK_FAKE_SECRET", "none"))'));
      assert.equal(ok(env).trim(), 'none');
      const target = path.join(dir, 'escape');
      await pool.run(
        pyRun('import sys\ntry:\n    open(sys.argv[1], "w").write("x")\nexcept Exception as e:\n    print(e)', {}, [
          target,
        ]),
      );
      assert.equal(fs.existsSync(target), false, 'no write outside the folder');
      const port = (server.address() as net.AddressInfo).port;
      const netRun = await pool.run(
        pyRun(
          'import socket, sys\ntry:\n    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)\n    print("connected")\nexcept Exception as e:\n    print("denied")',
          {},
          [String(port)],
        ),
      );
      assert.equal(ok(netRun).trim(), 'denied');
      const mem = await pool.run(
        pyRun('x = []\nwhile True:\n    x.append(bytearray(16 * 1024 * 1024))', { memoryMb: 128 }),
      );
      assert.ok(mem.memoryExceeded || /MemoryError/.test(mem.stderr), mem.stderr.slice(-300));
      const bomb = await pool.run(
        pyRun(
          'import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)',
          { timeoutMs: 2000, maxProcesses: 32 },
        ),
      );
      assert.ok(bomb.timedOut || bomb.exitCode !== 0);
      const flood = await pool.run(
        pyRun('import sys\nwhile True:\n    sys.stdout.write("y" * 65536)', { outputLimitBytes: 64 * 1024 }),
      );
      assert.equal(flood.outputExceeded, true);
      await pool.dispose();
      assert.ok(await eventually(() => holders(tag).length === 0), 'the fork bomb left nothing');
    } finally {
      delete process.env.VTASK_FAKE_SECRET;
      await pool.dispose();
      await new Promise<void>((r) => server.close(() => r()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('a sandbox that cannot start is a sandbox error naming the cause, and is not restarted in a loop', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const pool = new SandboxPool(b, { ...pyRun(''), argv: ['/nonexistent/vtask-python', '-B'] }, 3);
    try {
      const r = await pool.run({ ...pyRun('print(1)'), argv: ['/nonexistent/vtask-python', '-B', 'main.py'] });
      assert.match(r.sandboxError ?? '', /bwrap: .*vtask-python/);
      assert.ok(r.isolation.limits.includes(PRESTARTED_FACT));
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(pool.prestarted <= 3);
      const again = await pool.run({ ...pyRun('print(1)'), argv: ['/nonexistent/vtask-python', '-B', 'main.py'] });
      assert.match(again.sandboxError ?? '', /bwrap: /);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(pool.prestarted, 0, 'no sandbox is started ahead while they fail');
    } finally {
      await pool.dispose();
    }
  });

  const ctx = (): VerifyContext => ({
    task: { id: 't', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal: new AbortController().signal,
    trusted: true,
    child: () => Promise.reject(new Error('none')),
  });
  const statuses = (v: Verdict): string[] => (v.details.tests as { status: string }[]).map((x) => x.status);

  void test('code verdicts are the same with and without pre-started sandboxes and zygotes, and say which ran them', async (t) => {
    const b = await backend();
    if (typeof b === 'string') return t.skip(b);
    const cases: [string, CodeParams][] = [
      [
        'print(int(input()) * 2)',
        {
          language: 'python',
          tests: [
            { stdin: '2', stdout: '4' },
            { stdin: '3', stdout: '7' },
          ],
        },
      ],
      ['import sys\nprint(1)\nsys.exit(3)', { language: 'python', tests: [{ stdout: '1' }] }],
      ['def f(:\n  pass', { language: 'python', tests: [{ stdout: '1' }] }],
      ['raise KeyError("k")', { language: 'python', tests: [{ stdout: '1' }] }],
      ['while True: pass', { language: 'python', tests: [{ stdout: '1' }], timeout_ms: 1000 }],
      ['x = bytearray(400 * 1024 * 1024)', { language: 'python', tests: [{ stdout: '1' }], memory_mb: 128 }],
      ['def add(a, b):\n    return a + b', { language: 'python', asserts: 'assert add(1, 2) == 3' }],
      [
        'import os\ndef add(a, b):\n    return a - b\nos._exit(0)',
        { language: 'python', asserts: 'assert add(1, 2) == 3' },
      ],
      [
        'def add(a, b):\n    return a + b',
        {
          language: 'python',
          call: {
            function: 'add',
            cases: [
              { args: [1, 2], returns: 3 },
              { args: [1, 1], returns: 3 },
            ],
          },
        },
      ],
    ];
    const saved = process.env.VTASK_SANDBOX_POOL;
    try {
      for (const [code, params] of cases) {
        process.env.VTASK_ZYGOTE = '0';
        process.env.VTASK_SANDBOX_POOL = '0';
        const plain = await checkCode(code, params, ctx());
        delete process.env.VTASK_SANDBOX_POOL;
        const pooled = await checkCode(code, params, ctx());
        delete process.env.VTASK_ZYGOTE;
        const zygote = await checkCode(code, params, ctx());
        for (const v of [pooled, zygote]) {
          assert.deepEqual(statuses(v), statuses(plain), code);
          assert.equal(v.reason, plain.reason, code);
        }
        const limits = (v: Verdict): readonly string[] => (v.details.isolation as { limits: readonly string[] }).limits;
        assert.ok(limits(pooled).includes(PRESTARTED_FACT), 'the verdict says it ran pre-started');
        assert.ok(!limits(plain).includes(PRESTARTED_FACT));
        assert.ok(limits(zygote).includes(ZYGOTE_FACT), 'the verdict says a zygote ran it');
        assert.ok(!limits(plain).includes(ZYGOTE_FACT) && !limits(pooled).includes(ZYGOTE_FACT));
      }
    } finally {
      delete process.env.VTASK_ZYGOTE;
      if (saved === undefined) delete process.env.VTASK_SANDBOX_POOL;
      else process.env.VTASK_SANDBOX_POOL = saved;
      await disposeSandboxPools();
    }
  });
}

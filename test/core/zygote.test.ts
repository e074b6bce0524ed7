// Zygote sandboxes: answers checked by forks of one long-lived bubblewrap sandbox still get the
// full sandbox each (two answers at once see neither each other's files nor processes; fork
// bombs, runaway loops, memory and the network are bounded), budgets are CPU time, the zygote
// comes back when it dies, falls back to a sandbox per run when it cannot start, and never
// receives an expected output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import {
  detectSandbox,
  disposeSandboxPools,
  findInterpreter,
  type DetectedSandbox,
  type SandboxRunOptions,
  type SandboxRunResult,
} from '../../src/core/sandbox';
import { bwrapBackend, which, type Backend } from '../../src/core/sandbox/backends';
import { tapZygoteInput, ZYGOTE_FACT, ZygotePool } from '../../src/core/sandbox/zygote';
import { checkCode, type CodeParams } from '../../src/core/verifiers/code/checkCode';
import { isolationOf } from '../../src/core/verifiers/code/isolation';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

const PY = findInterpreter('python');

/** The full sandbox, or why this machine has none (a skip that says what it needs). */
async function fullSandbox(): Promise<DetectedSandbox | string> {
  if (process.platform !== 'linux') return 'needs: Linux with bubblewrap';
  if (!PY) return 'needs: python3';
  const sb = await detectSandbox();
  if (sb.method !== 'bwrap') {
    if (process.env.CI) assert.fail(`the full sandbox does not work in CI: ${sb.notes.join('; ')}`);
    return `needs: a working bubblewrap (${sb.notes.join('; ') || sb.method})`;
  }
  return sb;
}

function ctx(signal = new AbortController().signal): VerifyContext {
  return {
    task: { id: 't', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal,
    trusted: true,
    child: () => Promise.reject(new Error('no children here')),
  };
}

function check(sb: DetectedSandbox, answer: string, params: CodeParams, signal?: AbortSignal): Promise<Verdict> {
  return checkCode(answer, params, ctx(signal), sb);
}

/** A pre-started Python run of `code`, as checkCode makes them. */
function pyRun(code: string, extra: Partial<SandboxRunOptions> = {}, args: readonly string[] = []): SandboxRunOptions {
  assert.ok(PY);
  return {
    argv: [PY.path, ...PY.args, 'main.py', ...args],
    files: { 'main.py': code },
    timeoutMs: 5000,
    memoryMb: 256,
    readOnly: PY.readOnly,
    prestarted: true,
    ...extra,
  };
}

function inZygote(r: SandboxRunResult): SandboxRunResult {
  assert.ok(
    r.isolation.limits.includes(ZYGOTE_FACT),
    `ran in a zygote: ${r.sandboxError ?? r.isolation.limits.join(', ')}`,
  );
  assert.equal(r.isolation.method, 'bwrap');
  assert.equal(r.isolation.level, 'full');
  return r;
}

function tok(): string {
  return `vtask-zy-${randomBytes(5).toString('hex')}`;
}

/** Host pids whose command line holds `tok`. */
function holders(tok: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'latin1').includes(tok)) out.push(Number(e));
    } catch {
      // Gone.
    }
  }
  return out;
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (check()) return true;
  return check();
}

void test('a code answer runs in a zygote, says so, and gets the verdict of a sandbox per run', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  t.after(disposeSandboxPools);
  const params: CodeParams = {
    language: 'python',
    tests: [
      { stdin: '1 2\n', stdout: '3' },
      { stdin: '5 5\n', stdout: '10' },
      { stdin: '2 2\n', stdout: '5' },
    ],
  };
  const answer = 'a, b = map(int, input().split())\nprint(a + b)';
  const z = await check(sb, answer, params);
  assert.equal(z.score, 2 / 3, z.reason);
  assert.match(z.reason, /^2\/3 tests passed; test 3: wrong_answer/);
  assert.ok(isolationOf(z)?.limits.includes(ZYGOTE_FACT), 'the verdict says the zygote ran it');
  assert.equal(isolationOf(z)?.method, 'bwrap');
  process.env.VTASK_ZYGOTE = '0';
  try {
    const alone = await check(sb, answer, params);
    assert.equal(alone.reason, z.reason);
    assert.ok(!isolationOf(alone)?.limits.includes(ZYGOTE_FACT), 'VTASK_ZYGOTE=0: a sandbox per run');
  } finally {
    delete process.env.VTASK_ZYGOTE;
  }
  const crash = await check(sb, 'import sys\nprint("partial")\nraise ValueError("boom")', {
    language: 'python',
    tests: [{ stdin: '', stdout: 'x' }],
  });
  assert.match(crash.reason, /runtime_error: exit code 1: ValueError: boom/);
  const syntax = await check(sb, 'def f(:\n  pass', { language: 'python', tests: [{ stdin: '', stdout: 'x' }] });
  assert.match(syntax.reason, /compile_error: SyntaxError/);
});

void test("a JavaScript answer runs in a zygote (Node exec'd), says so, and gets the verdict of a sandbox per run", async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  if (!findInterpreter('javascript')) return t.skip('needs: node');
  t.after(disposeSandboxPools);
  const cases: [string, CodeParams][] = [
    [
      "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(' ').map(Number);\nconsole.log(a + b);",
      {
        language: 'javascript',
        tests: [
          { stdin: '1 2\n', stdout: '3' },
          { stdin: '5 5\n', stdout: '10' },
          { stdin: '2 2\n', stdout: '5' },
        ],
      },
    ],
    [
      'function add(a, b) { return a - b; }',
      {
        language: 'javascript',
        call: {
          function: 'add',
          cases: [
            { args: [3, 0], returns: 3 },
            { args: [1, 2], returns: 3 },
          ],
        },
      },
    ],
    [
      'export function add(a, b) { return a + b; }',
      { language: 'javascript', asserts: 'assert.strictEqual(add(1, 2), 3);\nassert.strictEqual(add(2, 2), 5);' },
    ],
    [
      "console.log('partial');\nthrow new TypeError('boom');",
      { language: 'javascript', tests: [{ stdin: '', stdout: 'x' }] },
    ],
    ['function (', { language: 'javascript', tests: [{ stdin: '', stdout: 'x' }] }],
  ];
  const zygote: Verdict[] = [];
  for (const [answer, params] of cases) {
    const v = await check(sb, answer, params);
    assert.ok(isolationOf(v)?.limits.includes(ZYGOTE_FACT), `the verdict says the zygote ran it: ${v.reason}`);
    zygote.push(v);
  }
  assert.match(zygote[0]?.reason ?? '', /^2\/3 tests passed; test 3: wrong_answer/);
  assert.match(zygote[1]?.reason ?? '', /^1\/2 cases passed; case 2: wrong_answer: expected 3, got -1/);
  assert.match(
    zygote[2]?.reason ?? '',
    /^0\/1 asserts passed: wrong_answer: assert call 2 \(assert.strictEqual\) failed/,
  );
  assert.match(zygote[3]?.reason ?? '', /runtime_error: exit code 1: .*TypeError: boom/);
  assert.match(zygote[4]?.reason ?? '', /compile_error: SyntaxError/);
  process.env.VTASK_ZYGOTE = '0';
  try {
    for (const [i, [answer, params]] of cases.entries()) {
      const alone = await check(sb, answer, params);
      assert.ok(!isolationOf(alone)?.limits.includes(ZYGOTE_FACT), 'VTASK_ZYGOTE=0: a sandbox per run');
      assert.equal(alone.reason, zygote[i]?.reason);
    }
  } finally {
    delete process.env.VTASK_ZYGOTE;
  }
});

void test('a JavaScript answer in a zygote: its resident memory is bounded, and a sleep past its budget times out', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  if (!findInterpreter('javascript')) return t.skip('needs: node');
  t.after(disposeSandboxPools);
  // Buffers live outside V8's heap: only the resident bound stops them.
  const bomb = await check(sb, 'const keep = [];\nfor (;;) keep.push(Buffer.alloc(16 << 20, 1));', {
    language: 'javascript',
    tests: [{ stdin: '', stdout: 'x' }],
    memory_mb: 128,
  });
  assert.ok(isolationOf(bomb)?.limits.includes(ZYGOTE_FACT), bomb.reason);
  assert.match(bomb.reason, /memory: exceeded the memory limit of 128 MiB/);
  const sleep = await check(sb, "setTimeout(() => console.log('woke'), 30000);", {
    language: 'javascript',
    tests: [{ stdin: '', stdout: 'woke' }],
    timeout_ms: 300,
  });
  assert.ok(isolationOf(sleep)?.limits.includes(ZYGOTE_FACT), sleep.reason);
  assert.match(sleep.reason, /timeout: did not finish within 300 ms/);
});

void test('a program ends in a zygote as it ends in an interpreter of its own', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const programs = [
    'import sys\nprint("out", end="")\nsys.exit("bye")',
    'import sys\nsys.exit(3)',
    'import sys\nsys.exit(None)',
    'import atexit\natexit.register(lambda: print("at exit"))\nprint("main")',
    'import threading, time\ndef late():\n    time.sleep(0.2)\n    print("thread done")\nthreading.Thread(target=late).start()\nprint("main done")',
    'class D:\n    def __del__(self):\n        print("freed")\nd = D()\nprint("x" * 100000, end="")',
    'raise KeyError("k")',
  ];
  const runs = programs.map((p) => pyRun(p));
  const zygote = await sb.runAll(runs);
  process.env.VTASK_ZYGOTE = '0';
  try {
    const alone = await Promise.all(runs.map((o) => sb.run(o)));
    for (const [i, z] of zygote.entries()) {
      const a = alone[i] as SandboxRunResult;
      inZygote(z);
      assert.deepEqual([z.exitCode, z.stdout, z.stderr], [a.exitCode, a.stdout, a.stderr], programs[i]);
    }
  } finally {
    delete process.env.VTASK_ZYGOTE;
  }
});

void test('two answers at once see neither the files nor the processes of the other', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const [a, b] = [tok(), tok()];
  // Each leaves a file in its folder and in /dev/shm and a process named by its token, then looks for the other's.
  const probe = (mine: string, theirs: string): string =>
    [
      'import json, os, subprocess, sys, time',
      `open("/box/${mine}", "w").write("x")`,
      `open("/dev/shm/${mine}", "w").write("x")`,
      `subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "${mine}"], start_new_session=True)`,
      'time.sleep(1.5)',
      'cmdlines = [open("/proc/" + p + "/cmdline").read() for p in os.listdir("/proc") if p.isdigit()]',
      `seen = [c for c in cmdlines if "${theirs}" in c]`,
      `files = [f for d in ("/box", "/dev/shm") for f in os.listdir(d) if "${theirs}" in f]`,
      'ns = {k: os.readlink("/proc/self/ns/" + k) for k in ("mnt", "pid", "net", "user", "ipc", "uts")}',
      'print(json.dumps({"seen": seen, "files": files, "ns": ns, "procs": len(cmdlines)}))',
    ].join('\n');
  const [ra, rb] = await Promise.all([sb.runAll([pyRun(probe(a, b))]), sb.runAll([pyRun(probe(b, a))])]);
  const A = JSON.parse(inZygote(ra[0] as SandboxRunResult).stdout) as {
    seen: string[];
    files: string[];
    ns: Record<string, string>;
  };
  const B = JSON.parse(inZygote(rb[0] as SandboxRunResult).stdout) as {
    seen: string[];
    files: string[];
    ns: Record<string, string>;
  };
  assert.deepEqual([A.seen, A.files, B.seen, B.files], [[], [], [], []]);
  for (const k of Object.keys(A.ns)) assert.notEqual(A.ns[k], B.ns[k], `a ${k} namespace of its own`);
  assert.ok(
    await eventually(() => holders(a).length === 0 && holders(b).length === 0),
    'the processes each left are gone with its answer',
  );
  // The next answer in the same slots starts clean.
  const next = inZygote(
    (
      (await sb.runAll([
        pyRun(`import os\nprint(sorted(os.listdir("/box")), sorted(os.listdir("/dev/shm")))`),
      ])) as SandboxRunResult[]
    )[0] as SandboxRunResult,
  );
  assert.equal(next.stdout.trim(), "['main.py'] []");
});

void test('the tests of one answer each start in a fresh folder with nothing of the test before', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const code =
    'import os, subprocess, sys\nprint(sorted(os.listdir(".")), len([p for p in os.listdir("/proc") if p.isdigit()]))\nopen("left.txt", "w").write("x")\nsubprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])';
  const rs = await sb.runAll([pyRun(code), pyRun(code), pyRun(code)]);
  // pid 1 (the answer's init) and the program itself: the previous test's leftovers are gone.
  for (const r of rs) assert.equal(inZygote(r).stdout.trim(), "['main.py'] 2");
});

void test('a fork bomb is bounded by the process limit of its own answer, not of another', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const bomb =
    'import errno, os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print(n, errno.errorcode[e.errno], flush=True)\ntime.sleep(2)';
  const other =
    'import os, time\ntime.sleep(0.5)\npids = []\nfor _ in range(10):\n    pid = os.fork()\n    if pid == 0:\n        time.sleep(0.5)\n        os._exit(0)\n    pids.append(pid)\nfor p in pids:\n    os.waitpid(p, 0)\nprint("forked", len(pids))';
  const [rb, ro] = await Promise.all([
    sb.runAll([pyRun(bomb, { maxProcesses: 16 })]),
    sb.runAll([pyRun(other, { maxProcesses: 16 })]),
  ]);
  const m = /^(\d+) EAGAIN$/m.exec(inZygote(rb[0] as SandboxRunResult).stdout);
  assert.ok(m, `the bomb hit the limit: ${(rb[0] as SandboxRunResult).stdout}${(rb[0] as SandboxRunResult).stderr}`);
  assert.ok(Number(m[1]) < 16, `fewer than 16 processes: ${m[1]}`);
  assert.equal(
    inZygote(ro[0] as SandboxRunResult).stdout.trim(),
    'forked 10',
    'the other answer forks as usual meanwhile',
  );
});

void test("the budget counts CPU time and sleep, not the machine's load: a runaway loop and a long sleep both time out at the budget", async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const loop = await check(sb, 'while True:\n    pass', {
    language: 'python',
    tests: [{ stdin: '', stdout: 'x' }],
    timeout_ms: 1000,
  });
  assert.match(loop.reason, /^0\/1 tests passed: timeout: did not finish within 1000 ms/);
  const sleep = await check(sb, 'import time\ntime.sleep(30)', {
    language: 'python',
    tests: [{ stdin: '', stdout: 'x' }],
    timeout_ms: 500,
  });
  assert.match(sleep.reason, /^0\/1 tests passed: timeout: did not finish within 500 ms/);
  const [slept, quick] = await sb.runAll([
    pyRun('import time\ntime.sleep(30)\nprint("woke")', { timeoutMs: 500 }),
    pyRun('import time\ntime.sleep(0.2)\nprint("woke")', { timeoutMs: 500 }),
  ]);
  assert.equal(inZygote(slept as SandboxRunResult).timedOut, true);
  assert.equal(slept?.wallBackstopMs, undefined, 'stopped by its budget, not by the wall-clock backstop');
  assert.equal(slept?.stdout, '');
  assert.ok((slept?.durationMs ?? Infinity) < 4500, `stopped near its budget: ${slept?.durationMs} ms`);
  assert.ok((slept?.cpuMs ?? Infinity) < 500, `its CPU time is measured: ${slept?.cpuMs}`);
  // A sleep within the budget is no timeout.
  assert.equal(quick?.timedOut, false);
  assert.equal(quick?.stdout.trim(), 'woke');
});

/** Starts `n` busy loops (real processes); returns their stop. */
function busyLoops(n: number): () => void {
  const loops = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => {
    for (const l of loops) l.kill('SIGKILL');
  };
}

void test('the same CPU-bound answer near its limit gets the same verdict on an idle machine and beside 2 busy loops per core', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  t.after(disposeSandboxPools);
  // Each burns a share of the 1000 ms budget in CPU time, then prints.
  const answers = [
    {
      language: 'python' as const,
      code: (s: number) =>
        `import time\nt = time.process_time()\nwhile time.process_time() - t < ${s}:\n    pass\nprint("done")`,
    },
    {
      language: 'javascript' as const,
      code: (s: number) =>
        `const t = process.cpuUsage();\nwhile ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1e6 < ${s}) {}\nconsole.log('done');`,
    },
  ];
  const verdicts = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const a of answers)
      for (const share of [0.6, 1.4]) {
        const v = await check(sb, a.code(share), {
          language: a.language,
          tests: [{ stdin: '', stdout: 'done' }],
          timeout_ms: 1000,
        });
        assert.ok(isolationOf(v)?.limits.includes(ZYGOTE_FACT), `${a.language} ran in a zygote: ${v.reason}`);
        out.push(`${a.language} ${share}: ${v.reason}`);
      }
    return out;
  };
  const idle = await verdicts();
  assert.deepEqual(idle, [
    'python 0.6: 1/1 tests passed',
    'python 1.4: 0/1 tests passed: timeout: did not finish within 1000 ms',
    'javascript 0.6: 1/1 tests passed',
    'javascript 1.4: 0/1 tests passed: timeout: did not finish within 1000 ms',
  ]);
  const stop = busyLoops(2 * os.availableParallelism());
  t.after(stop);
  const t0 = performance.now();
  const loaded = await verdicts();
  stop();
  assert.deepEqual(loaded, idle);
  t.diagnostic(`loaded: ${Math.round(performance.now() - t0)} ms of wall time for the four answers`);
});

void test('the memory limit holds, and the network is not there', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  t.after(disposeSandboxPools);
  const mem = await check(sb, 'x = bytearray(400 << 20)\nprint(len(x))', {
    language: 'python',
    tests: [{ stdin: '', stdout: 'x' }],
    memory_mb: 128,
  });
  assert.match(mem.reason, /memory: exceeded the memory limit of 128 MiB/);
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const code = `import os, socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("connected")\nexcept OSError as e:\n    print("denied")\nprint(sorted(os.listdir("/sys/class/net")) if os.path.exists("/sys/class/net") else "no /sys")`;
  const net1 = await check(sb, code, { language: 'python', tests: [{ stdin: '', stdout: 'denied\nno /sys' }] });
  assert.equal(net1.pass, true, net1.reason);
  assert.equal(connections, 0);
});

void test('only the program and its stdin enter the zygote: expected outputs and return values stay in vtask', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  t.after(disposeSandboxPools);
  const sent: Buffer[] = [];
  const untap = tapZygoteInput((b) => sent.push(Buffer.from(b)));
  t.after(untap);
  const [input, expected, answerTok] = [tok(), tok(), tok()];
  const io = await check(sb, `# ${answerTok}\nprint(input().upper())`, {
    language: 'python',
    tests: [{ stdin: `${input}\n`, stdout: expected.toUpperCase() }],
  });
  assert.equal(io.pass, false);
  assert.ok(isolationOf(io)?.limits.includes(ZYGOTE_FACT));
  const returns = 918_273_645_546_372;
  const call = await check(sb, 'def f(x):\n    return x + 1', {
    language: 'python',
    call: { function: 'f', cases: [{ args: [1], returns }] },
  });
  assert.match(call.reason, /expected 918273645546372, got 2/);
  const all = Buffer.concat(sent).toString('latin1');
  assert.ok(all.includes(input) && all.includes(answerTok), 'the program and its input went in');
  assert.ok(!all.toLowerCase().includes(expected), 'the expected output did not');
  assert.ok(!all.includes(String(returns)), 'the expected return value did not');
});

void test('a cancelled answer and a dead zygote leave nothing behind, and the next answer gets a new zygote', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string' || !sb.runAll) return t.skip(typeof sb === 'string' ? sb : 'no runAll');
  t.after(disposeSandboxPools);
  const mark = tok();
  const cancel = new AbortController();
  const running = sb.runAll([
    pyRun(
      `import subprocess, sys\nsubprocess.Popen([sys.executable, "-c", "while True: pass", "${mark}"])\nwhile True: pass`,
      { timeoutMs: 30_000, signal: cancel.signal },
    ),
  ]);
  assert.ok(await eventually(() => holders(mark).length > 0, 10_000), 'the answer started its child');
  const t0 = Date.now();
  cancel.abort();
  const [r] = await running;
  assert.equal(r?.aborted, true);
  assert.ok(Date.now() - t0 < 3000, 'cancelled at once');
  assert.ok(await eventually(() => holders(mark).length === 0), 'its whole tree is gone');

  const comm = (p: number): string => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'latin1');
    } catch {
      return '';
    }
  };
  const zygotes = holders('_vtask_zygote').filter((p) => /python/.test(comm(p)));
  assert.ok(zygotes.length > 0, 'a zygote runs');
  for (const p of zygotes) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  assert.ok(await eventually(() => holders('_vtask_zygote').every((p) => !zygotes.includes(p))));
  const [after] = await sb.runAll([pyRun('print("again")')]);
  assert.equal(inZygote(after as SandboxRunResult).stdout.trim(), 'again', after?.sandboxError);
});

void test('where nested user namespaces are refused, zygotes step aside for a sandbox per run', async (t) => {
  const sb = await fullSandbox();
  if (typeof sb === 'string') return t.skip(sb);
  const bwrap = which('bwrap') as string;
  const plain = bwrapBackend(
    bwrap,
    sb.notes.some((n) => n.startsWith('bwrap:')),
  );
  // bubblewrap's own switch: no user namespace may be made inside this sandbox.
  const refusing: Backend = {
    ...plain,
    prestart: (o, argv, uid) => {
      const l = plain.prestart?.(o, argv, uid);
      assert.ok(l);
      return { ...l, args: ['--disable-userns', '--unshare-user', ...l.args] };
    },
  };
  const pool = new ZygotePool(refusing, { ...pyRun(''), argv: [(PY as { path: string }).path, '-B', '-s'] });
  t.after(() => pool.dispose());
  const r = await pool.run([pyRun('print(1)')]);
  assert.equal(r, undefined, 'no result: the caller runs it in a sandbox of its own');
  assert.match(pool.failure ?? '', /unshare|user namespace|Operation not permitted|No space left/i);
});

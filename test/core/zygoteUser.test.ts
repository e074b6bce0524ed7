// Zygotes as an unprivileged user: vtask run by an ordinary account (not root) still checks code
// answers in zygotes (or, where that user cannot make them, in a bubblewrap sandbox per test, never
// weaker, the verdict saying which), gets the verdicts right, and keeps every probe in. Run as
// root, the test runs itself again as `nobody` (setpriv) with a temporary HOME and TMPDIR.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { detectSandbox, disposeSandboxPools, findInterpreter, type DetectedSandbox } from '../../src/core/sandbox';
import { isRoot, which } from '../../src/core/sandbox/backends';
import { ZYGOTE_FACT } from '../../src/core/sandbox/zygote';
import { checkCode, type CodeParams } from '../../src/core/verifiers/code/checkCode';
import { isolationOf } from '../../src/core/verifiers/code/isolation';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

const NOBODY = 65534;
/** Set in the copy of this test that runs as `nobody`. */
const CHILD_ENV = 'VTASK_TEST_UNPRIVILEGED';

function ctx(): VerifyContext {
  return {
    task: { id: 't', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal: new AbortController().signal,
    trusted: true,
    child: () => Promise.reject(new Error('no children here')),
  };
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

/**
 * The checks, as whatever user runs this process: verdicts in both languages, the isolation they
 * report, and the probes (files, network, a process of this user, leftovers, a fork bomb, the budget).
 */
async function checksAsThisUser(sb: DetectedSandbox, host: string): Promise<void> {
  const check = (answer: string, params: CodeParams): Promise<Verdict> => checkCode(answer, params, ctx(), sb);
  const inZygoteOrPerRun = (v: Verdict): void => {
    const iso = isolationOf(v);
    assert.equal(iso?.method, 'bwrap', v.reason);
    assert.equal(iso?.level, 'full');
    // A zygote, or the sandbox per test with the warning that says why: never weaker.
    if (!iso?.limits.includes(ZYGOTE_FACT)) assert.ok(warnings.length > 0, `no zygote and no warning: ${v.reason}`);
  };
  const warnings: string[] = [];
  process.on('warning', (w) => warnings.push(w.message));
  const sum = {
    tests: [
      { stdin: '1 2\n', stdout: '3' },
      { stdin: '2 2\n', stdout: '5' },
    ],
  };
  const py = await check('a, b = map(int, input().split())\nprint(a + b)', { language: 'python', ...sum });
  assert.match(py.reason, /^1\/2 tests passed; test 2: wrong_answer/);
  inZygoteOrPerRun(py);
  const js = await check(
    "const [a, b] = require('fs').readFileSync(0, 'utf8').split(' ').map(Number);\nconsole.log(a + b);",
    {
      language: 'javascript',
      ...sum,
    },
  );
  assert.match(js.reason, /^1\/2 tests passed; test 2: wrong_answer/);
  inZygoteOrPerRun(js);
  // The zygote is the expected path here: say so when the fallback was taken.
  assert.ok(
    isolationOf(py)?.limits.includes(ZYGOTE_FACT),
    `ran in a zygote as uid ${process.getuid?.()}: ${warnings.join('; ')}`,
  );

  const secret = path.join(host, 'id_rsa');
  const open = path.join(host, 'open');
  const target = path.join(open, `escape-${randomBytes(3).toString('hex')}`);
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const victim = spawn('/bin/sh', ['-c', 'read x'], { stdio: ['pipe', 'ignore', 'ignore'] });
  const tok = `vtask-nobody-${randomBytes(4).toString('hex')}`;
  try {
    const probes = [
      'import os, signal, socket, subprocess, sys',
      'def tried(f):\n    try:\n        f()\n        return "GOT THROUGH"\n    except Exception:\n        return "denied"',
      `print("read", tried(lambda: open(${JSON.stringify(secret)}).read()))`,
      `print("write", tried(lambda: open(${JSON.stringify(target)}, "w").write("x")))`,
      `print("network", tried(lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=2)))`,
      `print("kill", tried(lambda: os.kill(${victim.pid}, signal.SIGKILL)))`,
      `subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "${tok}"], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
    ].join('\n');
    const denied = 'read denied\nwrite denied\nnetwork denied\nkill denied';
    for (const language of ['python', 'javascript'] as const) {
      // The same probes from Node, which runs them through its child process.
      const answer =
        language === 'python'
          ? probes
          : `const { execFileSync } = require('child_process');\nprocess.stdout.write(execFileSync(${JSON.stringify(findInterpreter('python')?.path)}, ['-c', ${JSON.stringify(probes)}]));`;
      const v = await check(answer, { language, tests: [{ stdin: '', stdout: denied }] });
      assert.equal(v.pass, true, `${language}: ${v.reason}`);
      inZygoteOrPerRun(v);
      assert.equal(fs.existsSync(target), false, 'nothing was written outside');
      assert.equal(victim.exitCode ?? victim.signalCode, null, "this user's process lives on");
      for (let i = 0; i < 60 && holders(tok).length; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(holders(tok), [], 'what the answer left behind is gone');
    }
    const bomb = await check(
      'import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    print("bounded", n < 64)',
      { language: 'python', tests: [{ stdin: '', stdout: 'bounded True' }] },
    );
    assert.equal(bomb.pass, true, bomb.reason);
    const loop = await check('for (;;) {}', {
      language: 'javascript',
      tests: [{ stdin: '', stdout: 'x' }],
      timeout_ms: 500,
    });
    assert.match(loop.reason, /timeout: did not finish within 500 ms/);
  } finally {
    victim.kill('SIGKILL');
    server.close();
  }
}

/** A host folder with a private key readable by anyone and a folder anyone may write to. */
function hostFolder(parent: string): string {
  const host = fs.mkdtempSync(path.join(parent, 'host-'));
  fs.chmodSync(host, 0o755);
  fs.writeFileSync(path.join(host, 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n', { mode: 0o644 });
  fs.mkdirSync(path.join(host, 'open'));
  fs.chmodSync(path.join(host, 'open'), 0o777);
  return host;
}

void test('as an unprivileged user, answers run in zygotes with the right verdicts, and the probes are contained', async (t) => {
  if (process.platform !== 'linux') return t.skip('needs: Linux with bubblewrap');
  if (!findInterpreter('python') || !findInterpreter('javascript')) return t.skip('needs: python3 and node');
  if (process.env[CHILD_ENV]) {
    // The copy running as `nobody`.
    assert.notEqual(process.getuid?.(), 0);
    const sb = await detectSandbox();
    t.after(disposeSandboxPools);
    assert.equal(sb.method, 'bwrap', `the full sandbox works as this user: ${sb.notes.join('; ')}`);
    await checksAsThisUser(sb, process.env[CHILD_ENV]);
    return;
  }
  if (!isRoot()) {
    const sb = await detectSandbox();
    if (sb.method !== 'bwrap') return t.skip(`needs: a working bubblewrap (${sb.notes.join('; ')})`);
    t.after(disposeSandboxPools);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-user-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    await checksAsThisUser(sb, hostFolder(dir));
    return;
  }
  const setpriv = which('setpriv');
  if (!setpriv) return t.skip('needs: setpriv (util-linux) to run as nobody');
  // A HOME and TMPDIR of nobody's own; this test file and node are readable by anyone.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-nobody-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.chmodSync(dir, 0o755);
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  fs.chownSync(home, NOBODY, NOBODY);
  const host = hostFolder(dir);
  const r = spawnSync(
    setpriv,
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      process.execPath,
      '--test',
      '--test-reporter=spec',
      path.resolve(process.argv[1] ?? ''),
    ],
    {
      encoding: 'utf8',
      timeout: 300_000,
      killSignal: 'SIGKILL',
      cwd: home,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        TMPDIR: home,
        [CHILD_ENV]: host,
        ...(process.env.CI ? { CI: process.env.CI } : {}),
      },
    },
  );
  assert.equal(r.status, 0, `as nobody:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /pass 1/);
});

// Security: answers that try to pass `asserts` without passing them (early exits, exit hooks,
// a shadowed or patched assert, forged results), and sandbox escape probes run under every
// isolation level this machine offers, each checked against what that level promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ALLOW_WEAK_ENV,
  detectSandbox,
  disposeSandboxPools,
  findInterpreter,
  nodeMemoryArgs,
  type DetectedSandbox,
  type Method,
  type SandboxRunOptions,
} from '../../src/core/sandbox';
import { isRoot, which } from '../../src/core/sandbox/backends';
import { ZYGOTE_FACT } from '../../src/core/sandbox/zygote';
import { isolationOf } from '../../src/core/verifiers/code/isolation';
import { checkScript } from '../../src/core/verifiers/code/script';
import { checkCode, type CodeParams } from '../../src/core/verifiers/code/checkCode';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

function ctx(): VerifyContext {
  return {
    task: { id: 't', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal: new AbortController().signal,
    trusted: true,
    child: () => Promise.reject(new Error('no children here')),
  };
}

function check(answer: string, params: CodeParams): Promise<Verdict> {
  return checkCode(answer, params, ctx());
}

const PY_ASSERTS = 'assert add(1, 2) == 3\nassert add(2, 2) == 4';
const JS_ASSERTS = 'assert.strictEqual(add(1, 2), 3);\nassert(add(2, 2) === 4);';

/** A wrong answer that tries to pass anyway: its code, with the asserts it meets when not the default, and what the reason must say. */
type Bypass = string | { readonly answer: string; readonly asserts: string; readonly reason?: RegExp };

/** Walks the caller's frames and appends a success to any list named `outcome` (what a harness may keep). */
const PY_FRAME_WALK =
  'def forge(f):\n    while f is not None:\n        for scope in (f.f_locals, f.f_globals):\n            o = scope.get("outcome")\n            if isinstance(o, list):\n                o.append(None)\n        f = f.f_back\n';
/** Finds the result marker in the harness file. */
const PY_MARKER =
  'import os, re\nmarker = re.search(r"<<vtask-result:[0-9a-f]+>>", open("_vtask_assert.py").read()).group(0)\n';
const NOT_PLAIN = /not plain data/;
/** Reads every string in the closure of the checks entry through an inspector session, and prints each after the marker. */
const JS_INSPECT = String.raw`function steal(inspector) {
  const marker = /<<vtask-result:[0-9a-f]+>>/.exec(require('fs').readFileSync('_vtask_assert.cjs', 'utf8'))?.[0] ?? '';
  const s = new inspector.Session();
  s.connect();
  const get = (method, params) => { let out; s.post(method, params, (e, r) => { if (e) throw e; out = r; }); return out; };
  const fn = get('Runtime.evaluate', { expression: 'globalThis.__vtask_checks__' }).result.objectId;
  const scopes = get('Runtime.getProperties', { objectId: fn }).internalProperties.find((p) => p.name === '[[Scopes]]').value.objectId;
  for (const scope of get('Runtime.getProperties', { objectId: scopes }).result) {
    for (const v of get('Runtime.getProperties', { objectId: scope.value.objectId }).result) {
      if (typeof v.value?.value === 'string') require('fs').writeSync(1, '\n' + marker + v.value.value + '\n');
    }
  }
  process.reallyExit(0);
}`;
/** Prints the marker with every 32-hex-digit string of its own memory. */
const JS_MEMORY_SCAN = String.raw`const fs = require('fs');
const marker = /<<vtask-result:[0-9a-f]+>>/.exec(fs.readFileSync('_vtask_assert.cjs', 'utf8'))?.[0] ?? '';
const mem = fs.openSync('/proc/self/mem', 'r');
const found = new Set();
for (const line of fs.readFileSync('/proc/self/maps', 'utf8').split('\n')) {
  const [range, perms] = line.split(' ');
  if (!range || !perms.startsWith('r') || line.includes('[v')) continue;
  const [lo, hi] = range.split('-').map((x) => BigInt('0x' + x));
  if (hi - lo > 64n << 20n) continue;
  const buf = Buffer.alloc(Number(hi - lo));
  try { fs.readSync(mem, buf, 0, buf.length, lo); } catch { continue; }
  for (const m of buf.toString('latin1').matchAll(/(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])/g)) found.add(m[0]);
}
for (const t of found) fs.writeSync(1, '\n' + marker + t + '\n');
process.reallyExit(0);`;

/** Wrong answers (add subtracts) that try to pass anyway; every one must fail. */
const PY_BYPASSES: Record<string, Bypass> = {
  'os._exit(0)': 'import os\ndef add(a, b):\n    return a - b\nos._exit(0)',
  'sys.exit(0)': 'import sys\ndef add(a, b):\n    return a - b\nsys.exit(0)',
  'os._exit(0) inside the checked function': 'import os\ndef add(a, b):\n    os._exit(0)',
  'sys.excepthook': 'import sys, os\ndef add(a, b):\n    return a - b\nsys.excepthook = lambda *a: os._exit(0)',
  atexit: 'import atexit, os\ndef add(a, b):\n    return a - b\natexit.register(lambda: os._exit(0))',
  'SystemExit raised inside the checked function': 'def add(a, b):\n    raise SystemExit(0)',
  'a patched builtin AssertionError':
    'import builtins\nclass Never(BaseException): pass\nbuiltins.AssertionError = Never\ndef add(a, b):\n    return a - b',
  'a tracer that skips the assert lines':
    'import sys\ndef add(a, b):\n    return a - b\ndef tr(f, e, a):\n    return None\nsys.settrace(tr)',
  'printing a forged result marker':
    'import os\ndef add(a, b):\n    return a - b\nprint("<<vtask-result:000000000000>>")\nos._exit(0)',
  'reading the harness frames':
    'import sys, os\ndef add(a, b):\n    return a - b\nf = sys._getframe()\nwhile f:\n    for v in list(f.f_locals.values()):\n        if isinstance(v, bytes) and len(v) == 32:\n            print("\\n" + v.decode())\n    f = f.f_back\nos._exit(0)',
  'listing every object': 'import gc, os\ndef add(a, b):\n    return a - b\ngc.get_objects()\nos._exit(0)',
  'reading its own memory': 'import os\ndef add(a, b):\n    return a - b\nopen("/proc/self/mem", "rb")\nos._exit(0)',
  'a signal that kills itself with status 0':
    'import os, signal\ndef add(a, b):\n    return a - b\nsignal.signal(signal.SIGTERM, lambda *a: os._exit(0))\nos.kill(os.getpid(), signal.SIGTERM)',
  "appending to the harness's outcome through sys._getframe(1)": `import sys\n${PY_FRAME_WALK}def add(a, b):\n    forge(sys._getframe(1))\n    return a - b`,
  "appending to the harness's outcome through a traceback frame": `${PY_FRAME_WALK}def add(a, b):\n    try:\n        raise Exception\n    except Exception as e:\n        forge(e.__traceback__.tb_frame)\n    return a - b\ntry:\n    raise Exception\nexcept Exception as e:\n    forge(e.__traceback__.tb_frame)`,
  "replacing the compiled checks in the harness thread's closure":
    'import threading\ndef add(a, b):\n    return a - b\nrun = threading.current_thread()._target\nfor cell in run.__closure__ or ():\n    if type(cell.cell_contents).__name__ == "code":\n        cell.cell_contents = compile("pass", "asserts", "exec")',
  "replacing the harness's result writer with one that reports a guessed value":
    'import threading\ndef add(a, b):\n    return a - b\nrun = threading.current_thread()._target\ncells = dict(zip(run.__code__.co_freevars, run.__closure__))\ncheck = cells["check"].cell_contents\ninner = dict(zip(check.__code__.co_freevars, check.__closure__))\nemit, ser = inner["emit"].cell_contents, inner["ser"].cell_contents\ncells["check"].cell_contents = lambda i, thunks: emit(ser([i, [["v", ["int", "3"]]]]))',
  // Prints the marker with every 32-hex-digit string of its own memory (where a harness token would be).
  'scanning its memory through /proc//self/mem': String.raw`import os, re
def add(a, b):
    return a - b
marker = re.search(rb"<<vtask-result:[0-9a-f]+>>", open("_vtask_assert.py", "rb").read()).group(0)
found = set()
with open("/proc//self/maps") as maps, open("/proc//self/mem", "rb", 0) as mem:
    for line in maps:
        addr, perms = line.split()[:2]
        lo, hi = (int(x, 16) for x in addr.split("-"))
        if "r" not in perms or "[v" in line or hi - lo > 64 << 20:
            continue
        try:
            mem.seek(lo)
            found.update(re.findall(rb"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])", mem.read(hi - lo)))
        except OSError:
            pass
for t in found:
    os.write(1, b"\n" + marker + t + b"\n")
os._exit(0)`,
  'a forged last line, with the marker read from the harness file': `${PY_MARKER}def add(a, b):\n    return a - b\nos.write(1, ("\\n" + marker + '"done"\\n').encode())\nos._exit(0)`,
  'forged result lines guessing the expected value': `${PY_MARKER}def add(a, b):\n    return a - b\nfor i in range(2):\n    os.write(1, ("\\n" + marker + '[' + str(i) + ',[["v",["int","3"]]]]\\n').encode())\nos.write(1, ("\\n" + marker + '"done"\\n').encode())\nos._exit(0)`,
  'an object whose __eq__ is always true': {
    answer:
      'class Same:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\ndef add(a, b):\n    return Same()',
    asserts: PY_ASSERTS,
    reason: NOT_PLAIN,
  },
  'an int subclass whose __eq__ is always true': {
    answer:
      'class Int(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\ndef add(a, b):\n    return Int(a - b)',
    asserts: PY_ASSERTS,
    reason: NOT_PLAIN,
  },
  'an always-equal object inside a list': {
    answer: 'class Same:\n    __eq__ = lambda self, other: True\ndef add(a, b):\n    return [Same()]',
    asserts: 'assert add(1, 2) == [3]\nassert sorted(add(2, 2)) == [4]',
    reason: NOT_PLAIN,
  },
  'an object whose truth flips for an assert that is not a comparison': {
    answer:
      'class Flip:\n    n = 0\n    def __bool__(self):\n        Flip.n += 1\n        return Flip.n % 2 == 1\ndef is_prime(n):\n    return Flip()',
    asserts: 'assert is_prime(7)\nassert not is_prime(8)',
    reason: NOT_PLAIN,
  },
  'a replaced math.isclose': {
    answer:
      'import math\nmath.isclose = lambda *a, **k: True\ndef area(r):\n    math.isclose = lambda *a, **k: True\n    return 0.0',
    asserts:
      'import math\nassert math.isclose(area(1), 3.141592653589793)\nassert math.isclose(area(2), 12.566370614359172, rel_tol=1e-6)',
    reason: /got 0\.0, expected 3\.141592653589793/,
  },
  'always-equal elements compared inside the checks': {
    answer:
      'class Le:\n    __le__ = __lt__ = __ge__ = __gt__ = lambda self, other: True\ndef sort(xs):\n    return [Le() for _ in xs]',
    asserts: 'r = sort([3, 1, 2])\nassert all(a <= b for a, b in zip(r, r[1:]))',
  },
};

const JS_BYPASSES: Record<string, Bypass> = {
  'process.exit(0)': 'function add(a, b) { return a - b; }\nprocess.exit(0);',
  'process.exit(0) inside the checked function': 'function add(a, b) { process.exit(0); }',
  'a shadowed assert': 'function add(a, b) { return a - b; }\nfunction assert() {}\nassert.strictEqual = () => {};',
  'a shadowed assert (const)':
    'const add = (a, b) => a - b;\nconst assert = Object.assign(() => {}, { strictEqual() {} });',
  'patching node:assert':
    "const add = (a, b) => a - b;\nconst a = require('node:assert');\na.strictEqual = () => {};\nrequire('node:assert').ok = () => {};",
  'an uncaughtException handler':
    "function add(a, b) { return a - b; }\nprocess.on('uncaughtException', () => process.exit(0));\nprocess.on('unhandledRejection', () => process.exit(0));",
  "process.on('exit')": "function add(a, b) { return a - b; }\nprocess.on('exit', () => { process.exitCode = 0; });",
  'process.exitCode = 0 and a pending timer':
    'function add(a, b) { return a - b; }\nprocess.exitCode = 0;\nsetTimeout(() => process.exit(0), 0);',
  'calling the checks itself': 'function add(a, b) { return a - b; }\nglobalThis.__vtask_checks__(async () => {});',
  'replacing the checks entry':
    'function add(a, b) { return a - b; }\nglobalThis.__vtask_checks__ = (f) => process.exit(0);\nObject.defineProperty(globalThis, "__vtask_checks__", { value: () => process.exit(0) });',
  'a heap snapshot to find the token':
    "function add(a, b) { return a - b; }\nrequire('v8').writeHeapSnapshot();\nprocess.exit(0);",
  'the inspector':
    "function add(a, b) { return a - b; }\nnew (require('inspector').Session)().connect();\nprocess.exit(0);",
  'printing a forged result marker':
    "function add(a, b) { return a - b; }\nconsole.log('<<vtask-result:000000000000>>');\nprocess.exit(0);",
  'patching Promise.prototype.then so that a failure is handled as success':
    'const then = Promise.prototype.then;\nPromise.prototype.then = function (ok, bad) { return then.call(this, ok, ok); };\nfunction add(a, b) { return a - b; }',
  "the inspector through process.getBuiltinModule('inspector')": `function add(a, b) { return a - b; }\n${JS_INSPECT}\nsteal(process.getBuiltinModule('inspector'));`,
  "the inspector through import('node:inspector')": `function add(a, b) { return a - b; }\n${JS_INSPECT}\nimport('node:inspector').then(steal);`,
  'patching Array.prototype[Symbol.iterator]':
    'function add(a, b) { return a - b; }\nArray.prototype[Symbol.iterator] = function* () {};',
  'scanning its own memory through /proc/self/mem': `function add(a, b) { return a - b; }\n${JS_MEMORY_SCAN}`,
  'process.exit patched so that a failed check goes on': {
    answer: 'function add(a, b) { return a - b; }\nprocess.exit = () => {};\nprocess.reallyExit = () => {};',
    asserts: 'if (add(1, 2) !== 3) process.exit(1);',
  },
  'a truthy proxy for assert(value)': {
    answer: 'function isEven(n) { return new Proxy({}, {}); }',
    asserts: 'assert(isEven(2));\nassert.ok(isEven(4));',
    reason: NOT_PLAIN,
  },
  'an object that converts to the expected number': {
    answer: 'function add(a, b) { return { valueOf: () => 3 }; }',
    asserts: 'assert.equal(add(1, 2), 3);',
    reason: NOT_PLAIN,
  },
};

/** The isolation levels; `zygote` is bubblewrap's zygote path (Python forked, Node exec'd), `bwrap` its sandbox per run. */
type Level = Method | 'zygote';
const LEVELS: readonly Level[] =
  process.platform === 'linux'
    ? ['bwrap', 'zygote', 'unshare', 'process']
    : process.platform === 'darwin'
      ? ['sandbox-exec', 'process']
      : ['process'];
let levelsFound: Promise<{ sandboxes: DetectedSandbox[]; missing: string[] }> | undefined;

/** Runs every bypass at every isolation level this machine offers; a level that is missing is a skip that says what it needs. */
function bypassesAtEveryLevel(
  language: 'python' | 'javascript',
  bypasses: Record<string, Bypass>,
  right: string,
  defaultAsserts: string,
): void {
  void test(`asserts (${language}): wrong answers that try to pass anyway fail at every isolation level`, async (t) => {
    levelsFound ??= levels();
    const { sandboxes, missing } = await levelsFound;
    process.env[ALLOW_WEAK_ENV] = '1';
    t.after(() => delete process.env[ALLOW_WEAK_ENV]);
    for (const level of LEVELS) {
      const method: Method = level === 'zygote' ? 'bwrap' : level;
      const sb = sandboxes.find((s) => s.method === method);
      if (!sb) {
        const why = missing.find((m) => m.startsWith(method)) ?? `${method}: not available`;
        if (method === 'bwrap' && process.env.CI) assert.fail(`the full sandbox does not work in CI: ${why}`);
        await t.test(
          method,
          { skip: `needs: ${method === 'bwrap' ? 'bubblewrap' : method} (${why})` },
          () => undefined,
        );
        continue;
      }
      // Answers under bubblewrap run in zygotes unless VTASK_ZYGOTE=0: both paths are probed.
      if (level === 'bwrap') process.env.VTASK_ZYGOTE = '0';
      await t.test(level, async (lt) => {
        const ok = await checkCode(right, { language, asserts: defaultAsserts }, ctx(), sb);
        assert.equal(ok.pass, true, `a right answer passes: ${ok.reason}`);
        for (const [name, b] of Object.entries(bypasses)) {
          const { answer, asserts, reason } =
            typeof b === 'string' ? { answer: b, asserts: defaultAsserts, reason: undefined } : b;
          await lt.test(name, async () => {
            const v = await checkCode(answer, { language, asserts }, ctx(), sb);
            assert.equal(v.pass, false, `passed: ${v.reason}`);
            assert.equal(v.error, undefined, `an answer's failure, not an error: ${v.reason}`);
            assert.equal(isolationOf(v)?.method, method);
            assert.equal(
              isolationOf(v)?.limits.includes(ZYGOTE_FACT),
              level === 'zygote',
              `run ${level === 'zygote' ? 'in' : 'without'} a zygote`,
            );
            if (reason) assert.match(v.reason, reason);
          });
        }
      });
      delete process.env.VTASK_ZYGOTE;
    }
  });
}

void test('asserts: a right answer still passes in both languages', async () => {
  const libraries =
    'import collections, dataclasses, functools, inspect, logging, typing, sys\nsys.setrecursionlimit(10000)\nP = collections.namedtuple("P", "x y")\n@dataclasses.dataclass\nclass Q:\n    x: int\ninspect.signature(lambda a: a)\nlogging.getLogger().warning("log line")\n@functools.lru_cache(None)\ndef depth(n): return 0 if n == 0 else 1 + depth(n - 1)\n';
  const py = await check(`${libraries}def add(a, b):\n    return depth(a) + b + len(P(1, 2)) - 2\nprint("hello")`, {
    language: 'python',
    asserts: `${PY_ASSERTS}\nassert depth(3000) == 3000`,
  });
  assert.equal(py.pass, true, py.reason);
  const js = await check('function add(a, b) { return a + b; }\nconsole.log("hello");', {
    language: 'javascript',
    asserts: JS_ASSERTS,
  });
  assert.equal(js.pass, true, js.reason);
  const esm = await check('export function add(a, b) { return a + b; }', {
    language: 'javascript',
    asserts: JS_ASSERTS,
  });
  assert.equal(esm.pass, true, esm.reason);
});

bypassesAtEveryLevel('python', PY_BYPASSES, 'def add(a, b):\n    return a + b', PY_ASSERTS);
bypassesAtEveryLevel('javascript', JS_BYPASSES, 'function add(a, b) { return a + b; }', JS_ASSERTS);

// ---- Sandbox escape probes, per isolation level ----

type Probe =
  | 'environment'
  | 'read outside'
  | 'write outside'
  | 'network'
  | 'kill a host process'
  | 'background process'
  | 'fork bomb'
  | 'memory bomb'
  | 'endless output';

/** What each level promises to deny (docs/security.md, Isolation). A level's other probes are reported, not asserted. */
const PROMISES: Record<Method, readonly Probe[]> = {
  bwrap: [
    'environment',
    'read outside',
    'write outside',
    'network',
    'kill a host process',
    'background process',
    'fork bomb',
    'memory bomb',
    'endless output',
  ],
  unshare: [
    'environment',
    'network',
    'kill a host process',
    'background process',
    'fork bomb',
    'memory bomb',
    'endless output',
  ],
  'sandbox-exec': ['environment', 'write outside', 'network', 'memory bomb', 'endless output'],
  process: ['environment', 'background process', 'memory bomb', 'endless output'],
};

const PY = findInterpreter('python');
const LINUX = process.platform === 'linux';

function pyRun(code: string, args: readonly string[] = [], extra: Partial<SandboxRunOptions> = {}): SandboxRunOptions {
  assert.ok(PY, 'python3 is installed');
  return {
    argv: [PY.path, ...PY.args, 'main.py', ...args],
    files: { 'main.py': code },
    timeoutMs: 8000,
    memoryMb: 256,
    readOnly: PY.readOnly,
    ...extra,
  };
}

/** Host pids whose command line holds `tok`. */
function survivors(tok: string): number[] {
  if (!LINUX) return [];
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e) && readOr(`/proc/${e}/cmdline`).includes(tok))
    .map(Number);
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

/** Waits (bounded) until the killed processes are reaped; true when none is left. */
async function gone(tok: string): Promise<boolean> {
  for (let i = 0; i < 40 && survivors(tok).length; i++) await new Promise((r) => setTimeout(r, 50));
  return survivors(tok).length === 0;
}

interface Host {
  readonly dir: string;
  readonly secretFile: string;
  readonly writable: string;
  readonly port: number;
  connections: number;
  readonly victim: ChildProcess;
}

/** Each probe: true when the program got through. */
const PROBES: Record<Probe, (sb: DetectedSandbox, h: Host) => Promise<boolean>> = {
  async environment(sb) {
    const r = await sb.run(pyRun('import os\nprint(os.environ.get("VTASK_FAKE_SECRET", "none"))'));
    return r.stdout.includes('sk-fake');
  },
  async 'read outside'(sb, h) {
    const r = await sb.run(
      pyRun('import sys\ntry:\n    print(open(sys.argv[1]).read())\nexcept Exception as e:\n    print("denied", e)', [
        h.secretFile,
      ]),
    );
    return r.stdout.includes('PRIVATE KEY');
  },
  async 'write outside'(sb, h) {
    const target = path.join(h.writable, `escape-${randomBytes(3).toString('hex')}`);
    await sb.run(
      pyRun('import sys\ntry:\n    open(sys.argv[1], "w").write("x")\nexcept Exception as e:\n    print("denied", e)', [
        target,
      ]),
    );
    return fs.existsSync(target);
  },
  async network(sb, h) {
    const before = h.connections;
    const r = await sb.run(
      pyRun(
        'import socket, sys\ntry:\n    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()\n    print("connected")\nexcept Exception as e:\n    print("denied", e)',
        [String(h.port)],
      ),
    );
    return r.stdout.includes('connected') || h.connections > before;
  },
  async 'kill a host process'(sb, h) {
    await sb.run(
      pyRun(
        'import os, signal, sys\ntry:\n    os.kill(int(sys.argv[1]), signal.SIGKILL)\nexcept Exception as e:\n    print("denied", e)',
        [String(h.victim.pid)],
      ),
    );
    await new Promise((r) => setTimeout(r, 100));
    return h.victim.exitCode !== null || h.victim.signalCode !== null;
  },
  async 'background process'(sb) {
    const tok = `vtask-bg-${randomBytes(4).toString('hex')}`;
    // A child in a new session, a grandchild left by a double fork, and a plain background child; the program exits at once.
    const code = [
      'import os, subprocess, sys',
      'tok = sys.argv[1]',
      'sleeper = [sys.executable, "-c", "import time; time.sleep(60)", tok]',
      'subprocess.Popen(sleeper, start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)',
      'subprocess.Popen(["/bin/sh", "-c", "(\\"$@\\" &) ; exit 0", "sh"] + sleeper, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).wait()',
      'subprocess.Popen(sleeper, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)',
      'print("started")',
    ].join('\n');
    const r = await sb.run(pyRun(code, [tok]));
    assert.equal(r.stdout.trim(), 'started', `the probe ran: ${r.stderr.slice(-300)}`);
    return !(await gone(tok));
  },
  async 'fork bomb'(sb) {
    const tok = `vtask-fb-${randomBytes(4).toString('hex')}`;
    const r = await sb.run(
      pyRun(
        'import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)',
        [tok],
        { timeoutMs: 2000, maxProcesses: 32 },
      ),
    );
    return !(r.timedOut || r.exitCode !== 0) || !(await gone(tok));
  },
  async 'memory bomb'(sb) {
    const r = await sb.run(
      pyRun('x = []\nwhile True:\n    x.append(bytearray(16 * 1024 * 1024))', [], { memoryMb: 128 }),
    );
    return !(r.memoryExceeded || /MemoryError/.test(r.stderr));
  },
  async 'endless output'(sb) {
    const r = await sb.run(
      pyRun('import sys\nwhile True:\n    sys.stdout.write("y" * 65536)', [], { outputLimitBytes: 64 * 1024 }),
    );
    return !r.outputExceeded || r.stdout.length > 64 * 1024;
  },
};

async function withHost(fn: (h: Host) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-host-'));
  fs.chmodSync(dir, 0o755);
  const secretFile = path.join(dir, 'id_rsa');
  fs.writeFileSync(secretFile, '-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n', { mode: 0o644 });
  // Writable by anyone, so that only the sandbox (not file permissions) can stop a write.
  const writable = path.join(dir, 'open');
  fs.mkdirSync(writable);
  fs.chmodSync(writable, 0o777);
  const server = net.createServer((s) => {
    host.connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const victim = spawn('/bin/sh', ['-c', 'read x'], { stdio: ['pipe', 'ignore', 'ignore'] });
  const host: Host = {
    dir,
    secretFile,
    writable,
    port: (server.address() as net.AddressInfo).port,
    connections: 0,
    victim,
  };
  process.env.VTASK_FAKE_SECRET = 'sk-fake-0123456789';
  try {
    await fn(host);
  } finally {
    delete process.env.VTASK_FAKE_SECRET;
    victim.kill('SIGKILL');
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The levels to probe here, with why a level is missing; in CI the full sandbox must be there. */
async function levels(): Promise<{ sandboxes: DetectedSandbox[]; missing: string[] }> {
  const sandboxes: DetectedSandbox[] = [];
  const missing: string[] = [];
  const methods: Method[] = LINUX
    ? ['bwrap', 'unshare', 'process']
    : process.platform === 'darwin'
      ? ['sandbox-exec', 'process']
      : ['process'];
  process.env[ALLOW_WEAK_ENV] = '1';
  try {
    for (const m of methods) {
      const sb = await detectSandbox(m);
      if (sb.method !== m) {
        missing.push(`${m}: not installed`);
        continue;
      }
      const r = await sb.run(pyRun('print("ok")'));
      if (r.stdout.trim() === 'ok') sandboxes.push(sb);
      else missing.push(`${m}: ${r.sandboxError ?? r.stderr.trim().split('\n')[0]}`);
    }
  } finally {
    delete process.env[ALLOW_WEAK_ENV];
  }
  return { sandboxes, missing };
}

void test(
  'escape probes: each isolation level denies what it promises',
  { skip: !PY && 'python3 is needed for the probes' },
  async (t) => {
    const { sandboxes, missing } = await levels();
    for (const m of missing) t.diagnostic(`level not available: ${m}`);
    if (LINUX && !sandboxes.some((s) => s.method === 'bwrap')) {
      const why = missing.find((m) => m.startsWith('bwrap')) ?? 'bwrap missing';
      // In CI bubblewrap is installed: the full sandbox not working there is a failure, not a skip.
      if (process.env.CI) assert.fail(`the full sandbox does not work in CI: ${why}`);
      t.diagnostic(`the full sandbox is not probed on this machine: ${why}`);
    }
    process.env[ALLOW_WEAK_ENV] = '1';
    t.after(() => delete process.env[ALLOW_WEAK_ENV]);
    // bubblewrap's zygote paths too: the same promises, every probe run in a zygote, forked (as
    // Python answers run) and exec'd with memory bounded by what is resident (as Node answers run).
    const bwrap = sandboxes.find((s) => s.method === 'bwrap');
    const inZygote =
      (how: Partial<SandboxRunOptions>): DetectedSandbox['run'] =>
      async (o) => {
        const r = await (bwrap as DetectedSandbox).run({ ...o, ...how });
        assert.ok(r.isolation.limits.includes(ZYGOTE_FACT), `ran in a zygote: ${r.sandboxError ?? ''}`);
        return r;
      };
    const zygotes = new Map<DetectedSandbox, string>(
      bwrap
        ? [
            [{ ...bwrap, run: inZygote({ prestarted: true }) }, 'bwrap zygote'],
            [{ ...bwrap, run: inZygote({ zygoteExec: true, memoryPolicy: 'resident' }) }, 'bwrap zygote (exec)'],
          ]
        : [],
    );
    await withHost(async (host) => {
      for (const sb of [...sandboxes, ...zygotes.keys()]) {
        const promised = PROMISES[sb.method as Method];
        const outcome: string[] = [];
        for (const [name, probe] of Object.entries(PROBES) as [Probe, (typeof PROBES)[Probe]][]) {
          if (name === 'fork bomb' && !promised.includes(name)) {
            outcome.push(`${name}: not tried (no process limit at this level)`);
            continue;
          }
          if (name === 'kill a host process' && !promised.includes(name) && !isRoot()) {
            outcome.push(`${name}: not tried (the program runs as this user and could kill it)`);
            continue;
          }
          const escaped = await probe(sb, host);
          outcome.push(`${name}: ${escaped ? 'GOT THROUGH' : 'denied'}`);
          if (promised.includes(name))
            assert.equal(escaped, false, `${zygotes.get(sb) ?? sb.method} promises to deny: ${name}`);
        }
        t.diagnostic(`${zygotes.get(sb) ?? sb.method} (${sb.level}): ${outcome.join('; ')}`);
      }
    });
  },
);

const NODE = findInterpreter('javascript');

/** A JavaScript run as checkCode makes it (Node, its memory bounded by what is resident). */
function jsRun(code: string, args: readonly string[] = [], extra: Partial<SandboxRunOptions> = {}): SandboxRunOptions {
  assert.ok(NODE, 'node is found');
  const memoryMb = extra.memoryMb ?? 256;
  return {
    argv: [NODE.path, ...NODE.args, ...nodeMemoryArgs(memoryMb), 'main.js', ...args],
    files: { 'main.js': code },
    timeoutMs: 8000,
    memoryMb,
    memoryPolicy: NODE.memoryPolicy,
    readOnly: NODE.readOnly,
    env: NODE.env,
    ...extra,
  };
}

/** The escape probes written in JavaScript: each true when the program got through. */
const JS_PROBES: Record<Probe, (run: DetectedSandbox['run'], h: Host) => Promise<boolean>> = {
  async environment(run) {
    const r = await run(jsRun("console.log(process.env.VTASK_FAKE_SECRET ?? 'none');"));
    return r.stdout.includes('sk-fake');
  },
  async 'read outside'(run, h) {
    const r = await run(
      jsRun(
        "try { console.log(require('fs').readFileSync(process.argv[2], 'utf8')); } catch { console.log('denied'); }",
        [h.secretFile],
      ),
    );
    return r.stdout.includes('PRIVATE KEY');
  },
  async 'write outside'(run, h) {
    const target = path.join(h.writable, `escape-${randomBytes(3).toString('hex')}`);
    await run(
      jsRun("try { require('fs').writeFileSync(process.argv[2], 'x'); } catch { console.log('denied'); }", [target]),
    );
    return fs.existsSync(target);
  },
  async network(run, h) {
    const before = h.connections;
    const r = await run(
      jsRun(
        "const s = require('net').connect(Number(process.argv[2]), '127.0.0.1');\ns.on('connect', () => { console.log('connected'); s.destroy(); });\ns.on('error', () => console.log('denied'));",
        [String(h.port)],
      ),
    );
    return r.stdout.includes('connected') || h.connections > before;
  },
  async 'kill a host process'(run, h) {
    await run(
      jsRun("try { process.kill(Number(process.argv[2]), 'SIGKILL'); } catch { console.log('denied'); }", [
        String(h.victim.pid),
      ]),
    );
    await new Promise((r) => setTimeout(r, 100));
    return h.victim.exitCode !== null || h.victim.signalCode !== null;
  },
  async 'background process'(run) {
    const tok = `vtask-jsbg-${randomBytes(4).toString('hex')}`;
    // A detached child in a new session, a grandchild left by a double fork; the program exits at once.
    const code = [
      "const { spawn, spawnSync } = require('child_process');",
      'const tok = process.argv[2];',
      "spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', tok], { detached: true, stdio: 'ignore' }).unref();",
      "spawnSync('/bin/sh', ['-c', '(sleep 60 &) ; exit 0', tok], { stdio: 'ignore' });",
      "console.log('started');",
    ].join('\n');
    const r = await run(jsRun(code, [tok]));
    assert.equal(r.stdout.trim(), 'started', `the probe ran: ${r.stderr.slice(-300)}`);
    return !(await gone(tok));
  },
  async 'fork bomb'(run) {
    const tok = `vtask-jsfb-${randomBytes(4).toString('hex')}`;
    const code =
      "const { spawn } = require('child_process');\nconst go = () => { try { spawn('/bin/sh', ['-c', 'sleep 30', process.argv[2]], { stdio: 'ignore' }).on('error', () => undefined); } catch {} setImmediate(go); };\ngo();";
    const r = await run(jsRun(code, [tok], { timeoutMs: 2000, maxProcesses: 32 }));
    return !(r.timedOut || r.exitCode !== 0) || !(await gone(tok));
  },
  async 'memory bomb'(run) {
    const r = await run(
      jsRun('const keep = [];\nfor (;;) keep.push(Buffer.alloc(16 << 20, 1));', [], { memoryMb: 128 }),
    );
    return !(r.memoryExceeded || /out of memory|Allocation failed/i.test(r.stderr));
  },
  async 'endless output'(run) {
    // Blocking writes: process.stdout.write would queue in memory, and the heap limit end it first.
    const r = await run(
      jsRun(
        "const fs = require('fs');\nconst y = Buffer.alloc(65536, 121);\nfor (;;) { try { fs.writeSync(1, y); } catch {} }",
        [],
        {
          outputLimitBytes: 64 * 1024,
        },
      ),
    );
    return !r.outputExceeded || r.stdout.length > 64 * 1024;
  },
};

void test(
  "escape probes in JavaScript: Node exec'd in a zygote and in a bubblewrap sandbox per run deny all the full sandbox promises",
  { skip: (!LINUX || !NODE) && 'needs: Linux with bubblewrap, and node' },
  async (t) => {
    const bwrap = await detectSandbox('bwrap');
    const works = await bwrap.run(jsRun("console.log('ok')"));
    if (works.stdout.trim() !== 'ok') {
      const why = works.sandboxError ?? works.stderr.trim().split('\n')[0];
      if (process.env.CI) assert.fail(`the full sandbox does not work in CI: ${why}`);
      return t.skip(`needs: a working bubblewrap (${why})`);
    }
    t.after(disposeSandboxPools);
    const ways: [string, DetectedSandbox['run']][] = [
      [
        "bwrap zygote (node exec'd)",
        async (o) => {
          const r = await bwrap.run({ ...o, zygoteExec: true });
          assert.ok(r.isolation.limits.includes(ZYGOTE_FACT), `ran in a zygote: ${r.sandboxError ?? ''}`);
          return r;
        },
      ],
      [
        'bwrap per run',
        async (o) => {
          const r = await bwrap.run(o);
          assert.ok(!r.isolation.limits.includes(ZYGOTE_FACT));
          return r;
        },
      ],
    ];
    await withHost(async (host) => {
      // Zygotes started from here on: after the host's secret entered vtask's environment.
      await disposeSandboxPools();
      for (const [name, run] of ways) {
        const outcome: string[] = [];
        for (const [probe, go] of Object.entries(JS_PROBES) as [Probe, (typeof JS_PROBES)[Probe]][]) {
          const escaped = await go(run, host);
          outcome.push(`${probe}: ${escaped ? 'GOT THROUGH' : 'denied'}`);
          assert.equal(escaped, false, `${name} promises to deny: ${probe}`);
        }
        t.diagnostic(`${name}: ${outcome.join('; ')}`);
      }
    });
  },
);

void test(
  'weak levels refuse to run code unless opted in, and say what to do',
  { skip: !LINUX && 'the weak Linux levels' },
  async (t) => {
    for (const m of ['unshare', 'process'] as const) {
      const sb = await detectSandbox(m);
      if (sb.method !== m) {
        t.diagnostic(`${m} is not installed`);
        continue;
      }
      assert.equal(sb.level, 'weak');
      const marker = path.join(os.tmpdir(), `vtask-refused-${randomBytes(3).toString('hex')}`);
      const r = await sb.run(pyRun('import sys\nopen(sys.argv[1], "w").write("ran")', [marker]));
      assert.ok(r.refused, `${m} ran without the opt-in`);
      assert.equal(fs.existsSync(marker), false, 'the program did not run');
      assert.match(r.refused, /--allow-weak-isolation/);
      assert.match(r.refused, /bubblewrap/);
      assert.match(sb.notice(), /WEAK/);

      const v = await checkCode(
        'print(input())',
        { language: 'python', tests: [{ stdin: '1', stdout: '1' }] },
        ctx(),
        sb,
      );
      assert.equal(v.pass, false);
      assert.equal(v.error, 'unavailable', 'a refusal, not a wrong answer');
      assert.match(v.reason, /allow-weak-isolation/);
      assert.deepEqual(isolationOf(v)?.level, 'weak');

      process.env[ALLOW_WEAK_ENV] = '1';
      try {
        const ok = await checkCode(
          'print(input())',
          { language: 'python', tests: [{ stdin: '1', stdout: '1' }] },
          ctx(),
          sb,
        );
        assert.equal(ok.pass, true, ok.reason);
        const iso = isolationOf(ok);
        assert.equal(iso?.method, m);
        assert.equal(iso?.level, 'weak');
        assert.ok(iso && iso.lost.length > 0, 'the verdict names what is lost');
      } finally {
        delete process.env[ALLOW_WEAK_ENV];
      }
    }
  },
);

void test(
  'the full sandbox runs code without any opt-in and says so',
  { skip: !LINUX && 'bubblewrap is Linux only' },
  async (t) => {
    const sb = await detectSandbox('bwrap');
    if (sb.method !== 'bwrap') {
      if (process.env.CI) assert.fail('bubblewrap is not installed in CI');
      t.skip('bubblewrap is not installed');
      return;
    }
    const v = await checkCode(
      'print(input())',
      { language: 'python', tests: [{ stdin: '1', stdout: '1' }] },
      ctx(),
      sb,
    );
    if (v.error === 'unavailable' && !process.env.CI) {
      t.skip(`bubblewrap does not work here: ${v.reason}`);
      return;
    }
    assert.equal(v.pass, true, v.reason);
    assert.deepEqual(isolationOf(v)?.level, 'full');
    assert.deepEqual(isolationOf(v)?.lost, []);
    assert.match(sb.notice(), /full sandbox/);
  },
);

void test(
  'the folder of a program under bubblewrap holds 64 MiB, whatever its memory limit',
  { skip: !LINUX && 'bubblewrap is Linux only' },
  async (t) => {
    const sb = await detectSandbox('bwrap');
    if (sb.method !== 'bwrap') {
      if (process.env.CI) assert.fail('bubblewrap is not installed in CI');
      return t.skip('needs: bubblewrap (not installed)');
    }
    // 8 MiB files, each below the file-size limit: only the folder's size can stop them.
    const fill = (mib: number): string =>
      `n = 0\ntry:\n    for i in range(${mib / 8}):\n        with open("f%d" % i, "wb") as f:\n            f.write(b"x" * (8 << 20))\n        n += 8\n    print("wrote", n)\nexcept OSError as e:\n    print("stopped", n, e.errno)`;
    for (const prestarted of [false, true]) {
      const big = await sb.run(pyRun(fill(128), [], { memoryMb: 512, prestarted }));
      if (big.sandboxError && !process.env.CI) return t.skip(`needs: a working bubblewrap (${big.sandboxError})`);
      const m = /^stopped (\d+) (\d+)$/m.exec(big.stdout);
      assert.ok(m, `writing 128 MiB failed (pre-started: ${prestarted}): ${big.stdout}${big.stderr}`);
      assert.equal(Number(m[2]), 28, 'ENOSPC: the folder is full');
      assert.ok(Number(m[1]) <= 64, `at most 64 MiB written, got ${m[1]}`);
      const small = await sb.run(pyRun(fill(32), [], { memoryMb: 512, prestarted }));
      assert.match(small.stdout, /^wrote 32$/m, small.stderr);
    }
  },
);

// ---- What the CLI says ----

const CLI = path.resolve(__dirname, '../../cli.js');
const TASK = `vtask: 1
tasks:
  - id: sum
    prompt: Print the sum of two integers read from stdin.
    verify:
      code:
        language: python
        tests:
          - { stdin: "1 2\\n", stdout: "3" }
    cases:
      - response: "a, b = map(int, input().split())\\nprint(a + b)"
        expect: pass
`;

function cli(
  args: readonly string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== ALLOW_WEAK_ENV && k !== 'VTASK_SANDBOX'),
  ) as Record<string, string>;
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...clean, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

void test(
  'vtask test says once which isolation is in use, refuses weak isolation without the flag, and --json carries the level',
  { skip: !PY && 'python3 is needed' },
  (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-cli-iso-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'sum.vtask');
    fs.writeFileSync(file, TASK + TASK.split('\n').slice(2).join('\n').replace('id: sum', 'id: sum2'));

    const refused = cli(['test', file, '--json'], { VTASK_SANDBOX: 'process' });
    const notices = refused.stderr.split('\n').filter((l) => l.startsWith('vtask: isolation:'));
    assert.equal(notices.length, 1, `one notice per run: ${refused.stderr}`);
    assert.match(notices[0] as string, /WEAK \(process/);
    assert.match(notices[0] as string, /--allow-weak-isolation/);
    const out = JSON.parse(refused.stdout) as {
      passed: number;
      skipped: number;
      undecided: number;
      results: { error?: string; reason: string; isolation?: { level: string } }[];
    };
    assert.equal(out.passed, 0);
    // Refused, not failed; and not a skip either: the cases could not run here, which must fail a CI job.
    assert.equal(out.undecided, 2, 'refused: no verdict');
    assert.equal(out.skipped, 0);
    assert.equal(refused.status, 1, 'a case that could not run fails vtask test');
    assert.equal(out.results[0]?.error, 'unavailable');
    assert.equal(out.results[0]?.isolation?.level, 'weak');
    assert.match(out.results[0]?.reason ?? '', /bubblewrap/);

    const allowed = cli(['test', file, '--json', '--allow-weak-isolation'], { VTASK_SANDBOX: 'process' });
    const ok = JSON.parse(allowed.stdout) as {
      passed: number;
      results: { isolation?: { method: string; level: string; lost: string[] } }[];
    };
    assert.equal(ok.passed, 2, allowed.stderr);
    assert.equal(ok.results[0]?.isolation?.method, 'process');
    assert.ok((ok.results[0]?.isolation?.lost.length ?? 0) > 0);
    assert.match(allowed.stderr, /isolation: WEAK \(process.*code runs anyway/);

    if (LINUX && which('bwrap')) {
      const full = cli(['test', file], {});
      if (/isolation: full sandbox/.test(full.stderr)) assert.match(full.stdout, /2 passed, 0 failed/);
      else if (process.env.CI) assert.fail(`the full sandbox does not work in CI: ${full.stderr}`);
    }
  },
);

void test(
  'script verifiers are refused under weak isolation without the opt-in, and run with it',
  { skip: !LINUX && 'the weak Linux levels' },
  async (t) => {
    const sb = await detectSandbox('process');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-script-iso-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(
      path.join(dir, 'verify.mjs'),
      'export function verify(response) { return { pass: response === "ok" }; }\n',
      { mode: 0o644 },
    );
    const c = { ...ctx(), task: { ...ctx().task, dir } };
    const refused = await checkScript('ok', { path: 'verify.mjs' }, c, sb);
    assert.equal(refused.error, 'unavailable', refused.reason);
    assert.match(refused.reason, /allow-weak-isolation/);
    assert.equal(isolationOf(refused)?.level, 'weak');
    process.env[ALLOW_WEAK_ENV] = '1';
    try {
      const ran = await checkScript('ok', { path: 'verify.mjs' }, c, sb);
      assert.equal(ran.pass, true, ran.reason);
      assert.equal(isolationOf(ran)?.method, 'process');
    } finally {
      delete process.env[ALLOW_WEAK_ENV];
    }
  },
);

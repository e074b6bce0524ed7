// Security: answers that try to pass `asserts` without passing them (early exits, exit hooks,
// a shadowed or patched assert, forged results), and sandbox escape probes run under every
// isolation level this machine offers, each checked against what that level promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCode, type CodeParams } from '../../src/core/verifiers/code/check';
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

/** Wrong answers (add subtracts) that try to pass anyway; every one must fail. */
const PY_BYPASSES: Record<string, string> = {
  'os._exit(0)': 'import os\ndef add(a, b):\n    return a - b\nos._exit(0)',
  'sys.exit(0)': 'import sys\ndef add(a, b):\n    return a - b\nsys.exit(0)',
  'os._exit(0) inside the checked function': 'import os\ndef add(a, b):\n    os._exit(0)',
  'sys.excepthook': 'import sys, os\ndef add(a, b):\n    return a - b\nsys.excepthook = lambda *a: os._exit(0)',
  atexit: 'import atexit, os\ndef add(a, b):\n    return a - b\natexit.register(lambda: os._exit(0))',
  'SystemExit raised inside the checked function': 'def add(a, b):\n    raise SystemExit(0)',
  'a patched builtin AssertionError': 'import builtins\nclass Never(BaseException): pass\nbuiltins.AssertionError = Never\ndef add(a, b):\n    return a - b',
  'a tracer that skips the assert lines': 'import sys\ndef add(a, b):\n    return a - b\ndef tr(f, e, a):\n    return None\nsys.settrace(tr)',
  'printing a forged result marker': 'import os\ndef add(a, b):\n    return a - b\nprint("<<vtask-result:000000000000>>")\nos._exit(0)',
  'reading the harness frames': 'import sys, os\ndef add(a, b):\n    return a - b\nf = sys._getframe()\nwhile f:\n    for v in list(f.f_locals.values()):\n        if isinstance(v, bytes) and len(v) == 32:\n            print("\\n" + v.decode())\n    f = f.f_back\nos._exit(0)',
  'listing every object': 'import gc, os\ndef add(a, b):\n    return a - b\ngc.get_objects()\nos._exit(0)',
  'reading its own memory': 'import os\ndef add(a, b):\n    return a - b\nopen("/proc/self/mem", "rb")\nos._exit(0)',
  'a signal that kills itself with status 0': 'import os, signal\ndef add(a, b):\n    return a - b\nsignal.signal(signal.SIGTERM, lambda *a: os._exit(0))\nos.kill(os.getpid(), signal.SIGTERM)',
};

const JS_BYPASSES: Record<string, string> = {
  'process.exit(0)': 'function add(a, b) { return a - b; }\nprocess.exit(0);',
  'process.exit(0) inside the checked function': 'function add(a, b) { process.exit(0); }',
  'a shadowed assert': 'function add(a, b) { return a - b; }\nfunction assert() {}\nassert.strictEqual = () => {};',
  'a shadowed assert (const)': 'const add = (a, b) => a - b;\nconst assert = Object.assign(() => {}, { strictEqual() {} });',
  'patching node:assert': "const add = (a, b) => a - b;\nconst a = require('node:assert');\na.strictEqual = () => {};\nrequire('node:assert').ok = () => {};",
  'an uncaughtException handler': "function add(a, b) { return a - b; }\nprocess.on('uncaughtException', () => process.exit(0));\nprocess.on('unhandledRejection', () => process.exit(0));",
  "process.on('exit')": "function add(a, b) { return a - b; }\nprocess.on('exit', () => { process.exitCode = 0; });",
  'process.exitCode = 0 and a pending timer': 'function add(a, b) { return a - b; }\nprocess.exitCode = 0;\nsetTimeout(() => process.exit(0), 0);',
  'calling the checks itself': 'function add(a, b) { return a - b; }\nglobalThis.__vtask_checks__(async () => {});',
  'replacing the checks entry': 'function add(a, b) { return a - b; }\nglobalThis.__vtask_checks__ = (f) => process.exit(0);\nObject.defineProperty(globalThis, "__vtask_checks__", { value: () => process.exit(0) });',
  'a heap snapshot to find the token': "function add(a, b) { return a - b; }\nrequire('v8').writeHeapSnapshot();\nprocess.exit(0);",
  'the inspector': "function add(a, b) { return a - b; }\nnew (require('inspector').Session)().connect();\nprocess.exit(0);",
  'printing a forged result marker': "function add(a, b) { return a - b; }\nconsole.log('<<vtask-result:000000000000>>');\nprocess.exit(0);",
};

void test('asserts: a right answer still passes in both languages', async () => {
  const libraries = 'import collections, dataclasses, functools, inspect, logging, typing, sys\nsys.setrecursionlimit(10000)\nP = collections.namedtuple("P", "x y")\n@dataclasses.dataclass\nclass Q:\n    x: int\ninspect.signature(lambda a: a)\nlogging.getLogger().warning("log line")\n@functools.lru_cache(None)\ndef depth(n): return 0 if n == 0 else 1 + depth(n - 1)\n'
  const py = await check(`${libraries}def add(a, b):\n    return depth(a) + b + len(P(1, 2)) - 2\nprint("hello")`, { language: 'python', asserts: `${PY_ASSERTS}\nassert depth(3000) == 3000` });
  assert.equal(py.pass, true, py.reason);
  const js = await check('function add(a, b) { return a + b; }\nconsole.log("hello");', { language: 'javascript', asserts: JS_ASSERTS });
  assert.equal(js.pass, true, js.reason);
  const esm = await check('export function add(a, b) { return a + b; }', { language: 'javascript', asserts: JS_ASSERTS });
  assert.equal(esm.pass, true, esm.reason);
});

for (const [name, answer] of Object.entries(PY_BYPASSES)) {
  void test(`asserts (Python): ${name} does not pass a wrong answer`, async () => {
    const v = await check(answer, { language: 'python', asserts: PY_ASSERTS });
    assert.equal(v.pass, false, `passed: ${v.reason}`);
    assert.equal(v.error, undefined, `an answer's failure, not an error: ${v.reason}`);
  });
}

for (const [name, answer] of Object.entries(JS_BYPASSES)) {
  void test(`asserts (JavaScript): ${name} does not pass a wrong answer`, async () => {
    const v = await check(answer, { language: 'javascript', asserts: JS_ASSERTS });
    assert.equal(v.pass, false, `passed: ${v.reason}`);
    assert.equal(v.error, undefined, `an answer's failure, not an error: ${v.reason}`);
  });
}

// The `code` verifier: extraction, comparison, every status, the three test modes in both
// languages, refusal in an untrusted workspace and cancellation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeKind } from '../../src/core/verifiers/code';
import { checkCode, type CodeParams, type TestStatus } from '../../src/core/verifiers/code/checkCode';
import { compareOutput, deepEqual } from '../../src/core/verifiers/code/compare';
import { extractCode, isEsModule } from '../../src/core/verifiers/code/extract';
import { getSandbox, type Sandbox } from '../../src/core/sandbox';
import type { Verdict, VerifyContext } from '../../src/core/verifiers/verdict';

function ctx(opts: { trusted?: boolean; signal?: AbortSignal } = {}): VerifyContext {
  return {
    task: { id: 't', prompt: '', messages: [], meta: {}, dir: process.cwd() },
    signal: opts.signal ?? new AbortController().signal,
    trusted: opts.trusted ?? true,
    child: () => Promise.reject(new Error('no children here')),
  };
}

async function check(answer: string, params: CodeParams, c = ctx()): Promise<Verdict> {
  assert.ok(codeKind.check);
  return codeKind.check(answer, params, c);
}

function statuses(v: Verdict): TestStatus[] {
  return (v.details.tests as { status: TestStatus }[]).map((t) => t.status);
}

const fence = (lang: string, code: string): string => `Here you go:\n\n\`\`\`${lang}\n${code}\n\`\`\`\n`;

void test('extracts the last fenced block of the language, else the whole answer', () => {
  const a = 'text\n```python\nprint(1)\n```\nmore\n```py\nprint(2)\n```\n```text\nnot code\n```';
  assert.equal(extractCode(a, 'python').code, 'print(2)');
  assert.equal(extractCode('```\nx = 1\n```', 'python').code, 'x = 1');
  assert.equal(
    extractCode('```js\nconsole.log(1)\n```\n```javascript\nconsole.log(2)\n```', 'javascript').code,
    'console.log(2)',
  );
  assert.equal(extractCode('print(3)', 'python').from, 'whole answer');
  assert.equal(extractCode('```python\nprint(4)\n', 'python').code, 'print(4)', 'an unclosed fence runs to the end');
  assert.equal(extractCode('````python\n```\ninner\n```\n````', 'python').code, '```\ninner\n```');
  assert.equal(isEsModule('import fs from "node:fs";'), true);
  assert.equal(isEsModule('const fs = require("fs");'), false);
});

void test('compares output line by line, ignoring trailing whitespace; too few or too many lines fail', () => {
  assert.equal(compareOutput('1\n2\n', '1  \n2\r\n\n\n'), undefined);
  assert.match(compareOutput('1\n2\n', '1\n') ?? '', /expected 2 lines, got 1/);
  assert.match(compareOutput('1\n', '1\n2\n') ?? '', /expected 1 line, got 2/);
  assert.equal(compareOutput('12', '13'), "expected '12', got '13'");
  assert.match(compareOutput('a', '') ?? '', /got no output/);
  assert.notEqual(compareOutput(' a', 'a'), undefined, 'leading whitespace matters');
});

void test('deep equality of call results: order-free objects, float tolerance 1e-9', () => {
  assert.ok(deepEqual(0.3, 0.1 + 0.2));
  assert.ok(deepEqual(1e12, 1e12 + 1e-1));
  assert.ok(!deepEqual(1, 1.0001));
  assert.ok(deepEqual({ a: [1, 2], b: null }, { b: null, a: [1, 2] }));
  assert.ok(!deepEqual([1, 2], [2, 1]));
  assert.ok(!deepEqual('1', 1));
  assert.ok(deepEqual(NaN, NaN));
  assert.ok(!deepEqual(Infinity, 1e308));
});

void test('stdin/stdout tests in Python: score is the pass rate and the reason names the first failure', async () => {
  const v = await check(fence('python', 'print(int(input()) * 2)'), {
    language: 'python',
    tests: [
      { stdin: '2\n', stdout: '4\n' },
      { stdin: '6', stdout: '12   ' },
      { stdin: '6', stdout: '13' },
    ],
  });
  assert.equal(v.pass, false);
  assert.equal(v.score, 2 / 3);
  assert.equal(v.reason, "2/3 tests passed; test 3: wrong_answer: expected '13', got '12'");
  assert.deepEqual(statuses(v), ['passed', 'passed', 'wrong_answer']);
  const iso = v.details.isolation as { method: string; limits: string[] };
  assert.equal(typeof iso.method, 'string');
  assert.ok(iso.limits.length > 0);
  const t0 = (v.details.tests as Record<string, unknown>[])[2] as Record<string, unknown>;
  assert.equal(t0.expected, '13');
  assert.equal(typeof t0.durationMs, 'number');
});

void test('stdin/stdout tests in JavaScript, CommonJS and ES modules', async () => {
  const cjs = await check(
    fence(
      'js',
      'const s = require("fs").readFileSync(0, "utf8");\nconsole.log(s.split(/\\s+/).filter(Boolean).map(Number).reduce((a, b) => a + b, 0));',
    ),
    {
      language: 'javascript',
      tests: [
        { stdin: '1 2 3', stdout: '6' },
        { stdin: '', stdout: '0' },
      ],
    },
  );
  assert.equal(cjs.pass, true, cjs.reason);
  const esm = await check(
    fence('javascript', 'import fs from "node:fs";\nconsole.log(fs.readFileSync(0, "utf8").trim().toUpperCase());'),
    {
      language: 'javascript',
      tests: [{ stdin: 'abc', stdout: 'ABC' }],
    },
  );
  assert.equal(esm.pass, true, esm.reason);
});

void test('too few output lines fail', async () => {
  const v = await check('print(1)', { language: 'python', tests: [{ stdout: '1\n2\n' }] });
  assert.deepEqual(statuses(v), ['wrong_answer']);
  assert.match(v.reason, /expected 2 lines, got 1/);
});

void test('a non-zero exit after correct output fails', async () => {
  const py = await check('import sys\nprint(1)\nsys.exit(3)', { language: 'python', tests: [{ stdout: '1' }] });
  assert.deepEqual(statuses(py), ['runtime_error']);
  assert.match(py.reason, /exit code 3/);
  const js = await check('console.log(1); process.exitCode = 2;', { language: 'javascript', tests: [{ stdout: '1' }] });
  assert.deepEqual(statuses(js), ['runtime_error']);
});

void test('runtime errors name the exception', async () => {
  const v = await check('x = 1 / 0', { language: 'python', tests: [{ stdout: '' }] });
  assert.deepEqual(statuses(v), ['runtime_error']);
  assert.match(v.reason, /ZeroDivisionError/);
  // A SyntaxError raised while running (bad JSON input) is not a compile error.
  const j = await check('console.log(JSON.parse("{bad"))', { language: 'javascript', tests: [{ stdout: '1' }] });
  assert.deepEqual(statuses(j), ['runtime_error']);
});

void test('syntax errors are compile errors, with the line', async () => {
  const py = await check('def f(:\n    pass', { language: 'python', tests: [{ stdout: '1' }, { stdout: '2' }] });
  assert.deepEqual(statuses(py), ['compile_error', 'compile_error']);
  assert.match(py.reason, /compile_error: SyntaxError.*line 1/);
  const ind = await check('if True:\nprint(1)', { language: 'python', tests: [{ stdout: '1' }] });
  assert.deepEqual(statuses(ind), ['compile_error']);
  const js = await check('function f( {', { language: 'javascript', tests: [{ stdout: '1' }] });
  assert.deepEqual(statuses(js), ['compile_error']);
  assert.match(js.reason, /SyntaxError/);
});

void test('an endless loop is a timeout', async () => {
  const t0 = Date.now();
  const v = await check('while True: pass', {
    language: 'python',
    tests: [{ stdout: '1' }, { stdout: '1' }],
    timeout_ms: 500,
  });
  assert.deepEqual(statuses(v), ['timeout', 'timeout']);
  assert.match(v.reason, /timeout: did not finish within 500 ms/);
  assert.equal(v.error, undefined, 'a timeout is the answer failing, not the verifier');
  assert.ok(Date.now() - t0 < 10_000);
});

void test('memory bombs are memory errors, in Python and JavaScript', async () => {
  const py = await check('a = []\nwhile True:\n    a.append(" " * 10**6)', {
    language: 'python',
    tests: [{ stdout: '1' }],
    memory_mb: 128,
  });
  assert.deepEqual(statuses(py), ['memory']);
  assert.match(py.reason, /memory: exceeded the memory limit of 128 MiB/);
  const heap = await check('const a = []; while (true) a.push(new Array(1e5).fill(Math.random()));', {
    language: 'javascript',
    tests: [{ stdout: '1' }],
    memory_mb: 128,
  });
  assert.deepEqual(statuses(heap), ['memory']);
  const buffers = await check('const a = []; while (true) a.push(Buffer.alloc(1e7, 1));', {
    language: 'javascript',
    tests: [{ stdout: '1' }],
    memory_mb: 128,
  });
  assert.deepEqual(statuses(buffers), ['memory']);
});

void test('asserts: values are compared outside the answer, and the reason says which assert failed and why', async () => {
  const ok = await check(fence('python', 'def add(a, b):\n    return a + b'), {
    language: 'python',
    asserts: 'assert add(1, 2) == 3\nassert add(-1, 1) == 0',
  });
  assert.equal(ok.pass, true, ok.reason);
  assert.equal(ok.reason, '1/1 asserts passed');
  const bad = await check('def add(a, b):\n    return a - b', { language: 'python', asserts: 'assert add(1, 2) == 3' });
  assert.equal(bad.pass, false);
  assert.equal(
    bad.reason,
    '0/1 asserts passed: wrong_answer: assert on line 1 (add(1, 2) == 3) failed: got -1, expected 3',
  );
  const raised = await check('def add(a, b):\n    return a / 0', {
    language: 'python',
    asserts: 'assert add(1, 2) == 3',
  });
  assert.deepEqual(statuses(raised), ['runtime_error']);
  assert.match(raised.reason, /add\(1, 2\) == 3\): raised ZeroDivisionError: division by zero/);
  const js = await check('function add(a, b) { return a + b; }', {
    language: 'javascript',
    asserts: 'assert.strictEqual(add(1, 2), 3);\nassert(add(2, 2) === 4);',
  });
  assert.equal(js.pass, true, js.reason);
  const collections = await check(
    'const uniq = (xs) => new Set(xs);\nconst count = (xs) => new Map([...new Set(xs)].map((x) => [x, xs.filter((y) => y === x).length]));',
    {
      language: 'javascript',
      asserts:
        'assert.deepStrictEqual(uniq([1, 1, 2]), new Set([2, 1]));\nassert.deepStrictEqual(count(["a", "b", "a"]), new Map([["a", 2], ["b", 1]]));\nassert.deepStrictEqual({ n: [undefined, -0, 2n] }, { n: [undefined, -0, 2n] });',
    },
  );
  assert.equal(collections.pass, true, collections.reason);
  const required = await check('const reverse = (s) => [...s].reverse().join("");', {
    language: 'javascript',
    asserts: 'const assert = require("node:assert");\nassert.strictEqual(reverse("abc"), "cba");',
  });
  assert.equal(required.pass, true, required.reason);
  const requiredBad = await check('const reverse = (s) => s;', {
    language: 'javascript',
    asserts: 'const assert = require("node:assert");\nassert.strictEqual(reverse("abc"), "cba");',
  });
  assert.match(requiredBad.reason, /assert call 1 \(assert\.strictEqual\) failed/, 'the required assert records too');
  const jsBad = await check('const add = (a, b) => a * b;', {
    language: 'javascript',
    asserts: 'assert.strictEqual(add(1, 2), 3);',
  });
  assert.deepEqual(statuses(jsBad), ['wrong_answer']);
  assert.match(
    jsBad.reason,
    /assert call 1 \(assert\.strictEqual\) failed: Expected values to be strictly equal: 2 !== 3/,
  );
});

void test('asserts: Python semantics of plain data, nested asserts, and every assert must run', async () => {
  const answer =
    'def f(x):\n    return {"n": x, "t": (x, 1.0), "s": {1, 2}, "b": b"ab", "big": 10**30 + x}\ndef adder(n):\n    return lambda x: x + n\ndef pairs(n):\n    for i in range(n):\n        yield (i, n - 1 - i)';
  const asserts = [
    'assert f(1)["n"] == 1.0 and f(1)["t"] == (1, 1)',
    'assert f(1)["t"] != [1, 1.0]',
    'assert f(2)["s"] == {2, 1} and 2 in f(2)["s"] and 3 not in f(2)["s"]',
    'assert f(1)["big"] == 10**30 + 1 and f(1)["big"] > 10**30',
    'assert "ab" < "b" and [1, 2] < [1, 3] and (1,) <= (1, 0)',
    'assert f(0)["b"] == b"ab" and f(0)["n"] is not None and not f(0)["n"]',
    'def check(candidate):\n    for x in range(3):\n        assert candidate(x)["n"] == x',
    'check(f)',
    'import math\nassert math.isclose(f(1)["t"][1], 1.0) and math.isclose(f(1)["n"] / 3, 0.3333, rel_tol=1e-3)',
    'assert adder(2)(3) == 5 and sorted(pairs(2)) == [(0, 1), (1, 0)]',
    'from collections import Counter\nassert Counter(f(1)["t"]) == Counter([1, 1.0]) == {1: 2}',
  ].join('\n');
  const ok = await check(answer, { language: 'python', asserts });
  assert.equal(ok.pass, true, ok.reason);
  const skipped = await check('def f(x):\n    return x', {
    language: 'python',
    asserts: 'def never():\n    assert f(1) == 1\nassert f(2) == 2',
  });
  assert.equal(skipped.pass, false);
  assert.match(skipped.reason, /assert on line 2 \(f\(1\) == 1\) never ran/);
  const raises = 'try:\n    f(-1)\n    assert False, "f(-1) must raise"\nexcept ValueError:\n    pass';
  const strict = await check('def f(x):\n    if x < 0:\n        raise ValueError(x)\n    return x', {
    language: 'python',
    asserts: `${raises}\nassert f(2) == 2`,
  });
  assert.equal(strict.pass, true, `an assert in a try may rightly never run: ${strict.reason}`);
  const lax = await check('def f(x):\n    return x', { language: 'python', asserts: raises });
  assert.match(lax.reason, /assert on line 3 \(False\) failed: the value is False/);
  const broken = await check('x = 1', { language: 'python', asserts: 'assert x ==' });
  assert.equal(broken.error, 'crash', 'the task is broken, not the answer');
  assert.match(broken.reason, /the asserts do not compile: SyntaxError/);
});

void test('asserts: the expected values of Python asserts never reach the answer', async () => {
  // The answer searches every file it can see for the literal, prints the checks it got, and fails.
  const spy =
    'import os\nprint("found:", [n for n in os.listdir(".") if "98765" "4321" in open(n).read()])\nprint(open("_vtask_asserts.py").read())\ndef add(a, b):\n    return 0';
  const v = await check(spy, { language: 'python', asserts: 'assert add(1, 2) == 987654321' });
  assert.equal(v.pass, false);
  const out = (v.details.tests as { stdout: string }[])[0]?.stdout ?? '';
  assert.match(out, /__vtask_check__\(0, \(lambda: add\(1, 2\),\)\)/, 'the checks the answer sees');
  assert.match(out, /found: \[\]/);
  assert.match(v.reason, /got 0, expected 987654321/);
});

void test('call: the function is called with JSON arguments and its result compared', async () => {
  const py = await check(
    fence(
      'python',
      'def solve(xs, k):\n    print("debug output is ignored")\n    return tuple(sorted(xs))[:k]\n\nif __name__ == "__main__":\n    print(solve(list(map(int, input().split())), 1))',
    ),
    {
      language: 'python',
      call: {
        function: 'solve',
        cases: [
          { args: [[3, 1, 2], 2], returns: [1, 2] },
          { args: [[5], 1], returns: [5] },
          { args: [[2, 1], 1], returns: [2] },
        ],
      },
    },
  );
  assert.deepEqual(statuses(py), ['passed', 'passed', 'wrong_answer']);
  assert.equal(py.reason, '2/3 cases passed; case 3: wrong_answer: expected [2], got [1]');
  const floats = await check('def f(a, b):\n    return {"sum": a + b, "inf": float("inf")}', {
    language: 'python',
    call: { function: 'f', cases: [{ args: [0.1, 0.2], returns: { sum: 0.3, inf: Infinity } }] },
  });
  assert.equal(floats.pass, true, floats.reason);
  const cls = await check('class Solution:\n    def twoSum(self, a, b):\n        return a + b', {
    language: 'python',
    call: { function: 'twoSum', cases: [{ args: [1, 2], returns: 3 }] },
  });
  assert.equal(cls.pass, true, cls.reason);
  const js = await check(fence('js', 'const add = async (a, b) => { console.log("noise"); return a + b; };'), {
    language: 'javascript',
    call: {
      function: 'add',
      cases: [
        { args: [1, 2], returns: 3 },
        { args: [0.1, 0.2], returns: 0.3 },
        { args: ['a', 'b'], returns: 'ab' },
      ],
    },
  });
  assert.equal(js.pass, true, js.reason);
  const missing = await check('def g():\n    return 1', {
    language: 'python',
    call: { function: 'f', cases: [{ args: [], returns: 1 }] },
  });
  assert.deepEqual(statuses(missing), ['runtime_error']);
  assert.match(missing.reason, /no function named f/);
});

void test('refuses to run in an untrusted workspace', async () => {
  const v = await check('print(1)', { language: 'python', tests: [{ stdout: '1' }] }, ctx({ trusted: false }));
  assert.equal(v.pass, false);
  assert.equal(v.error, 'refused');
  assert.equal(v.reason, 'code verifiers do not run in an untrusted workspace');
});

void test('cancellation through the AbortSignal stops the tests', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 400);
  const t0 = Date.now();
  const v = await check(
    'while True: pass',
    { language: 'python', tests: [{ stdout: '1' }, { stdout: '1' }, { stdout: '1' }], timeout_ms: 30_000 },
    ctx({ signal: ac.signal }),
  );
  assert.equal(v.error, 'timeout');
  assert.equal(v.reason, 'cancelled');
  assert.ok(Date.now() - t0 < 5000);
});

void test('a sandbox that cannot start is a sandbox_error, and the verdict says the verifier could not run', async () => {
  const real = await getSandbox();
  const broken: Sandbox = {
    method: real.method,
    run: (o) => real.run({ ...o, argv: ['/nonexistent/vtask-interpreter', 'main.py'] }),
  };
  const v = await checkCode('print(1)', { language: 'python', tests: [{ stdout: '1' }] }, ctx(), broken);
  assert.deepEqual(statuses(v), ['sandbox_error']);
  assert.equal(v.error, 'unavailable');
});

void test('an answer with no code fails without running anything', async () => {
  const v = await check('   ', { language: 'python', tests: [{ stdout: '1' }] });
  assert.equal(v.pass, false);
  assert.equal(v.reason, 'the answer has no code');
});

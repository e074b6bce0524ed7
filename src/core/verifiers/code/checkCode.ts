import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  findInterpreter,
  getSandbox,
  nodeMemoryArgs,
  type Interpreter,
  type Sandbox,
  type SandboxRunOptions,
  type SandboxRunResult,
} from '../../sandbox';
import type { Isolation } from '../../base/isolation';
import * as z from 'zod';
import { field, type Fields } from '../../schema/fields';
import type { KindParams } from '../kind';
import type { Verdict, VerifyContext } from '../verdict';
import { compareOutput, deepEqual, show } from './compare';
import { extractCode, isEsModule } from './extract';
import {
  JS_ASSERT_PRELOAD,
  jsAssertPreload,
  jsAssertWrapper,
  PY_ASSERT_HARNESS,
  PY_ASSERT_PLANNER,
  PY_ASSERTS_FILE,
  pythonAssertHarness,
  pythonAssertPlanner,
} from './assertHarness';
import { judgeJsAsserts, judgePythonAsserts, parsePlan, type PyPlan } from './assertJudge';
import { ARGS_FILE, jsCallHarness, mainFile, parseCallResult, pythonCallHarness } from './harness';
import { at } from '../../util/must';

const ioTest = z.strictObject({ stdin: z.string().optional(), stdout: z.string() });
const callCase = z.strictObject({ args: z.array(z.unknown()), returns: z.unknown() });

/** The parameters of `code`: validated against this table, typed by it. */
export const codeFields = {
  language: field(
    z.enum(['python', 'javascript']),
    'The language of the answer: `python` or `javascript`.',
    'python',
    true,
  ),
  tests: field(z.array(ioTest).min(1), 'Input/output tests: `{stdin, stdout}`.', [{ stdin: '1 2\n', stdout: '3\n' }]),
  asserts: field(z.string().min(1), 'Code appended to the answer; it passes when it exits 0.', 'assert add(1, 2) == 3'),
  call: field(
    z.strictObject({ function: z.string().regex(/^[A-Za-z_$][\w$]*$/), cases: z.array(callCase).min(1) }),
    'Call a function with `args` and compare what it returns.',
    { function: 'add', cases: [{ args: [1, 2], returns: 3 }] },
  ),
  timeout_ms: field(z.number().int().min(1).max(600_000), 'Time limit per test in milliseconds. Default 5000.', 5000),
  memory_mb: field(
    z.number().int().min(16).max(65_536),
    'Memory limit per test in MiB. Default 512. Node itself needs about 64.',
    512,
  ),
} satisfies Fields;

/** Validated parameters of `code`. */
export type CodeParams = KindParams<typeof codeFields>;

export type TestStatus =
  'passed' | 'wrong_answer' | 'timeout' | 'memory' | 'runtime_error' | 'compile_error' | 'sandbox_error';

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MEMORY_MB = 512;
const EXCERPT = 400;

export const UNTRUSTED_REASON = 'code verifiers do not run in an untrusted workspace';

/** One run of the program: its files, input and how to judge what it did. */
interface TestSpec {
  readonly files: Record<string, string>;
  /** The program file, for the syntax check. */
  readonly main: string;
  /** After the interpreter; a function of the program's folder as the program sees it. */
  readonly argv: readonly string[] | ((dir: string) => readonly string[]);
  readonly stdin: string;
  /** Expected stdout (io tests) or return value (call cases). */
  readonly expect:
    { readonly stdout: string } | { readonly returns: unknown } | { readonly asserts: PyPlan | 'javascript' };
  /** Output cap of stdout and stderr each; asserts runs print their values. */
  readonly outputLimitBytes?: number;
}

export interface TestResult {
  readonly status: TestStatus;
  readonly message: string;
  readonly durationMs: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly expected?: string;
  readonly got?: string;
}

/** What an asserts run may print, its result lines included. */
const ASSERTS_OUTPUT_BYTES = 8 * 1024 * 1024;

const MEMORY_PATTERNS =
  /\bMemoryError\b|JavaScript heap out of memory|Reached heap limit|Array buffer allocation failed|Cannot allocate memory|std::bad_alloc|\bout of memory\b/i;
const SYNTAX_PATTERNS = /\b(SyntaxError|IndentationError|TabError)\b/;

export function refused(): Verdict {
  return { pass: false, score: 0, reason: UNTRUSTED_REASON, details: {}, error: 'refused' };
}

/** Only weak isolation is available and the user did not opt in: the answer was not run. */
export function weakIsolationRefused(r: SandboxRunResult, details: Record<string, unknown>): Verdict {
  return {
    pass: false,
    score: 0,
    reason: r.refused ?? 'code does not run with weak isolation',
    details: { ...details, isolation: r.isolation, refused: true },
    error: 'unavailable',
  };
}

function cancelled(): Verdict {
  return { pass: false, score: 0, reason: 'cancelled', details: {}, error: 'timeout' };
}

function head(s: string, n = EXCERPT): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function tail(s: string, n = EXCERPT): string {
  return s.length > n ? `…${s.slice(-n)}` : s;
}

/** The line of stderr that says what went wrong (Python's and Node's error lines, else the last). */
export function errorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Node\.js v\d/.test(l));
  const err = [...lines]
    .reverse()
    .find((l) => /^[\w.]*(Error|Exception|Interrupt|Exit)\b/.test(l) || /^FATAL ERROR/.test(l));
  return head(err ?? lines[lines.length - 1] ?? '', 200);
}

/** Runs the answer against the tests and gives the verdict. */
export async function checkCode(
  answer: string,
  params: CodeParams,
  ctx: VerifyContext,
  sandboxOverride?: Sandbox,
): Promise<Verdict> {
  if (!ctx.trusted) return refused();
  if (ctx.signal.aborted) return cancelled();
  const language = params.language;
  const interp = findInterpreter(language);
  if (!interp) {
    return {
      pass: false,
      score: 0,
      reason: `no ${language === 'python' ? 'python3' : 'node'} interpreter was found to run the answer`,
      details: { language },
      error: 'unavailable',
    };
  }
  const extracted = extractCode(answer, language);
  const code = extracted.code;
  const timeoutMs = params.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const memoryMb = params.memory_mb ?? DEFAULT_MEMORY_MB;
  const mode = params.call ? 'call' : params.asserts !== undefined ? 'asserts' : 'tests';
  const baseDetails = { language, mode, extracted: extracted.from, code: head(code, 2000) };
  if (!code.trim()) return { pass: false, score: 0, reason: 'the answer has no code', details: baseDetails };

  const sandbox = sandboxOverride ?? (await getSandbox());
  const marker = `<<vtask-result:${randomBytes(6).toString('hex')}>>`;
  let plan: PyPlan | undefined;
  if (mode === 'asserts' && language === 'python') {
    const planned = await pythonPlan(sandbox, interp, params.asserts ?? '', ctx.signal);
    if (ctx.signal.aborted) return cancelled();
    if ('refused' in planned) return weakIsolationRefused(planned.refused, baseDetails);
    if ('error' in planned)
      return {
        pass: false,
        score: 0,
        reason: planned.error,
        details: baseDetails,
        error: planned.unavailable ? 'unavailable' : 'crash',
      };
    plan = planned;
  }
  const specs = buildSpecs(params, code, interp, memoryMb, marker, plan);
  // One listener on the caller's signal; every run listens on this one (many runs may be queued).
  const local = new AbortController();
  setMaxListeners(2 * specs.length + 16, local.signal);
  const forward = (): void => local.abort();
  ctx.signal.addEventListener('abort', forward, { once: true });
  const options = (s: TestSpec): SandboxRunOptions => ({
    argv:
      typeof s.argv === 'function'
        ? (dir: string) => [interp.path, ...(s.argv as (d: string) => readonly string[])(dir)]
        : [interp.path, ...s.argv],
    files: s.files,
    stdin: s.stdin,
    timeoutMs,
    memoryMb,
    memoryPolicy: interp.memoryPolicy,
    readOnly: interp.readOnly,
    env: interp.env,
    signal: local.signal,
    prestarted: interp.language === 'python',
    zygoteExec: interp.language === 'javascript',
    ...(s.outputLimitBytes ? { outputLimitBytes: s.outputLimitBytes } : {}),
  });

  let raw: SandboxRunResult[];
  try {
    const runs = specs.map(options);
    raw = sandbox.runAll ? await sandbox.runAll(runs) : await Promise.all(runs.map((o) => sandbox.run(o)));
  } finally {
    ctx.signal.removeEventListener('abort', forward);
  }
  if (ctx.signal.aborted || raw.some((r) => r.aborted)) return cancelled();
  const refusedRun = raw.find((r) => r.refused);
  if (refusedRun) return weakIsolationRefused(refusedRun, baseDetails);
  let results = raw.map((r, i) => judge(r, at(specs, i), marker, timeoutMs, memoryMb));

  // A syntax error shows up as a runtime error in every test: confirm it once with a compile-only run.
  const suspect = results.findIndex((t, i) => t.status === 'runtime_error' && SYNTAX_PATTERNS.test(at(raw, i).stderr));
  if (suspect !== -1) {
    const compileError = await syntaxCheck(sandbox, interp, at(specs, suspect), ctx.signal);
    if (ctx.signal.aborted) return cancelled();
    if (compileError !== undefined) {
      results = results.map((t) =>
        t.status === 'runtime_error' || t.status === 'wrong_answer'
          ? { ...t, status: 'compile_error', message: compileError }
          : t,
      );
    }
  }

  const isolation: Isolation = at(raw, 0).isolation;
  const passed = results.filter((t) => t.status === 'passed').length;
  const total = results.length;
  const firstFail = results.findIndex((t) => t.status !== 'passed');
  const what = mode === 'asserts' ? 'asserts' : mode === 'call' ? 'cases' : 'tests';
  let reason = `${passed}/${total} ${what} passed`;
  if (firstFail !== -1) {
    const f = at(results, firstFail);
    reason +=
      total > 1
        ? `; ${what === 'cases' ? 'case' : 'test'} ${firstFail + 1}: ${f.status}: ${f.message}`
        : `: ${f.status}: ${f.message}`;
  }
  const details = {
    ...baseDetails,
    isolation,
    interpreter: interp.path,
    passed,
    total,
    tests: results.map((t) => ({
      status: t.status,
      message: t.message,
      durationMs: t.durationMs,
      exitCode: t.exitCode,
      signal: t.signal,
      stdout: head(t.stdout),
      stderr: tail(t.stderr),
      ...(t.expected !== undefined ? { expected: head(t.expected) } : {}),
      ...(t.got !== undefined ? { got: head(t.got) } : {}),
    })),
  };
  const verdict: Verdict = { pass: passed === total, score: total ? passed / total : 0, reason, details };
  if (results.every((t) => t.status === 'sandbox_error')) return { ...verdict, error: 'unavailable' };
  return verdict;
}

function buildSpecs(
  params: CodeParams,
  code: string,
  interp: Interpreter,
  memoryMb: number,
  marker: string,
  plan: PyPlan | undefined,
): TestSpec[] {
  const py = interp.language === 'python';
  const esm = !py && isEsModule(code);
  const main = mainFile(interp.language, esm);
  const nodeArgs = py ? [] : nodeMemoryArgs(memoryMb);
  const runMain = [...interp.args, ...nodeArgs, main];

  if (params.call) {
    const fn = params.call.function;
    if (py) {
      const files = { [main]: code, '_vtask_call.py': pythonCallHarness(fn, marker) };
      return params.call.cases.map((c) => ({
        files: { ...files, [ARGS_FILE]: JSON.stringify(c.args) },
        main,
        argv: [...interp.args, '_vtask_call.py'],
        stdin: '',
        expect: { returns: c.returns },
      }));
    }
    const program = `${code}\n${jsCallHarness(fn, marker)}`;
    return params.call.cases.map((c) => ({
      files: { [main]: program, [ARGS_FILE]: JSON.stringify(c.args) },
      main,
      argv: runMain,
      stdin: '',
      expect: { returns: c.returns },
    }));
  }
  if (params.asserts !== undefined) {
    const run = { main, stdin: '', outputLimitBytes: ASSERTS_OUTPUT_BYTES };
    if (py && plan) {
      return [
        {
          ...run,
          expect: { asserts: plan },
          files: { [main]: code, [PY_ASSERTS_FILE]: plan.checks, [PY_ASSERT_HARNESS]: pythonAssertHarness(marker) },
          argv: [...interp.args, PY_ASSERT_HARNESS],
        },
      ];
    }
    const wrapper = jsAssertWrapper(params.asserts);
    return [
      {
        ...run,
        stdin: `${marker}\n`,
        expect: { asserts: 'javascript' },
        files: {
          [main]: `${code}\n;globalThis.__vtask_checks__(${wrapper});\n`,
          [JS_ASSERT_PRELOAD]: jsAssertPreload(wrapper),
        },
        // Node's permission model: the program reads and writes its own folder only (not /proc/self/mem), and has no inspector.
        argv: (dir: string) => [
          ...interp.args,
          ...nodeArgs,
          '--experimental-permission',
          `--allow-fs-read=${dir}/`,
          `--allow-fs-write=${dir}/`,
          '--require',
          `./${JS_ASSERT_PRELOAD}`,
          main,
        ],
      },
    ];
  }
  return (params.tests ?? []).map((t) => ({
    files: { [main]: code },
    main,
    argv: runMain,
    stdin: t.stdin ?? '',
    expect: { stdout: t.stdout },
  }));
}

function judge(r: SandboxRunResult, spec: TestSpec, marker: string, timeoutMs: number, memoryMb: number): TestResult {
  const asserts = 'asserts' in spec.expect ? spec.expect.asserts : undefined;
  const stdout = asserts
    ? r.stdout
        .split(`\n${marker}`)
        .map((part, i) => (i ? part.slice(part.indexOf('\n') + 1 || part.length) : part))
        .join('')
    : stripMarker(r.stdout, marker);
  // The permission model of JavaScript asserts runs says it is experimental: not the program's words.
  const stderr =
    asserts === 'javascript'
      ? r.stderr.replace(
          /^\(node:\d+\) ExperimentalWarning: Permission is an experimental feature.*\n(?:\(Use `node --trace-warnings.*\n?)?/m,
          '',
        )
      : r.stderr;
  const base = { durationMs: r.durationMs, exitCode: r.exitCode, signal: r.signal, stdout, stderr };
  const expected =
    'stdout' in spec.expect
      ? spec.expect.stdout
      : 'returns' in spec.expect
        ? show(spec.expect.returns, 400)
        : undefined;
  const withExpected = expected !== undefined ? { ...base, expected } : base;
  if (r.sandboxError) return { ...withExpected, status: 'sandbox_error', message: r.sandboxError };
  // A failed assert is the verdict, whatever the program did after it (the checks go on after one).
  const records =
    asserts === undefined
      ? undefined
      : asserts === 'javascript'
        ? judgeJsAsserts(r.stdout, marker)
        : judgePythonAsserts(r.stdout, marker, asserts);
  if (records?.failure) return { ...withExpected, ...records.failure };
  if (r.wallBackstopMs !== undefined)
    return {
      ...withExpected,
      status: 'timeout',
      message:
        `(wall backstop) still running after ${r.wallBackstopMs} ms of wall time ` +
        `within its ${timeoutMs} ms of CPU time: it slept or blocked`,
    };
  if (r.timedOut || r.signal === 'SIGXCPU')
    return { ...withExpected, status: 'timeout', message: `did not finish within ${timeoutMs} ms` };
  const failed = r.exitCode !== 0;
  if (r.memoryExceeded || (failed && MEMORY_PATTERNS.test(r.stderr))) {
    return { ...withExpected, status: 'memory', message: `exceeded the memory limit of ${memoryMb} MiB` };
  }
  if (r.outputExceeded)
    return {
      ...withExpected,
      status: 'wrong_answer',
      message: 'printed far more than the output limit and was stopped',
    };
  if (failed) {
    const how =
      r.exitCode !== null ? `exit code ${r.exitCode}${r.signal ? ` (${r.signal})` : ''}` : `killed by ${r.signal}`;
    const line = errorLine(stderr);
    return { ...withExpected, status: 'runtime_error', message: line ? `${how}: ${line}` : how };
  }
  if ('stdout' in spec.expect) {
    const diff = compareOutput(spec.expect.stdout, r.stdout);
    if (r.stdoutTruncated && !diff)
      return { ...withExpected, status: 'wrong_answer', message: 'output too long (truncated)' };
    return diff
      ? { ...withExpected, status: 'wrong_answer', message: diff, got: r.stdout }
      : { ...withExpected, status: 'passed', message: 'ok' };
  }
  if ('returns' in spec.expect) {
    const got = parseCallResult(r.stdout, marker);
    if (!got)
      return { ...withExpected, status: 'runtime_error', message: 'the function returned no JSON-serialisable result' };
    const gotText = show(got.value, 400);
    if (!deepEqual(spec.expect.returns, got.value)) {
      return {
        ...withExpected,
        status: 'wrong_answer',
        message: `expected ${show(spec.expect.returns)}, got ${show(got.value)}`,
        got: gotText,
      };
    }
    return { ...withExpected, status: 'passed', message: 'ok', got: gotText };
  }
  if (!records?.done)
    return { ...withExpected, status: 'runtime_error', message: 'the program ended before every assert ran' };
  return { ...withExpected, status: 'passed', message: 'ok' };
}

/** Python asserts planned once per text (and interpreter): the plan depends on nothing else. */
const plans = new Map<string, PyPlan | { readonly error: string }>();
const MAX_PLANS = 256;

type Planned =
  PyPlan | { readonly error: string; readonly unavailable?: boolean } | { readonly refused: SandboxRunResult };

/** The limits of a short run of vtask's own beside the answer's (planning asserts, a syntax check). */
function helperRun(interp: Interpreter, signal: AbortSignal) {
  return {
    timeoutMs: 15_000,
    memoryMb: 512,
    memoryPolicy: interp.memoryPolicy,
    readOnly: interp.readOnly,
    env: interp.env,
    signal,
  };
}

/**
 * Plans Python asserts in a run of their own, without the answer (see assertHarness.ts): the
 * literal operands stay in vtask and never reach the answer's process.
 */
async function pythonPlan(
  sandbox: Sandbox,
  interp: Interpreter,
  asserts: string,
  signal: AbortSignal,
): Promise<Planned> {
  const key = `${interp.path}\0${asserts}`;
  const hit = plans.get(key);
  if (hit) {
    plans.delete(key);
    plans.set(key, hit);
    return hit;
  }
  const r = await sandbox.run({
    argv: [interp.path, ...interp.args, PY_ASSERT_PLANNER],
    files: { [PY_ASSERT_PLANNER]: pythonAssertPlanner() },
    stdin: asserts,
    ...helperRun(interp, signal),
    prestarted: true,
    outputLimitBytes: 64 * 1024 * 1024,
  });
  if (r.refused) return { refused: r };
  if (r.sandboxError || r.timedOut || r.memoryExceeded || r.exitCode !== 0 || r.stdoutTruncated) {
    const why =
      r.sandboxError ??
      (r.timedOut ? 'it did not finish within 15 s' : errorLine(r.stderr) || `exit code ${r.exitCode ?? r.signal}`);
    return { error: `the asserts could not be planned: ${why}`, unavailable: !!r.sandboxError };
  }
  const plan = parsePlan(r.stdout);
  plans.set(key, plan);
  for (const k of plans.keys()) {
    if (plans.size <= MAX_PLANS) break;
    plans.delete(k);
  }
  return plan;
}

function stripMarker(stdout: string, marker: string): string {
  const at = stdout.lastIndexOf(marker);
  return at === -1 ? stdout : stdout.slice(0, at).replace(/\n$/, '');
}

/** Compiles the program without running it; returns the error line when it does not compile. */
async function syntaxCheck(
  sandbox: Sandbox,
  interp: Interpreter,
  spec: TestSpec,
  signal: AbortSignal,
): Promise<string | undefined> {
  const argv =
    interp.language === 'python'
      ? [
          ...interp.args,
          '-c',
          'import sys\nwith open(sys.argv[1], encoding="utf-8") as f: compile(f.read(), sys.argv[1], "exec")',
          spec.main,
        ]
      : ['--check', spec.main];
  const r = await sandbox.run({
    argv: [interp.path, ...argv],
    files: spec.files,
    ...helperRun(interp, signal),
    prestarted: interp.language === 'python',
  });
  if (r.exitCode === 0 || r.sandboxError || r.timedOut || !SYNTAX_PATTERNS.test(r.stderr)) return undefined;
  const file = spec.main.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lineNo = new RegExp(`${file}"?(?:, line |:)(\\d+)`).exec(r.stderr);
  const msg = errorLine(r.stderr);
  return lineNo && !msg.includes(`line ${lineNo[1]}`) ? `${msg} (line ${lineNo[1]})` : msg;
}

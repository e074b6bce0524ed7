import { isRecord } from '../../base/record';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findInterpreter, getSandbox, nodeMemoryArgs, type Sandbox, type SandboxRunResult } from '../../sandbox';
import { isRoot } from '../../sandbox/backends';
import { readableFolders } from '../../sandbox/projectRoot';
import * as z from 'zod';
import { field, type Fields } from '../../schema/fields';
import type { KindParams } from '../kind';
import type { Verdict, VerifyContext } from '../verdict';
import { errorLine, weakIsolationRefused } from './checkCode';

/** The parameters of `script`: validated against this table, typed by it. */
export const scriptFields = {
  path: field(z.string().min(1), 'The script, relative to the task file.', './verify.mjs', true),
  args: field(z.array(z.string()), 'Extra command-line arguments for an executable.', ['--strict']),
  timeout_ms: field(z.number().int().min(1).max(600_000), 'Time limit in milliseconds. Default 10000.', 10000),
} satisfies Fields;

/** Validated parameters of `script`. */
export type ScriptParams = KindParams<typeof scriptFields>;

export const SCRIPT_DEFAULT_TIMEOUT_MS = 10_000;
/** Scripts have no memory parameter: they get this much (resident memory, watched). */
export const SCRIPT_MEMORY_MB = 1024;
export const SCRIPT_UNTRUSTED_REASON = 'script verifiers do not run in an untrusted workspace';

const MODULE_EXT = /\.(m?js|cjs)$/i;

function fail(reason: string, error: NonNullable<Verdict['error']>, details: Record<string, unknown> = {}): Verdict {
  return { pass: false, score: 0, reason, details, error };
}

function excerpt(s: string, n = 120): string {
  const t = s.trim().replace(/\s+/g, ' ');
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

/** Checks what a script returned against the verdict shape: `{pass: boolean, score?: 0..1, reason?: string, details?: object}`. */
export function validateScriptVerdict(
  v: unknown,
):
  | { verdict: { pass: boolean; score?: number; reason?: string; details?: Record<string, unknown> } }
  | { problem: string } {
  if (typeof v === 'boolean') return { verdict: { pass: v } };
  if (!isRecord(v))
    return { problem: `expected an object like {"pass": true}, got ${excerpt(JSON.stringify(v) ?? String(v), 60)}` };
  const { pass, score, reason, details } = v;
  if (typeof pass !== 'boolean') return { problem: '`pass` must be true or false' };
  if (score !== undefined && (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1))
    return { problem: '`score` must be a number from 0 to 1' };
  if (reason !== undefined && typeof reason !== 'string') return { problem: '`reason` must be a string' };
  if (details !== undefined && !isRecord(details)) return { problem: '`details` must be an object' };
  return {
    verdict: {
      pass,
      ...(typeof score === 'number' ? { score } : {}),
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(isRecord(details) ? { details } : {}),
    },
  };
}

function moduleRunner(script: string, marker: string): string {
  return `import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const mod = await import(pathToFileURL(${JSON.stringify(script)}).href);
const verify = typeof mod.verify === 'function' ? mod.verify
  : mod.default && typeof mod.default.verify === 'function' ? mod.default.verify
  : typeof mod.default === 'function' ? mod.default : undefined;
if (!verify) {
  process.stderr.write('Error: ' + ${JSON.stringify(path.basename(script))} + ' does not export a function verify(response, task)\\n');
  process.exit(3);
}
let out;
try {
  out = await verify(input.response, input.task);
} catch (e) {
  process.stderr.write((e && e.stack ? String(e.stack) : 'Error: ' + String(e)) + '\\n');
  process.exit(1);
}
process.stdout.write('\\n' + ${JSON.stringify(marker)} + JSON.stringify(out === undefined ? null : out) + '\\n', () => process.exit(0));
`;
}

/** Runs the task's script on the response and returns its verdict, or a clear error. */
export async function checkScript(
  response: string,
  params: ScriptParams,
  ctx: VerifyContext,
  sandboxOverride?: Sandbox,
): Promise<Verdict> {
  if (!ctx.trusted) return fail(SCRIPT_UNTRUSTED_REASON, 'refused');
  if (ctx.signal.aborted) return fail('cancelled', 'timeout');
  const file = path.resolve(ctx.task.dir, params.path);
  const base = { script: params.path };
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return fail(`the script ${params.path} was not found (looked for ${file})`, 'unavailable', base);
  }
  if (!st.isFile()) return fail(`the script ${params.path} is not a file`, 'unavailable', base);
  const isModule = MODULE_EXT.test(file);
  if (!isModule) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      return fail(
        `the script ${params.path} is neither a .js/.mjs module nor executable (chmod +x it)`,
        'unavailable',
        base,
      );
    }
  }
  const node = isModule ? findInterpreter('javascript') : null;
  if (isModule && !node) return fail('no node interpreter was found to run the script', 'unavailable', base);

  const timeoutMs = params.timeout_ms ?? SCRIPT_DEFAULT_TIMEOUT_MS;
  const marker = `<<vtask-verdict:${randomBytes(6).toString('hex')}>>`;
  const task = {
    id: ctx.task.id,
    prompt: ctx.task.prompt,
    messages: ctx.task.messages,
    meta: ctx.task.meta,
    dir: ctx.task.dir,
  };
  // The task's own folder (or the root the user configured), never a project found above it.
  const readable = readableFolders(ctx.task.dir, file, 'script');
  if ('error' in readable) return fail(readable.error, 'unavailable', base);
  const readOnly = readable.folders;
  const sandbox = sandboxOverride ?? (await getSandbox());
  const r: SandboxRunResult = await sandbox.run({
    argv: node
      ? (box) => [
          node.path,
          ...nodeMemoryArgs(SCRIPT_MEMORY_MB),
          path.join(box, '_vtask_script.mjs'),
          ...(params.args ?? []),
        ]
      : [file, ...(params.args ?? [])],
    files: node ? { '_vtask_script.mjs': moduleRunner(file, marker) } : {},
    stdin: JSON.stringify({ response, task }),
    cwd: ctx.task.dir,
    readOnly: [...readOnly, ...(node?.readOnly ?? [])],
    env: node?.env ?? {},
    timeoutMs,
    memoryMb: SCRIPT_MEMORY_MB,
    memoryPolicy: 'resident',
    signal: ctx.signal,
  });
  const details = {
    ...base,
    isolation: r.isolation,
    durationMs: r.durationMs,
    exitCode: r.exitCode,
    ...(r.stderr ? { stderr: r.stderr.slice(-1000) } : {}),
  };
  if (r.aborted || ctx.signal.aborted) return fail('cancelled', 'timeout', details);
  if (r.refused) return weakIsolationRefused(r, base);
  if (r.sandboxError) {
    const hint =
      isRoot() && /Permission denied/i.test(r.sandboxError)
        ? ' (vtask runs scripts as the user nobody when it runs as root: make the folder readable by others)'
        : '';
    return fail(`the script could not be started: ${r.sandboxError}${hint}`, 'unavailable', details);
  }
  if (r.timedOut) return fail(`the script ${params.path} did not finish within ${timeoutMs} ms`, 'timeout', details);
  if (r.memoryExceeded)
    return fail(`the script ${params.path} used more than ${SCRIPT_MEMORY_MB} MiB and was stopped`, 'crash', details);

  const how =
    r.exitCode !== null
      ? `exited with code ${r.exitCode}${r.signal ? ` (${r.signal})` : ''}`
      : `was killed by ${r.signal}`;
  const lastErr = excerpt(errorLine(r.stderr), 200);
  let text: string | undefined;
  if (node) {
    const at = r.stdout.lastIndexOf(marker);
    if (at === -1)
      return fail(`the script ${params.path} crashed (${how})${lastErr ? `: ${lastErr}` : ''}`, 'crash', details);
    text = r.stdout.slice(at + marker.length).split('\n')[0];
  } else {
    const out = r.stdout.trim();
    if (!out)
      return fail(
        `the script ${params.path} ${r.exitCode === 0 ? 'printed nothing' : how}${lastErr ? `: ${lastErr}` : ''}; it must print a JSON verdict`,
        'crash',
        details,
      );
    text = out;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    // A script that logs before its verdict: take the last line if it is JSON.
    const last =
      (text ?? '')
        .split('\n')
        .filter((l) => l.trim())
        .slice(-1)[0] ?? '';
    try {
      parsed = JSON.parse(last);
    } catch {
      return fail(
        `the script ${params.path} printed something that is not a JSON verdict: '${excerpt(text ?? '', 80)}'`,
        'crash',
        { ...details, stdout: r.stdout.slice(0, 1000) },
      );
    }
  }
  const checked = validateScriptVerdict(parsed);
  if ('problem' in checked)
    return fail(`the script ${params.path} returned an invalid verdict: ${checked.problem}`, 'crash', {
      ...details,
      returned: parsed,
    });
  const v = checked.verdict;
  return {
    pass: v.pass,
    score: v.score ?? (v.pass ? 1 : 0),
    reason: v.reason ?? `the script ${params.path} ${v.pass ? 'passed' : 'failed'} the response`,
    details: { ...(v.details ?? {}), ...details },
  };
}

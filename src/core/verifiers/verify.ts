import { isRecord, recordOr } from '../base/record';
import { errorMessage } from '../base/errorMessage';
import type { VerifierKind } from './kind';
import { VERIFIERS } from './registry';
import { verifierKind } from '../util/verifierKind';
import type { TaskView, Verdict, VerifyContext } from './verdict';

export interface VerifyOptions {
  readonly task: TaskView;
  readonly signal?: AbortSignal;
  /** False in an untrusted workspace; defaults to true (the CLI runs what its user asked for). */
  readonly trusted?: boolean;
  /** Where `judge` verifiers get their model; without it they are `unavailable`. */
  readonly judge?: VerifyContext['judge'];
  /** Agent tasks: the trajectory the `trajectory` and `state` kinds check. */
  readonly trajectory?: VerifyContext['trajectory'];
}

/** Splits `{kind: params}` into the registered kind and its parameters in mapping form. */
export function kindOf(verifier: unknown): { kind: VerifierKind; params: Record<string, unknown> } | { error: string } {
  if (!isRecord(verifier)) return { error: 'the verifier is not a mapping' };
  const name = verifierKind(verifier);
  if (name === undefined || Object.keys(verifier).length > 1) return { error: 'a verifier has exactly one kind' };
  const kind = VERIFIERS.get(name);
  if (!kind) return { error: `unknown verifier kind \`${name}\`` };
  const raw = verifier[name];
  const params = Array.isArray(raw) && kind.listField ? { [kind.listField]: raw } : recordOr(raw);
  return { kind, params };
}

/**
 * The text a verifier checks: everything after the last `</think>` unless the verifier sees
 * the whole response. An unclosed `<think>` means the model never gave a final answer.
 */
export function finalAnswer(response: string): { text: string } | { missing: string } {
  const close = response.lastIndexOf('</think>');
  if (close !== -1) return { text: response.slice(close + '</think>'.length) };
  if (response.includes('<think>'))
    return { missing: 'the response has an unclosed <think>: there is no final answer' };
  return { text: response };
}

/** Verifies one response against a verifier, whatever it does: errors become verdicts. */
export async function verify(verifier: unknown, response: string, options: VerifyOptions): Promise<Verdict> {
  const signal = options.signal ?? new AbortController().signal;
  const ctx: VerifyContext = {
    task: options.task,
    signal,
    trusted: options.trusted ?? true,
    judge: options.judge,
    ...(options.trajectory ? { trajectory: options.trajectory } : {}),
    child: (v, r) => verify(v, r, { ...options, signal }),
  };
  const found = kindOf(verifier);
  if ('error' in found) return { pass: false, score: 0, reason: found.error, details: {}, error: 'crash' };
  const { kind, params } = found;
  if (!kind.check)
    return {
      pass: false,
      score: 0,
      reason: `the \`${kind.kind}\` verifier cannot run here`,
      details: {},
      error: 'unavailable',
    };
  const finalOnly = typeof params.final_only === 'boolean' ? params.final_only : !kind.wholeResponse;
  let text = response;
  if (finalOnly) {
    const f = finalAnswer(response);
    if ('missing' in f) return { pass: false, score: 0, reason: f.missing, details: { final_only: true } };
    text = f.text;
  }
  try {
    const v = await kind.check(text, params, ctx);
    return { ...v, score: clamp01(v.score) };
  } catch (e) {
    if (signal.aborted) return { pass: false, score: 0, reason: 'cancelled', details: {}, error: 'timeout' };
    return {
      pass: false,
      score: 0,
      reason: `the \`${kind.kind}\` verifier failed: ${errorMessage(e)}`,
      details: { stack: e instanceof Error ? e.stack : undefined },
      error: 'crash',
    };
  }
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/*
 * The constraints verdict: each instruction is checked against the response (strict) or
 * against IFEval's eight loose variants of it; the verdict passes when every instruction holds
 * and its score is the share that hold.
 */
import { isRecord, recordOr } from '../../base/record';
import { errorMessage } from '../../base/errorMessage';
import * as z from 'zod';
import { field, type Fields } from '../../schema/fields';
import type { KindParams } from '../kind';
import type { Verdict } from '../verdict';
import { CHECKERS, UNAVAILABLE } from './checkers';
import { pyStrip } from './text/py';
import type { Kwargs, Outcome } from './types';

/** The parameters of `constraints`: validated against this table, typed by it. */
export const constraintsFields = {
  instructions: field(z.array(z.unknown()).min(1), 'The instructions, each `{<id>: {kwargs}}` or a bare id.', [], true),
  mode: field(z.enum(['strict', 'loose']), "`strict` (default) or `loose`: IFEval's 8 response variants.", 'loose'),
} satisfies Fields;

/** Validated parameters of `constraints`. */
export type ConstraintsParams = KindParams<typeof constraintsFields>;

/** One instruction's result in `details.results`. */
export interface InstructionResult {
  readonly id: string;
  readonly pass: boolean;
  readonly reason: string;
  readonly measured?: Readonly<Record<string, unknown>>;
  /** In loose mode, which variant of the response satisfied it. */
  readonly variant?: string;
  readonly error?: 'unavailable';
}

/** `id` or `{id: kwargs}` → [id, kwargs]. */
export function parseInstruction(item: unknown): [string, Kwargs] {
  if (typeof item === 'string') return [item, {}];
  if (isRecord(item)) {
    const [entry, ...more] = Object.entries(item);
    if (entry && !more.length) {
      const [id, kw] = entry;
      return [id, recordOr(kw)];
    }
  }
  return ['', {}];
}

/**
 * IFEval's loose variants, in its order: the response, without `*`, without its first line,
 * without its last line, without both, and those three again without `*`.
 */
export function looseVariants(response: string): [string, string][] {
  const lines = response.split('\n');
  const first = pyStrip(lines.slice(1).join('\n'));
  const last = pyStrip(lines.slice(0, -1).join('\n'));
  const both = pyStrip(lines.slice(1, -1).join('\n'));
  const noStar = (s: string): string => s.split('*').join('');
  return [
    ['as is', response],
    ['without *', noStar(response)],
    ['without the first line', first],
    ['without the last line', last],
    ['without the first and last lines', both],
    ['without the first line and *', noStar(first)],
    ['without the last line and *', noStar(last)],
    ['without the first and last lines and *', noStar(both)],
  ];
}

function checkOne(id: string, kwargs: Kwargs, response: string, prompt: string): Outcome {
  const check = CHECKERS.get(id);
  if (!check)
    return { pass: false, reason: UNAVAILABLE.get(id) ?? `no check is registered for \`${id}\``, error: 'unavailable' };
  try {
    return check(response, kwargs, { prompt });
  } catch (e) {
    return { pass: false, reason: `the check failed: ${errorMessage(e)}`, error: 'unavailable' };
  }
}

export function checkInstruction(
  id: string,
  kwargs: Kwargs,
  response: string,
  mode: 'strict' | 'loose',
  prompt = '',
): InstructionResult {
  const asIs: [string, string] = ['as is', response];
  const variants = mode === 'loose' ? looseVariants(response) : [asIs];
  let firstFail: Outcome | null = null;
  for (const [name, text] of variants) {
    // IFEval's evaluation counts an instruction only on a non-empty (variant of the) response.
    if (!pyStrip(text)) {
      firstFail ??= { pass: false, reason: 'the response is empty' };
      continue;
    }
    const o = checkOne(id, kwargs, text, prompt);
    if (o.error)
      return { id, pass: false, reason: o.reason, error: o.error, ...(o.measured ? { measured: o.measured } : {}) };
    if (o.pass)
      return {
        id,
        pass: true,
        reason: o.reason,
        ...(o.measured ? { measured: o.measured } : {}),
        ...(mode === 'loose' ? { variant: name } : {}),
      };
    firstFail ??= o;
  }
  const f = firstFail ?? { pass: false, reason: 'the response is empty' };
  return {
    id,
    pass: false,
    reason: mode === 'loose' ? `${f.reason} (no loose variant holds)` : f.reason,
    ...(f.measured ? { measured: f.measured } : {}),
  };
}

export function checkConstraints(response: string, params: ConstraintsParams, prompt = ''): Verdict {
  const mode = params.mode === 'loose' ? 'loose' : 'strict';
  const results = (params.instructions ?? []).map((item) => {
    const [id, kwargs] = parseInstruction(item);
    return checkInstruction(id, kwargs, response, mode, prompt);
  });
  const held = results.filter((r) => r.pass).length;
  const total = results.length;
  const score = total === 0 ? 0 : held / total;
  const failed = results.filter((r) => !r.pass);
  const errors = failed.filter((r) => r.error);
  const pass = total > 0 && failed.length === 0;
  const reason = pass
    ? `all ${total} instruction${total === 1 ? '' : 's'} hold${mode === 'loose' ? ' (loose)' : ''}`
    : total === 0
      ? 'no instructions to check'
      : `${held}/${total} hold; ` + failed.map((r) => `${r.id}: ${r.reason}`).join('; ');
  const details = { mode, held, total, results };
  const v: Verdict = { pass, score, reason, details };
  // Only an instruction that could not be checked at all makes the verdict an error.
  return errors.length > 0 ? { ...v, error: 'unavailable' } : v;
}

import type { Trajectory, TrajectoryStep } from '../agent/types';
import { errorMessage } from '../base/errorMessage';
import { deepEqual, show } from './code/compare';
import { validatorFor } from './json';
import { unusablePattern } from './match';
import { compileRegex } from './text/regex';
import { verdict, type Verdict, type VerifyContext } from './verdict';
import * as z from 'zod';
import { field, type Fields } from '../schema/fields';
import type { KindParams } from './kind';
import { plural } from '../util/plural';
import { at } from '../util/must';

/**
 * The checks of the `trajectory` and `state` kinds. They read the sample's trajectory from the
 * context, never the response text; a failed check names the turn where it went wrong
 * (`details.turn`).
 */

const names = z.array(z.string().min(1));

/** The parameters of `trajectory`: validated against this table, typed by it. */
export const trajectoryFields = {
  called: field(names, 'Tools that must be called at least once.', ['get']),
  not_called: field(names, 'Tools that must never be called.', ['delete']),
  order: field(names, 'Tools that must be called in this relative order.', ['search', 'get']),
  max_tool_calls: field(z.number().int().min(0), 'At most this many tool calls.', 3),
  max_turns: field(z.number().int().min(1), 'At most this many assistant turns.', 6),
} satisfies Fields;

/** Validated parameters of `trajectory`. */
export type TrajectoryParams = KindParams<typeof trajectoryFields>;

/** The parameters of `state`: validated against this table, typed by it. */
export const stateFields = {
  path: field(z.string().min(1), 'A dotted path into the final state, such as `orders.0.status`.', 'lookups', true),
  equals: field(z.unknown(), 'The value must equal this (deep equality).', 1),
  contains: field(z.unknown(), 'The value (a list or text) must contain this.', 'Paris'),
  matches: field(z.string(), 'The value, as text, must match this regular expression.', '^ok'),
  json: field(z.record(z.string(), z.unknown()), 'The value must satisfy this JSON Schema.', { type: 'integer' }),
} satisfies Fields;

/** Validated parameters of `state`. */
export type StateParams = KindParams<typeof stateFields>;

function noTrajectory(kind: string): Verdict {
  return verdict(
    false,
    `\`${kind}\` checks an agent's trajectory, and there is none: give the task an \`environment\` (and its cases \`calls\`)`,
    { trajectory: false },
  );
}

/** A call counts as made when its arguments were valid: it reached the environment. */
function made(s: TrajectoryStep): boolean {
  return s.args !== undefined;
}

interface Failure {
  readonly turn?: number;
  readonly reason: string;
}

export function checkTrajectory(p: TrajectoryParams, ctx: VerifyContext): Verdict {
  const t = ctx.trajectory;
  if (!t) return noTrajectory('trajectory');
  const failures: Failure[] = [];
  const steps = t.steps;
  for (const name of p.not_called ?? []) {
    const s = steps.find((x) => x.call.name === name);
    if (s) failures.push({ turn: s.turn, reason: `turn ${s.turn} called ${name}, which is not allowed` });
  }
  for (const name of p.called ?? []) {
    if (steps.some((x) => x.call.name === name && made(x))) continue;
    const tried = steps.find((x) => x.call.name === name);
    failures.push(
      tried
        ? { turn: tried.turn, reason: `${name} was called only with invalid arguments (first at turn ${tried.turn})` }
        : { reason: `${name} was never called` },
    );
  }
  if (p.order?.length) {
    const f = orderFailure(p.order, steps);
    if (f) failures.push(f);
  }
  if (p.max_tool_calls !== undefined && steps.length > p.max_tool_calls) {
    const s = at(steps, p.max_tool_calls);
    failures.push({
      turn: s.turn,
      reason: `turn ${s.turn} made tool call ${p.max_tool_calls + 1}, more than the ${p.max_tool_calls} allowed`,
    });
  }
  if (p.max_turns !== undefined && t.turns > p.max_turns) {
    failures.push({
      turn: p.max_turns + 1,
      reason: `the agent took ${plural(t.turns, 'turn')}, more than the ${p.max_turns} allowed (turn ${p.max_turns + 1} is one too many)`,
    });
  }
  const calls = steps.map((s) => ({ turn: s.turn, tool: s.call.name, ok: made(s) }));
  const details = { calls, tool_calls: steps.length, turns: t.turns };
  if (!failures.length) return verdict(true, `the trajectory has the required shape: ${describeCalls(t)}`, details);
  // The earliest turn that went wrong leads; failures without a turn (never called) come last.
  const sorted = [...failures].sort((a, b) => (a.turn ?? Infinity) - (b.turn ?? Infinity));
  const first = at(sorted, 0);
  return verdict(false, sorted.map((f) => f.reason).join('; '), {
    ...details,
    ...(first.turn !== undefined ? { turn: first.turn } : {}),
    failures: sorted,
  });
}

/** Where the made calls stop following `order` (as a subsequence), or undefined when they follow it. */
function orderFailure(order: readonly string[], steps: readonly TrajectoryStep[]): Failure | undefined {
  let at = 0;
  let prevTurn = 0;
  for (const [i, name] of order.entries()) {
    const k = steps.findIndex((s, j) => j >= at && s.call.name === name && made(s));
    if (k !== -1) {
      at = k + 1;
      prevTurn = (steps[k] as TrajectoryStep).turn;
      continue;
    }
    const chain = order.join(' → ');
    const earlier = steps.find((s) => s.call.name === name && made(s));
    if (!earlier || i === 0) return { reason: `${name} was never called (the order must be ${chain})` };
    return {
      turn: earlier.turn,
      reason: `turn ${earlier.turn} called ${name} before ${order[i - 1]} (turn ${prevTurn}); the order must be ${chain}`,
    };
  }
  return undefined;
}

function describeCalls(t: Trajectory): string {
  if (!t.steps.length) return `no tool calls in ${t.turns} turn${t.turns === 1 ? '' : 's'}`;
  return `${plural(t.steps.length, 'tool call')} (${t.steps.map((s) => s.call.name).join(', ')}) in ${plural(t.turns, 'turn')}`;
}

/** The value at a dotted path (`orders.0.status`); `found: false` names the first missing part. */
export function valueAt(
  root: unknown,
  dotted: string,
): { found: true; value: unknown } | { found: false; missing: string } {
  let v = root;
  const parts = dotted.split('.');
  for (const [i, part] of parts.entries()) {
    const here = parts.slice(0, i + 1).join('.');
    if (Array.isArray(v) && /^\d+$/.test(part) && Number(part) < v.length) v = v[Number(part)];
    else if (v && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, part))
      v = (v as Record<string, unknown>)[part];
    else return { found: false, missing: here };
  }
  return { found: true, value: v };
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

export function checkState(p: StateParams, ctx: VerifyContext): Verdict {
  const t = ctx.trajectory;
  if (!t) return noTrajectory('state');
  if (t.state === undefined)
    return verdict(false, `the environment's final state is unknown${t.error ? `: ${t.error}` : ''}`, { path: p.path });
  const at = valueAt(t.state, p.path);
  if (!at.found)
    return verdict(
      false,
      `the final state has nothing at ${at.missing} (path ${p.path}); it is ${show(t.state, 120)}`,
      { path: p.path, state: t.state },
    );
  const value = at.value;
  const base = { path: p.path, value };
  if (p.equals !== undefined) {
    const ok = deepEqual(p.equals, value);
    return verdict(ok, `${p.path} is ${show(value)}${ok ? '' : `, expected ${show(p.equals)}`}`, {
      ...base,
      expected: p.equals,
    });
  }
  if (p.contains !== undefined) {
    const ok = contains(value, p.contains);
    return verdict(
      ok,
      `${p.path} ${ok ? 'contains' : 'does not contain'} ${show(p.contains)}${ok ? '' : `: it is ${show(value)}`}`,
      { ...base, expected: p.contains },
    );
  }
  if (p.matches !== undefined) {
    const text = asText(value);
    const re = compileRegex(p.matches);
    if ('error' in re) return unusablePattern(p.matches, re.error);
    const ok = re.regex.test(text);
    return verdict(ok, `${p.path} (${show(text)}) ${ok ? 'matches' : 'does not match'} /${p.matches}/`, {
      ...base,
      pattern: p.matches,
    });
  }
  if (p.json !== undefined) {
    let validate;
    try {
      validate = validatorFor(p.json);
    } catch (e) {
      return { ...verdict(false, `the schema is not a valid JSON Schema: ${errorMessage(e)}`, base), error: 'crash' };
    }
    if (validate(value)) return verdict(true, `${p.path} matches the schema`, base);
    const errors = (validate.errors ?? []).map((e) =>
      `${p.path}${e.instancePath.replace(/\//g, '.')} ${e.message ?? ''}`.trim(),
    );
    return verdict(
      false,
      `${errors[0] ?? `${p.path} does not match the schema`}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`,
      { ...base, errors },
    );
  }
  return { ...verdict(false, '`state` needs one of `equals`, `contains`, `matches` or `json`', base), error: 'crash' };
}

/** A list holds an equal item, text holds the text, an object holds the key (or, given an object, every entry). */
function contains(value: unknown, needle: unknown): boolean {
  if (Array.isArray(value)) return value.some((x) => deepEqual(needle, x));
  if (typeof value === 'string') return value.includes(asText(needle));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (needle && typeof needle === 'object' && !Array.isArray(needle))
      return Object.entries(needle).every(([k, v]) => Object.prototype.hasOwnProperty.call(o, k) && deepEqual(v, o[k]));
    return Object.prototype.hasOwnProperty.call(o, asText(needle));
  }
  return false;
}

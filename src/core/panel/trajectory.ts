// An agent sample in the panel: its trajectory laid out by assistant turn (what the model said,
// each tool call with its arguments and the result or error), why it stopped and the final
// state; and the same trajectory as a case's `calls:`, to replay it in the environment.
import type { Trajectory } from '../agent/types';
import type { TrajectoryView } from '../base/panelProtocol';
import { at } from '../util/must';
import { isRecord } from '../base/record';

/** Per text the panel shows this much: a 200-turn trajectory must stay light to send and draw. */
const PART_CHARS = 4000;
/** The final state, shown collapsed, may be longer. */
const STATE_CHARS = 20_000;

const cut = (s: string, max = PART_CHARS): string =>
  s.length > max ? `${s.slice(0, max)}… [${(s.length - max).toLocaleString('en-US')} more characters]` : s;

function json(v: unknown, indent?: number): string {
  try {
    return JSON.stringify(v, null, indent) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The turn a failed verdict points at: the earliest `details.turn` among the failing checks,
 * composed ones included (a `trajectory` check inside `all` names its turn in its child's details).
 */
export function failedTurn(details: unknown): number | undefined {
  if (!isRecord(details)) return undefined;
  const turn = details.turn;
  let best = typeof turn === 'number' && Number.isInteger(turn) ? turn : undefined;
  const children: unknown = details.children;
  if (Array.isArray(children)) {
    for (const c of children) {
      if (!isRecord(c) || c.pass !== false) continue;
      const t = failedTurn(c.details);
      if (t !== undefined && (best === undefined || t < best)) best = t;
    }
  }
  return best;
}

export function trajectoryView(
  t: Trajectory,
  verdict?: { readonly pass: boolean; readonly details?: unknown },
): TrajectoryView {
  const turns: TrajectoryView['turns'] = [];
  let turn = 0;
  for (const m of t.messages) {
    if (m.role !== 'assistant') continue;
    turn++;
    turns.push({ turn, text: cut(m.content), calls: [] });
  }
  for (const s of t.steps) {
    let at = turns.find((x) => x.turn === s.turn);
    if (!at) {
      at = { turn: s.turn, text: '', calls: [] };
      turns.push(at);
      turns.sort((a, b) => a.turn - b.turn);
    }
    // Arguments on the call's line; results, often structured, indented.
    const args = s.args !== undefined ? json(s.args) : s.call.arguments;
    at.calls.push({
      tool: s.call.name,
      args: cut(args),
      ...('error' in s.outcome ? { error: cut(s.outcome.error) } : { result: cut(json(s.outcome.result, 2)) }),
    });
  }
  return {
    turns,
    stop: t.stop,
    ...(t.error ? { error: cut(t.error) } : {}),
    ...(t.state !== undefined ? { state: cut(json(t.state, 2), STATE_CHARS) } : {}),
    calls: t.steps.length,
    ...(verdict && !verdict.pass && failedTurn(verdict.details) !== undefined
      ? { failedTurn: failedTurn(verdict.details) }
      : {}),
  };
}

/**
 * The trajectory's calls as a case writes them, one item per assistant turn, so the replay takes
 * the same turns: `{tool: {args}}`, or a list of them for a turn of parallel calls. Arguments
 * are the model's, parsed; arguments that were not a JSON object are kept as the text the model
 * wrote, so the replayed call fails the way the sampled one did.
 */
export function trajectoryCalls(t: Trajectory): (CaseCall | CaseCall[])[] {
  const turns = new Map<number, CaseCall[]>();
  for (const s of t.steps) {
    let args: unknown = s.args;
    if (args === undefined) {
      try {
        args = JSON.parse(s.call.arguments);
      } catch {
        args = undefined;
      }
    }
    const call = { [s.call.name]: args && typeof args === 'object' && !Array.isArray(args) ? args : s.call.arguments };
    const turn = turns.get(s.turn);
    if (turn) turn.push(call);
    else turns.set(s.turn, [call]);
  }
  return [...turns.values()].map((calls) => (calls.length === 1 ? at(calls, 0) : calls));
}

/** One call as a case writes it: the tool and its arguments (or the arguments' text). */
export type CaseCall = Record<string, unknown>;

// An agent sample in the panel: its trajectory laid out by assistant turn (what the model said,
// each tool call with its arguments and the result or error), why it stopped and the final
// state; and the same trajectory as a case's `calls:`, to replay it in the environment.
import type { Trajectory } from '../agent/types';
import type { TrajectoryView } from '../base/panelProtocol';

/** Per text the panel shows this much: a 200-turn trajectory must stay light to send and draw. */
const PART_CHARS = 4000;
/** The final state, shown collapsed, may be longer. */
const STATE_CHARS = 20_000;

const cut = (s: string, max = PART_CHARS): string => (s.length > max ? `${s.slice(0, max)}… [${(s.length - max).toLocaleString('en-US')} more characters]` : s);

function json(v: unknown, indent?: number): string {
  try {
    return JSON.stringify(v, null, indent) ?? String(v);
  } catch {
    return String(v);
  }
}

export function trajectoryView(t: Trajectory): TrajectoryView {
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
    at.calls.push({ tool: s.call.name, args: cut(args), ...('error' in s.outcome ? { error: cut(s.outcome.error) } : { result: cut(json(s.outcome.result, 2)) }) });
  }
  return {
    turns,
    stop: t.stop,
    ...(t.error ? { error: cut(t.error) } : {}),
    ...(t.state !== undefined ? { state: cut(json(t.state, 2), STATE_CHARS) } : {}),
    calls: t.steps.length,
  };
}

/**
 * The trajectory's calls as a case writes them, `[{tool: {args}}]`: the arguments the model
 * gave (parsed), `{}` where they were not a JSON object, so the replay makes the same calls.
 */
export function trajectoryCalls(t: Trajectory): Record<string, Record<string, unknown>>[] {
  return t.steps.map((s) => {
    let args: unknown = s.args;
    if (args === undefined) {
      try {
        args = JSON.parse(s.call.arguments);
      } catch {
        args = {};
      }
    }
    return { [s.call.name]: args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {} };
  });
}

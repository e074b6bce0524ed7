import type { ChatMessage, ToolCall } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import { toolOutcomeFor, toolMessage } from './toolCall';
import type { EnvironmentSession, Trajectory, TrajectoryStep } from './types';

/**
 * A case's scripted call: `{tool: {args}}`, exactly one key. The arguments may also be a string:
 * the arguments text exactly as a model wrote it (`{get: "not json"}`), so a case can replay a
 * call whose arguments were not JSON.
 */
export type ScriptedCall = Readonly<Record<string, unknown>>;
/** One assistant turn of a script: a call, or a list of the calls the model made at once. */
export type ScriptedTurn = ScriptedCall | readonly ScriptedCall[];

export interface ReplayOptions {
  readonly signal?: AbortSignal;
  /** The task's `max_turns`: a script longer than this stops there, as a real run would. */
  readonly maxTurns?: number;
}

/**
 * Replays a case's scripted trajectory (`calls: [{get: {key: fr}}, [{get: …}, {list: {}}]]`) in a
 * fresh environment, without a model: one assistant turn per item (a list is one turn of
 * parallel calls, run in order as the loop runs them), then `response` as the final turn; the
 * final state is read at the end. Unknown tools and invalid arguments become error results the
 * way they do in a real run; an environment that fails ends the trajectory with `stop: 'error'`.
 */
export async function replayCalls(
  session: EnvironmentSession,
  turns: readonly ScriptedTurn[],
  response: string,
  options: ReplayOptions = {},
): Promise<Trajectory> {
  const signal = options.signal ?? new AbortController().signal;
  const messages: ChatMessage[] = [];
  const steps: TrajectoryStep[] = [];
  const limit = options.maxTurns ?? Infinity;
  let turn = 0;
  let n = 0;
  for (const item of turns) {
    if (turn >= limit)
      return { messages, steps, final: '', turns: turn, stop: 'max_turns', ...(await finalState(session, signal)) };
    turn++;
    const calls = (isTurn(item) ? item : [item]).map((c) => scriptedToolCall(c, ++n));
    messages.push({ role: 'assistant', content: '', tool_calls: calls });
    for (const call of calls) {
      let step: TrajectoryStep;
      try {
        step = { turn, call, ...(await toolOutcomeFor(session, call, signal)) };
      } catch (e) {
        return { messages, steps, final: '', turns: turn, stop: 'error', error: `turn ${turn}: ${errorMessage(e)}` };
      }
      steps.push(step);
      messages.push(toolMessage(call, step.outcome));
    }
  }
  if (turn >= limit)
    return { messages, steps, final: '', turns: turn, stop: 'max_turns', ...(await finalState(session, signal)) };
  turn++;
  messages.push({ role: 'assistant', content: response });
  return { messages, steps, final: response, turns: turn, stop: 'final', ...(await finalState(session, signal)) };
}

function isTurn(item: ScriptedTurn): item is readonly ScriptedCall[] {
  return Array.isArray(item);
}

/** A script's calls in order, whatever turns they are grouped in. */
export function flatCalls(turns: readonly ScriptedTurn[]): ScriptedCall[] {
  return turns.flatMap((t) => (isTurn(t) ? [...t] : [t]));
}

/** The script with its call `i` (counted as flatCalls counts) replaced, its turns kept. */
export function withCall(turns: readonly ScriptedTurn[], i: number, call: ScriptedCall): ScriptedTurn[] {
  let n = 0;
  const at = (c: ScriptedCall): ScriptedCall => (n++ === i ? call : c);
  return turns.map((t) => (isTurn(t) ? t.map(at) : at(t)));
}

/** The tool call a scripted item stands for, as a model would have written it; `n` numbers the calls of the script. */
export function scriptedToolCall(item: ScriptedCall, n: number): ToolCall {
  const [name = '', ...extra] = Object.keys(item);
  const args = item[name];
  // A malformed item still replays, as the malformed call a model could make, and fails there.
  const text = extra.length
    ? JSON.stringify(item)
    : typeof args === 'string'
      ? args
      : args === null || args === undefined
        ? '{}'
        : JSON.stringify(args);
  return { id: `call_${n}`, name: extra.length ? '' : name, arguments: text };
}

async function finalState(
  session: EnvironmentSession,
  signal: AbortSignal,
): Promise<{ state?: unknown; error?: string }> {
  try {
    return { state: await session.state(signal) };
  } catch (e) {
    return { error: `the final state could not be read: ${errorMessage(e)}` };
  }
}

import type { ChatMessage, ToolCall } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import { toolOutcomeFor, toolMessage } from './toolCall';
import type { EnvironmentSession, Trajectory, TrajectoryStep } from './types';

/** A case's scripted call: `{tool: {args}}`, exactly one key. */
export type ScriptedCall = Readonly<Record<string, unknown>>;

export interface ReplayOptions {
  readonly signal?: AbortSignal;
  /** The task's `max_turns`: a script longer than this stops there, as a real run would. */
  readonly maxTurns?: number;
}

/**
 * Replays a case's scripted trajectory (`calls: [{get: {key: fr}}]`) in a fresh environment,
 * without a model: one assistant turn per call, then `response` as the final turn; the final
 * state is read at the end. Unknown tools and invalid arguments become error results the way
 * they do in a real run; an environment that fails ends the trajectory with `stop: 'error'`.
 */
export async function replayCalls(session: EnvironmentSession, calls: readonly ScriptedCall[], response: string, options: ReplayOptions = {}): Promise<Trajectory> {
  const signal = options.signal ?? new AbortController().signal;
  const messages: ChatMessage[] = [];
  const steps: TrajectoryStep[] = [];
  const limit = options.maxTurns ?? Infinity;
  let turn = 0;
  for (const item of calls) {
    if (turn >= limit) return { messages, steps, final: '', turns: turn, stop: 'max_turns', ...(await finalState(session, signal)) };
    turn++;
    const call = scriptedToolCall(item, turn);
    messages.push({ role: 'assistant', content: '', tool_calls: [call] });
    let step: TrajectoryStep;
    try {
      step = { turn, call, ...(await toolOutcomeFor(session, call, signal)) };
    } catch (e) {
      return { messages, steps, final: '', turns: turn, stop: 'error', error: `turn ${turn}: ${errorMessage(e)}` };
    }
    steps.push(step);
    messages.push(toolMessage(call, step.outcome));
  }
  if (turn >= limit) return { messages, steps, final: '', turns: turn, stop: 'max_turns', ...(await finalState(session, signal)) };
  turn++;
  messages.push({ role: 'assistant', content: response });
  return { messages, steps, final: response, turns: turn, stop: 'final', ...(await finalState(session, signal)) };
}

/** The tool call a scripted item stands for, as a model would have written it. */
export function scriptedToolCall(item: ScriptedCall, turn: number): ToolCall {
  const [name = '', ...extra] = Object.keys(item);
  const args = item[name];
  // A malformed item still replays, as the malformed call a model could make, and fails there.
  const text = extra.length ? JSON.stringify(item) : args === null || args === undefined ? '{}' : JSON.stringify(args);
  return { id: `call_${turn}`, name: extra.length ? '' : name, arguments: text };
}

async function finalState(session: EnvironmentSession, signal: AbortSignal): Promise<{ state?: unknown; error?: string }> {
  try {
    return { state: await session.state(signal) };
  } catch (e) {
    return { error: `the final state could not be read: ${errorMessage(e)}` };
  }
}

// A trajectory as a trainer sends it to `vtask serve`, so that `trajectory` and `state` checks
// of agent tasks score the same there as in `vtask run`. Two shapes, whichever the trainer has:
//
//   {"calls": [{"tool": "get", "args": {"key": "fr"}, "result": "Paris"},
//              {"tool": "get", "args": {"key": 7}, "error": "..."}],
//    "turns": 2, "state": {...}}
//   {"messages": [<the OpenAI chat messages after the prompt: assistant turns with tool_calls,
//                  and the tool messages answering them>], "state": {...}}
//
// With `calls`, each call is its own turn unless `turn` (1-based) says otherwise, and `turns`
// defaults to the last call's turn plus the answer's. A call with `error` counts as one the
// environment never carried out (invalid arguments), as in a run; `stop: "max_turns"` says the
// turn limit ended it.
import type { Trajectory, TrajectoryStep } from '../agent/types';
import { toolMessage } from '../agent/toolCall';
import type { ChatMessage, ToolCall } from '../base/chat';
import { isRecord } from '../base/record';

/** What is wrong with a sent trajectory, with its place (`trajectories[2].calls[0]`). */
export class WireTrajectoryError extends Error {}

function argsText(args: unknown): string {
  return typeof args === 'string' ? args : (JSON.stringify(args ?? {}) ?? '{}');
}

function argsObject(args: unknown): Record<string, unknown> | undefined {
  if (isRecord(args)) return args;
  if (typeof args !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(args);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function fromCalls(
  calls: unknown[],
  at: string,
): { steps: TrajectoryStep[]; messages: ChatMessage[]; lastTurn: number } {
  const steps: TrajectoryStep[] = [];
  let lastTurn = 0;
  calls.forEach((c, i) => {
    const where = `${at}.calls[${i}]`;
    if (!isRecord(c)) throw new WireTrajectoryError(`${where}: a call is {"tool", "args", "result" or "error"}`);
    if (typeof c.tool !== 'string' || !c.tool)
      throw new WireTrajectoryError(`${where}: "tool" must be the tool's name`);
    if ('error' in c && typeof c.error !== 'string')
      throw new WireTrajectoryError(`${where}: "error" must be a string`);
    const turn = c.turn === undefined ? lastTurn + 1 : c.turn;
    if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < Math.max(1, lastTurn))
      throw new WireTrajectoryError(`${where}: "turn" must be an integer from ${Math.max(1, lastTurn)}, in order`);
    lastTurn = turn;
    const call: ToolCall = { id: `call_${i + 1}`, name: c.tool, arguments: argsText(c.args) };
    const error = typeof c.error === 'string' ? c.error : undefined;
    const args = argsObject(c.args);
    steps.push({
      turn,
      call,
      ...(error === undefined && args ? { args } : {}),
      outcome: error !== undefined ? { error } : { result: c.result },
    });
  });
  // The messages a run would have: one assistant turn per turn, its calls, their results.
  const messages: ChatMessage[] = [];
  for (let k = 0; k < steps.length;) {
    const first = steps[k];
    if (!first) break;
    const turn = steps.filter((x) => x.turn === first.turn);
    messages.push(
      { role: 'assistant', content: '', tool_calls: turn.map((x) => x.call) },
      ...turn.map((x) => toolMessage(x.call, x.outcome)),
    );
    k += turn.length;
  }
  return { steps, messages, lastTurn };
}

/** A tool message's content as an outcome: `{"error": ...}` is an error, other JSON its value, else the text. */
function outcomeOf(content: unknown): TrajectoryStep['outcome'] {
  if (typeof content !== 'string') return { result: content };
  try {
    const v: unknown = JSON.parse(content);
    if (isRecord(v) && typeof v.error === 'string' && Object.keys(v).length === 1) return { error: v.error };
    return { result: v };
  } catch {
    return { result: content };
  }
}

function fromMessages(
  list: unknown[],
  at: string,
): { steps: TrajectoryStep[]; messages: ChatMessage[]; lastTurn: number } {
  const steps: TrajectoryStep[] = [];
  const messages: ChatMessage[] = [];
  const answers = new Map<string, unknown>();
  list.forEach((m, i) => {
    if (!isRecord(m)) throw new WireTrajectoryError(`${at}.messages[${i}]: a message is {"role", "content", ...}`);
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') answers.set(m.tool_call_id, m.content);
  });
  let turn = 0;
  list.forEach((m, i) => {
    if (!isRecord(m) || m.role !== 'assistant') return;
    turn++;
    const calls: ToolCall[] = [];
    const tcs = m.tool_calls === undefined || m.tool_calls === null ? [] : m.tool_calls;
    if (!Array.isArray(tcs)) throw new WireTrajectoryError(`${at}.messages[${i}].tool_calls must be a list`);
    tcs.forEach((tc, k) => {
      const fn = isRecord(tc) && isRecord(tc.function) ? tc.function : undefined;
      if (!fn || typeof fn.name !== 'string')
        throw new WireTrajectoryError(
          `${at}.messages[${i}].tool_calls[${k}]: {"id", "function": {"name", "arguments"}}`,
        );
      const id = isRecord(tc) && typeof tc.id === 'string' ? tc.id : `call_${i}_${k}`;
      const call: ToolCall = { id, name: fn.name, arguments: argsText(fn.arguments) };
      calls.push(call);
      const outcome = answers.has(id) ? outcomeOf(answers.get(id)) : { error: 'no tool message answers this call' };
      const args = argsObject(fn.arguments);
      steps.push({ turn, call, ...('error' in outcome || !args ? {} : { args }), outcome });
    });
    messages.push({
      role: 'assistant',
      content: typeof m.content === 'string' ? m.content : '',
      ...(calls.length ? { tool_calls: calls } : {}),
    });
  });
  // The answer is the response the trainer sends beside it: a last assistant turn without calls
  // is that answer; otherwise the answer is one more turn.
  const last = messages.at(-1);
  const answered = last?.role === 'assistant' && !last.tool_calls?.length;
  return { steps, messages, lastTurn: answered ? turn - 1 : turn };
}

/** The trajectory of one response from what a trainer sent; `at` names it in errors. */
export function wireTrajectory(value: unknown, response: string, at: string): Trajectory {
  if (!isRecord(value))
    throw new WireTrajectoryError(
      `${at}: a trajectory is {"calls": [...]} or {"messages": [...]}, with an optional "state"`,
    );
  const { calls, messages } = value;
  if ((calls === undefined) === (messages === undefined))
    throw new WireTrajectoryError(`${at}: give "calls" or "messages", one of them`);
  const list: unknown = calls ?? messages;
  if (!Array.isArray(list))
    throw new WireTrajectoryError(`${at}: "${calls !== undefined ? 'calls' : 'messages'}" must be a list`);
  const built = calls !== undefined ? fromCalls(list, at) : fromMessages(list, at);
  const stop = value.stop === undefined ? 'final' : value.stop;
  if (stop !== 'final' && stop !== 'max_turns')
    throw new WireTrajectoryError(`${at}: "stop" is "final" or "max_turns"`);
  const turnsGiven = value.turns;
  if (
    turnsGiven !== undefined &&
    (typeof turnsGiven !== 'number' || !Number.isInteger(turnsGiven) || turnsGiven < built.lastTurn)
  )
    throw new WireTrajectoryError(`${at}: "turns" must be an integer of at least ${built.lastTurn}`);
  const turns = typeof turnsGiven === 'number' ? turnsGiven : built.lastTurn + (stop === 'final' ? 1 : 0);
  const tail: ChatMessage[] =
    stop === 'final' && !(built.messages.at(-1)?.role === 'assistant' && !built.messages.at(-1)?.tool_calls?.length)
      ? [{ role: 'assistant', content: response }]
      : [];
  return {
    messages: [...built.messages, ...tail],
    steps: built.steps,
    final: stop === 'final' ? response : '',
    turns,
    ...('state' in value ? { state: value.state } : {}),
    stop,
  };
}

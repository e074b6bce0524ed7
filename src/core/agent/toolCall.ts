import type { ChatMessage, ToolCall } from '../base/chat';
import { validateToolArgs } from './toolArgs';
import type { EnvironmentSession, ToolOutcome } from './types';

/**
 * Carries out one tool call of the model, as every run does it: an unknown tool or arguments
 * that do not match the tool's schema become an error result the model reads (the environment
 * never sees them); valid calls go to the environment. Throws only when the environment fails.
 */
export async function toolOutcomeFor(
  session: EnvironmentSession,
  call: ToolCall,
  signal: AbortSignal,
): Promise<{ args?: Record<string, unknown>; outcome: ToolOutcome }> {
  const tool = session.tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = session.tools.map((t) => t.name).join(', ');
    return { outcome: { error: `unknown tool ${JSON.stringify(call.name)}; the tools are ${names || '(none)'}` } };
  }
  const checked = validateToolArgs(tool, call.arguments);
  if ('error' in checked) return { outcome: { error: checked.error } };
  return { args: checked.args, outcome: await session.call(tool.name, checked.args, signal) };
}

/** The text of a tool result as the model reads it: a string as it is, anything else as JSON, an error as `{"error": ...}`. */
export function toolResultText(outcome: ToolOutcome): string {
  if ('error' in outcome) return JSON.stringify({ error: outcome.error });
  return typeof outcome.result === 'string' ? outcome.result : (JSON.stringify(outcome.result) ?? 'null');
}

/** The `tool` message that answers a call. */
export function toolMessage(call: ToolCall, outcome: ToolOutcome): ChatMessage {
  return { role: 'tool', tool_call_id: call.id, name: call.name, content: toolResultText(outcome) };
}

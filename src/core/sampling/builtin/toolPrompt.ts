// The tool-calling format of the built-in calculator model (models/train.py, `calculator`):
//   T: add sub mul                        the tools offered, by name
//   Q: What is 345+678?                   the last user message's question
//   A: <call>add{"a":345,"b":678}</call>   the model's call (an OpenAI tool call, compact) ...
//   R: 1023                               ... the tool's result ...
//   A: \boxed{1023}                       ... and its answer.
// Chat messages and tool schemas are rendered into it, and the model's `<call>` back into tool calls.
import type { ChatMessage, ToolSpec } from '../../base/chat';
import { extractQuestion } from './prompt';

export const CALL_OPEN = '<call>';
export const CALL_CLOSE = '</call>';

// A result line longer than this would crowd the question out of the 128-token context.
const MAX_RESULT_CHARS = 40;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A tool message's content as the model saw results in training: a bare value, or `error: ...`. */
export function renderToolResult(content: string): string {
  let value: unknown = content;
  try {
    value = JSON.parse(content);
  } catch {
    // Not JSON: the text itself.
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if ('error' in o) value = `error: ${typeof o.error === 'string' ? o.error : JSON.stringify(o.error)}`;
    else if ('result' in o) value = o.result;
  }
  const text = oneLine(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
}

/** Arguments as the model writes them: compact JSON when they parse, else as they are, on one line. */
function compactArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args));
  } catch {
    return oneLine(args);
  }
}

export function renderCall(call: { readonly name: string; readonly arguments: string }): string {
  return `${CALL_OPEN}${call.name}${compactArguments(call.arguments)}${CALL_CLOSE}`;
}

/**
 * The prompt for a conversation with tools: the tool names, the last user message's question,
 * then every call and result since that message, ending where the model continues (`A: `).
 * System messages and earlier turns are left out, as in the arithmetic format.
 */
export function toolPromptFor(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): string {
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  const question = lastUser >= 0 ? messages[lastUser]!.content : (messages[messages.length - 1]?.content ?? '');
  let prompt = `T: ${tools.map((t) => t.name).join(' ')}\nQ: ${extractQuestion(question)}\nA: `;
  for (const m of messages.slice(lastUser + 1)) {
    if (m.role === 'assistant') {
      prompt += (m.tool_calls ?? []).map(renderCall).join('') || oneLine(m.content);
    } else if (m.role === 'tool') {
      prompt += `\nR: ${renderToolResult(m.content)}\nA: `;
    }
  }
  return prompt;
}

/** The tool call in a model answer (`<call>name{...}</call>`), or null when it answered in text. */
export function parseCall(text: string): { name: string; arguments: string } | null {
  const m = /^<call>([A-Za-z_][\w.-]*)(.*)<\/call>$/s.exec(text.trim());
  return m ? { name: m[1]!, arguments: m[2]! } : null;
}

/**
 * The id of call `index` of a sample: unique across the samples of a request (each has its own
 * seed) and across the turns of one trajectory (`turn` counts the calls made before).
 */
export function callId(seed: number, turn: number, index = 0): string {
  return `call_${Math.trunc(seed).toString(36).replace('-', 'n')}_${turn}${index > 0 ? `_${index}` : ''}`;
}

/** How many tool calls the conversation already holds: the turn number of the next call. */
export function callsSoFar(messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
}

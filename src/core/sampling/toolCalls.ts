// Tool calling as OpenAI-compatible Chat Completions spell it: tools go out as
// `{type: "function", function: {name, description, parameters}}`, assistant turns carry
// `tool_calls`, results go back as `tool` messages; answers bring `tool_calls` whole, or, when
// streamed, as deltas keyed by `index` whose `arguments` arrive in pieces. Both are bounded:
// a turn has at most MAX_TOOL_CALLS_PER_TURN calls of at most MAX_TOOL_ARGUMENT_CHARS each.
import type { ChatMessage, ToolCall, ToolSpec } from '../base/chat';
import { MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS_PER_TURN } from './limits';
import { SamplingError } from './types';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message as the API wants it: only what the server reads, tool calls in their wire shape. */
export function wireMessage(m: ChatMessage): Json {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content };
  if (m.tool_calls?.length) {
    return {
      role: m.role,
      // A turn that only calls tools has no text; the API says null rather than "".
      content: m.content === '' ? null : m.content,
      tool_calls: m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  }
  return { role: m.role, content: m.content };
}

export function wireTools(tools: readonly ToolSpec[]): Json[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters,
    },
  }));
}

function tooMany(where: string): SamplingError {
  return new SamplingError(`${where} made more than ${MAX_TOOL_CALLS_PER_TURN} tool calls in one turn`, 'too-large');
}

function tooLong(where: string, name: string): SamplingError {
  return new SamplingError(
    `${where} sent tool call ${JSON.stringify(name.slice(0, 40))} with arguments over ${MAX_TOOL_ARGUMENT_CHARS} characters`,
    'too-large',
  );
}

/** Some servers (Ollama) send `arguments` as an object rather than JSON text. */
function argumentsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return JSON.stringify(v);
}

/** The `tool_calls` of a whole (non-streamed) message; ids are made up where a server leaves them out. */
export function parseToolCalls(raw: unknown, where: string): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  if (raw.length > MAX_TOOL_CALLS_PER_TURN) throw tooMany(where);
  const out: ToolCall[] = [];
  for (const [i, c] of raw.entries()) {
    if (!isObject(c))
      throw new SamplingError(
        `${where} answered with a malformed tool call (item ${i + 1} of tool_calls)`,
        'bad-response',
      );
    const fn = isObject(c.function) ? c.function : {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const args = argumentsText(fn.arguments);
    if (args.length > MAX_TOOL_ARGUMENT_CHARS || name.length > MAX_TOOL_ARGUMENT_CHARS) throw tooLong(where, name);
    out.push({ id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, name, arguments: args });
  }
  return out;
}

/** Collects the `tool_calls` deltas of one streamed choice: by `index`, arguments concatenated. */
export class ToolCallStream {
  private readonly calls: { id: string; name: string; arguments: string }[] = [];

  constructor(private readonly where: string) {}

  push(raw: unknown): void {
    if (!Array.isArray(raw)) return;
    for (const d of raw) {
      if (!isObject(d)) continue;
      const index =
        typeof d.index === 'number' && Number.isInteger(d.index) && d.index >= 0
          ? d.index
          : this.calls.length
            ? this.calls.length - 1
            : 0;
      if (index >= MAX_TOOL_CALLS_PER_TURN) throw tooMany(this.where);
      const acc = (this.calls[index] ??= { id: '', name: '', arguments: '' });
      if (typeof d.id === 'string' && d.id && !acc.id) acc.id = d.id;
      const fn = isObject(d.function) ? d.function : {};
      // The name comes whole in the call's first delta; later deltas that repeat it add nothing.
      if (typeof fn.name === 'string' && fn.name && !acc.name) acc.name = fn.name;
      acc.arguments += argumentsText(fn.arguments);
      if (acc.arguments.length > MAX_TOOL_ARGUMENT_CHARS || acc.name.length > MAX_TOOL_ARGUMENT_CHARS)
        throw tooLong(this.where, acc.name);
    }
  }

  /** The calls in index order (a gap in the indices is skipped, not invented). */
  result(): ToolCall[] {
    const out: ToolCall[] = [];
    this.calls.forEach((c, i) => {
      if (c) out.push({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments });
    });
    return out;
  }
}

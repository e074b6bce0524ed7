import type { ToolSpec } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import { validatorFor } from '../verifiers/json';
import type { ToolOutcome } from './types';

/**
 * The environment protocol (spec §6): one JSON object per line over stdin/stdout.
 * `{"op": "reset", "args": {...}}` → `{"tools": [...]}`; `{"op": "call", "tool", "args"}` →
 * `{"result": ...}` or `{"error": "..."}`; `{"op": "state"}` → any JSON. This module only frames
 * and checks messages; `environment.ts` runs the process.
 */

export type Request =
  | { readonly op: 'reset'; readonly args: Readonly<Record<string, unknown>> }
  | { readonly op: 'call'; readonly tool: string; readonly args: Readonly<Record<string, unknown>> }
  | { readonly op: 'state' };

/** The longest reply line accepted: past it the environment is stopped, not buffered further. */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** How much of an offending line an error message quotes. */
const QUOTE_CHARS = 120;

export function encodeRequest(r: Request): string {
  return `${JSON.stringify(r)}\n`;
}

/** Cuts text for an error message: one line, at most `n` characters. */
export function cut(s: string, n = QUOTE_CHARS): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

/**
 * Splits a byte stream into lines without holding more than `max` bytes of one line: a longer
 * line is an error (the environment is then stopped), never an unbounded buffer.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly max = MAX_REPLY_BYTES) {}

  /** The complete lines in `chunk` (without their newline), or an error for an overlong line. */
  push(chunk: Buffer): { lines: string[] } | { error: string } {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.max) return { error: this.overlong() };
      this.parts.push(piece);
      lines.push(Buffer.concat(this.parts).toString('utf8').replace(/\r$/, ''));
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.max) return { error: this.overlong() };
    if (rest.length) {
      this.parts.push(Buffer.from(rest));
      this.size += rest.length;
    }
    return { lines };
  }

  private overlong(): string {
    return `replied with a line longer than ${Math.round(this.max / 1024)} KiB`;
  }
}

/** A reply line as a JSON value, or the reason it is not one. */
export function parseReply(line: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(line) };
  } catch {
    return { error: `replied with something that is not JSON: '${cut(line)}'` };
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The tools of a `reset` reply, or what is wrong with them. Each tool needs a name and an
 * object JSON Schema as its parameters, as the OpenAI API does; tools are numbered from 1.
 */
export function checkTools(reply: unknown): { tools: ToolSpec[] } | { error: string } {
  if (!isObject(reply))
    return {
      error: `the reset reply must be an object with \`tools\`, got '${cut(JSON.stringify(reply) ?? String(reply))}'`,
    };
  if (typeof reply.error === 'string' && reply.tools === undefined)
    return { error: `reset failed: ${cut(reply.error, 300)}` };
  if (!Array.isArray(reply.tools)) return { error: 'the reset reply has no `tools` list' };
  const tools: ToolSpec[] = [];
  const seen = new Set<string>();
  for (const [i, t] of reply.tools.entries()) {
    const n = i + 1;
    if (!isObject(t)) return { error: `tool ${n} is not an object` };
    if (typeof t.name !== 'string' || !t.name) return { error: `tool ${n} has no \`name\`` };
    // The OpenAI API's rule for function names.
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(t.name))
      return { error: `tool ${n} (${cut(t.name, 40)}): a name is 1 to 64 letters, digits, '_' or '-'` };
    if (seen.has(t.name)) return { error: `tool ${n} repeats the name ${t.name}` };
    seen.add(t.name);
    if (t.parameters === undefined) return { error: `tool ${n} (${t.name}) has no \`parameters\`` };
    if (!isObject(t.parameters) || (t.parameters.type !== undefined && t.parameters.type !== 'object')) {
      return {
        error: `tool ${n} (${t.name}): \`parameters\` must be a JSON Schema of an object ({"type": "object", ...})`,
      };
    }
    if (t.description !== undefined && typeof t.description !== 'string')
      return { error: `tool ${n} (${t.name}): \`description\` must be a string` };
    // A schema that does not compile would make every call of the tool an error the model cannot
    // fix: it is the environment's fault, said once at reset.
    try {
      validatorFor(t.parameters);
    } catch (e) {
      return {
        error: `tool ${n} (${t.name}): \`parameters\` is not a valid JSON Schema: ${cut(errorMessage(e), 200)}`,
      };
    }
    tools.push({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters,
    });
  }
  return { tools };
}

/** A `call` reply as a tool outcome, or what is wrong with it. */
export function checkCallReply(reply: unknown): { outcome: ToolOutcome } | { error: string } {
  if (isObject(reply)) {
    if ('error' in reply && !('result' in reply)) {
      const e = reply.error;
      return { outcome: { error: typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e)) } };
    }
    if ('result' in reply) return { outcome: { result: reply.result } };
  }
  return {
    error: `a call reply must be {"result": ...} or {"error": "..."}, got '${cut(JSON.stringify(reply) ?? String(reply))}'`,
  };
}

// Tool call arguments checked against the tool's JSON Schema before the environment sees them.
// (A first version: JSON object, required properties and primitive types.)
import type { ToolSpec } from '../base/chat';

type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: unknown };

function typeOk(v: unknown, type: unknown): boolean {
  switch (type) {
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number';
    case 'integer': return Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array': return Array.isArray(v);
    default: return true;
  }
}

/** The parsed arguments of a call to `tool`, or why they are not valid. */
export function validateToolArgs(tool: ToolSpec, argsText: string): { args: Record<string, unknown> } | { error: string } {
  let args: unknown;
  try {
    args = argsText.trim() === '' ? {} : JSON.parse(argsText);
  } catch (e) {
    return { error: `the arguments of ${tool.name} are not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: `the arguments of ${tool.name} must be a JSON object` };
  const schema = tool.parameters as Schema;
  const obj = args as Record<string, unknown>;
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof name === 'string' && !(name in obj)) return { error: `${tool.name}: missing required argument \`${name}\`` };
  }
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (name in obj && !typeOk(obj[name], sub?.type)) return { error: `${tool.name}: argument \`${name}\` must be of type ${String(sub?.type)}` };
  }
  return { args: obj };
}

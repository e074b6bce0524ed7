import type { ErrorObject } from 'ajv';
import type { ToolSpec } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import { validatorFor } from '../verifiers/json';
import { cut } from './protocol';

/**
 * Checks the arguments a model wrote for a tool call against the tool's JSON Schema. The error
 * is what the model reads as the call's result (`{"error": "invalid arguments for get: key is
 * required"}`), as trainers return it, so it names the tool and says what to change.
 */
export function validateToolArgs(
  tool: ToolSpec,
  argsText: string,
): { args: Record<string, unknown> } | { error: string } {
  const bad = (why: string): { error: string } => ({ error: `invalid arguments for ${tool.name}: ${why}` });
  let value: unknown;
  // Models often send nothing at all for a tool without parameters.
  if (argsText.trim() === '') value = {};
  else {
    try {
      value = JSON.parse(argsText);
    } catch (e) {
      return bad(`not JSON (${errorMessage(e)}): '${cut(argsText, 80)}'`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return bad(`expected a JSON object, got '${cut(argsText, 80)}'`);
  let validate;
  try {
    validate = validatorFor(tool.parameters);
  } catch (e) {
    return {
      error: `the tool ${tool.name} cannot be called: its parameters are not a valid JSON Schema (${errorMessage(e)})`,
    };
  }
  if (validate(value)) return { args: { ...value } };
  const problems = (validate.errors ?? []).map(describe);
  return bad(problems.length ? [...new Set(problems)].join('; ') : 'they do not match the schema');
}

/** One schema error in words: `key is required`, `count must be integer`, `unexpected argument x`. */
function describe(e: ErrorObject): string {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const p: Record<string, unknown> = e.params;
  if (e.keyword === 'required') return `${at ? `${at}.` : ''}${String(p.missingProperty)} is required`;
  if (e.keyword === 'additionalProperties')
    return `unexpected argument ${at ? `${at}.` : ''}${String(p.additionalProperty)}`;
  return `${at || 'the arguments'} ${e.message ?? 'are invalid'}`;
}

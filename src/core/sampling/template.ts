// Rendering chat messages into one prompt for the `completions` endpoint (base models, which
// have no chat template). A profile's `template` names the parts with `{{...}}`:
//
//   {{system}}    the system message ('' when there is none)
//   {{prompt}}    the last user message
//   {{messages}}  every message but the system one, as `User: ...` / `Assistant: ...` paragraphs
//   {{history}}   the same, for the messages before the last user message (few-shot turns)
//
// e.g. `{{system}}\n\nQ: {{prompt}}\nA:`. Without a template, a single question is sent as it is
// (after the system message), and a conversation as a transcript ending in `Assistant:`.
import type { ChatMessage } from '../base/chat';
import { SamplingError } from './types';

export const TEMPLATE_VARIABLES = ['system', 'prompt', 'messages', 'history'] as const;

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The unknown variables a template uses, for validation before anything is sent. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const m of template.matchAll(VARIABLE)) {
    const name = m[1]!;
    if (!(TEMPLATE_VARIABLES as readonly string[]).includes(name)) {
      problems.push(
        `the template uses {{${name}}}, which is not one of ${TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ')}`,
      );
    }
  }
  return problems;
}

function roleLabel(role: string): string {
  return role.length ? role[0]!.toUpperCase() + role.slice(1) : role;
}

function transcript(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${roleLabel(m.role)}: ${m.content}`).join('\n\n');
}

/** The prompt for `completions`; throws a `bad-request` SamplingError for an unknown variable. */
export function renderPrompt(messages: readonly ChatMessage[], template?: string): string {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const turns = messages.filter((m) => m.role !== 'system');
  let lastUser = -1;
  for (let i = turns.length - 1; i >= 0; i--) {
    if (turns[i]!.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const prompt = lastUser >= 0 ? turns[lastUser]!.content : '';
  if (template === undefined) {
    const body = turns.length === 1 && lastUser === 0 ? prompt : `${transcript(turns)}\n\nAssistant:`;
    return system ? `${system}\n\n${body}` : body;
  }
  const problems = templateProblems(template);
  if (problems.length) throw new SamplingError(problems.join('; '), 'bad-request');
  const values: Record<string, string> = {
    system,
    prompt,
    messages: transcript(turns),
    history: transcript(lastUser >= 0 ? turns.slice(0, lastUser) : turns),
  };
  const out = template.replace(VARIABLE, (_, name: string) => values[name] ?? '');
  // An empty `{{system}}` at the top would leave the prompt starting with blank lines, which a
  // base model reads as part of the text; the template's own leading whitespace is kept.
  const leading = /^\s*/.exec(template)![0];
  return leading + out.slice(leading.length).replace(/^\s+/, '');
}

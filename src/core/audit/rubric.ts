// Drafting a rubric: what a model is asked when an author wants a `judge` verifier for a task,
// and how its reply is read. The draft is a starting point the author edits; calibration on
// the task's cases then says whether the judge can be trusted with it.
import type { ChatMessage } from '../base/chat';
import type { TaskSpec } from '../taskfile/resolve';

/** Criteria per rubric: fewer says too little, more is hard for a judge to hold at once. */
export const RUBRIC_SIZE = { min: 2, max: 8 } as const;

export function rubricPrompt(task: TaskSpec): ChatMessage[] {
  const cases = task.cases
    .slice(0, 4)
    .map(
      (c) =>
        `- expected ${typeof c.expect === 'string' ? c.expect : `score ${c.expect.score}`}: ${JSON.stringify(c.response.slice(0, 400))}`,
    );
  return [
    {
      role: 'system',
      content: `You write grading rubrics for a judge model. Reply with a JSON array of ${RUBRIC_SIZE.min} to ${RUBRIC_SIZE.max} strings and nothing else. Each string is one criterion a good response meets, checkable from the response alone, one sentence.`,
    },
    {
      role: 'user',
      content: `Task given to the model:\n${JSON.stringify(task.prompt)}${cases.length ? `\n\nExample responses and their expected verdicts:\n${cases.join('\n')}` : ''}\n\nWhat does a good answer to this task look like? Reply with the JSON array of criteria.`,
    },
  ];
}

/** The criteria in a reply: a JSON array of strings (a code fence around it is allowed), or a list of lines. */
export function parseRubric(reply: string): string[] | { error: string } {
  const body = /```(?:json)?\s*\n([\s\S]*?)\n\s*```/.exec(reply)?.[1] ?? reply;
  const start = body.indexOf('[');
  const end = body.lastIndexOf(']');
  let items: string[] | undefined;
  if (start !== -1 && end > start) {
    try {
      const parsed: unknown = JSON.parse(body.slice(start, end + 1));
      if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) items = parsed;
    } catch {
      // Not JSON: read it as a list below.
    }
  }
  items ??= body
    .split('\n')
    .map((l) => /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(l)?.[1] ?? '')
    .filter(Boolean);
  const criteria = [
    ...new Set(items.map((c) => c.replace(/\s+/g, ' ').trim()).filter((c) => c.length > 0 && c.length <= 300)),
  ];
  if (criteria.length < RUBRIC_SIZE.min)
    return { error: `the model gave ${criteria.length} usable criteria; a rubric needs at least ${RUBRIC_SIZE.min}` };
  return criteria.slice(0, RUBRIC_SIZE.max);
}

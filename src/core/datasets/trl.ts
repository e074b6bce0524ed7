// TRL's GRPOTrainer reads a `prompt` column (plain text, or conversational `[{role,
// content}]`) and passes every other column to each reward function as a keyword argument.
// So a row carries `task_id` and `vtask_verifier` for the Python package's reward function
// (which asks `vtask serve`), and `solution` for math tasks, the column TRL's own
// `accuracy_reward` reads.
//
// An agent task's row names its environment (`environment`, relative to the output file),
// with `environment_args` and `max_turns`: GRPOTrainer routes a row to the environment its
// `environment` column names when `environment_factory` is a dict, and passes the other
// columns to the environment's `reset`. The Python package's `trl_environments` builds that
// dict from the rows, one factory per environment, each speaking the environment protocol.
import {
  kindParams,
  readMessages,
  readTrace,
  readVerifier,
  rowId,
  singleAnswer,
  traceFields,
  traceSchema,
} from './common';
import { readEnvironmentRef } from './agentRows';
import type { DatasetFormat, ExportSettings, ExportTask, ImportResult, RowResult } from './format';
import { int32, messagesColumn, str, type SchemaElement } from './parquetSchema';

function solution(verify: unknown): string | null {
  const kp = kindParams(verify);
  return kp?.kind === 'math' ? (singleAnswer(kp.params) ?? null) : null;
}

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  const { messages } = t.task;
  let prompt: unknown;
  if (settings.promptStyle === 'plain') {
    const only = messages.length === 1 && messages[0]?.role === 'user' ? messages[0].content : undefined;
    if (only === undefined)
      return {
        error:
          'a plain prompt is one user message; this task has a system message or several messages (export with --prompt-style conversational)',
      };
    prompt = only;
  } else {
    prompt = messages.map((m) => ({ role: m.role, content: m.content }));
  }
  const agent = {
    environment: t.agent?.environment ?? null,
    environment_args: t.agent?.environment_args ?? null,
    max_turns: t.agent?.max_turns ?? null,
  };
  return { row: { prompt, solution: solution(t.task.verify), ...traceFields(t, settings), ...agent } };
}

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages = readMessages(row.prompt);
  if (!messages) return { error: '`prompt` is neither text nor a list of {role, content}' };
  const own = readVerifier(row.vtask_verifier);
  if (own && 'error' in own) return own;
  let verify = own?.verify;
  if (verify === undefined) {
    const s = row.solution;
    if (typeof s !== 'string' && typeof s !== 'number')
      return { error: 'no `vtask_verifier` and no `solution` to check against' };
    verify = { math: { answer: String(s) } };
  }
  return { task: { id: rowId(row, n), messages, verify, meta: readTrace(row), ...readEnvironmentRef(row) } };
}

export const trl: DatasetFormat = {
  name: 'trl',
  outputs: ['jsonl', 'parquet'],
  // vtask_reward sends each rollout environment's calls and state (integrations/python).
  rewardsTrajectories: true,
  columns: (settings) => [
    { name: 'prompt', schema: settings.promptStyle === 'plain' ? str('prompt') : messagesColumn('prompt') },
    { name: 'solution', schema: str('solution') },
    ...[...traceSchema(), str('environment'), str('environment_args'), int32('max_turns')].map(
      (s: SchemaElement[]) => ({ name: String(s[0]?.name), schema: s }),
    ),
  ],
  toRow,
  fromRow,
};

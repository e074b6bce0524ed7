// An Inspect AI (UK AISI) evaluation: `vtask export --format inspect -o DIR`. DIR holds the
// samples as a `json_dataset` file (`dataset.jsonl`, or one per split: JSON lines of `id`,
// `input` as chat messages, `target`, `metadata`) and `tasks.py`, with one `@task` per split whose
// solver replays the task's messages with its sampling settings and whose scorer asks `vtask
// serve` (integrations/python: vtask_reward.inspect_task). Agent tasks get the environment's tools.
import { recordOr } from '../base/record';
import { readEnvironmentRef } from './agentRows';
import { readMessages, readVerifier, rowId } from './common';
import type { DatasetFormat, ExportSettings, ExportTask, ImportedTask, ImportResult, RowResult } from './format';
import { goldAnswer } from './hf';
import { packageRow, vtaskInfo } from './packageRows';
import { toPyLiteral } from './pyLiteral';

export const INSPECT_FORMAT = 'inspect';

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  return packageRow(t, () => ({
    row: {
      id: t.task.id,
      input: t.task.messages.map((m) => ({ role: m.role, content: m.content })),
      target: goldAnswer(t.task.verify) ?? '',
      metadata: vtaskInfo(t, settings),
    },
  }));
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * A task from a sample of another tool: its vtask verifier when the sample carries one (an
 * export of vtask's), else a check of its gold answer: `math` for a number, `match` (normalized)
 * for text, any of several targets.
 */
export function infoTask(
  info: Record<string, unknown>,
  s: { id: unknown; messages: ImportedTask['messages']; answer: unknown; n: number },
): ImportResult {
  const own = readVerifier(info.vtask_verifier);
  if (own && 'error' in own) return own;
  let verify = own?.verify;
  if (verify === undefined) {
    const answers = (Array.isArray(s.answer) ? s.answer : [s.answer])
      .filter((a): a is string | number => (typeof a === 'string' && a.trim() !== '') || typeof a === 'number')
      .map(String);
    if (!answers.length) return { error: 'no vtask verifier and no target answer to check against' };
    const numeric = answers.every((a) => NUMBER.test(a.trim()));
    const key = answers.length === 1 ? { answer: answers[0] } : { answers };
    verify = numeric ? { math: key } : { match: key };
  }
  const tags = Array.isArray(info.tags) ? info.tags.filter((x): x is string => typeof x === 'string') : [];
  const meta: Record<string, unknown> = {};
  for (const k of ['band', 'pass_rate', 'file'])
    if (info[k] !== undefined && info[k] !== null) meta[k === 'file' ? 'source_file' : k] = info[k];
  return { task: { id: rowId({ id: s.id }, s.n, 'sample'), messages: s.messages, verify, tags, meta } };
}

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages = readMessages(row.input);
  if (!messages) return { error: '`input` is neither text nor a list of {role, content} with text content' };
  const metadata = recordOr(row.metadata);
  const task = infoTask(metadata, { id: row.id, messages, answer: row.target, n });
  if ('error' in task) return task;
  return { task: { ...task.task, ...readEnvironmentRef(metadata) } };
}

export const inspect: DatasetFormat = {
  name: INSPECT_FORMAT,
  outputs: ['jsonl'],
  // The task's tools keep each sample's calls and the environment's final state for the scorer.
  rewardsTrajectories: true,
  columns: () => [],
  toRow,
  fromRow,
};

/** What `tasks.py` says: the dataset file of each split and the tasks' sampling settings. */
export interface InspectFacts {
  readonly splits: readonly { readonly name: string; readonly file: string; readonly rows: number }[];
  readonly sampling: Readonly<Record<string, unknown>>;
  readonly otherSampling: number;
  readonly agentTasks: number;
  readonly version: string;
}

/** A split's name as a Python function name (`train` → `vtask_train`). */
function taskName(split: string): string {
  return `vtask_${split.replace(/\W/g, '_')}`;
}

/** `tasks.py`: one `@task` per split, over the dataset file beside it. */
export function inspectTaskFile(f: InspectFacts): string {
  const tasks = f.splits.map(
    (s) => `

@task
def ${taskName(s.name)}(ids=None, tags=None, bands=None, limit=None, serve_url=None):
    """The ${s.rows} tasks of ${toPyLiteral(s.file)}, each scored by its own vtask verifier."""
    return inspect_task.vtask_task(os.path.join(HERE, ${toPyLiteral(s.file)}), ids=ids, tags=tags, bands=bands, limit=limit,
                                   config=GENERATE, serve_url=serve_url)
`,
  );
  return `"""vtask tasks as Inspect evaluations (exported by vtask ${f.version}).

    inspect eval tasks.py@${taskName(f.splits[0]?.name ?? 'train')} --model openai-api/NAME/MODEL

Each sample's messages go to the model with the tasks' sampling settings${f.agentTasks ? " (agent tasks with their environment's tools, run in vtask's sandbox by `vtask env`)" : ''};
the scorer asks \`vtask serve\` for the verdict of the task's own verifier: its score is the
Score's value, its reason the explanation, its details the metadata. A verdict that cannot be
given is unscored (excluded from the metrics), never a 0. The scorer starts a \`vtask serve\` of
its own unless \`VTASK_SERVE_URL\` (or \`serve_url\`) names one.
"""

import os

from inspect_ai import task

from vtask_reward import inspect_task

HERE = os.path.dirname(os.path.abspath(__file__))
# The sampling settings most of the tasks have${f.otherSampling ? ` (${f.otherSampling} tasks have others, which are not applied)` : ''}.
GENERATE = ${toPyLiteral(f.sampling)}
${tasks.join('')}`;
}

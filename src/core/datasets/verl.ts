// verl's RL rows (verl/utils/dataset/rl_dataset.py): `prompt` as chat messages, `data_source`
// (which reward function scores the row), `ability`, `reward_model: {style: rule,
// ground_truth}` and `extra_info` (index, split, and what vtask needs to score the row again:
// the task id, its file, the verifier as JSON and the prompt's last user message as
// `prompt_text`, which a judge reads). verl calls a `custom_reward_function` with
// (data_source, solution_str, ground_truth, extra_info); the Python package's `compute_score`
// sends the response and `extra_info.vtask_verifier` to `vtask serve`.
//
// Agent tasks run in verl's tool agent loop (`agent_name: tool_agent`; other rows name its
// `single_turn_agent`). That loop takes the tool schemas from one tool config file
// (`multi_turn.tool_config_path`) and passes each row's `extra_info.tools_kwargs` to the
// tools; a row carries its environment there by reference under the key `vtask`, and the
// Python package's `EnvironmentTool` starts it per trajectory and writes the tool config. verl
// offers a row the tools its `tools_kwargs` keys name: the package's `--rows-out` rewrites the
// rows keyed by their tools' names (it starts each environment to learn them, which an export
// does not), and import reads either.
import { isRecord, recordOr } from '../base/record';
import {
  kindParams,
  readMessages,
  readTrace,
  readVerifier,
  rowId,
  singleAnswer,
  traceFields,
  extraInfoSchema,
} from './common';
import { readEnvironmentRef } from './agentRows';
import type { DatasetFormat, ExportSettings, ExportTask, ImportResult, RowResult } from './format';
import { bool, int32, messagesColumn, str, struct } from './parquetSchema';

/** `data_source` of rows vtask wrote: the Python package's compute_score knows it. */
export const VERL_DATA_SOURCE = 'vtask';

/** verl's `ability`: what the task exercises, by verifier kind. */
function ability(verify: unknown): string {
  const kind = kindParams(verify)?.kind;
  switch (kind) {
    case 'math':
      return 'math';
    case 'code':
    case 'script':
      return 'code';
    case 'constraints':
    case 'format':
      return 'instruction_following';
    case 'judge':
      return 'judged';
    default:
      return kind ?? 'other';
  }
}

/**
 * The rule's ground truth: the gold answer where there is one (so verl's own scorers and
 * logs read naturally), the verifier as JSON otherwise.
 */
function groundTruth(verify: unknown): string {
  const kp = kindParams(verify);
  const answer =
    kp && (kp.kind === 'math' || kp.kind === 'match' || kp.kind === 'choice') ? singleAnswer(kp.params) : undefined;
  return answer ?? JSON.stringify(verify);
}

/** The key of `tools_kwargs` under which a row names its environment for vtask's tool. */
export const VERL_TOOLS_KEY = 'vtask';

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  return {
    row: {
      data_source: VERL_DATA_SOURCE,
      agent_name: t.agent ? 'tool_agent' : 'single_turn_agent',
      prompt: t.task.messages.map((m) => ({ role: m.role, content: m.content })),
      ability: t.agent ? 'agent' : ability(t.task.verify),
      reward_model: { style: 'rule', ground_truth: groundTruth(t.task.verify) },
      extra_info: {
        index: t.index,
        ...traceFields(t, settings),
        // verl hands the reward function extra_info, not the prompt: a judge reads it from here.
        prompt_text: t.task.prompt,
        need_tools_kwargs: t.agent !== undefined,
        tools_kwargs: t.agent ? { [VERL_TOOLS_KEY]: { create_kwargs: { ...t.agent, task_id: t.task.id } } } : null,
      },
    },
  };
}

/**
 * The environment reference in a row's `tools_kwargs`: under `vtask` as exported, or under each
 * of the row's tool names (as `python -m vtask_reward.verl_tools --rows-out` rewrites rows).
 */
function toolsRef(tools: unknown): unknown {
  if (!isRecord(tools)) return undefined;
  const keys = [VERL_TOOLS_KEY, ...Object.keys(tools).filter((k) => k !== VERL_TOOLS_KEY)];
  return keys.map((k) => recordOr(tools[k]).create_kwargs).find((c) => typeof recordOr(c).environment === 'string');
}

/** verl's example data sources whose ground truth is a math answer. */
const MATH_SOURCES = /gsm8k|math|aime|amc|numina|deepscaler|dapo/i;

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages = readMessages(row.prompt);
  if (!messages) return { error: '`prompt` is not a list of {role, content}' };
  const extra = recordOr(row.extra_info);
  const own = readVerifier(extra.vtask_verifier);
  if (own && 'error' in own) return own;
  let verify = own?.verify;
  if (verify === undefined) {
    const source = String(row.data_source ?? '');
    const gt = recordOr(row.reward_model).ground_truth;
    if (!MATH_SOURCES.test(source) || (typeof gt !== 'string' && typeof gt !== 'number')) {
      return {
        error: `no vtask verifier in extra_info, and data_source \`${source}\` is not one whose ground truth is a math answer`,
      };
    }
    verify = { math: { answer: String(gt) } };
  }
  return {
    task: {
      id: rowId(extra, n),
      messages,
      verify,
      meta: readTrace(extra),
      ...readEnvironmentRef(toolsRef(extra.tools_kwargs)),
    },
  };
}

export const verl: DatasetFormat = {
  name: 'verl',
  outputs: ['parquet', 'jsonl'],
  jsonLinesExtension: '.json',
  columns: () => [
    { name: 'data_source', schema: str('data_source') },
    { name: 'agent_name', schema: str('agent_name') },
    { name: 'prompt', schema: messagesColumn('prompt') },
    { name: 'ability', schema: str('ability') },
    { name: 'reward_model', schema: struct('reward_model', [str('style'), str('ground_truth')]) },
    {
      name: 'extra_info',
      schema: struct('extra_info', [
        ...extraInfoSchema(),
        str('prompt_text'),
        bool('need_tools_kwargs'),
        struct('tools_kwargs', [
          struct(VERL_TOOLS_KEY, [
            struct('create_kwargs', [str('environment'), str('environment_args'), int32('max_turns'), str('task_id')]),
          ]),
        ]),
      ]),
    },
  ],
  toRow,
  fromRow,
};

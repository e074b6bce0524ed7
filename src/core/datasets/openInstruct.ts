// open-instruct's RLVR rows: `messages` (the prompt), `ground_truth` and `dataset`, which names
// the verifier open-instruct scores the row with (ground_truth_utils.py). A task maps to the
// open-instruct verifier that checks the same thing, or, with `viaVtask`, to the `vtask`
// verifier of the Python package, which asks `vtask serve` (ground truth: the verifier as JSON).
// An agent task's row adds open-instruct's `env_config`: one environment named `vtask`, whose
// kwargs reference the task's environment, and `max_steps` from `max_turns`; the Python
// package's `VtaskEnv` is that environment (it starts the referenced one and relays calls).
import { isRecord, listOr, parseJson, recordOr } from '../base/record';
import { errorMessage } from '../base/errorMessage';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import {
  instruction,
  instructionPairs,
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
import { fromPyLiteral, toPyLiteral } from './pyLiteral';
import { funcNameArgs, funcNameVerifier } from './tuluIfFunctions';
import { int32, listOf, messagesColumn, str, struct, type SchemaElement } from './parquetSchema';

/** open-instruct's environment name of rows whose environment vtask's adapter starts. */
export const OPEN_INSTRUCT_ENV = 'vtask';

/** The open-instruct verifier name of rows scored by vtask through the Python package. */
export const VTASK_VERIFIER = 'vtask';

/** Where open-instruct's own verifier checks what the vtask verifier checks, its row fields. */
function nativeRow(verify: unknown): { dataset: string; ground_truth: string } | { error: string } {
  const kp = kindParams(verify);
  if (!kp) return { error: 'the verifier is not one `{kind: params}` mapping' };
  const { kind, params } = kp;
  if (kind === 'math') {
    const answer = singleAnswer(params);
    if (answer === undefined)
      return { error: "open-instruct's `math` verifier takes one gold answer; this task lists several" };
    if (params.tolerance !== undefined) return { error: "open-instruct's `math` verifier has no `tolerance`" };
    return { dataset: 'math', ground_truth: answer };
  }
  if (kind === 'match') {
    const mode = params.mode ?? 'normalized';
    if (mode === 'f1') {
      if (params.tag !== undefined) return { error: "open-instruct's `string_f1` verifier reads no tag" };
      const answer = singleAnswer(params);
      // open-instruct's string_f1 reads several answers only from a list ground truth, which a
      // column of string ground truths cannot hold: as text they would be scored as one answer.
      if (answer === undefined)
        return {
          error:
            "open-instruct's `string_f1` verifier takes several answers only as a list `ground_truth`, and this format's `ground_truth` is text (export with --via-vtask)",
        };
      return { dataset: 'string_f1', ground_truth: answer };
    }
    const answer = singleAnswer(params);
    if (mode !== 'normalized' || answer === undefined)
      return {
        error: `open-instruct has no verifier for \`match\` in mode \`${String(mode)}\`${answer === undefined ? ' with several answers' : ''}`,
      };
    if (params.tag === 'answer') return { dataset: 'string_matcher', ground_truth: answer };
    if (params.tag === undefined) return { dataset: 'puzzle', ground_truth: answer };
    return { error: `open-instruct reads answers only from <answer> tags, not <${String(params.tag)}>` };
  }
  if (kind === 'constraints') {
    if ((params.mode ?? 'strict') !== 'strict') return { error: "open-instruct's `ifeval` verifier has no loose mode" };
    const pairs = instructionPairs(params);
    const foreign = pairs
      .map(([id]) => id)
      .filter((id) => {
        const source = INSTRUCTIONS.get(id)?.source;
        return source !== 'ifeval' && source !== 'open-instruct';
      });
    if (foreign.length)
      return { error: `open-instruct's IFEval registry has no ${foreign.map((id) => `\`${id}\``).join(', ')}` };
    // Its verifier reads `ast.literal_eval(label)[0]` and zips `instruction_id` with `kwargs`.
    const ground = [{ instruction_id: pairs.map(([id]) => id), kwargs: pairs.map(([, k]) => k) }];
    return { dataset: 'ifeval', ground_truth: toPyLiteral(ground) };
  }
  return { error: `open-instruct has no verifier for \`${kind}\` (export with --via-vtask to score it with vtask)` };
}

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  // The prompt rides with the verifier (a judge reads it); the task id scores rows whose verifier runs a program.
  const native = settings.viaVtask
    ? {
        dataset: VTASK_VERIFIER,
        ground_truth: JSON.stringify({ task: t.task.id, verifier: t.task.verify, prompt: t.task.prompt }),
      }
    : nativeRow(t.task.verify);
  if ('error' in native) return native;
  return {
    row: {
      messages: t.task.messages.map((m) => ({ role: m.role, content: m.content })),
      ground_truth: native.ground_truth,
      dataset: native.dataset,
      ...traceFields(t, settings),
      env_config: t.agent
        ? {
            env_configs: [
              {
                env_name: OPEN_INSTRUCT_ENV,
                environment: t.agent.environment,
                environment_args: t.agent.environment_args,
              },
            ],
            max_steps: t.agent.max_turns,
          }
        : null,
    },
  };
}

/** A vtask verifier for an open-instruct row. */
function verifierOf(dataset: string, ground: unknown): { verify: unknown } | { error: string } {
  // open-instruct's string_f1 reads a list ground truth as several answers, the best one scoring.
  if (dataset.toLowerCase() === 'string_f1' && Array.isArray(ground) && ground.length > 1)
    return { verify: { match: { answers: ground.map(String), mode: 'f1' } } };
  const gt =
    typeof ground === 'string' ? ground : Array.isArray(ground) && ground.length === 1 ? String(ground[0]) : undefined;
  if (gt === undefined) return { error: '`ground_truth` is not one string' };
  switch (dataset.toLowerCase()) {
    case 'math':
    case 'strict_math':
    case 'gsm8k':
      return { verify: { math: { answer: gt } } };
    case 'puzzle':
      return { verify: { match: { answer: gt } } };
    case 'string_matcher':
      return { verify: { match: { answer: gt, tag: 'answer' } } };
    case 'string_f1': {
      let golds: unknown = gt;
      if (gt.startsWith('[')) {
        try {
          golds = JSON.parse(gt);
        } catch {
          golds = gt;
        }
      }
      return {
        verify: {
          match: Array.isArray(golds) ? { answers: golds.map(String), mode: 'f1' } : { answer: gt, mode: 'f1' },
        },
      };
    }
    case 'ifeval': {
      const old = funcNameArgs(gt);
      if (old) return funcNameVerifier(old);
      let parsed: unknown;
      try {
        parsed = fromPyLiteral(gt);
      } catch (e) {
        return { error: `\`ground_truth\` of an ifeval row: ${errorMessage(e)}` };
      }
      let first = Array.isArray(parsed) ? parsed[0] : parsed;
      if (typeof first === 'string') {
        try {
          first = JSON.parse(first);
        } catch {
          return { error: '`ground_truth` of an ifeval row is not a list of constraints' };
        }
      }
      const c = recordOr(first);
      if (!Array.isArray(c.instruction_id))
        return { error: '`ground_truth` of an ifeval row has no `instruction_id` list' };
      const kwargs = Array.isArray(c.kwargs) ? c.kwargs : [];
      return { verify: { constraints: c.instruction_id.map((id, i) => instruction(String(id), kwargs[i])) } };
    }
    case VTASK_VERIFIER: {
      try {
        const v = parseJson(gt);
        if (isRecord(v) && v.verifier) return { verify: v.verifier };
      } catch {
        // reported below
      }
      return { error: '`ground_truth` of a vtask row is not `{task, verifier}` JSON' };
    }
    default:
      return { error: `open-instruct's \`${dataset}\` verifier has no vtask counterpart` };
  }
}

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages = readMessages(row.messages);
  if (!messages) return { error: '`messages` is not a list of {role, content}' };
  const own = readVerifier(row.vtask_verifier);
  const v =
    own ??
    (typeof row.dataset === 'string'
      ? verifierOf(row.dataset, row.ground_truth)
      : { error: 'no `dataset` naming the verifier' });
  if ('error' in v) return v;
  // The last assistant message of an SFT-style row is an answer, not part of the prompt.
  const prompt = messages.at(-1)?.role === 'assistant' ? messages.slice(0, -1) : messages;
  const env = recordOr(row.env_config);
  const vtaskEnv = listOr(env.env_configs).find((e) => isRecord(e) && e.env_name === OPEN_INSTRUCT_ENV);
  const agent = vtaskEnv ? readEnvironmentRef({ ...recordOr(vtaskEnv), max_steps: env.max_steps }) : {};
  return { task: { id: rowId(row, n), messages: prompt, verify: v.verify, meta: readTrace(row), ...agent } };
}

export const openInstruct: DatasetFormat = {
  name: 'open-instruct',
  outputs: ['jsonl', 'parquet'],
  columns: () => [
    { name: 'messages', schema: messagesColumn('messages') },
    { name: 'ground_truth', schema: str('ground_truth') },
    { name: 'dataset', schema: str('dataset') },
    ...traceSchema().map((s: SchemaElement[]) => ({ name: String(s[0]?.name), schema: s })),
    {
      name: 'env_config',
      schema: struct('env_config', [
        listOf('env_configs', [str('env_name'), str('environment'), str('environment_args')]),
        int32('max_steps'),
      ]),
    },
  ],
  toRow,
  fromRow,
};

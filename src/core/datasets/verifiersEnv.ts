// A verifiers (Prime Intellect) environment package: `vtask export --format verifiers -o DIR`.
// DIR is an installable Python project in the Environments Hub's layout: `pyproject.toml`, a
// README, and the module `MODULE/__init__.py` whose `load_environment(**kwargs)` returns a
// `vf.SingleTurnEnv` (or, for agent tasks, a `vf.ToolEnv` whose tools are the task's environment
// run through `vtask env`). The rows are Parquet inside the module (`MODULE/data/`), in the
// columns verifiers reads (`prompt` as chat messages, `answer`, `info` as JSON text, which
// verifiers parses), plus `task_id`, `tags`, `band` and `pass_rate` for `load_environment`'s
// filters. The rubric's reward asks `vtask serve` (integrations/python: vtask_reward.verifiers_env).
import { parseJson, recordOr } from '../base/record';
import { readMessages } from './common';
import { readEnvironmentRef } from './agentRows';
import type { DatasetFormat, ExportSettings, ExportTask, ImportResult, RowResult } from './format';
import { goldAnswer } from './hf';
import { packageRow, vtaskInfo } from './packageRows';
import { double, messagesColumn, str, strList, type SchemaElement } from './parquetSchema';
import { toPyLiteral } from './pyLiteral';
import { infoTask } from './inspectTask';

export const VERIFIERS_FORMAT = 'verifiers';

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  return packageRow(t, () => {
    const info = vtaskInfo(t, settings);
    return {
      row: {
        prompt: t.task.messages.map((m) => ({ role: m.role, content: m.content })),
        answer: goldAnswer(t.task.verify) ?? '',
        info: JSON.stringify(info),
        task_id: t.task.id,
        tags: [...t.task.tags],
        band: info.band,
        pass_rate: info.pass_rate,
      },
    };
  });
}

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages =
    readMessages(row.prompt) ?? (typeof row.question === 'string' ? readMessages(row.question) : undefined);
  if (!messages) return { error: 'neither `prompt` nor `question` is a prompt' };
  let info: Record<string, unknown> = {};
  if (typeof row.info === 'string' && row.info) {
    try {
      info = recordOr(parseJson(row.info));
    } catch {
      return { error: '`info` is not valid JSON' };
    }
  } else info = recordOr(row.info);
  const task = infoTask(info, { id: row.task_id ?? info.task_id, messages, answer: row.answer, n });
  if ('error' in task) return task;
  return { task: { ...task.task, ...readEnvironmentRef(info) } };
}

const COLUMNS: SchemaElement[][] = [
  messagesColumn('prompt'),
  str('answer'),
  str('info'),
  str('task_id'),
  strList('tags'),
  str('band'),
  double('pass_rate'),
];

export const verifiers: DatasetFormat = {
  name: VERIFIERS_FORMAT,
  outputs: ['parquet'],
  // The package's ToolEnv keeps each rollout's calls and final state and sends them to `vtask serve`.
  rewardsTrajectories: true,
  columns: () => COLUMNS.map((s) => ({ name: String(s[0]?.name), schema: s })),
  toRow,
  fromRow,
};

/** What the package's files say, gathered while its rows were written. */
export interface PackageFacts {
  /** The distribution's name (`vtask-math`) and the module's (`vtask_math`). */
  readonly name: string;
  readonly module: string;
  /** Row files inside the module's `data/` folder, by split (`train` without --split). */
  readonly splits: readonly { readonly name: string; readonly file: string; readonly rows: number }[];
  readonly kinds: ReadonlyMap<string, number>;
  readonly agentTasks: number;
  /** The sampling settings most tasks have (the environment's default `sampling_args`). */
  readonly sampling: Readonly<Record<string, unknown>>;
  /** Tasks whose own sampling settings differ from those. */
  readonly otherSampling: number;
  /** True when every task is `math`: the parser then reads the last \boxed{} as the parsed answer. */
  readonly boxed: boolean;
  readonly version: string;
}

/** A folder's name as a Python distribution (`vtask-math`) and module (`vtask_math`). */
export function packageNames(dir: string): { name: string; module: string } {
  const base = dir.split(/[\\/]/).filter(Boolean).pop() ?? 'vtask-env';
  let name =
    base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'vtask-env';
  if (!/^[a-z]/.test(name)) name = `vtask-${name}`;
  return { name, module: name.replace(/-/g, '_') };
}

/** The files of the package beside its rows, by path relative to DIR. */
export function verifiersPackage(f: PackageFacts): Record<string, string> {
  return { 'pyproject.toml': pyproject(f), 'README.md': readme(f), [`${f.module}/__init__.py`]: moduleText(f) };
}

function pyproject(f: PackageFacts): string {
  const kinds = [...f.kinds.keys()].sort();
  return `[project]
name = "${f.name}"
version = "0.1.0"
description = "RLVR tasks exported by vtask ${f.version}: ${f.splits.reduce((n, s) => n + s.rows, 0)} tasks scored by vtask's verifiers (${kinds.join(', ')})"
keywords = ${JSON.stringify(['vtask', f.agentTasks ? 'multi-turn' : 'single-turn', ...kinds.map((k) => `verifier-${k}`)])}
requires-python = ">=3.10"
dependencies = [
    "verifiers",
    "vtask-reward",
    "pyarrow",
    "datasets",
]

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["${f.module}"]

[tool.setuptools.package-data]
${f.module} = ["data/*.parquet", "envs/**/*"]

[tool.verifiers.eval]
num_examples = ${Math.min(
    5,
    f.splits.reduce((n, s) => n + s.rows, 0),
  )}
rollouts_per_example = 3
`;
}

function readme(f: PackageFacts): string {
  const kinds = [...f.kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} (${n})`);
  const sampling = Object.keys(f.sampling).length
    ? Object.entries(f.sampling)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')
    : "none (the endpoint's defaults)";
  return `# ${f.name}

### Overview
- **Environment ID**: \`${f.name}\`
- **Short description**: tasks written with vtask, each scored by its own vtask verifier through \`vtask serve\`.
- **Tags**: vtask, ${f.agentTasks ? 'multi-turn, tools' : 'single-turn'}, ${[...f.kinds.keys()].sort().join(', ')}

### Datasets
- **Primary dataset(s)**: the task files exported by vtask ${f.version}, as Parquet inside the package (\`${f.module}/data/\`)
- **Split sizes**: ${f.splits.map((s) => `${s.name}: ${s.rows}`).join(', ')}

### Task
- **Type**: ${f.agentTasks ? `${f.agentTasks} agent tasks run as a \`vf.ToolEnv\` whose tools are the task's environment (run in vtask's sandbox by \`vtask env\`); the others single-turn` : 'single-turn (`vf.SingleTurnEnv`)'}
- **Parser**: ${f.boxed ? '`vf.MaybeThinkParser(extract_boxed_answer)` (shown answers); the reward reads the whole completion' : '`vf.Parser()`; the reward reads the whole completion'}
- **Rubric overview**: one reward, \`vtask_reward\`: the verdict's score (0 to 1) of the task's verifier (${kinds.join(', ')}), all the rollouts of a group in one request to \`vtask serve\`. A verdict that could not be given is logged and counted in the \`vtask_undecided\` metric (\`VTASK_UNDECIDED=raise\` stops instead).

### Quickstart
\`vtask\` must be on the PATH (or \`VTASK_CLI\`, e.g. \`node /path/to/out/cli.js\`), and the \`vtask-reward\` package (vtask's integrations/python) installed:

\`\`\`bash
pip install ./integrations/python   # vtask-reward, from the vtask repository
pip install .                       # this environment
vf-eval ${f.name} -m MODEL -b BASE_URL -n 5 -r 3
\`\`\`

The environment starts a \`vtask serve\` of its own and stops it at exit; \`VTASK_SERVE_URL\` (or \`serve_url=\`) uses a running one instead.

### Environment Arguments
| Arg | Type | Default | Description |
| --- | ---- | ------- | ----------- |
| \`split\` | str | \`"${f.splits[0]?.name ?? 'train'}"\` | The split to load (${f.splits.map((s) => `\`${s.name}\``).join(', ')}) |
| \`ids\` | list[str] | all | Only these task ids |
| \`tags\` | list[str] | all | Only tasks with one of these tags |
| \`bands\` | list[str] | all | Only tasks whose cached run is in these bands (\`too_easy\`, \`learnable\`, \`too_hard\`) |
| \`num_examples\` | int | -1 | At most this many tasks (-1: all) |
| \`system_prompt\` | str | the tasks' own | Replaces each task's system message |
| \`sampling_args\` | dict | \`${JSON.stringify(f.sampling)}\` | The model's sampling settings (the tasks': ${sampling}) |
| \`serve_url\` | str | \`VTASK_SERVE_URL\`, else a \`vtask serve\` started here | The reward server |

### Metrics
| Metric | Meaning |
| ------ | ------- |
| \`reward\` | vtask's score of the response (0 to 1): as \`vtask test\` and \`vtask run\` give it |
| \`vtask_undecided\` | 1 when the verdict could not be given (no judge model, a timeout): its reward of 0 says nothing about the response |
`;
}

function moduleText(f: PackageFacts): string {
  const splits = Object.fromEntries(f.splits.map((s) => [s.name, s.file]));
  return `"""${f.name}: vtask tasks as a verifiers environment (exported by vtask ${f.version}).

    import verifiers as vf
    env = vf.load_environment("${f.name}", num_examples=10)

Every reward is the verdict of the task's vtask verifier, asked of \`vtask serve\` (see README.md).
"""

import os

from vtask_reward import verifiers_env

HERE = os.path.dirname(os.path.abspath(__file__))
# Row files of each split, in this package's data folder.
SPLITS = ${toPyLiteral(splits)}
# The sampling settings most of the tasks have${f.otherSampling ? ` (${f.otherSampling} tasks have others, which are not applied)` : ''}.
SAMPLING_ARGS = ${toPyLiteral(f.sampling)}
# "boxed": the parser shows the last \\\\boxed{} of a completion as its answer; "plain": the completion.
PARSER = ${toPyLiteral(f.boxed ? 'boxed' : 'plain')}


def load_environment(split=${toPyLiteral(f.splits[0]?.name ?? 'train')}, ids=None, tags=None, bands=None, num_examples=-1, system_prompt=None,
                     sampling_args=None, serve_url=None, **kwargs):
    """The tasks of \`split\` (filtered by \`ids\`, \`tags\`, \`bands\`; at most \`num_examples\`) as a verifiers environment."""
    if split not in SPLITS:
        raise ValueError(f"split is one of {sorted(SPLITS)}, not {split!r}")
    return verifiers_env.load_environment(
        os.path.join(HERE, "data", SPLITS[split]), ids=ids, tags=tags, bands=bands, num_examples=num_examples,
        system_prompt=system_prompt, sampling_args=SAMPLING_ARGS if sampling_args is None else sampling_args,
        parser=PARSER, serve_url=serve_url, **kwargs)
`;
}

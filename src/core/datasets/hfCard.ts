// The dataset card of a Hub dataset folder (README.md): the YAML header the Hub reads (configs
// with each split's shards, the features of the Parquet columns, split sizes, license, task
// categories, tags) and a body saying what a user needs to know before training on it: the
// verifier kinds, the cached runs' pass rates and bands per model, the duplicates found, and how
// to score a row with vtask.
import { must } from '../util/must';
import YAML from 'yaml';
import type { DuplicatePair } from '../overview/dataset/types';
import type { ParquetColumn } from './format';

/** What the card says, gathered while the rows were written. */
export interface CardFacts {
  readonly name: string;
  readonly columns: readonly ParquetColumn[];
  /** Rows per split, in split order. */
  readonly splits: readonly { readonly name: string; readonly rows: number }[];
  /** Rows per verifier kind. */
  readonly kinds: ReadonlyMap<string, number>;
  /** The distinct `meta.license` values of the rows' tasks. */
  readonly licenses: ReadonlySet<string>;
  /** Per model: the rows with a cached run, their pass rates summed, rows per band. */
  readonly models: ReadonlyMap<string, { tasks: number; passRates: number; bands: Map<string, number> }>;
  /** Tasks left out because their prompt repeats an earlier one's. */
  readonly exactDropped: number;
  /** Near-duplicate prompt pairs among the rows written. */
  readonly nearPairs: readonly DuplicatePair[];
  readonly version: string;
}

type Feature = Record<string, unknown>;

interface SchemaNode {
  readonly el: Record<string, unknown>;
  readonly children: SchemaNode[];
}

/** The flat Parquet schema elements of a column as a tree (`num_children` says where). */
function tree(elements: readonly Record<string, unknown>[], at = { i: 0 }): SchemaNode {
  const el = must(elements[at.i++], 'a parent counts its children among the elements');
  const n = Number(el.num_children ?? 0);
  const children: SchemaNode[] = [];
  for (let k = 0; k < n; k++) children.push(tree(elements, at));
  return { el, children };
}

const DTYPES: Readonly<Record<string, string>> = {
  BYTE_ARRAY: 'string',
  DOUBLE: 'float64',
  INT32: 'int32',
  INT64: 'int64',
  BOOLEAN: 'bool',
  FLOAT: 'float32',
};

/** A column's type as `datasets` writes it in a card (`Features._to_yaml_list`), without the name. */
function featureType(node: SchemaNode): Feature {
  if (node.el.converted_type === 'LIST') {
    const inner = featureType(must(node.children[0]?.children[0], 'a LIST holds its element in a repeated group'));
    return { list: 'dtype' in inner ? inner.dtype : inner.struct };
  }
  if (node.children.length) return { struct: node.children.map(feature) };
  const dtype = DTYPES[String(node.el.type)];
  if (!dtype) throw new Error(`no Hub feature type for Parquet type ${String(node.el.type)}`);
  return { dtype };
}

function feature(node: SchemaNode): Feature {
  return { name: node.el.name, ...featureType(node) };
}

/** The card's `dataset_info.features`: the Parquet columns as `datasets` reads them. */
export function cardFeatures(columns: readonly ParquetColumn[]): Feature[] {
  return columns.map((c) => feature(tree(c.schema)));
}

/** Hub task categories by verifier kind: question answering where a row has one gold answer. */
function taskCategories(kinds: ReadonlyMap<string, number>): string[] {
  const qa = ['math', 'match', 'choice'].some((k) => kinds.has(k));
  return ['text-generation', ...(qa ? ['question-answering'] : [])];
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The README.md of the dataset folder. */
export function datasetCard(f: CardFacts): string {
  const licenses = [...f.licenses].sort();
  const header: Record<string, unknown> = {
    ...(licenses.length ? { license: licenses.length === 1 ? licenses[0] : licenses } : {}),
    task_categories: taskCategories(f.kinds),
    tags: ['rlvr', 'vtask', ...[...f.kinds.keys()].sort().map((k) => `verifier-${k}`)],
    configs: [
      { config_name: 'default', data_files: f.splits.map((s) => ({ split: s.name, path: `data/${s.name}-*` })) },
    ],
    dataset_info: {
      features: cardFeatures(f.columns),
      splits: f.splits.map((s) => ({ name: s.name, num_examples: s.rows })),
    },
  };
  const total = f.splits.reduce((n, s) => n + s.rows, 0);
  const lines = [`---`, YAML.stringify(header).trimEnd(), `---`, ``, `# ${f.name}`, ``];
  lines.push(
    `${total} verifiable tasks for RL with verifiable rewards, written by vtask ${f.version} (\`vtask export --format hf\`).`,
    ``,
  );
  lines.push(
    `## Splits`,
    ``,
    `| split | rows |`,
    `| --- | ---: |`,
    ...f.splits.map((s) => `| ${s.name} | ${s.rows} |`),
    ``,
  );
  lines.push(
    `## Verifiers`,
    ``,
    `Each row's \`vtask_verifier\` (JSON text) scores a response; \`kind\` is its kind, \`answer\` the one gold answer where there is one.`,
    ``,
  );
  lines.push(
    `| kind | rows |`,
    `| --- | ---: |`,
    ...[...f.kinds].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `| ${k} | ${n} |`),
    ``,
  );
  lines.push(`## Pass rates`, ``);
  if (!f.models.size) lines.push(`No cached \`vtask run\` covers these tasks: the rows carry no pass rate.`, ``);
  else {
    lines.push(
      `From the samples \`vtask run\` cached (a run whose band is \`error\` measured nothing and has no pass rate here).`,
      ``,
    );
    lines.push(
      `| model | tasks | mean pass rate | too_easy | learnable | too_hard | error |`,
      `| --- | ---: | ---: | ---: | ---: | ---: | ---: |`,
    );
    for (const [model, m] of [...f.models].sort((a, b) => a[0].localeCompare(b[0]))) {
      const err = m.bands.get('error') ?? 0;
      const rated = m.tasks - err;
      const band = (b: string): number => m.bands.get(b) ?? 0;
      lines.push(
        `| ${model} | ${m.tasks} | ${rated ? pct(m.passRates / rated) : '–'} | ${band('too_easy')} | ${band('learnable')} | ${band('too_hard')} | ${err} |`,
      );
    }
    lines.push(``);
  }
  lines.push(`## Duplicates`, ``);
  lines.push(
    `${f.exactDropped} task${f.exactDropped === 1 ? '' : 's'} whose prompt repeats an earlier one's left out; ${f.nearPairs.length} near-duplicate prompt pair${f.nearPairs.length === 1 ? '' : 's'} among the rows.`,
  );
  for (const p of f.nearPairs.slice(0, 10))
    lines.push(`- \`${p.a.task}\` and \`${p.b.task}\` (similarity ${p.similarity.toFixed(2)})`);
  lines.push(``, `Overlap with benchmarks: \`vtask stats PATH --contamination BENCH.jsonl\` on the task files.`, ``);
  lines.push(`## Scoring rows with vtask`, ``);
  lines.push(
    '```sh',
    'vtask serve TASK_FILES... --port 8000   # the task files the rows came from (agent tasks need them)',
    '```',
    '',
  );
  lines.push(
    '```python',
    'import json, urllib.request',
    'from datasets import load_dataset',
    '',
    `ds = load_dataset("PATH_OR_HUB_ID", split="${f.splits[0]?.name ?? 'train'}")`,
    'row = ds[0]',
    'body = {"verifier": json.loads(row["vtask_verifier"]), "prompt": row["prompt"], "responses": ["..."]}',
    'req = urllib.request.Request("http://127.0.0.1:8000/verify", json.dumps(body).encode(), {"content-type": "application/json"})',
    'print(json.load(urllib.request.urlopen(req))["results"])  # [{"pass": ..., "score": ..., "reason": ...}]',
    '```',
    '',
  );
  lines.push(
    `A verifier that runs a program (\`script\`) is not sent inline: send \`{"task": row["id"], "responses": [...]}\` to a \`vtask serve\` started on the task files.`,
    ``,
  );
  lines.push(
    `Trainers use the Python package (integrations/python): its reward functions send \`vtask_verifier\` and the response to \`vtask serve\`.`,
    ``,
  );
  return lines.join('\n');
}

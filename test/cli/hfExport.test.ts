// `vtask export --format hf`: the folder as the Hub's readers see it. `datasets.load_dataset(DIR)`
// reads the splits through the card's `configs`, the card's features are the Parquet's, the
// YAML header parses, shards keep their bound and all load, and the card sums up the verifier
// kinds, the license and the cached runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { python, pythonMissing } from '../support/python';

const ROOT = process.cwd();
const CLI = path.resolve(ROOT, 'out/cli.js');
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'vtask-hf-'));

function vtask(args: readonly string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

const pythonReady = () => pythonMissing(['pyarrow', 'datasets', 'yaml']);

/** What Python reads of an hf folder: rows per split, one row, the card's header, shard sizes. */
function readFolder(
  dir: string,
  rowId: string,
): {
  splits: Record<string, number>;
  row: Record<string, unknown> | null;
  card: Record<string, unknown>;
  featuresMatch: boolean;
  shards: Record<string, number>;
} {
  const out = python([
    '-c',
    `
import json, os, yaml, datasets, pyarrow.parquet as pq
d = ${JSON.stringify(dir)}
ds = datasets.load_dataset(d)
text = open(os.path.join(d, "README.md")).read()
assert text.startswith("---\\n")
card = yaml.safe_load(text.split("---\\n")[1])
features = datasets.Features._from_yaml_list(card["dataset_info"]["features"])
rows = [r for s in ds.values() for r in s if r["id"] == ${JSON.stringify(rowId)}]
shards = {f: pq.ParquetFile(os.path.join(d, "data", f)).metadata.num_rows for f in sorted(os.listdir(os.path.join(d, "data")))}
print(json.dumps({"splits": {k: len(v) for k, v in ds.items()}, "row": rows[0] if rows else None, "card": card,
  "featuresMatch": all(features == s.features for s in ds.values()), "shards": shards}))
`,
  ]);
  return JSON.parse(out.trim()) as ReturnType<typeof readFolder>;
}

test("export --format hf: load_dataset(DIR) gives each split; the card's header parses and its features are the Parquet's", (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  const dir = path.join(DIR, 'examples-hf');
  const r = vtask([
    'export',
    'examples',
    '--format',
    'hf',
    '-o',
    dir,
    '--split',
    'train=0.8,test=0.2',
    '--lossy',
    '--no-runs',
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /README\.md: the dataset card/);
  const printed = Object.fromEntries(
    [...r.stdout.matchAll(/: (\d+) rows \((\w+)\)/g)].map((m) => [m[2], Number(m[1])]),
  );
  const got = readFolder(dir, 'gsm8k/clips');
  assert.deepEqual(got.splits, printed);
  assert.equal(got.splits.train! + got.splits.test!, 22);
  assert.ok(got.featuresMatch, 'card features differ from the Parquet columns');
  const row = got.row!;
  assert.equal(row.kind, 'math');
  assert.equal(row.answer, '72');
  assert.match(String(row.prompt), /Natalia sold clips/);
  assert.deepEqual(
    (row.messages as { role: string }[]).map((m) => m.role),
    ['system', 'user'],
  );
  assert.deepEqual(JSON.parse(String(row.vtask_verifier)), { math: { answer: '72' } });
  const card = got.card as {
    configs: { config_name: string; data_files: { split: string; path: string }[] }[];
    dataset_info: { splits: { name: string; num_examples: number }[] };
    tags: string[];
    task_categories: string[];
  };
  assert.deepEqual(card.configs, [
    {
      config_name: 'default',
      data_files: [
        { split: 'train', path: 'data/train-*' },
        { split: 'test', path: 'data/test-*' },
      ],
    },
  ]);
  assert.deepEqual(card.dataset_info.splits, [
    { name: 'train', num_examples: got.splits.train },
    { name: 'test', num_examples: got.splits.test },
  ]);
  assert.ok(
    ['rlvr', 'vtask', 'verifier-math', 'verifier-constraints'].every((x) => card.tags.includes(x)),
    card.tags.join(),
  );
  assert.deepEqual(card.task_categories, ['text-generation', 'question-answering']);
  const body = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.match(body, /\| math \| 7 \|/);
  assert.match(body, /No cached `vtask run` covers these tasks/);
  assert.match(body, /vtask serve/);
});

test('export --format hf --shard-size: every shard within the bound, all loaded; a later export leaves no stale shard', (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  const dir = path.join(DIR, 'sharded');
  const r = vtask(['export', 'examples', '--format', 'hf', '-o', dir, '--shard-size', '4', '--lossy', '--no-runs']);
  assert.equal(r.status, 0, r.stderr);
  const got = readFolder(dir, 'gsm8k/clips');
  assert.deepEqual(Object.keys(got.shards), [
    'train-00000-of-00006.parquet',
    'train-00001-of-00006.parquet',
    'train-00002-of-00006.parquet',
    'train-00003-of-00006.parquet',
    'train-00004-of-00006.parquet',
    'train-00005-of-00006.parquet',
  ]);
  assert.deepEqual(Object.values(got.shards), [4, 4, 4, 4, 4, 2]);
  assert.deepEqual(got.splits, { train: 22 });
  // A bound in bytes: each shard's rows as JSON text stay within 2 KB unless one row alone is larger.
  const bytes = vtask([
    'export',
    'examples',
    '--format',
    'hf',
    '-o',
    dir,
    '--shard-size',
    '2KB',
    '--lossy',
    '--no-runs',
  ]);
  assert.equal(bytes.status, 0, bytes.stderr);
  const again = readFolder(dir, 'gsm8k/clips');
  assert.deepEqual(again.splits, { train: 22 }, 'rows of the earlier shards were read again');
  const n = Object.keys(again.shards).length;
  assert.ok(n > 2, `${n} shards`);
  assert.ok(
    Object.keys(again.shards).every((f) => f.endsWith(`-of-${String(n).padStart(5, '0')}.parquet`)),
    Object.keys(again.shards).join(),
  );
  assert.equal(vtask(['export', 'examples', '--format', 'hf', '-o', dir, '--shard-size', '0']).status, 2);
  assert.equal(
    vtask(['export', 'examples', '--format', 'trl', '-o', path.join(DIR, 'x.jsonl'), '--shard-size', '4']).status,
    2,
  );
});

test('export --format hf: the card takes the license from meta.license and pass rates and bands from cached runs', (t) => {
  const why = pythonReady();
  if (why) return t.skip(why);
  const cacheDir = path.join(DIR, 'runs-cache');
  const ran = vtask(['run', 'examples/arithmetic.vtask', '--cache-dir', cacheDir, '--json']);
  assert.equal(ran.status, 0, ran.stderr);
  const runs = (JSON.parse(ran.stdout) as { tasks: { pass_rate: number; band: string; model: string }[] }).tasks;
  const file = path.join(DIR, 'licensed.vtask');
  const task = (id: string, a: number) =>
    `  - id: ${id}\n    prompt: "What is ${a}+${a}?"\n    verify:\n      math: { answer: "${2 * a}" }\n    meta: { license: cc-by-4.0 }\n`;
  fs.writeFileSync(file, `vtask: 1\ntasks:\n${task('lic/a', 2)}${task('lic/b', 3)}`);
  const dir = path.join(DIR, 'with-runs');
  const r = vtask(['export', 'examples/arithmetic.vtask', file, '--format', 'hf', '-o', dir, '--cache-dir', cacheDir]);
  assert.equal(r.status, 0, r.stderr);
  const body = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  // One line per model the tasks ran with: the mean of its tasks' pass rates and their bands.
  const models = [...new Set(runs.map((x) => x.model))];
  assert.ok(models.length >= 1);
  for (const model of models) {
    const of = runs.filter((x) => x.model === model);
    const mean = of.reduce((s, x) => s + x.pass_rate, 0) / of.length;
    const count = (b: string): number => of.filter((x) => x.band === b).length;
    const line = `| ${model} | ${of.length} | ${(mean * 100).toFixed(1)}% | ${count('too_easy')} | ${count('learnable')} | ${count('too_hard')} | ${count('error')} |`;
    assert.ok(body.includes(line), `${line}\n${body}`);
  }
  const model = runs[0]!.model;
  const got = readFolder(dir, (JSON.parse(ran.stdout) as { tasks: { task: string }[] }).tasks[0]!.task);
  assert.equal(got.row?.model, model);
  assert.equal(got.card.license, 'cc-by-4.0');
  assert.equal(got.splits.train, runs.length + 2);
  assert.equal(readFolder(dir, 'lic/b').row?.meta, JSON.stringify({ license: 'cc-by-4.0' }));
});

import { errorMessage } from '../core/base/errorMessage';
import { must } from '../core/util/must';
import fs from 'node:fs';
import path from 'node:path';
import { parseMix, parseSplit, type SplitShare } from '../core/datasets/curate';
import type { ShardBound } from '../core/datasets/exportDataset';
import { exportFiles, outputType } from '../core/datasets/exportFiles';
import type { RunSummary } from '../core/datasets/format';
import { HF_FORMAT } from '../core/datasets/hf';
import { EXPORT_FORMATS } from '../core/datasets/formats';
import type { RowFileType } from '../core/datasets/rowFiles';
import { findTaskFiles } from '../core/taskfile/discover';
import { openResolvePool } from '../core/taskfile/parallel';
import { plural } from '../core/util/plural';
import { datasetsKnown } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import {
  cacheDirOption,
  choice,
  defaultedOption,
  modelOptions,
  repeatedOption,
  share,
  switchOption,
  text,
  valueOption,
  type ModelFlags,
  type Parsed,
} from './options';
import { PACKAGE_FORMATS } from '../core/datasets/exportPackage';

export const exportHelp = `Usage: vtask export PATH... --format FORMAT -o OUT.jsonl|OUT.parquet|DIR [options]

Writes the valid tasks of the task files as a training dataset: Parquet or JSONL by the
extension of OUT (a folder DIR for hf, verifiers and inspect). A JSONL or Parquet dataset named
as a PATH in a known training format gives its rows, each the task it stands for (as vtask run
reads it); folders give their task files only. FORMAT is one of: ${[...EXPORT_FORMATS.keys()].join(', ')}.
  open-instruct   RLVR rows (messages, ground_truth, dataset) scored by open-instruct's own
                  verifiers (math, ifeval, string_f1, string_matcher, puzzle)
  verl            RL rows (data_source, prompt, ability, reward_model, extra_info); verl
                  reads OUT.parquet, or JSON lines as OUT.json (not .jsonl)
  trl             GRPOTrainer rows (prompt, solution, task_id, vtask_verifier, ...)
  openai-rft      fine-tuning rows (JSONL) and the job's grader in OUT.grader.json
  hf              a Hugging Face Hub dataset folder: DIR/data/SPLIT-00000-of-0000N.parquet
                  shards (id, prompt, messages, vtask_verifier, kind, answer, tags, meta, ...)
                  and DIR/README.md, the dataset card
  verifiers       a verifiers environment package DIR (pyproject.toml, README.md, MODULE/ with
                  load_environment() and the rows as Parquet): vf-eval and the Environments Hub
                  run it; its reward asks vtask serve
  inspect         an Inspect AI evaluation DIR: tasks.py (one @task per split) beside the
                  json_dataset file dataset.jsonl; its scorer asks vtask serve
Options:
  -f, --format FORMAT          the dataset format (above); required
  -o, --out OUT                the file or folder written; required
  --split train=0.9,test=0.1   one file per split (OUT.train.parquet, ...), stable by task id
  --seed N                     the seed of --split and --mix (default 0)
  --shard-size N|NMB|NGB       hf: rows per shard, or a bound on a shard's rows as JSON text
                               (default 500MB)
  --mix FILE=WEIGHT            take a share (WEIGHT up to 1) or a number (above 1) of FILE's
                               tasks; repeat per file
  --keep-duplicates            keep tasks whose prompt repeats an earlier one's (default: dropped
                               and reported)
  --lossy                      drop the tasks FORMAT cannot express (listed) instead of failing
  --via-vtask                  open-instruct: score every row with vtask's verifier (the Python
                               package's 'vtask' verifier, which asks vtask serve)
  --prompt-style conversational|plain   trl: the prompt column (default conversational)
  --grader-model NAME          openai-rft: the model of a judge grader (default gpt-4.1)
  --band B[,B]                 only tasks whose cached run is in these bands (too_easy,
                               learnable, too_hard)
  --min-pass-rate X, --max-pass-rate Y   only tasks whose cached pass rate is in [X, Y]
  --base-url URL --model NAME  the model whose cached runs count (as vtask run resolves it)
  --cache-dir DIR              the sample cache (default: .vtask-cache at the workspace root)
  --no-runs                    do not read cached runs (rows carry no pass rate)
  --json                       print the report as JSON
Exits 0 when the dataset was written, 1 when a task cannot be expressed (nothing is written),
2 on usage errors.`;

const BANDS = ['too_easy', 'learnable', 'too_hard'];

interface ExportArgs extends ModelFlags {
  paths: string[];
  format: string;
  out: string;
  split?: SplitShare[];
  seed: number;
  mix: Map<string, number>;
  dedupe: boolean;
  lossy: boolean;
  viaVtask: boolean;
  promptStyle: 'conversational' | 'plain';
  graderModel: string;
  json: boolean;
  bands?: Set<string>;
  minPassRate?: number;
  maxPassRate?: number;
  runs: boolean;
  shardSize?: ShardBound;
}

/** `--shard-size`: `1000` rows, or `500MB` (also KB, GB) of rows as JSON text. */
function parseShardSize(v: string): ShardBound {
  const m = /^(\d{1,12})\s*(KB|MB|GB)?$/i.exec(v.trim());
  const n = m ? Number(m[1]) : 0;
  if (!m || n < 1) throw new UsageError(`--shard-size takes a number of rows or a size like 500MB; got '${v}'`);
  if (!m[2]) return { rows: n };
  return { bytes: n * 1024 ** (['KB', 'MB', 'GB'].indexOf(m[2].toUpperCase()) + 1) };
}

/** The options of `vtask export`. */
export const exportOptions = z.object({
  format: valueOption('--format', 'the dataset format', text, ['-f']),
  out: valueOption('--out', 'the file (or folder) to write', text, ['-o']),
  split: valueOption('--split', 'split the tasks by id hash: NAME=SHARE,...', parseSplit),
  seed: defaultedOption(
    '--seed',
    'the seed of --split and --mix',
    (v) => {
      if (!/^\d{1,9}$/.test(v)) throw new UsageError(`--seed takes a whole number from 0 to 999999999; got '${v}'`);
      return Number(v);
    },
    0,
  ),
  mix: repeatedOption('--mix', "FILE=WEIGHT: the share (or count) of a file's tasks", parseMix),
  keepDuplicates: switchOption('--keep-duplicates', 'keep tasks whose prompt is already exported'),
  lossy: switchOption('--lossy', 'export tasks the trainer will not score as vtask does'),
  viaVtask: switchOption('--via-vtask', "rows scored by vtask's reward server"),
  promptStyle: defaultedOption(
    '--prompt-style',
    'conversational or plain prompts',
    choice(['conversational', 'plain'], (v) => `--prompt-style is conversational or plain; got '${v}'`),
    'conversational',
  ),
  graderModel: defaultedOption('--grader-model', 'the model of OpenAI RFT score_model graders', text, 'gpt-4.1'),
  json: switchOption('--json', 'print the report as JSON'),
  bands: valueOption('--band', 'only tasks of these bands (comma-separated)', (v) => {
    const bands = v.split(',').map((b) => b.trim());
    const bad = bands.find((b) => !BANDS.includes(b));
    if (bad !== undefined) throw new UsageError(`--band takes ${BANDS.join(', ')} (comma-separated); got '${bad}'`);
    return new Set(bands);
  }),
  minPassRate: valueOption('--min-pass-rate', 'only tasks passing at least this often', share('a pass rate')),
  maxPassRate: valueOption('--max-pass-rate', 'only tasks passing at most this often', share('a pass rate')),
  noRuns: switchOption('--no-runs', 'leave the cached runs out'),
  shardSize: valueOption('--shard-size', '--format hf: rows (or bytes, 500MB) per Parquet file', parseShardSize),
  ...modelOptions,
  cacheDir: cacheDirOption,
});

function argsOf({ options: o, positional }: Parsed<typeof exportOptions>): ExportArgs {
  const { format, out } = o;
  if (!positional.length) throw new UsageError('name at least one task file or folder');
  if (!format) throw new UsageError(`--format is required: one of ${[...EXPORT_FORMATS.keys()].join(', ')}`);
  if (!EXPORT_FORMATS.has(format))
    throw new UsageError(`unknown format '${format}': one of ${[...EXPORT_FORMATS.keys()].join(', ')}`);
  if (!out)
    throw new UsageError(
      format === HF_FORMAT || PACKAGE_FORMATS.has(format)
        ? `-o DIR is required (the ${format === HF_FORMAT ? 'dataset' : format} folder)`
        : '-o OUT is required (OUT.jsonl or OUT.parquet)',
    );
  if (o.shardSize && format !== HF_FORMAT) throw new UsageError('--shard-size is for --format hf');
  const filtered = o.bands !== undefined || o.minPassRate !== undefined || o.maxPassRate !== undefined;
  if (filtered && o.noRuns) throw new UsageError('--band and the pass-rate filters read cached runs: drop --no-runs');
  return {
    ...o,
    paths: positional,
    format,
    out,
    // The last weight given for a file counts.
    mix: new Map(o.mix.map((m) => [m.file, m.weight])),
    dedupe: !o.keepDuplicates,
    runs: !o.noRuns,
  };
}

/** Warnings printed one per line; the rest are counted. */
const WARNINGS_SHOWN = 20;

export async function exportCommand(parsed: Parsed<typeof exportOptions>, io: CliIO): Promise<number> {
  const args = argsOf(parsed);
  const base = must(EXPORT_FORMATS.get(args.format), 'the format was checked with the options');
  const hfDir = base.name === HF_FORMAT ? path.resolve(io.cwd, args.out) : undefined;
  const pkgDir = PACKAGE_FORMATS.has(base.name) ? path.resolve(io.cwd, args.out) : undefined;
  for (const dir of [hfDir, pkgDir])
    if (dir && fs.existsSync(dir) && !fs.statSync(dir).isDirectory())
      throw new UsageError(`'${args.out}' is a file: --format ${base.name} writes a folder`);
  const out = path.resolve(io.cwd, args.out);
  if (!fs.existsSync(path.dirname(out))) throw new UsageError(`the folder of '${args.out}' does not exist`);
  let type: RowFileType | undefined;
  try {
    if (!hfDir && !pkgDir) type = outputType(base, out, args.out);
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
  const files = findTaskFiles(args.paths.map((p) => path.resolve(io.cwd, p))).map((f) => path.relative(io.cwd, f) || f);
  if (!(await datasetsKnown(files, io.stderr))) return EXIT.failed;
  const mix = new Map<string, number>();
  for (const [f, w] of args.mix) {
    const rel = path.relative(io.cwd, path.resolve(io.cwd, f));
    if (!files.includes(rel)) throw new UsageError(`--mix names '${f}', which is not among the task files exported`);
    mix.set(rel, w);
  }
  const filtering = args.bands !== undefined || args.minPassRate !== undefined || args.maxPassRate !== undefined;
  // A run of band `error` measured nothing: its pass rate of 0 must not pass a pass-rate filter.
  const keep = (run: RunSummary | undefined): boolean =>
    run !== undefined &&
    run.band !== 'error' &&
    (args.bands === undefined || (run.band !== null && args.bands.has(run.band))) &&
    (args.minPassRate === undefined || run.pass_rate >= args.minPassRate) &&
    (args.maxPassRate === undefined || run.pass_rate <= args.maxPassRate);
  // Large files have their tasks parsed on the machine's other cores, a few batches ahead.
  const pool = openResolvePool(__filename);
  const {
    report,
    format,
    packageFiles: pkgFiles,
    card: cardFile,
  } = await exportFiles({
    cwd: io.cwd,
    files,
    format: base.name,
    out,
    ...(type ? { type } : {}),
    split: args.split,
    seed: args.seed,
    mix,
    dedupe: args.dedupe,
    lossy: args.lossy,
    viaVtask: args.viaVtask,
    promptStyle: args.promptStyle,
    graderModel: args.graderModel,
    runs: args.runs,
    baseUrl: args.baseUrl,
    model: args.model,
    cacheDir: args.cacheDir,
    ...(filtering ? { keep } : {}),
    shardSize: args.shardSize,
    parseBatch: pool.parseBatch,
  }).finally(() => pool.close());
  const pkg = pkgDir !== undefined;
  const where = (r: { file: string; line: number }): string => `${r.file}:${r.line}`;
  // Paths as the user would type them: relative below the working folder, absolute elsewhere.
  const shown = (p: string): string => (path.relative(io.cwd, p).startsWith('..') ? p : path.relative(io.cwd, p));
  if (args.json) {
    io.stdout.write(
      JSON.stringify({
        ...report,
        outputs: report.outputs.map((o) => ({ ...o, file: shown(o.file) })),
        grader: report.grader && shown(report.grader),
        card: cardFile && shown(cardFile),
        ...(pkg ? { files: pkgFiles.map(shown) } : {}),
      }) + '\n',
    );
  } else {
    for (const u of report.unexpressible) {
      const who = u.file ? `${where(u)}: task '${u.task}'` : 'vtask export';
      io.stderr.write(
        `${who}: ${args.lossy && u.file ? 'dropped: ' : 'error: '}${format.name} cannot express it: ${u.reason}\n`,
      );
    }
    // One line per task up to a bound: a dataset of agent tasks may have thousands of them.
    for (const w of report.warnings.slice(0, WARNINGS_SHOWN))
      io.stderr.write(`${where(w)}: warning: task '${w.task}': ${w.reason}\n`);
    if (report.warnings.length > WARNINGS_SHOWN)
      io.stderr.write(
        `… and ${report.warnings.length - WARNINGS_SHOWN} more tasks with the same warning (--json lists all)\n`,
      );
    for (const d of report.duplicates)
      io.stderr.write(`${where(d)}: task '${d.task}' dropped: same prompt as '${d.of.task}' (${where(d.of)})\n`);
    for (const i of report.invalid)
      io.stderr.write(
        i.reason !== undefined
          ? `${where(i)}: error: ${i.reason} (vtask check shows it)\n`
          : `${where(i)}: task '${i.task}' has errors and is not exported (vtask check shows them)\n`,
      );
    if (report.failed)
      io.stderr.write(
        `nothing written: ${plural(report.unexpressible.length, 'task')} cannot be expressed in ${format.name} (--lossy drops them)\n`,
      );
    for (const o of report.outputs)
      io.stdout.write(`${shown(o.file)}: ${plural(o.rows, 'row')}${o.split ? ` (${o.split})` : ''}\n`);
    if (report.grader) io.stdout.write(`${shown(report.grader)}: the grader\n`);
    if (cardFile) io.stdout.write(`${shown(cardFile)}: the dataset card\n`);
    for (const f of pkgFiles) io.stdout.write(`${shown(f)}\n`);
    const badFiles = report.invalid.filter((i) => i.reason !== undefined).length;
    const invalidTasks = report.invalid.length - badFiles;
    const notes = [
      report.duplicates.length && `${plural(report.duplicates.length, 'duplicate prompt')} dropped`,
      report.filtered &&
        `${plural(report.filtered, 'task')} left out by --mix or the run filters (a task without a cached run is left out by those)`,
      args.lossy && report.unexpressible.length && `${plural(report.unexpressible.length, 'task')} dropped (--lossy)`,
      invalidTasks && `${plural(invalidTasks, 'invalid task')} skipped`,
      badFiles && `${plural(badFiles, 'file')} with errors outside the tasks`,
    ].filter(Boolean);
    if (notes.length && !report.failed) io.stdout.write(notes.join('; ') + '\n');
  }
  return report.failed ? EXIT.failed : EXIT.ok;
}

import { errorMessage } from '../core/base/errorMessage';
import fs from 'node:fs';
import path from 'node:path';
import { parseMix, parseSplit, type SplitShare } from '../core/datasets/curate';
import { exportDataset } from '../core/datasets/exportDataset';
import { EXPORT_FORMATS } from '../core/datasets/formats';
import { rowFileType } from '../core/datasets/rowFiles';
import { findTaskFiles } from '../core/taskfile/discover';
import { version } from '../core/version';
import { EXIT, UsageError, type CliIO } from './io';
import { eachArg, unknownOption } from './options';

export const exportHelp = `Usage: vtask export PATH... --format FORMAT -o OUT.jsonl|OUT.parquet [options]

Writes the valid tasks of the task files as a training dataset: Parquet or JSONL by the
extension of OUT. FORMAT is one of: ${[...EXPORT_FORMATS.keys()].join(', ')}.
  open-instruct   RLVR rows (messages, ground_truth, dataset) scored by open-instruct's own
                  verifiers (math, ifeval, string_f1, string_matcher, puzzle)
  verl            RL rows (data_source, prompt, ability, reward_model, extra_info)
  trl             GRPOTrainer rows (prompt, solution, task_id, vtask_verifier, ...)
  openai-rft      fine-tuning rows (JSONL) and the job's grader in OUT.grader.json
Options:
  --split train=0.9,test=0.1   one file per split (OUT.train.parquet, ...), stable by task id
  --seed N                     the seed of --split and --mix (default 0)
  --mix FILE=WEIGHT            take a share (WEIGHT up to 1) or a number (above 1) of FILE's
                               tasks; repeat per file
  --keep-duplicates            keep tasks whose prompt repeats an earlier one's (default: dropped
                               and reported)
  --lossy                      drop the tasks FORMAT cannot express (listed) instead of failing
  --via-vtask                  open-instruct: score every row with vtask's verifier (the Python
                               package's 'vtask' verifier, which asks vtask serve)
  --prompt-style conversational|plain   trl: the prompt column (default conversational)
  --grader-model NAME          openai-rft: the model of a judge grader (default gpt-4.1)
  --json                       print the report as JSON
Exits 0 when the dataset was written, 1 when a task cannot be expressed (nothing is written),
2 on usage errors.`;

const EXPORT_FLAGS = ['--format', '--out', '-o', '--split', '--seed', '--mix', '--keep-duplicates', '--lossy', '--via-vtask', '--prompt-style', '--grader-model', '--json'];

interface ExportArgs {
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
}

function parseArgs(argv: readonly string[]): ExportArgs {
  const a: Partial<ExportArgs> & { paths: string[]; mix: Map<string, number> } = { paths: [], mix: new Map(), seed: 0, dedupe: true, lossy: false, viaVtask: false, promptStyle: 'conversational', graderModel: 'gpt-4.1', json: false };
  for (const { arg, flag, value } of eachArg(argv)) {
    try {
      switch (flag) {
        case '--format':
        case '-f':
          a.format = value();
          break;
        case '-o':
        case '--out':
          a.out = value();
          break;
        case '--split':
          a.split = parseSplit(value());
          break;
        case '--seed': {
          const v = value();
          if (!/^\d{1,9}$/.test(v)) throw new UsageError(`--seed takes a whole number from 0 to 999999999; got '${v}'`);
          a.seed = Number(v);
          break;
        }
        case '--mix': {
          const m = parseMix(value());
          a.mix.set(m.file, m.weight);
          break;
        }
        case '--keep-duplicates':
          a.dedupe = false;
          break;
        case '--lossy':
          a.lossy = true;
          break;
        case '--via-vtask':
          a.viaVtask = true;
          break;
        case '--prompt-style': {
          const v = value();
          if (v !== 'conversational' && v !== 'plain') throw new UsageError(`--prompt-style is conversational or plain; got '${v}'`);
          a.promptStyle = v;
          break;
        }
        case '--grader-model':
          a.graderModel = value();
          break;
        case '--json':
          a.json = true;
          break;
        default:
          if (arg.startsWith('-')) throw unknownOption(arg, EXPORT_FLAGS);
          else a.paths.push(arg);
      }
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(errorMessage(e));
    }
  }
  if (!a.paths.length) throw new UsageError('name at least one task file or folder');
  if (!a.format) throw new UsageError(`--format is required: one of ${[...EXPORT_FORMATS.keys()].join(', ')}`);
  if (!EXPORT_FORMATS.has(a.format)) throw new UsageError(`unknown format '${a.format}': one of ${[...EXPORT_FORMATS.keys()].join(', ')}`);
  if (!a.out) throw new UsageError('-o OUT is required (OUT.jsonl or OUT.parquet)');
  return a as ExportArgs;
}

export async function exportCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv);
  const format = EXPORT_FORMATS.get(args.format)!;
  const out = path.resolve(io.cwd, args.out);
  const type = rowFileType(out);
  if (!type) throw new UsageError(`cannot tell the file type of '${args.out}': end it in .jsonl or .parquet`);
  if (!format.outputs.includes(type)) throw new UsageError(`${format.name} datasets are ${format.outputs.join(' or ')}, not ${type}`);
  if (!fs.existsSync(path.dirname(out))) throw new UsageError(`the folder of '${args.out}' does not exist`);
  const files = findTaskFiles(args.paths.map((p) => path.resolve(io.cwd, p))).map((f) => path.relative(io.cwd, f) || f);
  const mix = new Map<string, number>();
  for (const [f, w] of args.mix) {
    const rel = path.relative(io.cwd, path.resolve(io.cwd, f));
    if (!files.includes(rel)) throw new UsageError(`--mix names '${f}', which is not among the task files exported`);
    mix.set(rel, w);
  }
  const report = await exportDataset({
    files,
    format,
    out,
    type,
    settings: { version, promptStyle: args.promptStyle, viaVtask: args.viaVtask },
    split: args.split,
    seed: args.seed,
    dedupe: args.dedupe,
    lossy: args.lossy,
    mix,
    judgeModel: args.graderModel,
    read: (f) => fs.readFileSync(path.resolve(io.cwd, f), 'utf8'),
  });
  const where = (r: { file: string; line: number }): string => `${r.file}:${r.line}`;
  if (args.json) {
    io.stdout.write(JSON.stringify({ ...report, outputs: report.outputs.map((o) => ({ ...o, file: path.relative(io.cwd, o.file) })), grader: report.grader && path.relative(io.cwd, report.grader) }) + '\n');
  } else {
    for (const u of report.unexpressible) {
      const who = u.file ? `${where(u)}: task '${u.task}'` : 'vtask export';
      io.stderr.write(`${who}: ${args.lossy && u.file ? 'dropped: ' : 'error: '}${format.name} cannot express it: ${u.reason}\n`);
    }
    for (const d of report.duplicates) io.stderr.write(`${where(d)}: task '${d.task}' dropped: same prompt as '${d.of.task}' (${where(d.of)})\n`);
    for (const i of report.invalid) io.stderr.write(`${where(i)}: task '${i.task}' has errors and is not exported (vtask check shows them)\n`);
    if (report.failed) io.stderr.write(`nothing written: ${report.unexpressible.length} task(s) cannot be expressed in ${format.name} (--lossy drops them)\n`);
    for (const o of report.outputs) io.stdout.write(`${path.relative(io.cwd, o.file)}: ${o.rows} rows${o.split ? ` (${o.split})` : ''}\n`);
    if (report.grader) io.stdout.write(`${path.relative(io.cwd, report.grader)}: the grader\n`);
    const notes = [report.duplicates.length && `${report.duplicates.length} duplicate prompts dropped`, report.filtered && `${report.filtered} tasks left out by --mix`, args.lossy && report.unexpressible.length && `${report.unexpressible.length} tasks dropped (--lossy)`, report.invalid.length && `${report.invalid.length} invalid tasks skipped`].filter(Boolean);
    if (notes.length && !report.failed) io.stdout.write(notes.join('; ') + '\n');
  }
  return report.failed ? EXIT.failed : EXIT.ok;
}

import { errorMessage } from '../core/base/errorMessage';
import fs from 'node:fs';
import path from 'node:path';
import { IMPORT_FORMATS } from '../core/datasets/formats';
import { importDataset } from '../core/datasets/importDataset';
import { rowFileType } from '../core/datasets/rowFiles';
import { formatIssue } from '../core/taskfile/format';
import { openResolvePool } from '../core/taskfile/parallel';
import { streamTaskFile } from '../core/taskfile/stream';
import { plural } from '../core/util/plural';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import { switchOption, text, valueOption, type Parsed } from './options';

export const importHelp = `Usage: vtask import IN.jsonl|IN.parquet|DIR [--format FORMAT] -o OUT.vtask

Reads a dataset back into a task file. FORMAT is one of: ${[...IMPORT_FORMATS.keys()].join(', ')}
(ifeval: IFEval prompt files {key, prompt, instruction_id_list, kwargs}; qa: {question, answer}
rows such as GSM8K, the answer after '####'; inspect: Inspect json_dataset samples {id, input,
target, metadata}; verifiers: {prompt, answer, info} rows). Without --format it is told from the
columns. DIR is a folder of row files: a Hub dataset (DIR/data/*.parquet, as --format hf writes
it), a verifiers package (DIR/MODULE/data/) or an Inspect task folder (DIR/*.jsonl).
Every row that cannot become a task is reported with its line or row number; the others are
written. A row whose script verifier or environment path leaves the output's folder (such as
../../bin/sh) is not imported: --allow-outside-paths imports it with a warning. The new file is then checked like \`vtask check\` does.
  -f, --format FORMAT     the dataset's format (default: told from the columns)
  -o, --out OUT.vtask     the task file written; required
  --force                 overwrite OUT.vtask when it exists
  --allow-outside-paths   import rows whose program paths leave the output's folder (warned)
Exits 0 when every row was imported into a valid task, 1 otherwise, 2 on usage errors.`;

/** The options of `vtask import`. */
export const importOptions = z.object({
  format: valueOption(
    '--format',
    'the dataset format (default: told from the columns)',
    (v) => {
      if (!IMPORT_FORMATS.has(v))
        throw new UsageError(`unknown format '${v}': one of ${[...IMPORT_FORMATS.keys()].join(', ')}`);
      return v;
    },
    ['-f'],
  ),
  out: valueOption('--out', 'the task file to write', text, ['-o']),
  force: switchOption('--force', 'overwrite OUT'),
  allowOutsidePaths: switchOption('--allow-outside-paths', 'import rows whose program paths leave the folder'),
});

function argsOf({ options, positional }: Parsed<typeof importOptions>): {
  input: string;
  format?: string;
  out: string;
  force: boolean;
  allowOutsidePaths: boolean;
} {
  const [input, other] = positional;
  if (input !== undefined && other !== undefined)
    throw new UsageError(`one input file at a time; got '${input}' and '${other}'`);
  if (!input) throw new UsageError('name the dataset file to import');
  const { out } = options;
  if (!out) throw new UsageError('-o OUT.vtask is required');
  return { ...options, input, out };
}

export async function importCommand(parsed: Parsed<typeof importOptions>, io: CliIO): Promise<number> {
  const args = argsOf(parsed);
  const input = path.resolve(io.cwd, args.input);
  const out = path.resolve(io.cwd, args.out);
  if (!fs.existsSync(input)) throw new UsageError(`'${args.input}' does not exist`);
  const files = fs.statSync(input).isDirectory() ? folderRowFiles(input) : undefined;
  if (files && !files.length)
    throw new UsageError(
      `'${args.input}' holds no row files: a folder is read from DIR/data/, DIR/*/data/ or DIR/ (.parquet, .jsonl)`,
    );
  const type = rowFileType(files?.[0] ?? input);
  if (!type) throw new UsageError(`cannot tell the file type of '${args.input}': .jsonl or .parquet`);
  if (!/\.vtask(\.ya?ml)?$/.test(out)) throw new UsageError(`the output is a task file: end '${args.out}' in .vtask`);
  if (fs.existsSync(out) && !args.force) throw new UsageError(`'${args.out}' exists: remove it or pass --force`);
  if (!fs.existsSync(path.dirname(out))) throw new UsageError(`the folder of '${args.out}' does not exist`);
  let report;
  try {
    report = await importDataset({
      input,
      type,
      ...(files ? { files } : {}),
      format: args.format,
      out,
      allowOutsidePaths: args.allowOutsidePaths,
    });
  } catch (e) {
    io.stderr.write(`vtask import: ${errorMessage(e)}\n`);
    return EXIT.failed;
  }
  for (const b of report.bad) io.stderr.write(`${args.input}:${b.where}: not imported: ${b.reason}\n`);
  for (const w of report.warnings) io.stderr.write(`${args.input}:${w.where}: warning: ${w.reason}\n`);
  const text = fs.readFileSync(out, 'utf8');
  // The new file is checked one task at a time, so a large import stays in bounded memory.
  const pool = openResolvePool(__filename);
  const stream = streamTaskFile(text, pool.parseBatch);
  const errors = stream.fileIssues.filter((i) => i.severity === 'error');
  try {
    for await (const t of stream.tasks) errors.push(...t.issues.filter((i) => i.severity === 'error'));
  } finally {
    await pool.close();
  }
  errors.sort((a, b) => a.start - b.start);
  for (const e of errors.slice(0, 50)) io.stderr.write(formatIssue(args.out, stream.lines, e) + '\n');
  if (errors.length > 50) io.stderr.write(`... and ${errors.length - 50} more errors (vtask check ${args.out})\n`);
  io.stdout.write(
    `${args.out}: ${plural(report.tasks, 'task')} from ${report.format} rows${report.bad.length ? `; ${plural(report.bad.length, 'row')} not imported` : ''}${report.renamed ? `; ${plural(report.renamed, 'repeated id')} given a suffix` : ''}${errors.length ? `; ${plural(errors.length, 'validation error')}` : ''}\n`,
  );
  return report.bad.length || errors.length ? EXIT.failed : EXIT.ok;
}

/**
 * The row files of a dataset folder, in name order: the first of DIR/data (a Hub dataset's
 * shards), DIR/MODULE/data (a verifiers package) and DIR itself (an Inspect task folder) that
 * has any.
 */
function folderRowFiles(dir: string): string[] {
  const rowFiles = (d: string): string[] =>
    fs.existsSync(d) && fs.statSync(d).isDirectory()
      ? fs
          .readdirSync(d)
          .filter((f) => rowFileType(f))
          .sort()
          .map((f) => path.join(d, f))
      : [];
  const modules = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'data' && !e.name.startsWith('.'))
    .map((e) => path.join(dir, e.name, 'data'));
  for (const candidates of [[path.join(dir, 'data')], modules.sort(), [dir]]) {
    const found = candidates.flatMap(rowFiles);
    if (found.length) return found;
  }
  return [];
}

import { recordOr } from '../core/base/record';
import { caseOutcome, runCases, type CaseResult } from '../core/run/cases';
import { JunitReport } from '../core/run/junit';
import { fsReason } from '../core/taskfile/discover';
import { formatIssue } from '../core/taskfile/format';
import type { TaskSpec } from '../core/taskfile/resolve';
import { readChunkedFile } from '../core/taskfile/fileStream';
import { streamChunks, streamTaskFile, type TaskStream } from '../core/taskfile/stream';
import type { LineIndex } from '../core/taskfile/text';
import { Spool } from '../core/util/spool';
import { getPair, toJS } from '../core/base/ynode';
import { checkWritable, listTaskFiles, readTaskText } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
import { isolationField } from './isolation';
import * as z from 'zod';
import { modelOptions, switchOption, text, valueOption, type Parsed } from './options';
import { terminalSafe } from './terminal';

export const testHelp = `Usage: vtask test PATH... [--json] [--junit FILE] [--base-url URL --model NAME]

Runs every case (the verifier's own tests) of every task, without any model. Prints each
case that does not get its expected verdict, then a last line "N passed, N failed" (with
", N undecided" when some cases got no verdict).
A case is undecided when its verifier could not give a verdict here: no judge model, a
missing script, an environment that did not start, a crash or a timeout. Undecided is not
a pass: the command fails until every case can run.
  --json          print one JSON object instead: {passed, failed, skipped, undecided, results: [...]}
  --junit FILE    also write a JUnit XML report to FILE (undecided cases are errors)
  --base-url URL --model NAME   the judge model for cases of judge verifiers
Exits 0 when every case passes and every file is valid, 1 otherwise (a failed, undecided
or invalid case), 2 on usage errors.`;

interface TestArgs {
  paths: string[];
  json: boolean;
  junit?: string;
  baseUrl?: string;
  model?: string;
}

/** The options of `vtask test`. */
export const testOptions = z.object({
  json: switchOption('--json', 'print one JSON object instead'),
  junit: valueOption('--junit', 'also write a JUnit XML report to FILE', text),
  ...modelOptions,
});

function argsOf({ options, positional }: Parsed<typeof testOptions>): TestArgs {
  if (positional.length === 0) throw new UsageError('give at least one file or folder');
  if (options.junit !== undefined) checkWritable(options.junit, '--junit');
  return { paths: positional, ...options };
}

const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);

/** Tasks whose cases run together: results are handled a batch at a time, in file order. */
const BATCH = 256;

/** What a test run adds up over its files, and the reports it writes as it goes. */
interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  undecided: number;
  invalid: number;
  /** With --json: the results array's elements, joined by commas. */
  readonly json?: Spool;
  readonly junit?: JunitReport;
}

/**
 * Runs every case of every file. Memory is bounded whatever the size: each file's tasks are read
 * one at a time, their cases run a batch at a time, and only counts stay; the lines and reports
 * to write wait in spools (memory, then a temporary file). The tasks are parsed on this thread:
 * parse threads would run beside the verifiers, which keep this one busy, and cost more CPU and
 * memory in all (100,000 tasks: 13.2 s and 369 MB with them, 10.8 s and 244 MB without).
 */
export async function test(parsed: Parsed<typeof testOptions>, io: CliIO): Promise<number> {
  const args = argsOf(parsed);
  // Problems go to stderr with --json, so stdout stays one JSON object.
  const problemsTo = args.json ? io.stderr : io.stdout;
  const listed = listTaskFiles(args.paths, problemsTo);
  const tally: Tally = {
    passed: 0,
    failed: 0,
    skipped: 0,
    undecided: 0,
    invalid: listed.errors,
    ...(args.json ? { json: new Spool() } : {}),
    ...(args.junit ? { junit: new JunitReport() } : {}),
  };
  try {
    for (const file of listed.files) await testFile(file, args, io, problemsTo, tally);
    if (args.junit && tally.junit) {
      try {
        await tally.junit.write(args.junit);
      } catch (e) {
        io.stderr.write(`${args.junit}: error: cannot write the JUnit report: ${fsReason(e)}\n`);
        tally.invalid++;
      }
    }
    const { passed, failed, skipped, undecided, invalid } = tally;
    if (tally.json) {
      // The same text as JSON.stringify of the whole object, the results written from the spool.
      await write(io.stdout, JSON.stringify({ passed, failed, skipped, undecided, invalid, results: [] }).slice(0, -2));
      await tally.json.drainTo(io.stdout);
      await write(io.stdout, ']}\n');
    } else {
      if (skipped) io.stdout.write(`${skipped} skipped: refused in an untrusted workspace\n`);
      io.stdout.write(
        `${passed} passed, ${failed} failed${undecided ? `, ${undecided} undecided (their verifier could not give a verdict here; see above)` : ''}\n`,
      );
    }
    return failed > 0 || undecided > 0 || invalid > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    tally.json?.close();
    tally.junit?.close();
  }
}

/** Writes `s`, waiting when the stream buffers (a pipe read slower than written). */
async function write(out: CliIO['stdout'], s: string): Promise<void> {
  if (out.write(s) === false && out.once) await new Promise<void>((resolve) => out.once?.('drain', resolve));
}

/** A file's tasks, read a block at a time when it can be; else whole, which reports what is wrong with the file. */
function taskStreamOf(file: string): { error: string } | { stream: TaskStream; problems: readonly string[] } {
  const chunked = readChunkedFile(file);
  if (chunked) return { stream: streamChunks(chunked), problems: [] };
  const read = readTaskText(file);
  return 'error' in read ? read : { stream: streamTaskFile(read.text), problems: read.problems };
}

/** Tests one file: its validation errors first, then each case that did not pass, as before streaming. */
async function testFile(
  file: string,
  args: TestArgs,
  io: CliIO,
  problemsTo: CliIO['stdout'],
  tally: Tally,
): Promise<void> {
  tally.junit?.begin(file);
  const read = taskStreamOf(file);
  if ('error' in read) {
    problemsTo.write(read.error + '\n');
    tally.junit?.error(read.error);
    await tally.junit?.end();
    tally.invalid++;
    return;
  }
  const { stream } = read;
  const error = async (e: string): Promise<void> => {
    tally.invalid++;
    tally.junit?.error(e);
    if (!args.json) await write(io.stdout, terminalSafe(e) + '\n');
  };
  for (const p of read.problems) await error(p);
  // Issues outside the tasks take their place among the tasks' by offset, as in the whole-file parse.
  const fileErrors = stream.fileIssues.filter((i) => i.severity === 'error').sort((a, b) => a.start - b.start);
  let nextFileError = 0;
  const fileErrorsBefore = async (offset: number): Promise<void> => {
    for (let issue = fileErrors[nextFileError]; issue && issue.start < offset; issue = fileErrors[++nextFileError])
      await error(formatIssue(file, stream.lines, issue));
  };
  const models = stream.parts
    .map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined))
    .find((m) => m?.type === 'map');
  // A judge without a model of its own takes the first task's model met so far.
  let taskModel: string | undefined;
  const judge = judgeProviders(recordOr(toJS(models)), args, () => taskModel);
  // The cases that did not pass are listed after the file's errors.
  const notPassed = new Spool();
  try {
    let batch: TaskSpec[] = [];
    const runBatch = async (): Promise<void> => {
      taskModel ??= batch.find((t) => t.sampling.model)?.sampling.model;
      const results = await runCases(batch, { file, judge });
      batch = [];
      for (const r of results) count(r, file, stream.lines, args, tally, notPassed);
    };
    for await (const t of stream.tasks) {
      await fileErrorsBefore(t.entry.offset);
      for (const i of [...t.issues].sort((a, b) => a.start - b.start))
        if (i.severity === 'error') await error(formatIssue(file, stream.lines, i));
      if (!t.spec) continue;
      batch.push(t.spec);
      if (batch.length >= BATCH) await runBatch();
    }
    await fileErrorsBefore(Infinity);
    if (batch.length) await runBatch();
    await notPassed.drainTo(io.stdout);
  } finally {
    notPassed.close();
  }
  await tally.junit?.end();
}

/** Counts one case's outcome, and adds it to the lines and reports that list it. */
function count(r: CaseResult, file: string, lines: LineIndex, args: TestArgs, tally: Tally, notPassed: Spool): void {
  const outcome = caseOutcome(r);
  if (outcome === 'skipped') tally.skipped++;
  else if (outcome === 'undecided') tally.undecided++;
  else if (outcome === 'passed') tally.passed++;
  else tally.failed++;
  tally.junit?.result(r);
  if (!args.json && outcome !== 'passed') {
    const p = lines.position(r.offset);
    // An undecided case says why it got no verdict; a failed one, what it got instead.
    const what =
      outcome === 'failed'
        ? `fail: task ${r.task} case ${r.case}: expected ${label(r.expected)}, got ${label(r.actual)}`
        : `${outcome === 'skipped' ? 'skipped' : r.verdict.error}: task ${r.task} case ${r.case}`;
    notPassed.add(terminalSafe(`${file}:${p.line + 1}:${p.character + 1}: ${what}: ${r.verdict.reason}`) + '\n');
  }
  if (tally.json) {
    const item = {
      file,
      task: r.task,
      case: r.case,
      ...(r.name ? { name: r.name } : {}),
      expected: r.expected,
      actual: r.actual,
      ok: r.ok,
      ...(outcome === 'skipped' ? { skipped: true } : {}),
      ...(outcome === 'undecided' ? { undecided: true } : {}),
      score: r.verdict.score,
      reason: r.verdict.reason,
      ...(r.verdict.error ? { error: r.verdict.error } : {}),
      ...isolationField(r.verdict),
    };
    tally.json.add((tally.json.empty ? '' : ',') + JSON.stringify(item));
  }
}

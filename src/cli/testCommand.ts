import fs from 'node:fs';
import { caseOutcome, runCases, type CaseResult } from '../core/run/cases';
import { junitXml, type JunitFile } from '../core/run/junit';
import { fsReason } from '../core/taskfile/discover';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFile } from '../core/taskfile/parse';
import { runnableTasks } from '../core/taskfile/resolve';
import { getPair, toJS } from '../core/base/ynode';
import { checkWritable, listTaskFiles, readTaskText } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import { judgeProviders } from './judges';
import { isolationField } from './isolation';
import { unknownOption } from './options';
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

function parseArgs(args: readonly string[]): TestArgs {
  const out: TestArgs = { paths: [], json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--json') out.json = true;
    else if (a === '--junit') {
      const f = args[++i];
      if (!f) throw new UsageError('--junit needs a file name');
      out.junit = f;
    } else if (a.startsWith('--junit=')) out.junit = a.slice('--junit='.length);
    else if (a === '--base-url' || a === '--model') {
      const v = args[++i];
      if (!v) throw new UsageError(`${a} needs a value`);
      if (a === '--base-url') out.baseUrl = v;
      else out.model = v;
    }
    else if (a.startsWith('-')) throw unknownOption(a, ['--json', '--junit', '--base-url', '--model']);
    else out.paths.push(a);
  }
  if (out.paths.length === 0) throw new UsageError('give at least one file or folder');
  if (out.junit !== undefined) checkWritable(out.junit, '--junit');
  return out;
}

const label = (e: CaseResult['expected']): string => (typeof e === 'string' ? e : `score ${e.score}`);

export async function test(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv);
  // Problems go to stderr with --json, so stdout stays one JSON object.
  const problemsTo = args.json ? io.stderr : io.stdout;
  const listed = listTaskFiles(args.paths, problemsTo);
  const report: JunitFile[] = [];
  const json: Record<string, unknown>[] = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let undecided = 0;
  let invalid = listed.errors;
  for (const file of listed.files) {
    const read = readTaskText(file);
    if ('error' in read) {
      problemsTo.write(read.error + '\n');
      if (args.junit) report.push({ file, results: [], errors: [read.error] });
      invalid++;
      continue;
    }
    const parsed = parseTaskFile(read.text);
    const errors = [...read.problems, ...parsed.issues.filter((i) => i.severity === 'error').map((i) => formatIssue(file, parsed.lines, i))];
    invalid += errors.length;
    if (!args.json) for (const e of errors) io.stdout.write(terminalSafe(e) + '\n');
    const { tasks } = runnableTasks(parsed);
    const models = parsed.parts.map((p) => (p.node ? getPair(p.node, 'models')?.value : undefined)).find((m) => m?.type === 'map');
    const judge = judgeProviders((toJS(models) as Record<string, unknown>) ?? {}, args, () => tasks.find((t) => t.sampling.model)?.sampling.model);
    const results = await runCases(tasks, { file, judge });
    // Results are kept past their file only for the reports that list them: memory is otherwise
    // the current file's alone, whatever the number of files.
    if (args.junit) report.push({ file, results, errors });
    for (const r of results) {
      const outcome = caseOutcome(r);
      if (outcome === 'skipped') skipped++;
      else if (outcome === 'undecided') undecided++;
      else if (outcome === 'passed') passed++;
      else failed++;
      if (!args.json && outcome !== 'passed') {
        const p = parsed.lines.position(r.offset);
        // An undecided case says why it got no verdict; a failed one, what it got instead.
        const what = outcome === 'failed' ? `fail: task ${r.task} case ${r.case}: expected ${label(r.expected)}, got ${label(r.actual)}` : `${outcome === 'skipped' ? 'skipped' : r.verdict.error}: task ${r.task} case ${r.case}`;
        io.stdout.write(terminalSafe(`${file}:${p.line + 1}:${p.character + 1}: ${what}: ${r.verdict.reason}`) + '\n');
      }
      if (args.json) json.push({ file, task: r.task, case: r.case, ...(r.name ? { name: r.name } : {}), expected: r.expected, actual: r.actual, ok: r.ok, ...(outcome === 'skipped' ? { skipped: true } : {}), ...(outcome === 'undecided' ? { undecided: true } : {}), score: r.verdict.score, reason: r.verdict.reason, ...(r.verdict.error ? { error: r.verdict.error } : {}), ...isolationField(r.verdict) });
    }
  }
  if (args.junit) {
    try {
      fs.writeFileSync(args.junit, junitXml(report));
    } catch (e) {
      io.stderr.write(`${args.junit}: error: cannot write the JUnit report: ${fsReason(e)}\n`);
      invalid++;
    }
  }
  if (args.json) io.stdout.write(JSON.stringify({ passed, failed, skipped, undecided, invalid, results: json }) + '\n');
  else {
    if (skipped) io.stdout.write(`${skipped} skipped: refused in an untrusted workspace\n`);
    io.stdout.write(`${passed} passed, ${failed} failed${undecided ? `, ${undecided} undecided (their verifier could not give a verdict here; see above)` : ''}\n`);
  }
  return failed > 0 || undecided > 0 || invalid > 0 ? EXIT.failed : EXIT.ok;
}

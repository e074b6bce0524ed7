import { withheldIssues } from '../core/sampling/trust';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFileInThreads } from '../core/taskfile/parallel';
import { missingFileIssues } from '../core/taskfile/referencedFiles';
import { plural } from '../core/util/plural';
import { listTaskFiles, readTaskText } from './files';
import { EXIT, UsageError, type CliIO } from './io';
import * as z from 'zod';
import type { Parsed } from './options';
import { terminalSafe } from './terminal';

export const checkHelp = `Usage: vtask check PATH...

Validates task files (folders are searched for *.vtask, *.vtask.yaml, *.vtask.yml) and
prints one line per problem: file:line:col: error: message. An agent task's environment
and a script verifier's file must exist (relative to the task file, as a run finds them).
A model profile of the file that names secrets (api_key_env, \${env:VAR} headers) for an
endpoint not allowed with --trust-endpoint or --allow-key-env is a warning: vtask run would
send its requests without them.
Exits 0 when every file is valid, 1 when any has an error, 2 on usage errors.`;

/** The options of `vtask check`: none of its own. */
export const checkOptions = z.object({});

export async function check({ positional: paths }: Parsed<typeof checkOptions>, io: CliIO): Promise<number> {
  if (paths.length === 0) throw new UsageError('give at least one file or folder');
  const listed = listTaskFiles(paths, io.stdout);
  const files = listed.files;
  let errors = listed.errors;
  let warnings = 0;
  let tasks = 0;
  for (const file of files) {
    const read = readTaskText(file);
    if ('error' in read) {
      io.stdout.write(read.error + '\n');
      errors++;
      continue;
    }
    for (const p of read.problems) io.stdout.write(p + '\n');
    errors += read.problems.length;
    // This very script doubles as the parse worker (see main.ts).
    const parsed = await parseTaskFileInThreads(read.text, __filename);
    tasks += parsed.tasks.length;
    // Issues in the file's order: an environment or script that is not there, and profiles whose
    // secrets would be held back (see --trust-endpoint), among the rest.
    const issues = [...parsed.issues, ...missingFileIssues(parsed, file), ...withheldIssues(parsed.parts)].sort(
      (a, b) => a.start - b.start,
    );
    for (const issue of issues) {
      io.stdout.write(terminalSafe(formatIssue(file, parsed.lines, issue)) + '\n');
      if (issue.severity === 'error') errors++;
      else if (issue.severity === 'warning') warnings++;
    }
  }
  io.stderr.write(
    `checked ${plural(files.length, 'file')}, ${plural(tasks, 'task')}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`,
  );
  return errors > 0 ? EXIT.failed : EXIT.ok;
}

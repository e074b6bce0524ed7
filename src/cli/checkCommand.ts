import { errorMessage } from '../core/base/errorMessage';
import fs from 'node:fs';
import { findTaskFiles } from '../core/taskfile/discover';
import { formatIssue } from '../core/taskfile/format';
import { parseTaskFileInThreads } from '../core/taskfile/parallel';
import { EXIT, UsageError, type CliIO } from './io';

export const checkHelp = `Usage: vtask check PATH...

Validates task files (folders are searched for *.vtask, *.vtask.yaml, *.vtask.yml) and
prints one line per problem: file:line:col: error: message.
Exits 0 when every file is valid, 1 when any has an error, 2 on usage errors.`;

export async function check(paths: readonly string[], io: CliIO): Promise<number> {
  const flag = paths.find((a) => a.startsWith('-'));
  if (flag) throw new UsageError(`unknown option '${flag}'`);
  if (paths.length === 0) throw new UsageError('vtask check needs at least one file or folder');
  const files = findTaskFiles(paths);
  let errors = 0;
  let warnings = 0;
  let tasks = 0;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      io.stdout.write(`${file}:1:1: error: cannot read the file: ${errorMessage(e)}\n`);
      errors++;
      continue;
    }
    // This very script doubles as the parse worker (see main.ts).
    const parsed = await parseTaskFileInThreads(text, __filename);
    tasks += parsed.tasks.length;
    for (const issue of parsed.issues) {
      io.stdout.write(formatIssue(file, parsed.lines, issue) + '\n');
      if (issue.severity === 'error') errors++;
      else if (issue.severity === 'warning') warnings++;
    }
  }
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  io.stderr.write(`checked ${plural(files.length, 'file')}, ${plural(tasks, 'task')}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`);
  return errors > 0 ? EXIT.failed : EXIT.ok;
}

// The files a task file names (an agent task's environment, a `script` verifier's path) must be
// there when its tasks run. Checking needs the task file's folder and the disk, so it is kept
// apart from validation, which reads only the text (and is cached by it). `vtask check` and the
// editor's problems both report what this finds.
import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from '../base/record';
import type { Issue } from '../base/issues';
import { fsReason } from './discover';
import type { TaskFile } from './parse';
import type { FileRef } from './validate';

const WHAT: Readonly<Record<FileRef['kind'], string>> = { environment: 'the environment', script: 'the script' };

/**
 * An error at each file name of `parsed` whose file is not there, resolved against the folder
 * of `taskFile` as a run resolves it. Each file is looked at once, however many tasks name it.
 */
export function missingFileIssues(parsed: TaskFile, taskFile: string): Issue[] {
  const dir = path.dirname(path.resolve(taskFile));
  const problems = new Map<string, string | undefined>();
  const out: Issue[] = [];
  const check = (ref: FileRef, offset: number): void => {
    const file = path.resolve(dir, ref.path);
    if (!problems.has(file)) problems.set(file, problemOf(file));
    const problem = problems.get(file);
    if (problem)
      out.push({
        code: 'missing-file',
        severity: 'error',
        message: `${WHAT[ref.kind]} ${ref.path} ${problem}`,
        start: offset + ref.start,
        end: offset + Math.max(ref.end, ref.start + 1),
      });
  };
  for (const p of parsed.parts) for (const r of p.files ?? []) check(r, p.offset);
  for (const t of parsed.tasks) for (const r of t.files ?? []) check(r, t.offset);
  return out.sort((a, b) => a.start - b.start);
}

/** Why a named file cannot be run, in the words a run would use; undefined when it is a file. */
function problemOf(file: string): string | undefined {
  try {
    return fs.statSync(file).isFile() ? undefined : 'is not a file';
  } catch (e) {
    const code = errnoOf(e).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? `was not found (looked for ${file})`
      : `cannot be read: ${fsReason(e)}`;
  }
}

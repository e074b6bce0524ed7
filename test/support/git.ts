// git in a test's own repository, with a fixed author so a commit needs no user configuration
// (CI machines and containers have none).
import { execFileSync } from 'node:child_process';

/** Runs `git ARGS` in `dir` and returns its output. */
export function gitIn(dir: string): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });
}

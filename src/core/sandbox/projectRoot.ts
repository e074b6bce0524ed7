// The folder that scripts and environments may read: the task file's own, or a root the user
// configured (`--root DIR`, the editor's workspace folder). Never an ancestor found by walking
// up to a `.git` or `package.json`: for a user whose home folder is a dotfiles repository, that
// ancestor is the home folder, `~/.ssh` and every other project included.
import path from 'node:path';

let roots: readonly string[] = [];

/** Set by the CLI (`--root`) and by the extension (its workspace folders); absolute paths. */
export function setProjectRoots(dirs: readonly string[]): void {
  roots = dirs.map((d) => path.resolve(d));
}

/** True when `p` is `dir` or inside it. */
export function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The root a task file in `taskDir` may read: the innermost configured root holding it, else `taskDir`. */
export function projectRoot(taskDir: string): string {
  const dir = path.resolve(taskDir);
  const holding = roots.filter((r) => isInside(dir, r)).sort((a, b) => b.length - a.length);
  return holding[0] ?? dir;
}

/**
 * The read-only folders of a task's program (a script or an environment): the task's root, when
 * the program lies inside it; otherwise a sentence saying why it may not run.
 */
export function readableFolders(
  taskDir: string,
  program: string,
  what: string,
): { readonly folders: string[] } | { readonly error: string } {
  const root = projectRoot(taskDir);
  if (isInside(path.resolve(program), root)) return { folders: [root] };
  return {
    error: `the ${what} ${program} is outside the folder it may read (${root}): move it there, or give that folder's parent with --root DIR (in VS Code: open the folder holding both)`,
  };
}

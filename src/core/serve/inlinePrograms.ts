// Which inline verifiers (sent in a request, not read from the served task files) name a program
// to run, and whether such a program lies inside the served folders. The served files and the
// operator are trusted; a client is not, so by default it may not pick what runs.
//
// `code` is not such a kind: it runs the model's answer (what it is for), in the sandbox, with
// vtask's own interpreter for the `language` (python or javascript) and nothing of the project
// mounted; a request cannot name an interpreter or a path. `script` is: its `path` and `args`
// choose an executable and its command line.
import fs from 'node:fs';
import path from 'node:path';
import { kindOf } from '../verifiers/verify';
import { isRecord } from '../base/record';

/** Kinds whose parameters name a program for vtask to run. */
const PROGRAM_KINDS: ReadonlySet<string> = new Set(['script']);

export interface InlineProgram {
  /** Where in the request: `verifier.all[1].script`. */
  readonly at: string;
  /** The program's path as given. */
  readonly path: string;
}

/** The verifiers of a validated verifier (composites searched) that name a program to run. */
export function inlinePrograms(verifier: unknown, at = 'verifier'): InlineProgram[] {
  const found = kindOf(verifier);
  if ('error' in found) return [];
  const { kind, params } = found;
  const here = `${at}.${kind.kind}`;
  if (PROGRAM_KINDS.has(kind.kind)) return [{ at: here, path: typeof params.path === 'string' ? params.path : '' }];
  const items = kind.listField ? params[kind.listField] : undefined;
  if (!Array.isArray(items) || kind.listItems === 'instructions') return [];
  return items.flatMap((item: unknown, i) => {
    if (kind.listItems === 'verifiers') return inlinePrograms(item, `${here}[${i}]`);
    // `weighted` items: `{weight, verify}`.
    const child = isRecord(item) ? item.verify : undefined;
    return child === undefined ? [] : inlinePrograms(child, `${here}[${i}].verify`);
  });
}

/** The path with every existing part's symlinks resolved (a missing tail is kept as written). */
export function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realPath(parent), path.basename(p));
  }
}

function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** True when `file` (absolute), symlinks followed, lies inside one of `roots` (real paths). */
export function insideRoots(file: string, roots: readonly string[]): boolean {
  const real = realPath(file);
  return roots.some((r) => within(r, real));
}

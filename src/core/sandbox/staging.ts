// Read-only folders the run's own user cannot reach. As root, each run gets an unprivileged user
// of its own (see `runUid`), and a task in a folder other users cannot enter (`/root/...`, a
// `mktemp -d`) would be invisible to it: bubblewrap, started as that user, cannot even find the
// folder to mount it. Such a folder is copied into the run's private folder, owned by the run's
// user, and mounted at its own path: the program sees what others could see of the folder had
// its parents been open (the folder, and within it what others may read), and nothing above it.
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR_NAME } from '../sampling/cacheDir';

/** The most a copied folder may hold: beyond it, the run is refused with how to open the folder. */
export const STAGE_LIMIT_BYTES = 256 * 1024 * 1024;
export const STAGE_LIMIT_ENTRIES = 20_000;
/** Never needed by a program, and often large. */
const SKIPPED = new Set(['.git', CACHE_DIR_NAME]);

const OTHERS_R = 0o004;
const OTHERS_X = 0o001;

/** True when a user with no relation to the path's owners may reach and read it (by its mode bits). */
export function othersCanRead(p: string): boolean {
  try {
    for (let d = path.dirname(p); ; d = path.dirname(d)) {
      if (!(fs.statSync(d).mode & OTHERS_X)) return false;
      if (d === path.dirname(d)) break;
    }
    const st = fs.statSync(p);
    return Boolean(st.mode & OTHERS_R) && (!st.isDirectory() || Boolean(st.mode & OTHERS_X));
  } catch {
    // A path that does not exist is left to the sandbox, which says so.
    return true;
  }
}

/** Thrown when a folder is too large to copy for every run. */
export class StageError extends Error {}

/**
 * Copies each of `paths` the run's user cannot reach into `into` (its private folder), owned by
 * `uid`, and returns path → copy. Paths others can read are left out: they are mounted as they are.
 */
export async function stageUnreachable(
  paths: readonly string[],
  into: string,
  uid: number,
): Promise<Map<string, string>> {
  const copies = new Map<string, string>();
  const budget = { bytes: STAGE_LIMIT_BYTES, entries: STAGE_LIMIT_ENTRIES };
  for (const p of new Set(paths)) {
    if (othersCanRead(p)) continue;
    const copy = path.join(into, '.ro', String(copies.size));
    await fs.promises.mkdir(path.dirname(copy), { recursive: true });
    await fs.promises.chown(path.dirname(copy), uid, uid);
    await copyVisible(p, copy, uid, budget, p);
    copies.set(p, copy);
  }
  return copies;
}

async function copyVisible(
  from: string,
  to: string,
  uid: number,
  budget: { bytes: number; entries: number },
  top: string,
): Promise<void> {
  const st = await fs.promises.lstat(from);
  if (--budget.entries < 0) throw tooLarge(top);
  if (st.isDirectory()) {
    await fs.promises.mkdir(to, { mode: 0o755 });
    for (const e of await fs.promises.readdir(from, { withFileTypes: true })) {
      if (SKIPPED.has(e.name)) continue;
      const child = path.join(from, e.name);
      // Below the folder itself, only what others may read: a private file stays private.
      const cst = await fs.promises.lstat(child);
      const visible = cst.isSymbolicLink() || (cst.mode & OTHERS_R && (!cst.isDirectory() || cst.mode & OTHERS_X));
      if (visible) await copyVisible(child, path.join(to, e.name), uid, budget, top);
    }
  } else if (st.isFile()) {
    budget.bytes -= st.size;
    if (budget.bytes < 0) throw tooLarge(top);
    await fs.promises.copyFile(from, to);
    // Readable, and executable where it was: scripts run by their shebang.
    await fs.promises.chmod(to, st.mode & 0o111 ? 0o555 : 0o444);
  } else if (st.isSymbolicLink()) {
    // As it is: it resolves inside the sandbox, where only the mounted folders exist.
    await fs.promises.symlink(await fs.promises.readlink(from), to);
  } else return;
  await fs.promises.lchown(to, uid, uid);
}

function tooLarge(p: string): StageError {
  return new StageError(
    `${p} is in a folder other users cannot enter, so the sandbox's user (vtask runs programs as an unprivileged user of their own when it runs as root) gets a copy of it for each run, and it holds more than ${STAGE_LIMIT_BYTES / 1024 / 1024} MiB or ${STAGE_LIMIT_ENTRIES} entries: let others enter the folders above it (chmod o+x) or move the dataset to a folder others can read`,
  );
}

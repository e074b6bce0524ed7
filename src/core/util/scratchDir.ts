// A private folder in the system's temporary folder for data too large to hold in memory (the
// duplicate search's spilled prompts and sorted runs). It is removed when the work is done, when
// it fails, and, should the process end first (a second Ctrl-C exits at once), on exit. A
// process that cannot run its exit handler (killed, or out of memory) leaves its folder behind:
// its name holds the process id, and the next scratch folder of the same kind removes the
// folders of processes that are gone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders not yet removed, for the exit handler. */
const open = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of open) fs.rmSync(dir, { recursive: true, force: true });
  open.clear();
}

/** False when no process has this id (a process of another user still counts as alive). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return !(e instanceof Error && 'code' in e && e.code === 'ESRCH');
  }
}

/** Removes the folders `vtask-<prefix>-<pid>-*` of processes that are gone. */
function sweep(tmp: string, prefix: string): void {
  const mine = new RegExp(`^vtask-${prefix}-(\\d+)-`);
  try {
    for (const name of fs.readdirSync(tmp)) {
      const pid = Number(mine.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
    }
  } catch {
    // Another process sweeping at the same time, or a folder not ours: it stays.
  }
}

export class ScratchDir {
  readonly path: string;

  constructor(prefix: string) {
    const tmp = os.tmpdir();
    sweep(tmp, prefix);
    this.path = fs.mkdtempSync(path.join(tmp, `vtask-${prefix}-${process.pid}-`));
    open.add(this.path);
    if (!hooked) {
      hooked = true;
      process.on('exit', removeAll);
    }
  }

  /** A file of this folder, opened for reading and writing (created empty, readable by this user only). */
  file(name: string): number {
    return fs.openSync(path.join(this.path, name), 'w+', 0o600);
  }

  /** Removes the folder and what is in it. */
  remove(): void {
    fs.rmSync(this.path, { recursive: true, force: true });
    open.delete(this.path);
  }
}

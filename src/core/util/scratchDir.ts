// A private folder in the system's temporary folder for data too large to hold in memory (the
// duplicate search's spilled prompts and sorted runs). It is removed when the work is done, when
// it fails, and, should the process end first (a second Ctrl-C exits at once), on exit.
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

export class ScratchDir {
  readonly path: string;

  constructor(prefix: string) {
    this.path = fs.mkdtempSync(path.join(os.tmpdir(), `vtask-${prefix}-`));
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

// Which task files are unchanged since a run read them, told without reading them: per file, its
// stat when it was last read whole (size, modification and change times, inode, device) and the
// hash of the text read. A file whose stat is the same has the same text, with two cautions:
// - The change time is compared too: a tool can set the modification time back (`touch -d`,
//   `cp -p`, an archive unpacked) but not the change time, which any write or rename moves.
// - Timestamps are coarse (a clock tick; two seconds on FAT), so a file written twice within one
//   tick keeps its stat. An entry whose file changed less than RACY_MS before it was read is
//   not trusted: the file is read and hashed again, and trusted once it has been still that long.
import type fs from 'node:fs';

/** How long a file must have been unchanged when it was read for its stat to stand for its text. */
export const RACY_MS = 2000;

/** size, mtimeMs, ctimeMs, ino, dev, when the stat was taken (ms since the epoch), text hash. */
type Entry = [number, number, number, number, number, number, string];

export class StatIndex {
  private readonly entries: Map<string, Entry>;
  private dirty = false;

  /** From the text `save` wrote (anything else is an empty index). */
  constructor(text: string | undefined) {
    this.entries = new Map();
    if (text === undefined) return;
    try {
      const o = JSON.parse(text) as Record<string, unknown>;
      for (const [file, e] of Object.entries(o)) if (isEntry(e)) this.entries.set(file, e);
    } catch {
      // A damaged index only costs reading the files again.
    }
  }

  /** The hash of `file`'s text when `st` (its stat now) is the one it had when last read. */
  hashOf(file: string, st: fs.Stats): string | undefined {
    const e = this.entries.get(file);
    if (!e || e[0] !== st.size || e[1] !== st.mtimeMs || e[2] !== st.ctimeMs || e[3] !== st.ino || e[4] !== st.dev)
      return undefined;
    return e[5] - Math.max(e[1], e[2]) >= RACY_MS ? e[6] : undefined;
  }

  /** Records that `file`, whose stat was `st` at `statAt` (taken before reading it), holds text hashing to `hash`. */
  set(file: string, st: fs.Stats, statAt: number, hash: string): void {
    this.entries.set(file, [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.dev, statAt, hash]);
    this.dirty = true;
  }

  /** Forgets `file` (its text was not the disk's, or could not be read as it is). */
  delete(file: string): void {
    if (this.entries.delete(file)) this.dirty = true;
  }

  /** The index as text, when it changed since it was read; `exists` drops files that are gone. */
  changes(exists: (file: string) => boolean): string | undefined {
    if (!this.dirty) return undefined;
    for (const file of this.entries.keys()) if (!exists(file)) this.entries.delete(file);
    this.dirty = false;
    return JSON.stringify(Object.fromEntries(this.entries));
  }
}

function isEntry(e: unknown): e is Entry {
  return (
    Array.isArray(e) && e.length === 7 && e.slice(0, 6).every((v) => typeof v === 'number') && typeof e[6] === 'string'
  );
}

// One scratch store for the rows that summaries (taskRows.ts) do not keep in memory, shared by
// every summary of the process. A store per summary cost its three spill files' buffers (about
// 6 MB) and three descriptors, so only a file of more than 16,384 tasks spilled, and a dataset of
// many smaller files kept every row in memory, about 63 bytes a task. Shared, a row of any file
// can spill, and memory holds a budget of rows across all summaries (ROWS_IN_MEMORY).
//
// A store is removed once the last summary that wrote to it is closed or collected. Summaries
// come and go while the dashboard is open, and the rows of those gone stay in their store's
// files: once a store holds ROTATE_AFTER such rows, summaries that spill next start a new one, so
// that the old one goes with the last of its summaries rather than growing for as long as the
// process lives. A command that closes no summary keeps one store (and one store's buffers).
import { ScratchDir } from '../../util/scratchDir';
import { SpillFile } from '../prompts/spillFile';

/** Rows of all summaries held in typed arrays at once, about 60 bytes each; the rest spill. */
export const ROWS_IN_MEMORY = 1 << 16;

/** Rows of closed summaries in a store after which summaries that start spilling start a new store. */
const ROTATE_AFTER = 1 << 20;

/** A spilled row's record: line, cases (4 bytes each), kind (2), has an outcome (1), run key (20), outcome (4 × 4). */
export const RECORD = 47;

export class RowStore {
  private readonly dir = new ScratchDir('rows');
  /** A record of RECORD bytes per row. */
  readonly records = new SpillFile(this.dir, 'records', RECORD);
  /** A row's id as UTF-16, the same index as its record. */
  readonly ids = new SpillFile(this.dir, 'ids');
  /** Summaries that wrote to it and are not closed. */
  users = 0;
  /** Its rows that belong to closed summaries. */
  dead = 0;

  /** Appends a row; its index, for `records` and `ids`. */
  append(record: Uint8Array, id: Uint8Array): number {
    const at = this.records.length;
    this.records.append(record);
    this.ids.append(id);
    return at;
  }

  remove(): void {
    this.records.close();
    this.ids.close();
    this.dir.remove();
  }
}

let current: RowStore | undefined;
let inMemory = 0;

/** The store to spill to, counted as used until `leaveRowStore`. */
export function joinRowStore(): RowStore {
  if (!current || current.dead >= ROTATE_AFTER) current = new RowStore();
  current.users++;
  return current;
}

/** One summary, which wrote `rows` rows to `store`, is done with it: the last one's going removes it. */
export function leaveRowStore(store: RowStore, rows: number): void {
  store.dead += rows;
  if (--store.users > 0) return;
  if (current === store) current = undefined;
  store.remove();
}

/** Takes room for one row in memory, if the budget has any. */
export function takeMemoryRow(): boolean {
  if (inMemory >= ROWS_IN_MEMORY) return false;
  inMemory++;
  return true;
}

/** Gives back the room of `rows` rows taken with takeMemoryRow. */
export function giveMemoryRows(rows: number): void {
  inMemory = Math.max(0, inMemory - rows);
}

// A file's prompts as its summary is made (summary.ts), until they are written to the cache
// folder: a million-task file's prompts would be a million strings held through its whole parse
// (and each could hold on to the block of text it was cut from). Up to SPILL_AFTER are kept in
// memory; past that, all go to a scratch folder (the duplicate search's spill file) and only their
// offsets stay.
import { ScratchDir } from '../../util/scratchDir';
import { SpillFile } from '../prompts/spillFile';

/** Prompts kept in memory before they go to a scratch folder (making one per small file would cost more). */
const SPILL_AFTER = 10_000;

export class PromptSpool {
  private kept: string[] | undefined = [];
  private dir: ScratchDir | undefined;
  private file: SpillFile | undefined;

  get length(): number {
    return this.kept?.length ?? this.file?.length ?? 0;
  }

  add(prompt: string): void {
    if (this.kept && this.kept.length < SPILL_AFTER) {
      this.kept.push(prompt);
      return;
    }
    if (!this.file) {
      this.dir = new ScratchDir('prompts');
      this.file = new SpillFile(this.dir, 'prompts');
      for (const p of this.kept ?? []) this.file.append(Buffer.from(p, 'utf8'));
      this.kept = undefined;
    }
    this.file.append(Buffer.from(prompt, 'utf8'));
  }

  /** The prompts in order. */
  *[Symbol.iterator](): Generator<string> {
    if (this.kept) yield* this.kept;
    else if (this.file) for (let i = 0; i < this.file.length; i++) yield this.file.read(i).toString('utf8');
  }

  /** Removes the scratch folder, if there is one. */
  close(): void {
    this.file?.close();
    this.dir?.remove();
    this.file = undefined;
    this.dir = undefined;
    this.kept = [];
  }
}

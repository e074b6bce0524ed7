// Curation on export: which tasks go in, and into which split. Everything is decided by hashes
// of the seed and the task id, so the same files and flags give the same dataset on any
// machine, and adding a task never moves another task to a different split.
import { createHash } from 'node:crypto';
import { at } from '../util/must';

/** A number in [0, 1) fixed by the seed, a purpose and a key. */
export function unitHash(seed: number, purpose: string, key: string): number {
  const h = createHash('sha256').update(`${seed}\0${purpose}\0${key}`).digest();
  return h.readUInt32BE(0) / 2 ** 32;
}

export interface SplitShare {
  readonly name: string;
  readonly share: number;
}

/** `train=0.9,test=0.1` → shares summing to 1; throws a message for anything else. */
export function parseSplit(spec: string): SplitShare[] {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const out: SplitShare[] = [];
  for (const p of parts) {
    const m = /^([A-Za-z][\w-]*)=(\d*\.?\d+)$/.exec(p);
    if (!m) throw new Error(`--split takes NAME=SHARE pairs such as train=0.9,test=0.1; got '${p}'`);
    const share = Number(m[2]);
    if (!(share > 0)) throw new Error(`the share of split '${m[1]}' must be more than 0`);
    if (out.some((s) => s.name === m[1])) throw new Error(`split '${m[1]}' is named twice`);
    out.push({ name: at(m, 1), share });
  }
  if (out.length < 2) throw new Error('--split needs at least two splits, such as train=0.9,test=0.1');
  const total = out.reduce((a, s) => a + s.share, 0);
  if (Math.abs(total - 1) > 1e-6) throw new Error(`the split shares add up to ${total}, not 1`);
  return out;
}

/** The split a task falls in: stable by its id whatever else is in the dataset. */
export function splitOf(splits: readonly SplitShare[], seed: number, id: string): string {
  const u = unitHash(seed, 'split', id);
  let acc = 0;
  for (const s of splits) {
    acc += s.share;
    if (u < acc) return s.name;
  }
  return at(splits, splits.length - 1).name;
}

/** `FILE=WEIGHT`: a weight up to 1 takes that share of the file's tasks, above 1 that many. */
export function parseMix(spec: string): { file: string; weight: number } {
  const eq = spec.lastIndexOf('=');
  const weight = Number(spec.slice(eq + 1));
  if (eq <= 0 || !(weight > 0) || !Number.isFinite(weight))
    throw new Error(`--mix takes FILE=WEIGHT such as math.vtask=0.5 or code.vtask=200; got '${spec}'`);
  if (weight > 1 && !Number.isInteger(weight))
    throw new Error(`a --mix weight above 1 is a number of tasks, a whole number; got ${weight}`);
  return { file: spec.slice(0, eq), weight };
}

/** The ids a mix weight keeps of a file's tasks: the same ones for the same seed. */
export function mixKeeps(ids: readonly string[], weight: number, seed: number, file: string): Set<string> {
  const count = weight <= 1 ? Math.round(ids.length * weight) : Math.min(weight, ids.length);
  const ranked = [...ids].sort((a, b) => unitHash(seed, `mix:${file}`, a) - unitHash(seed, `mix:${file}`, b));
  return new Set(ranked.slice(0, count));
}

/** The identity of a prompt for deduplication: its messages, exactly. */
export function promptKey(messages: readonly { role: string; content: string }[]): string {
  return createHash('sha256')
    .update(JSON.stringify(messages.map((m) => [m.role, m.content])))
    .digest('base64');
}

import type { DatasetFormat, ImportResult } from './format';
import { openaiRft } from './openaiRft';
import { openInstruct } from './openInstruct';
import { hf } from './hf';
import { inspect } from './inspectTask';
import { fromIfevalRow, fromQaRow } from './promptFiles';
import { trl } from './trl';
import { verl } from './verl';
import { verifiers } from './verifiersEnv';

// Apart, with no imports, so the extension's first stage can tell dataset rows without the formats.
export { detectFormat } from './detectFormat';

/** The training formats `vtask export` writes and `vtask import` reads. */
export const EXPORT_FORMATS: ReadonlyMap<string, DatasetFormat> = new Map(
  [openInstruct, verl, trl, openaiRft, hf, verifiers, inspect].map((f) => [f.name, f]),
);

export type RowImporter = (row: Record<string, unknown>, n: number) => ImportResult;

/** What `vtask import` reads: the training formats, IFEval prompt files and question/answer rows. */
export const IMPORT_FORMATS: ReadonlyMap<string, RowImporter> = new Map<string, RowImporter>([
  ...[...EXPORT_FORMATS.values()].map((f): [string, RowImporter] => [f.name, (row, n) => f.fromRow(row, n)]),
  ['ifeval', fromIfevalRow],
  ['qa', fromQaRow],
]);

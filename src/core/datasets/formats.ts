import type { DatasetFormat, ImportResult } from './format';
import { openaiRft } from './openaiRft';
import { openInstruct } from './openInstruct';
import { hf } from './hf';
import { inspect } from './inspectTask';
import { fromIfevalRow, fromQaRow } from './promptFiles';
import { trl } from './trl';
import { verl } from './verl';
import { verifiers } from './verifiersEnv';

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

/** The import format a row looks like it is in, by its columns; undefined when unclear. */
export function detectFormat(row: Record<string, unknown>): string | undefined {
  const has = (k: string): boolean => row[k] !== undefined;
  if (has('data_source') && has('reward_model')) return 'verl';
  if (has('messages') && has('ground_truth') && has('dataset')) return 'open-instruct';
  if (has('instruction_id_list')) return 'ifeval';
  if (has('messages') && has('vtask_verifier') && has('kind')) return 'hf';
  if (has('messages') && has('vtask_verifier')) return 'openai-rft';
  if (has('input') && has('target')) return 'inspect';
  if (has('prompt') && has('answer') && has('info')) return 'verifiers';
  if (has('prompt') && (has('vtask_verifier') || has('solution'))) return 'trl';
  if ((has('question') || has('problem')) && (has('answer') || has('solution'))) return 'qa';
  return undefined;
}

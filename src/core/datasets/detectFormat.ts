// Which import format a row is in, by its columns alone: cheap enough for the extension's first
// stage, which loads the rest of vtask only for a JSONL file whose rows are in one.

/** What is said of JSON lines in none of the formats. */
export const NOT_A_DATASET =
  'not a dataset vtask knows: its columns are none of open-instruct, verl, TRL, OpenAI RFT, IFEval or question/answer rows';

/** Rows read from the top to tell the format; a file none of them fits is no dataset. */
export const DETECT_ROWS = 100;

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

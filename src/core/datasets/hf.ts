// Rows of a Hugging Face Hub dataset folder (`vtask export --format hf -o DIR`): the columns a
// Hub user reads without knowing vtask (`id`, `prompt`, `messages`, `kind`, `answer`, `tags`),
// and what vtask needs to score a row again (`vtask_verifier`, the verifier as JSON text, which
// `vtask serve` takes as it is). `meta` is the task's free-form metadata as JSON text: one column
// type for every task, whatever its fields. The folder's layout and card are in hfCard.ts.
import { parseJson, recordOr } from '../base/record';
import { kindParams, readMessages, readTrace, readVerifier, rowId, singleAnswer, traceFields } from './common';
import type { DatasetFormat, ExportSettings, ExportTask, ImportResult, RowResult } from './format';
import { double, messagesColumn, str, strList, type SchemaElement } from './parquetSchema';

export const HF_FORMAT = 'hf';

/** The one gold answer of a `math`, `match` or `choice` verifier; null for every other kind. */
export function goldAnswer(verify: unknown): string | null {
  const kp = kindParams(verify);
  return kp && (kp.kind === 'math' || kp.kind === 'match' || kp.kind === 'choice')
    ? (singleAnswer(kp.params) ?? null)
    : null;
}

/** The verifier's kind (its one key); `composite` for a verifier that is not one keyed kind. */
export function verifierKind(verify: unknown): string {
  return kindParams(verify)?.kind ?? 'composite';
}

function toRow(t: ExportTask, settings: ExportSettings): RowResult {
  const trace = traceFields(t, settings);
  return {
    row: {
      id: t.task.id,
      prompt: t.task.prompt,
      messages: t.task.messages.map((m) => ({ role: m.role, content: m.content })),
      vtask_verifier: trace.vtask_verifier,
      kind: verifierKind(t.task.verify),
      answer: goldAnswer(t.task.verify),
      tags: [...t.task.tags],
      meta: Object.keys(t.task.meta).length ? JSON.stringify(t.task.meta) : null,
      file: trace.file,
      pass_rate: trace.pass_rate,
      band: trace.band,
      model: trace.model,
      vtask_version: trace.vtask_version,
      environment: t.agent?.environment ?? null,
    },
  };
}

function fromRow(row: Record<string, unknown>, n: number): ImportResult {
  const messages = readMessages(row.messages) ?? readMessages(row.prompt);
  if (!messages) return { error: 'neither `messages` nor `prompt` is a prompt' };
  const own = readVerifier(row.vtask_verifier);
  if (!own) return { error: 'no `vtask_verifier`' };
  if ('error' in own) return own;
  const tags = Array.isArray(row.tags) ? row.tags.filter((x): x is string => typeof x === 'string') : [];
  let meta: Record<string, unknown> = {};
  if (typeof row.meta === 'string') {
    try {
      meta = recordOr(parseJson(row.meta));
    } catch {
      return { error: '`meta` is not valid JSON' };
    }
  }
  return { task: { id: rowId(row, n), messages, verify: own.verify, tags, meta: { ...meta, ...readTrace(row) } } };
}

const COLUMNS: SchemaElement[][] = [
  str('id'),
  str('prompt'),
  messagesColumn('messages'),
  str('vtask_verifier'),
  str('kind'),
  str('answer'),
  strList('tags'),
  str('meta'),
  str('file'),
  double('pass_rate'),
  str('band'),
  str('model'),
  str('vtask_version'),
  str('environment'),
];

export const hf: DatasetFormat = {
  name: HF_FORMAT,
  outputs: ['parquet'],
  columns: () => COLUMNS.map((s) => ({ name: String(s[0]?.name), schema: s })),
  toRow,
  fromRow,
};

import type { ChatMessage } from '../base/chat';
import { isRecord, recordOr } from '../base/record';
import type { ExportSettings, ExportTask } from './format';
import { double, int32, str, type SchemaElement } from './parquetSchema';
import { verifierKind } from '../util/verifierKind';
import { VERIFIERS } from '../verifiers/registry';

/** A verifier split into its kind and parameters, list shorthands expanded. */
export interface KindParams {
  readonly kind: string;
  readonly params: Record<string, unknown>;
}

export function kindParams(verify: unknown): KindParams | undefined {
  const kind = verifierKind(verify);
  if (kind === undefined || !isRecord(verify) || Object.keys(verify).length > 1) return undefined;
  const raw = verify[kind];
  // The list shorthand (`all: [...]`) of the kinds that have one, as the registry defines them.
  const list = VERIFIERS.get(kind)?.listField;
  if (Array.isArray(raw) && list) return { kind, params: { [list]: raw } };
  return { kind, params: recordOr(raw) };
}

/** The one gold answer of a `math` or `match` verifier, when it has exactly one. */
export function singleAnswer(params: Record<string, unknown>): string | undefined {
  if (params.answer !== undefined && params.answers === undefined) return String(params.answer);
  if (Array.isArray(params.answers) && params.answers.length === 1) return String(params.answers[0]);
  return undefined;
}

/**
 * Constraints as `[id, kwargs]` pairs, or a reason they cannot be listed so. A bare id has
 * empty kwargs.
 */
export function instructionPairs(params: Record<string, unknown>): [string, Record<string, unknown>][] {
  const list = Array.isArray(params.instructions) ? params.instructions : [];
  return list.map((item): [string, Record<string, unknown>] => {
    if (typeof item === 'string') return [item, {}];
    const entry = Object.entries(recordOr(item))[0];
    if (!entry) return ['', {}];
    const [id, kwargs] = entry;
    return [id, recordOr(kwargs)];
  });
}

/** One constraint as a task file writes it: a bare id, or `{id: kwargs}` without nulls. */
export function instruction(id: string, kwargs: unknown): unknown {
  const k =
    kwargs && typeof kwargs === 'object'
      ? Object.fromEntries(Object.entries(kwargs).filter(([, v]) => v !== null && v !== undefined))
      : {};
  return Object.keys(k).length ? { [id]: k } : id;
}

/** The columns every format carries so a row can be traced and scored again by vtask. */
export function traceFields(t: ExportTask, settings: ExportSettings): Record<string, unknown> {
  return {
    task_id: t.task.id,
    file: t.file.split('\\').join('/'),
    split: t.split ?? null,
    vtask_verifier: JSON.stringify(t.task.verify),
    vtask_version: settings.version,
    pass_rate: t.run?.pass_rate ?? null,
    band: t.run?.band ?? null,
    model: t.run?.model ?? null,
  };
}

export const traceSchema = (): SchemaElement[][] => [
  str('task_id'),
  str('file'),
  str('split'),
  str('vtask_verifier'),
  str('vtask_version'),
  double('pass_rate'),
  str('band'),
  str('model'),
];

/** The same fields inside a struct column (verl's `extra_info`), with the row's index. */
export const extraInfoSchema = (): SchemaElement[][] => [int32('index'), ...traceSchema()];

/** Chat messages from a row's column: `[{role, content}]` or a plain prompt string. */
export function readMessages(v: unknown): ChatMessage[] | undefined {
  if (typeof v === 'string') return [{ role: 'user', content: v }];
  if (!Array.isArray(v)) return undefined;
  const out: ChatMessage[] = [];
  for (const m of v) {
    if (!isRecord(m)) return undefined;
    const { role, content } = m;
    if (typeof role !== 'string' || typeof content !== 'string') return undefined;
    out.push({ role, content });
  }
  return out.length ? out : undefined;
}

/** The verifier a row carries for vtask, parsed; undefined when the row has none. */
export function readVerifier(v: unknown): { verify: unknown } | { error: string } | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string')
    return typeof v === 'object' ? { verify: v } : { error: '`vtask_verifier` is not JSON text' };
  try {
    return { verify: JSON.parse(v) };
  } catch {
    return { error: '`vtask_verifier` is not valid JSON' };
  }
}

/** Trace fields of an imported row, kept as the new task's `meta` (what a later export reads). */
export function readTrace(row: Record<string, unknown>): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  for (const k of ['pass_rate', 'band', 'model', 'split'])
    if (row[k] !== undefined && row[k] !== null) meta[k] = row[k];
  return meta;
}

/** A row's id: its `task_id`, else one made from its position. */
export function rowId(row: Record<string, unknown>, n: number, prefix = 'row'): string {
  const id = row.task_id ?? row.id;
  return typeof id === 'string' && id ? id : typeof id === 'number' ? String(id) : `${prefix}/${n + 1}`;
}

import type { z } from 'zod';
import { schemaAtPath, type FieldDef, type Fields } from '../schema/fields';
import type { YMap, YNode } from '../taskfile/ynode';
import { keyName } from '../taskfile/ynode';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import { COMMON_VERIFIER_FIELDS, VERIFIERS } from '../verifiers/registry';
import type { FormRow, NodePath } from '../../webview/protocol';

/**
 * The verifier of a task as a form: its YAML laid out flat, each scalar an input typed by the
 * schema at its place (a kwarg's schema, a field's), each list with an "add" row. The form is
 * read from the task's own YAML, so its paths are the paths an edit writes back to.
 */
export interface VerifierForm {
  readonly rows: FormRow[];
  /** Builds the item to append for an "add" row, from the choice made in the panel. */
  itemFor(path: NodePath, choice: string): unknown;
}

type ItemMaker = (choice: string) => unknown;

export function verifierForm(task: YMap | null): VerifierForm {
  const rows: FormRow[] = [];
  const makers = new Map<string, ItemMaker>();
  const verify = task?.items.find((p) => keyName(p) === 'verify');
  if (verify?.value) walkVerifier(verify.value, ['verify'], 0, false, rows, makers);
  return {
    rows,
    itemFor(path, choice) {
      const make = makers.get(JSON.stringify(path));
      return make ? make(choice) : undefined;
    },
  };
}

function walkVerifier(node: YNode, path: NodePath, depth: number, removable: boolean, rows: FormRow[], makers: Map<string, ItemMaker>): void {
  const [pair] = node.type === 'map' ? node.items : [];
  const kind = pair ? VERIFIERS.get(keyName(pair)) : undefined;
  if (!pair || !kind || node.type !== 'map' || node.items.length !== 1) {
    rows.push({ type: 'heading', path, depth, label: 'verifier (edit it in the file)', removable });
    return;
  }
  const at = [...path, kind.kind];
  rows.push({ type: 'heading', path, depth, label: kind.kind, doc: kind.summary, removable });
  const value = pair.value;
  if (value?.type === 'seq' && kind.listField) {
    walkList(value, at, depth + 1, kind.listItems, kind.fields[kind.listField], rows, makers);
    return;
  }
  if (value?.type !== 'map') return;
  for (const p of value.items) {
    const key = keyName(p);
    const f = kind.fields[key] ?? COMMON_VERIFIER_FIELDS[key];
    if (key === kind.listField && p.value?.type === 'seq') {
      rows.push({ type: 'heading', path: [...at, key], depth: depth + 1, label: key, doc: f?.doc, removable: false });
      walkList(p.value, [...at, key], depth + 2, kind.listItems, f, rows, makers);
    } else if (p.value) walkValue(p.value, [...at, key], depth + 1, key, f, f?.schema, false, rows, makers);
  }
}

function walkList(seq: YNode & { type: 'seq' }, path: NodePath, depth: number, items: 'verifiers' | 'instructions' | Fields | undefined, field: FieldDef | undefined, rows: FormRow[], makers: Map<string, ItemMaker>): void {
  if (items === 'instructions') {
    seq.items.forEach((item, i) => walkInstruction(item, [...path, i], depth, rows));
    rows.push({ type: 'add', path, depth, label: 'Add constraint', options: [...INSTRUCTIONS.keys()] });
    makers.set(JSON.stringify(path), instructionItem);
  } else if (items === 'verifiers') {
    seq.items.forEach((item, i) => walkVerifier(item, [...path, i], depth, true, rows, makers));
    rows.push({ type: 'add', path, depth, label: 'Add verifier', options: [...VERIFIERS.keys()] });
    makers.set(JSON.stringify(path), verifierItem);
  } else {
    walkSeq(seq, path, depth, field?.schema, rows, makers);
  }
}

function walkInstruction(item: YNode, path: NodePath, depth: number, rows: FormRow[]): void {
  if (item.type === 'scalar') {
    const def = INSTRUCTIONS.get(String(item.value));
    rows.push({ type: 'heading', path, depth, label: String(item.value), doc: def?.summary, removable: true });
    return;
  }
  const [pair] = item.type === 'map' ? item.items : [];
  if (!pair || item.type !== 'map' || item.items.length !== 1) {
    rows.push({ type: 'heading', path, depth, label: 'constraint (edit it in the file)', removable: true });
    return;
  }
  const id = keyName(pair);
  const def = INSTRUCTIONS.get(id);
  rows.push({ type: 'heading', path, depth, label: id, doc: def?.summary, removable: true });
  if (pair.value?.type !== 'map') return;
  for (const p of pair.value.items) {
    const kw = keyName(p);
    const k = def?.kwargs[kw];
    if (p.value?.type === 'scalar') rows.push(fieldRow(p.value, [...path, id, kw], depth + 1, kw, k?.doc, k?.schema));
    else if (p.value) rows.push({ type: 'heading', path: [...path, id, kw], depth: depth + 1, label: `${kw} (edit it in the file)`, doc: k?.doc, removable: false });
  }
}

function walkValue(node: YNode, path: NodePath, depth: number, label: string, field: FieldDef | undefined, schema: z.ZodType | undefined, removable: boolean, rows: FormRow[], makers: Map<string, ItemMaker>): void {
  if (node.type === 'scalar') {
    rows.push({ ...fieldRow(node, path, depth, label, field?.doc, schema), ...(removable ? { removable } : {}) });
    return;
  }
  rows.push({ type: 'heading', path, depth, label, doc: field?.doc, removable });
  if (node.type === 'seq') {
    walkSeq(node, path, depth + 1, schema, rows, makers);
    return;
  }
  for (const p of node.items) {
    const key = keyName(p);
    // `verify` inside a list item (a weighted item) is a verifier of its own.
    if (key === 'verify' && p.value) walkVerifier(p.value, [...path, key], depth + 1, false, rows, makers);
    else if (p.value) walkValue(p.value, [...path, key], depth + 1, key, undefined, schema && schemaAtPath(schema, [key]), false, rows, makers);
  }
}

function walkSeq(seq: YNode & { type: 'seq' }, path: NodePath, depth: number, schema: z.ZodType | undefined, rows: FormRow[], makers: Map<string, ItemMaker>): void {
  const element = schema && schemaAtPath(schema, [0]);
  seq.items.forEach((item, i) => walkValue(item, [...path, i], depth, `#${i + 1}`, undefined, element, true, rows, makers));
  rows.push({ type: 'add', path, depth, label: 'Add item', options: [] });
  // A new item copies the shape of the last one with its text cleared, so it validates the
  // same way and the author fills it in.
  const last = seq.items[seq.items.length - 1];
  makers.set(JSON.stringify(path), () => (last ? blank(plain(last)) : ''));
}

function fieldRow(node: YNode & { type: 'scalar' }, path: NodePath, depth: number, label: string, doc: string | undefined, schema: z.ZodType | undefined): FormRow {
  const { input, options } = inputFor(schema, node.value);
  return { type: 'field', path, depth, label, ...(doc ? { doc } : {}), input, ...(options ? { options } : {}), value: node.value };
}

interface DefLike {
  type: string;
  innerType?: { _zod: { def: DefLike } };
  options?: { _zod: { def: DefLike } }[];
  entries?: Record<string, string>;
  values?: unknown[];
}

/** The input for a scalar: what its schema accepts, falling back on the value's own type. */
export function inputFor(schema: z.ZodType | undefined, value: unknown): { input: 'text' | 'multiline' | 'number' | 'boolean' | 'enum'; options?: string[] } {
  const types = new Set<string>();
  const options: string[] = [];
  const visit = (d: DefLike | undefined, n = 0): void => {
    if (!d || n > 8) return;
    if (d.innerType && ['optional', 'nullable', 'default', 'pipe', 'readonly'].includes(d.type)) visit(d.innerType._zod.def, n + 1);
    else if (d.type === 'union') for (const o of d.options ?? []) visit(o._zod.def, n + 1);
    else if (d.type === 'enum') {
      types.add('enum');
      options.push(...Object.values(d.entries ?? {}));
    } else if (d.type === 'literal') {
      types.add('enum');
      options.push(...(d.values ?? []).map(String));
    } else types.add(d.type === 'int' ? 'number' : d.type);
  };
  visit((schema as unknown as { _zod?: { def: DefLike } } | undefined)?._zod?.def);
  const text = typeof value === 'string' && (value.includes('\n') || value.length > 60) ? 'multiline' : 'text';
  if (types.size === 1 && types.has('enum')) return { input: 'enum', options };
  if (types.size === 1 && types.has('boolean')) return { input: 'boolean' };
  if (types.size === 1 && types.has('number')) return { input: 'number' };
  if (types.has('string') || types.size > 0) return { input: text };
  if (typeof value === 'boolean') return { input: 'boolean' };
  if (typeof value === 'number') return { input: 'number' };
  return { input: text };
}

/** An instruction to append: the id alone, or with its required kwargs set to their examples. */
function instructionItem(id: string): unknown {
  const def = INSTRUCTIONS.get(id);
  if (!def) return undefined;
  const kwargs = Object.entries(def.kwargs).filter(([, k]) => k.required);
  return kwargs.length ? { [id]: Object.fromEntries(kwargs.map(([name, k]) => [name, k.example])) } : id;
}

/** A verifier to append: the kind with its required fields set to their examples. */
function verifierItem(name: string): unknown {
  const kind = VERIFIERS.get(name);
  if (!kind) return undefined;
  const required = Object.entries(kind.fields).filter(([, f]) => f.required);
  return { [name]: Object.fromEntries(required.map(([k, f]) => [k, f.example])) };
}

function plain(node: YNode): unknown {
  if (node.type === 'scalar') return node.value;
  if (node.type === 'seq') return node.items.map(plain);
  return Object.fromEntries(node.items.map((p) => [keyName(p), p.value ? plain(p.value) : null]));
}

function blank(v: unknown): unknown {
  if (typeof v === 'string') return '';
  if (Array.isArray(v)) return v.map(blank);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blank(x)]));
  return v;
}

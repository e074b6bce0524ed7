import type * as z from 'zod';
import { schemaAtPath, type FieldDef, type Fields } from '../schema/fields';
import type { YMap, YNode } from '../base/ynode';
import { keyName } from '../base/ynode';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import { COMMON_VERIFIER_FIELDS, VERIFIERS } from '../verifiers/registry';
import { rowIdentity, type FormRow, type NodePath } from '../base/panelProtocol';

/** What an "add" row adds: an item appended to a list, or a key set in a mapping. */
export type Addition =
  | { readonly type: 'item'; readonly value: unknown }
  | { readonly type: 'key'; readonly key: string; readonly value: unknown };

/**
 * The verifier of a task as a form: its YAML laid out flat, each scalar an input typed by the
 * schema at its place (a kwarg's schema, a field's), each list and mapping with an "add" row.
 * The form is read from the task's own YAML, so its paths are the paths an edit writes back to.
 */
export interface VerifierForm {
  readonly rows: FormRow[];
  /** What to add for an "add" row, from the choice made in the panel. */
  additionFor(path: NodePath, choice: string): Addition | undefined;
}

type Maker = (choice: string) => Addition | undefined;

export function verifierForm(task: YMap | null): VerifierForm {
  const b = new FormBuilder();
  const verify = task?.items.find((p) => keyName(p) === 'verify');
  if (verify?.value) b.verifier(verify.value, ['verify'], 0, false);
  return { rows: b.rows, additionFor: (path, choice) => b.makers.get(JSON.stringify(path))?.(choice) };
}

/** Whether a form row still shows what the panel showed: the same label (and value) at the path. */
export function sameRow(rows: readonly FormRow[], path: NodePath, shown: string): boolean {
  const row = rows.find((r) => r.type !== 'add' && JSON.stringify(r.path) === JSON.stringify(path));
  return row !== undefined && rowIdentity(row) === shown;
}

class FormBuilder {
  readonly rows: FormRow[] = [];
  readonly makers = new Map<string, Maker>();

  verifier(node: YNode, path: NodePath, depth: number, removable: boolean): void {
    const [pair] = node.type === 'map' ? node.items : [];
    const kind = pair ? VERIFIERS.get(keyName(pair)) : undefined;
    if (!pair || !kind || node.type !== 'map' || node.items.length !== 1) {
      this.rows.push({ type: 'heading', path, depth, label: 'verifier (edit it in the file)', removable });
      return;
    }
    const at = [...path, kind.kind];
    this.rows.push({ type: 'heading', path, depth, label: kind.kind, doc: kind.summary, removable });
    const value = pair.value;
    if (value?.type === 'seq' && kind.listField) {
      this.list(value, at, depth + 1, kind.listItems, kind.fields[kind.listField]);
      return;
    }
    if (value?.type !== 'map') return;
    const fields: Fields = { ...kind.fields, ...COMMON_VERIFIER_FIELDS };
    for (const p of value.items) {
      const key = keyName(p);
      const f = fields[key];
      if (key === kind.listField && p.value?.type === 'seq') {
        this.rows.push({
          type: 'heading',
          path: [...at, key],
          depth: depth + 1,
          label: key,
          doc: f?.doc,
          removable: false,
        });
        this.list(p.value, [...at, key], depth + 2, kind.listItems, f);
      } else if (p.value)
        this.value(p.value, [...at, key], depth + 1, key, f, f?.schema, f !== undefined && !f.required);
    }
    this.addKeys(value, at, depth + 1, 'Add option', fields);
  }

  /** An "add" row for the keys a mapping may have and does not; each is added with its example. */
  private addKeys(
    map: YMap,
    path: NodePath,
    depth: number,
    label: string,
    fields: Readonly<Record<string, { readonly example: unknown }>>,
  ): void {
    const present = new Set(map.items.map(keyName));
    const absent = Object.keys(fields).filter((k) => !present.has(k));
    if (absent.length === 0) return;
    this.rows.push({ type: 'add', path, depth, label, options: absent });
    this.makers.set(JSON.stringify(path), (key) =>
      absent.includes(key) ? { type: 'key', key, value: fields[key]?.example } : undefined,
    );
  }

  private list(
    seq: YNode & { type: 'seq' },
    path: NodePath,
    depth: number,
    items: 'verifiers' | 'instructions' | Fields | undefined,
    field: FieldDef | undefined,
  ): void {
    if (items === 'instructions') {
      seq.items.forEach((item, i) => this.instruction(item, [...path, i], depth));
      this.rows.push({ type: 'add', path, depth, label: 'Add constraint', options: [...INSTRUCTIONS.keys()] });
      this.makers.set(JSON.stringify(path), (id) => {
        const value = instructionItem(id);
        return value === undefined ? undefined : { type: 'item', value };
      });
    } else if (items === 'verifiers') {
      seq.items.forEach((item, i) => this.verifier(item, [...path, i], depth, true));
      this.rows.push({ type: 'add', path, depth, label: 'Add verifier', options: [...VERIFIERS.keys()] });
      this.makers.set(JSON.stringify(path), (name) => {
        const value = verifierItem(name);
        return value === undefined ? undefined : { type: 'item', value };
      });
    } else {
      this.seq(seq, path, depth, field?.schema);
    }
  }

  private instruction(item: YNode, path: NodePath, depth: number): void {
    if (item.type === 'scalar') {
      const def = INSTRUCTIONS.get(String(item.value));
      this.rows.push({ type: 'heading', path, depth, label: String(item.value), doc: def?.summary, removable: true });
      return;
    }
    const [pair] = item.type === 'map' ? item.items : [];
    if (!pair || item.type !== 'map' || item.items.length !== 1) {
      this.rows.push({ type: 'heading', path, depth, label: 'constraint (edit it in the file)', removable: true });
      return;
    }
    const id = keyName(pair);
    const def = INSTRUCTIONS.get(id);
    this.rows.push({ type: 'heading', path, depth, label: id, doc: def?.summary, removable: true });
    if (pair.value?.type !== 'map') return;
    for (const p of pair.value.items) {
      const kw = keyName(p);
      const k = def?.kwargs[kw];
      if (p.value?.type === 'scalar')
        this.rows.push({
          ...fieldRow(p.value, [...path, id, kw], depth + 1, kw, k?.doc, k?.schema),
          ...(k && !k.required ? { removable: true } : {}),
        });
      else if (p.value)
        this.rows.push({
          type: 'heading',
          path: [...path, id, kw],
          depth: depth + 1,
          label: `${kw} (edit it in the file)`,
          doc: k?.doc,
          removable: false,
        });
    }
    if (def) this.addKeys(pair.value, [...path, id], depth + 1, 'Add kwarg', def.kwargs);
  }

  private value(
    node: YNode,
    path: NodePath,
    depth: number,
    label: string,
    field: FieldDef | undefined,
    schema: z.ZodType | undefined,
    removable: boolean,
  ): void {
    if (node.type === 'scalar') {
      this.rows.push({
        ...fieldRow(node, path, depth, label, field?.doc, schema),
        ...(removable ? { removable } : {}),
      });
      return;
    }
    this.rows.push({ type: 'heading', path, depth, label, doc: field?.doc, removable });
    if (node.type === 'seq') {
      this.seq(node, path, depth + 1, schema);
      return;
    }
    for (const p of node.items) {
      const key = keyName(p);
      // `verify` inside a list item (a weighted item) is a verifier of its own.
      if (key === 'verify' && p.value) this.verifier(p.value, [...path, key], depth + 1, false);
      else if (p.value)
        this.value(p.value, [...path, key], depth + 1, key, undefined, schema && schemaAtPath(schema, [key]), false);
    }
  }

  private seq(seq: YNode & { type: 'seq' }, path: NodePath, depth: number, schema: z.ZodType | undefined): void {
    const element = schema && schemaAtPath(schema, [0]);
    seq.items.forEach((item, i) => this.value(item, [...path, i], depth, `#${i + 1}`, undefined, element, true));
    this.rows.push({ type: 'add', path, depth, label: 'Add item', options: [] });
    // A new item copies the shape of the last one with its text cleared, so it validates the
    // same way and the author fills it in.
    const last = seq.items[seq.items.length - 1];
    this.makers.set(JSON.stringify(path), () => ({ type: 'item', value: last ? blank(plain(last)) : '' }));
  }
}

function fieldRow(
  node: YNode & { type: 'scalar' },
  path: NodePath,
  depth: number,
  label: string,
  doc: string | undefined,
  schema: z.ZodType | undefined,
): FormRow {
  // `.inf` and `.nan` are numbers YAML has and messages cannot carry: they show as text.
  const value = typeof node.value === 'number' && !Number.isFinite(node.value) ? String(node.value) : node.value;
  const { input, options } = inputFor(schema, value);
  return {
    type: 'field',
    path,
    depth,
    label,
    ...(doc ? { doc } : {}),
    input: typeof value === 'string' && input === 'number' ? 'text' : input,
    ...(options ? { options } : {}),
    value,
  };
}

interface DefLike {
  type: string;
  innerType?: { _zod: { def: DefLike } };
  options?: { _zod: { def: DefLike } }[];
  entries?: Record<string, string>;
  values?: unknown[];
}

/** The input for a scalar: what its schema accepts, falling back on the value's own type. */
export function inputFor(
  schema: z.ZodType | undefined,
  value: unknown,
): { input: 'text' | 'multiline' | 'number' | 'boolean' | 'enum'; options?: string[] } {
  const types = new Set<string>();
  const options: string[] = [];
  const visit = (d: DefLike | undefined, n = 0): void => {
    if (!d || n > 8) return;
    if (d.innerType && ['optional', 'nullable', 'default', 'pipe', 'readonly'].includes(d.type))
      visit(d.innerType._zod.def, n + 1);
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

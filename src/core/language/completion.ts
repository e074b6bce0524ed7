import type { FieldDef } from '../schema/fields';
import { typeLabel } from '../schema/fields';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import type { InstructionDef } from '../verifiers/constraints/instruction';
import { VERIFIERS } from '../verifiers/registry';
import type { VerifierKind } from '../verifiers/kind';
import { contextAt, type CursorContext } from './context';
import { slotAt } from './schemaAt';

export type CompletionKind = 'key' | 'verifier' | 'instruction' | 'value';

/** A completion proposal in editor-neutral terms; `insert` uses VS Code snippet syntax. */
export interface Completion {
  readonly label: string;
  readonly kind: CompletionKind;
  readonly detail: string;
  readonly documentation: string;
  readonly insert: string;
  /** Offsets of the text the proposal replaces (the partial word). */
  readonly start: number;
  readonly end: number;
  /** Lower sorts first. */
  readonly sort?: string;
}

/** Completions at `offset`; `modelNames` are the profiles the file and settings define. */
export function completeAt(text: string, offset: number, modelNames: readonly string[] = []): Completion[] {
  const ctx = contextAt(text, offset);
  const at = (c: Omit<Completion, 'start' | 'end'>): Completion => ({ ...c, start: ctx.wordStart, end: offset });
  const slot = slotAt(ctx.path);
  if (ctx.position === 'key') {
    switch (slot.type) {
      case 'fields':
        return Object.entries(slot.fields).map(([k, f]) => at(keyCompletion(k, f, slot.what)));
      case 'verifier':
        return [...VERIFIERS.values()].map((k) => at(kindCompletion(k, ': ')));
      case 'instructions':
        return [...INSTRUCTIONS.values()].map((d) => at(instructionCompletion(d)));
      default:
        return [];
    }
  }
  return valueCompletions(ctx, modelNames).map(at);
}

function keyCompletion(key: string, f: FieldDef, what: string): Omit<Completion, 'start' | 'end'> {
  return {
    label: key,
    kind: 'key',
    detail: `${f.required ? 'required' : 'optional'}: ${typeLabel(f.schema)}`,
    documentation: `${f.doc}\n\nIn ${what}.`,
    insert: `${key}: ${valueSnippet(f.example)}`,
    sort: f.required ? '0' + key : '1' + key,
  };
}

function kindCompletion(k: VerifierKind, sep: string): Omit<Completion, 'start' | 'end'> {
  return {
    label: k.kind,
    kind: 'verifier',
    detail: `verifier: ${k.summary}`,
    documentation: k.doc,
    insert: `${k.kind}${sep}${k.snippet}`,
  };
}

function instructionCompletion(d: InstructionDef): Omit<Completion, 'start' | 'end'> {
  return {
    label: d.id,
    kind: 'instruction',
    detail: `${d.source}: ${d.summary}`,
    documentation: instructionDoc(d),
    insert: `${d.id}${kwargsSnippet(d)}`,
  };
}

/** `: { relation: ${1|less than,at least|}, num_words: ${2:50} }`, or nothing for no kwargs. */
function kwargsSnippet(d: InstructionDef): string {
  const entries = Object.entries(d.kwargs);
  if (entries.length === 0) return '';
  let n = 0;
  const parts = entries.map(([k, f]) => {
    n++;
    const values = enumValues(f);
    if (values) return `${k}: \${${n}|${values.map(escapeChoice).join(',')}|}`;
    return `${k}: \${${n}:${escapeSnippet(flowValue(f.example))}}`;
  });
  return `: { ${parts.join(', ')} }`;
}

export function instructionDoc(d: InstructionDef): string {
  const kw = Object.entries(d.kwargs).map(
    ([k, f]) => `- \`${k}\` (${typeLabel(f.schema)}${f.required ? '' : ', optional'}): ${f.doc}`,
  );
  return [
    d.summary,
    kw.length ? `\n**kwargs**\n${kw.join('\n')}` : '\nNo kwargs.',
    `\nFrom ${SOURCE_NAMES[d.source]}.`,
  ].join('\n');
}

const SOURCE_NAMES: Record<InstructionDef['source'], string> = {
  ifeval: 'IFEval',
  ifbench: 'IFBench',
  'open-instruct': 'open-instruct (IFEvalG)',
  vtask: 'vtask',
};

function valueCompletions(ctx: CursorContext, modelNames: readonly string[]): Omit<Completion, 'start' | 'end'>[] {
  const key = ctx.key ?? '';
  const parent = slotAt(ctx.path);
  if (key === 'verify') {
    return [...VERIFIERS.values()].map((k) => ({ ...kindCompletion(k, ': '), insert: `{ ${k.kind}: ${k.snippet} }` }));
  }
  if (parent.type === 'verifier') {
    const kind = VERIFIERS.get(key);
    return kind
      ? [
          {
            label: kind.snippet.replace(/\$\{\d+:?([^}|]*)\|?[^}]*\}/g, '$1'),
            kind: 'value',
            detail: `parameters of ${kind.kind}`,
            documentation: kind.doc,
            insert: kind.snippet,
          },
        ]
      : [];
  }
  if (parent.type === 'instructions') {
    const def = INSTRUCTIONS.get(key);
    const snip = def ? kwargsSnippet(def).replace(/^: /, '') : '';
    return def && snip
      ? [
          {
            label: `{ ${Object.keys(def.kwargs).join(', ')} }`,
            kind: 'value',
            detail: `kwargs of ${def.id}`,
            documentation: instructionDoc(def),
            insert: snip,
          },
        ]
      : [];
  }
  if (key === 'expect') {
    return [
      {
        label: 'pass',
        kind: 'value',
        detail: 'the verifier must pass this response',
        documentation: '',
        insert: 'pass',
      },
      {
        label: 'fail',
        kind: 'value',
        detail: 'the verifier must fail this response',
        documentation: '',
        insert: 'fail',
      },
      {
        label: '{ score: 0.5 }',
        kind: 'value',
        detail: 'the verifier must give this score (within 1e-6)',
        documentation: '',
        insert: '{ score: ${1:0.5} }',
      },
    ];
  }
  if (key === 'model' && parent.type === 'fields') {
    return modelNames.map((m) => ({ label: m, kind: 'value', detail: 'model profile', documentation: '', insert: m }));
  }
  if (parent.type === 'fields') {
    const f = parent.fields[key];
    const values = f ? enumValues(f) : undefined;
    if (values)
      return values.map((v) => ({ label: v, kind: 'value', detail: `${key}`, documentation: f?.doc ?? '', insert: v }));
    if (f && typeLabel(f.schema) === 'true or false')
      return ['true', 'false'].map((v) => ({ label: v, kind: 'value', detail: key, documentation: f.doc, insert: v }));
  }
  return [];
}

function enumValues(f: FieldDef): string[] | undefined {
  const def = (
    f.schema as unknown as { _zod: { def: { type: string; entries?: Record<string, string>; values?: unknown[] } } }
  )._zod.def;
  if (def.type === 'enum' && def.entries) return Object.values(def.entries);
  if (def.type === 'literal' && def.values) return def.values.map(String);
  return undefined;
}

function valueSnippet(example: unknown): string {
  if (example === null || example === undefined) return '$0';
  if (typeof example === 'object') return Array.isArray(example) && example.length === 0 ? '[$0]' : '$0';
  return `\${1:${escapeSnippet(flowValue(example))}}`;
}

/** A value as it reads in a YAML flow mapping: strings quoted when they need it. */
function flowValue(v: unknown): string {
  if (typeof v === 'string')
    return /^[\w./ -]+$/.test(v) && !/^(true|false|null|yes|no|\d.*)$/i.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

function escapeSnippet(s: string): string {
  return s.replace(/[$}\\]/g, '\\$&');
}

function escapeChoice(s: string): string {
  return s.replace(/[,|$}\\]/g, '\\$&');
}

import type { Fields } from '../schema/fields';
import { CASE_FIELDS, DEFAULTS_FIELDS, FILE_FIELDS, MODEL_FIELDS, TASK_FIELDS } from '../schema/taskFields';
import { INSTRUCTIONS } from '../verifiers/constraints/instructions';
import { COMMON_VERIFIER_FIELDS, VERIFIERS } from '../verifiers/registry';

/** What may be written at a path of keys: a field table, a verifier, or an instruction list. */
export type Slot =
  | { readonly type: 'fields'; readonly fields: Fields; readonly what: string }
  | { readonly type: 'verifier' }
  | { readonly type: 'instructions' }
  | { readonly type: 'none' };

/**
 * Maps a key path (from the cursor context) to what the schema expects there. The grammar of
 * verifiers is recursive, so the path is read as a small state machine over the registry.
 */
export function slotAt(path: readonly string[]): Slot {
  if (path.length === 0) return { type: 'fields', fields: FILE_FIELDS, what: 'the file' };
  const [head, ...rest] = path;
  if (head === 'tasks') return inTask(rest, TASK_FIELDS, 'a task');
  if (head === 'defaults') return inTask(rest, DEFAULTS_FIELDS, '`defaults`');
  if (head === 'models')
    return rest.length === 1
      ? { type: 'fields', fields: MODEL_FIELDS, what: `model \`${rest[0]}\`` }
      : { type: 'none' };
  return { type: 'none' };
}

function inTask(path: readonly string[], fields: Fields, what: string): Slot {
  if (path.length === 0) return { type: 'fields', fields, what };
  const [head, ...rest] = path;
  if (head === 'verify') return inVerifier(rest);
  if (head === 'cases' && rest.length === 0) return { type: 'fields', fields: CASE_FIELDS, what: 'a case' };
  return { type: 'none' };
}

function inVerifier(path: readonly string[]): Slot {
  if (path.length === 0) return { type: 'verifier' };
  const [kindName, ...rest] = path;
  const kind = VERIFIERS.get(kindName ?? '');
  if (!kind) return { type: 'none' };
  if (rest.length === 0) {
    // A list-valued kind written as a list (`all:` then `- ...`): the cursor is at an item.
    if (kind.listItems) return itemSlot(kind.listItems);
    return { type: 'fields', fields: { ...kind.fields, ...COMMON_VERIFIER_FIELDS }, what: `\`${kind.kind}\`` };
  }
  const [next, ...more] = kind.listField && rest[0] === kind.listField ? rest.slice(1) : rest;
  if (next === undefined) return kind.listItems ? itemSlot(kind.listItems) : { type: 'none' };
  if (kind.listItems === 'instructions') {
    const def = INSTRUCTIONS.get(next);
    return def && more.length === 0 ? { type: 'fields', fields: def.kwargs, what: `\`${def.id}\`` } : { type: 'none' };
  }
  if (kind.listItems === 'verifiers') return inVerifier([next, ...more]);
  if (kind.listItems && next === 'verify') return inVerifier(more);
  return { type: 'none' };
}

function itemSlot(items: 'verifiers' | 'instructions' | Fields): Slot {
  if (items === 'verifiers') return { type: 'verifier' };
  if (items === 'instructions') return { type: 'instructions' };
  return { type: 'fields', fields: items, what: 'an item' };
}

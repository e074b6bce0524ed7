import type { TaskFile } from '../taskfile/parse';
import { getPair, keyName } from '../base/ynode';

/** One entry of the document outline: a task, with its verifier and cases as children. */
export interface OutlineItem {
  readonly name: string;
  readonly detail: string;
  readonly kind: 'task' | 'verifier' | 'cases' | 'section';
  /** Absolute offsets of the whole item and of its name. */
  readonly start: number;
  readonly end: number;
  readonly selectionStart: number;
  readonly selectionEnd: number;
  readonly children: readonly OutlineItem[];
}

/** The outline of a parsed file: its top-level sections, then one symbol per task. */
export function outline(file: TaskFile): OutlineItem[] {
  const out: OutlineItem[] = [];
  for (const part of file.parts) {
    if (!part.node) continue;
    for (const p of part.node.items) {
      const name = keyName(p);
      if (name === 'tasks' || name === 'vtask') continue;
      const start = part.offset + p.span[0];
      out.push({
        name,
        detail: '',
        kind: 'section',
        start,
        end: part.offset + p.span[1],
        selectionStart: start,
        selectionEnd: part.offset + p.key.span[1],
        children: [],
      });
    }
  }
  for (const t of file.tasks) {
    const start = t.offset;
    const end = t.offset + t.length;
    const children: OutlineItem[] = [];
    const verify = t.node ? getPair(t.node, 'verify') : undefined;
    const kind = verify?.value?.type === 'map' && verify.value.items[0] ? keyName(verify.value.items[0]) : undefined;
    if (verify) children.push(child(kind ?? 'verify', 'verifier', 'verifier', t.offset, verify.span, verify.key.span));
    const cases = t.node ? getPair(t.node, 'cases') : undefined;
    if (cases) children.push(child('cases', `${t.caseCount}`, 'cases', t.offset, cases.span, cases.key.span));
    out.push({
      name: t.id ?? `(task ${t.index + 1} without id)`,
      detail: [kind, t.caseCount ? `${t.caseCount} case${t.caseCount === 1 ? '' : 's'}` : '']
        .filter(Boolean)
        .join(' · '),
      kind: 'task',
      start,
      end: Math.max(end, start),
      selectionStart: t.offset + t.anchor[0],
      selectionEnd: t.offset + t.anchor[1],
      children,
    });
  }
  return out;
}

function child(
  name: string,
  detail: string,
  kind: OutlineItem['kind'],
  base: number,
  span: readonly [number, number],
  keySpan: readonly [number, number],
): OutlineItem {
  return {
    name,
    detail,
    kind,
    start: base + span[0],
    end: base + span[1],
    selectionStart: base + keySpan[0],
    selectionEnd: base + keySpan[1],
    children: [],
  };
}

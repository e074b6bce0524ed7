import type { NodePath } from '../base/nodePath';
import type { TaskEntry, TaskFile } from '../taskfile/parse';
import { describe, keyName, type YMap, type YNode, type YPair, type YSeq } from '../base/ynode';
import { at } from '../util/must';

/** One node on the way down a path, and how it hangs from its parent. */
export interface Step {
  readonly node: YNode;
  readonly parent?: YMap | YSeq;
  /** The pair whose value the node is, for map values. */
  readonly pair?: YPair;
}

/** Where a path leads inside a task: `steps[0]` is the task's mapping. */
export interface Located {
  readonly entry: TaskEntry;
  /** Absolute offset that the task's spans are relative to. */
  readonly base: number;
  readonly steps: readonly Step[];
}

export const ALIAS_ERROR = 'this value comes from an anchor; edit it there';

/** `verify.constraints[0].num_words`, for messages. */
export function formatPath(path: NodePath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out || 'the task';
}

/**
 * True when `child` stands for an alias. The tree puts a copy of the anchored node in the
 * alias's place: a scalar keeps the alias's span (so its text starts with `*`), a collection
 * keeps the anchor's span, which lies before `lower`, the end of what precedes the child
 * (its key, or the previous item): an anchor always comes before its aliases.
 */
export function isAliasNode(text: string, base: number, child: YNode, lower: number): boolean {
  if (child.type === 'scalar' && child.style === 'alias') return true;
  return child.span[0] < lower || text.charCodeAt(base + child.span[0]) === 42; /* * */
}

/** Follows `path` from the task's mapping, refusing aliases; the error names the segment that failed. */
export function locate(file: TaskFile, taskIndex: number, path: NodePath): Located | { error: string } {
  const entry = file.tasks[taskIndex];
  if (!Number.isInteger(taskIndex) || !entry)
    return {
      error: `there is no task ${taskIndex} (the file has ${file.tasks.length} task${file.tasks.length === 1 ? '' : 's'})`,
    };
  if (!entry.node) return { error: `task ${taskIndex + 1} could not be read: fix its syntax first` };
  const base = entry.offset;
  const steps: Step[] = [{ node: entry.node }];
  let node: YNode = entry.node;
  for (let i = 0; i < path.length; i++) {
    const seg = at(path, i);
    const where = formatPath(path.slice(0, i));
    let step: Step;
    let lower: number;
    if (typeof seg === 'string' && node.type === 'map') {
      const pair = node.items.find((p) => keyName(p) === seg);
      if (!pair) return { error: `${where} has no key \`${seg}\`` };
      if (!pair.value) return { error: `\`${formatPath(path.slice(0, i + 1))}\` has no value` };
      step = { node: pair.value, parent: node, pair };
      lower = pair.key.span[1];
    } else if (typeof seg === 'number' && node.type === 'seq') {
      const item = Number.isInteger(seg) ? node.items[seg] : undefined;
      if (!item) return { error: `${where} has no item ${seg} (it has ${node.items.length})` };
      step = { node: item, parent: node };
      lower = seg > 0 ? at(node.items, seg - 1).span[1] : node.span[0];
    } else {
      return {
        error: `${where} is ${describe(node)}, so it has no ${typeof seg === 'number' ? `item ${seg}` : `key \`${seg}\``}`,
      };
    }
    if (isAliasNode(file.text, base, step.node, lower))
      return { error: `\`${formatPath(path.slice(0, i + 1))}\`: ${ALIAS_ERROR}` };
    steps.push(step);
    node = step.node;
  }
  return { entry, base, steps };
}

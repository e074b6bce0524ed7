// Replacing a key's value with one of another shape (a `match` verifier by a `judge`): in place,
// so the key keeps its place and a block task stays in block style (`replaceValue`). Where that
// cannot be done safely, the key is removed and added again, each step checked as every edit
// is, and the two are given to the editor as one change, so that one Undo takes it back.
import { parseTaskFile, type TaskFile } from '../taskfile/parse';
import { addKey, applyEdit, removeKey, replaceValue, type EditResult } from './taskEdits';

export function replaceKey(file: TaskFile, taskIndex: number, key: string, old: unknown, value: unknown): EditResult {
  const inPlace = replaceValue(file, taskIndex, [], key, old, value);
  if ('edit' in inPlace) return inPlace;
  const removed = removeKey(file, taskIndex, [], key, old);
  if ('error' in removed) return removed;
  const between = applyEdit(file.text, removed.edit);
  const added = addKey(parseTaskFile(between), taskIndex, [], key, value);
  if ('error' in added) return added;
  return { edit: diff(file.text, applyEdit(between, added.edit)) };
}

/** The one edit that turns `a` into `b`: their differing middle. */
function diff(a: string, b: string): { offset: number; length: number; text: string } {
  let start = 0;
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return { offset: start, length: endA - start, text: b.slice(start, endB) };
}

import type { TaskEntry, TaskFile } from './parse';
import { at } from '../util/must';

/** The task whose text contains `offset`, or undefined between tasks and in the header. */
export function taskAt(file: TaskFile, offset: number): TaskEntry | undefined {
  const tasks = file.tasks;
  let lo = 0;
  let hi = tasks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = at(tasks, mid);
    if (offset < t.offset) hi = mid - 1;
    else if (offset >= t.offset + t.length) lo = mid + 1;
    else return t;
  }
  return undefined;
}

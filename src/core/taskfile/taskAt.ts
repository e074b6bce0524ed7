import type { TaskEntry, TaskFile } from './parse';

/** The task whose text contains `offset`, or undefined between tasks and in the header. */
export function taskAt(file: TaskFile, offset: number): TaskEntry | undefined {
  const tasks = file.tasks;
  let lo = 0;
  let hi = tasks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = tasks[mid] as TaskEntry;
    if (offset < t.offset) hi = mid - 1;
    else if (offset >= t.offset + t.length) lo = mid + 1;
    else return t;
  }
  return undefined;
}

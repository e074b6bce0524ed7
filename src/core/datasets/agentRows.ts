// What an exported row says about an agent task's environment. A training row cannot hold the
// environment itself (it is a program), so every format carries it by reference: the path of
// the environment relative to the output file (so a dataset moved with its environments still
// finds them), its reset arguments and the turn limit. The trainer side starts the
// environment from that reference through the Python package (`vtask_reward.environment`),
// which speaks the environment protocol of the task format.
import path from 'node:path';
import { DEFAULT_MAX_TURNS } from '../agent/loop';
import type { TaskSpec } from '../taskfile/resolve';

export interface EnvironmentRef {
  /** The environment's `run`, relative to the output file's folder, with `/` separators. */
  readonly environment: string;
  /** The reset arguments as JSON text: one column type for every task, whatever its args. */
  readonly environment_args: string;
  readonly max_turns: number;
}

/**
 * The reference of a task's environment for rows written to `out`; undefined for a task
 * without one. `file` is the task file as named, `run` is relative to its folder.
 */
export function environmentRef(task: TaskSpec, file: string, out: string): EnvironmentRef | undefined {
  if (!task.environment) return undefined;
  const run = path.resolve(path.dirname(path.resolve(file)), task.environment.run);
  let rel = path.relative(path.dirname(path.resolve(out)), run).split(path.sep).join('/');
  if (!rel.startsWith('.') && !path.isAbsolute(rel)) rel = './' + rel;
  return { environment: rel, environment_args: JSON.stringify(task.environment.args ?? {}), max_turns: task.maxTurns ?? DEFAULT_MAX_TURNS };
}

// What an exported row says about an agent task's environment. A training row cannot hold the
// environment itself (it is a program), so every format carries it by reference: the path of
// the environment relative to the output file (so a dataset moved with its environments still
// finds them), its reset arguments and the turn limit. The trainer side starts the
// environment from that reference through the Python package (`vtask_reward.environment`),
// which speaks the environment protocol of the task format.
import { isRecord, listOr, recordOr } from '../base/record';
import path from 'node:path';
import { DEFAULT_MAX_TURNS } from '../agent/loop';
import type { TaskSpec } from '../taskfile/resolve';
import { kindParams } from './common';
import type { EnvironmentRef, ImportedTask } from './format';

/**
 * The reference of a task's environment for rows written to `out`; undefined for a task
 * without one. `file` is the task file as named, `run` is relative to its folder.
 */
/** The environment a row references, as an imported task's `environment` and `max_turns`. */
export function readEnvironmentRef(v: unknown): Pick<ImportedTask, 'environment' | 'max_turns'> {
  const ref = recordOr(v);
  if (typeof ref.environment !== 'string' || !ref.environment) return {};
  let args: unknown;
  try {
    args = typeof ref.environment_args === 'string' ? JSON.parse(ref.environment_args) : ref.environment_args;
  } catch {
    args = undefined;
  }
  const turns = ref.max_turns ?? ref.max_steps;
  return {
    environment:
      isRecord(args) && Object.keys(args).length > 0 ? { run: ref.environment, args } : { run: ref.environment },
    ...(typeof turns === 'number' ? { max_turns: turns } : {}),
  };
}

/** An imported task's environment with `run` made relative to the task file written at `out`. */
export function rebaseEnvironment(t: ImportedTask, rows: string, out: string): ImportedTask {
  if (!t.environment || path.isAbsolute(t.environment.run)) return t;
  const abs = path.resolve(path.dirname(path.resolve(rows)), t.environment.run);
  let rel = path
    .relative(path.dirname(path.resolve(out)), abs)
    .split(path.sep)
    .join('/');
  if (!rel.startsWith('.')) rel = './' + rel;
  return { ...t, environment: { ...t.environment, run: rel } };
}

export function environmentRef(task: TaskSpec, file: string, out: string): EnvironmentRef | undefined {
  if (!task.environment) return undefined;
  const run = path.resolve(path.dirname(path.resolve(file)), task.environment.run);
  let rel = path
    .relative(path.dirname(path.resolve(out)), run)
    .split(path.sep)
    .join('/');
  if (!rel.startsWith('.') && !path.isAbsolute(rel)) rel = './' + rel;
  return {
    environment: rel,
    environment_args: JSON.stringify(task.environment.args ?? {}),
    max_turns: task.maxTurns ?? DEFAULT_MAX_TURNS,
  };
}

/**
 * The first `trajectory` or `state` check in a verifier, composites included: what a reward
 * server given only the final answer cannot score (the trainers send no trajectory back).
 */
export function trajectoryCheckIn(verify: unknown): 'trajectory' | 'state' | undefined {
  const kp = kindParams(verify);
  if (!kp) return undefined;
  if (kp.kind === 'trajectory' || kp.kind === 'state') return kp.kind;
  if (kp.kind === 'all' || kp.kind === 'any')
    return listOr(kp.params.of)
      .map(trajectoryCheckIn)
      .find((k) => k !== undefined);
  if (kp.kind === 'weighted')
    return listOr(kp.params.of)
      .map((c) => trajectoryCheckIn(recordOr(c).verify))
      .find((k) => k !== undefined);
  return undefined;
}

/** Why a trainer scoring this exported agent task will not reward it as vtask does, or undefined. */
export function agentRewardGap(task: TaskSpec): string | undefined {
  const check = trajectoryCheckIn(task.verify);
  if (!check) return undefined;
  return `its \`${check}\` check needs the trajectory, which this format's trainer does not send \`vtask serve\` (TRL's reward function does): scored through it, that check fails (score the answer alone there, or export for TRL)`;
}

// Agent tasks in a run: what identifies a task's environment in the cache, and one trajectory
// per sample through the agent loop (agent/loop.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MAX_TURNS, runAgentSample, trajectoryKey, type AgentSampleResult } from '../agent/loop';
import { ENV_UNTRUSTED_REASON, startEnvironment } from '../agent/environment';
import type { EnvironmentSpec, Trajectory } from '../agent/types';
import type { SampleCache } from '../sampling/cache';
import type { ModelProfile, Provider, SampleHooks, SampleRequest } from '../sampling/types';
import type { TaskSpec } from '../taskfile/resolve';
import type { Verdict } from '../verifiers/verdict';

export const refusedInUntrusted = `refused: ${ENV_UNTRUSTED_REASON} (this task's environment runs code from the workspace)`;

/**
 * The environment as the trajectory cache knows it: `run`, `args`, and a digest of the `run`
 * file, so that editing the environment's code runs its trajectories again (their model steps
 * stay cached: only steps whose tool results changed ask the model again).
 */
export function environmentIdentity(spec: EnvironmentSpec, dir: string): Record<string, unknown> {
  let content: string | undefined;
  try {
    content = createHash('sha256').update(fs.readFileSync(path.resolve(dir, spec.run))).digest('hex');
  } catch {
    // Not a readable file (a command on PATH, or missing: then starting it says why).
  }
  return { run: spec.run, args: spec.args ?? {}, ...(content ? { content } : {}) };
}

/** A verdict for a trajectory the environment broke off: a failure, shown as an error. */
export function trajectoryVerdict(t: Trajectory): Verdict {
  return { pass: false, score: 0, reason: t.error ?? 'the environment failed', details: { stop: t.stop, turns: t.turns }, error: 'crash' };
}

export interface AgentRunContext {
  readonly provider: Provider;
  readonly cache: SampleCache;
  readonly fresh: boolean;
  readonly signal: AbortSignal;
  readonly hooks: SampleHooks;
  readonly trusted: boolean;
}

export interface AgentPlan {
  /** The cache key of trajectory `index`. */
  key(index: number): string;
  run(index: number, ctx: AgentRunContext): Promise<AgentSampleResult>;
}

/** How the samples of one agent task are keyed and run. */
export function agentPlan(task: TaskSpec, file: string, profile: ModelProfile, request: SampleRequest): AgentPlan {
  const spec = task.environment as EnvironmentSpec;
  const dir = path.dirname(path.resolve(file));
  const environmentKey = environmentIdentity(spec, dir);
  const maxTurns = task.maxTurns ?? DEFAULT_MAX_TURNS;
  return {
    key: (index) => trajectoryKey(profile, request, index, environmentKey, maxTurns),
    run: (index, c) =>
      runAgentSample({
        profile,
        provider: c.provider,
        request,
        index,
        maxTurns,
        environmentKey,
        cache: c.cache,
        fresh: c.fresh,
        signal: c.signal,
        hooks: c.hooks,
        start: (signal) => startEnvironment(spec, { dir, trusted: c.trusted, signal }),
      }),
  };
}

// Agent tasks in a run: what identifies a task's environment in the cache, and one trajectory
// per sample through the agent loop (agent/loop.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MAX_TURNS, runAgentSample, trajectoryKey, type AgentSampleResult } from '../agent/loop';
import { DEFAULT_REQUEST_TIMEOUT_MS, ENV_UNTRUSTED_REASON, startEnvironment } from '../agent/environment';
import type { EnvironmentSession, EnvironmentSpec, Trajectory } from '../agent/types';
import { Limiter } from '../sampling/limiter';
import type { SampleCache } from '../sampling/cache';
import type { ModelProfile, Provider, SampleHooks, SampleRequest } from '../sampling/types';
import type { TaskEnvironment, TaskSpec } from '../taskfile/resolve';
import type { Verdict } from '../verifiers/verdict';
import { verify, type VerifyOptions } from '../verifiers/verify';
import { plural } from '../util/plural';

/**
 * Environments alive at once, across all tasks of a process: each is a sandboxed process, and
 * tasks × the profile's concurrency of them would exhaust memory. VTASK_MAX_ENVIRONMENTS overrides.
 */
export function environmentLimit(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const n = Number(env.VTASK_MAX_ENVIRONMENTS);
  return Number.isInteger(n) && n > 0 ? n : Math.max(4, 2 * os.availableParallelism());
}

let slots: Limiter | undefined;

/** Starts an environment once a slot is free; the slot is given back when the session closes. */
async function startInSlot(
  spec: TaskEnvironment,
  ctx: { dir: string; trusted: boolean; signal: AbortSignal },
): Promise<EnvironmentSession> {
  slots ??= new Limiter(environmentLimit());
  const release = await slots.acquire(ctx.signal);
  let env: EnvironmentSession;
  try {
    env = await startEnvironment(spec, ctx);
  } catch (e) {
    release();
    throw e;
  }
  let released = false;
  return {
    tools: env.tools,
    isolation: env.isolation,
    call: (tool, args, signal) => env.call(tool, args, signal),
    state: (signal) => env.state(signal),
    close: async () => {
      try {
        await env.close();
      } finally {
        if (!released) release();
        released = true;
      }
    },
  };
}

export const refusedInUntrusted = `refused: ${ENV_UNTRUSTED_REASON} (this task's environment runs code from the workspace)`;

/**
 * The environment as the trajectory cache knows it: `run`, `args`, and a digest of the `run`
 * file, so that editing the environment's code runs its trajectories again (their model steps
 * stay cached: only steps whose tool results changed ask the model again).
 */
export function environmentIdentity(spec: EnvironmentSpec, dir: string): Record<string, unknown> {
  let content: string | undefined;
  try {
    content = createHash('sha256')
      .update(fs.readFileSync(path.resolve(dir, spec.run)))
      .digest('hex');
  } catch {
    // Not a readable file (a command on PATH, or missing: then starting it says why).
  }
  return { run: spec.run, args: spec.args ?? {}, ...(content ? { content } : {}) };
}

/** A verdict for a trajectory the environment broke off: a failure, shown as an error. */
export function trajectoryVerdict(t: Trajectory): Verdict {
  return {
    pass: false,
    score: 0,
    reason: t.error ?? 'the environment failed',
    details: { stop: t.stop, turns: t.turns },
    error: 'crash',
  };
}

/**
 * The verdict of an agent sample or case that ran to its end. A trajectory the turn limit cut
 * off has no final answer, whatever its last turn said while calling tools: answer verifiers
 * see an empty answer (so a runaway loop never passes on text it wrote between calls, in a run
 * or as a replayed case), trajectory and state verifiers see what happened, and a failure says
 * the limit was reached.
 */
export async function agentVerdict(
  verifier: unknown,
  response: string,
  trajectory: Trajectory,
  options: VerifyOptions,
): Promise<Verdict> {
  const cut = trajectory.stop === 'max_turns';
  const v = await verify(verifier, cut ? '' : response, { ...options, trajectory });
  if (!cut) return v;
  const limit = `the turn limit (${plural(trajectory.turns, 'turn')}) was reached before a final answer`;
  return {
    ...v,
    reason: v.pass ? `${v.reason} (${limit})` : `${limit}: ${v.reason}`,
    details: { ...v.details, stop: 'max_turns', turns: trajectory.turns },
  };
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
  const spec = task.environment as TaskEnvironment;
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
        // The environment times its own replies out; the loop's bound is the backstop.
        callTimeoutMs: (spec.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + 5000,
        start: (signal) => startInSlot(spec, { dir, trusted: c.trusted, signal }),
      }),
  };
}

// The agent loop: one sample of an agent task is a trajectory. A fresh environment is started,
// the model is sampled with the environment's tools, each tool call is checked against its
// tool's schema and run in order, the results go back as `tool` messages, and this repeats
// until the model answers without calling a tool (the final answer), the turn limit is
// reached, or the environment fails. The final state is read at the end.
//
// Caching, at two levels:
// - each model step is a sample in the sample cache, keyed by the messages so far and the
//   tools (cacheKey.ts), so a trajectory that must be run again (its environment changed)
//   asks the model only for the steps that differ;
// - the whole trajectory (steps, tool results, final state) is a record of its own, keyed by
//   the task's request, its environment (`run`, `args` and the content of the `run` file) and
//   `max_turns`: a second run replays nothing, not even the environment. A trajectory that
//   ended in an environment error is not kept as a record (its model steps are), so the next
//   run tries the environment again at no model cost.
import { createHash } from 'node:crypto';
import type { ChatMessage, ToolCall, ToolSpec } from '../base/chat';
import { errorMessage } from '../base/errorMessage';
import type { SampleCache } from '../sampling/cache';
import { canonicalJson, sampleKey, sampleKeyInput, sampleParams } from '../sampling/cacheKey';
import { allowManyListeners } from '../util/listeners';
import { CancelledError, withDeadline } from '../util/wait';
import type { ModelProfile, Provider, Sample, SampleHooks, SampleRequest } from '../sampling/types';
import type { EnvironmentSession, Trajectory, TrajectoryStep } from './types';
import { toolMessage, toolOutcomeFor } from './toolCall';

/** Turns an agent task may take when it sets no `max_turns`. */
export const DEFAULT_MAX_TURNS = 10;
/** How long one tool call may take, unless the caller says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** A trajectory as the sample cache keeps it: a sample (its final turn) that carries the whole trajectory. */
export type TrajectorySample = Sample & { readonly trajectory: Trajectory };

export interface AgentSampleOptions {
  readonly profile: ModelProfile;
  readonly provider: Provider;
  /** The task's request (its prompt messages and sampling settings); tools come from the environment. */
  readonly request: SampleRequest;
  /** Which sample of the task this is (seed + index, and its cache keys). */
  readonly index: number;
  readonly maxTurns: number;
  /** Starts a fresh environment for this sample. */
  start(signal: AbortSignal): Promise<EnvironmentSession>;
  /** What identifies the environment in the trajectory's cache key (see `environmentIdentity`). */
  readonly environmentKey: unknown;
  readonly cache?: SampleCache;
  /** Ask the model again at every step, ignoring (and replacing) cached steps and trajectories. */
  readonly fresh?: boolean;
  readonly signal: AbortSignal;
  readonly hooks?: SampleHooks;
  readonly callTimeoutMs?: number;
  /** After each tool call, as it is recorded. */
  onStep?(step: TrajectoryStep): void;
}

export interface AgentSampleResult {
  /** The trajectory with its last model turn: text, reasoning, finish reason, model, time. */
  readonly sample: TrajectorySample;
  /** True when the whole trajectory came from the cache (no environment, no model). */
  readonly cached: boolean;
  /** Model steps taken from the cache while running the environment again. */
  readonly cachedSteps: number;
}

/**
 * The cache key of trajectory `index` of a task: the first step's sample key inputs (endpoint,
 * model, prompt, sampling settings, seed), the environment and the turn limit.
 */
export function trajectoryKey(
  profile: ModelProfile,
  request: SampleRequest,
  index: number,
  environmentKey: unknown,
  maxTurns: number,
): string {
  const input = {
    kind: 'trajectory',
    first: sampleKeyInput(profile, { ...request, tools: undefined }, index),
    environment: environmentKey,
    max_turns: maxTurns,
  };
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** Runs one agent sample: from the cache when its trajectory is there, else in a fresh environment. */
export async function runAgentSample(o: AgentSampleOptions): Promise<AgentSampleResult> {
  if (o.signal.aborted) throw new CancelledError();
  // A run's trajectories share its signal, each listening to it while it waits.
  allowManyListeners(o.signal);
  const key = trajectoryKey(o.profile, o.request, o.index, o.environmentKey, o.maxTurns);
  if (!o.fresh && o.cache) {
    const hit = o.cache.get(key);
    if (hit && isTrajectorySample(hit)) return { sample: hit, cached: true, cachedSteps: 0 };
  }
  const run = await runEpisode(o);
  if (o.signal.aborted) throw new CancelledError();
  // An environment error may be passing (a crash, a slow machine): its model steps are cached, the trajectory not.
  if (o.cache && run.sample.trajectory.stop !== 'error')
    o.cache.put(key, run.sample, sampleParams(o.profile, o.request, o.index));
  return { sample: run.sample, cached: false, cachedSteps: run.cachedSteps };
}

/** A cached sample that holds a whole trajectory (a plain model answer under the same key does not). */
function isTrajectorySample(s: Sample): s is TrajectorySample {
  if (!('trajectory' in s)) return false;
  const t = s.trajectory;
  return (
    typeof t === 'object' &&
    t !== null &&
    'messages' in t &&
    Array.isArray(t.messages) &&
    'steps' in t &&
    Array.isArray(t.steps) &&
    'final' in t &&
    typeof t.final === 'string' &&
    'turns' in t &&
    typeof t.turns === 'number'
  );
}

async function runEpisode(o: AgentSampleOptions): Promise<{ sample: TrajectorySample; cachedSteps: number }> {
  const messages: ChatMessage[] = [];
  const steps: TrajectoryStep[] = [];
  let last: Sample | undefined;
  let turns = 0;
  let cachedSteps = 0;
  const end = (
    stop: Trajectory['stop'],
    state: unknown,
    error?: string,
  ): { sample: TrajectorySample; cachedSteps: number } => {
    // The turn limit leaves no final answer: the last turn's text was written beside tool calls.
    const trajectory: Trajectory = {
      messages,
      steps,
      final: stop === 'max_turns' ? '' : (last?.text ?? ''),
      turns,
      ...(state !== undefined ? { state } : {}),
      stop,
      ...(error !== undefined ? { error } : {}),
    };
    const base: Sample = last ?? {
      text: '',
      finishReason: 'error',
      model: o.profile.model,
      takenAt: new Date().toISOString(),
    };
    return { sample: { ...base, trajectory }, cachedSteps };
  };

  let session: EnvironmentSession;
  try {
    session = await o.start(o.signal);
  } catch (e) {
    if (o.signal.aborted) throw new CancelledError();
    return end('error', undefined, `the environment did not start: ${errorMessage(e)}`);
  }
  try {
    const tools = session.tools;
    let stop: Trajectory['stop'] = 'max_turns';
    let error: string | undefined;
    turns: while (turns < o.maxTurns) {
      turns++;
      const s = await modelStep(o, messages, tools);
      if (s.cached) cachedSteps++;
      last = s.sample;
      const calls = s.sample.toolCalls ?? [];
      messages.push({ role: 'assistant', content: s.sample.text, ...(calls.length ? { tool_calls: calls } : {}) });
      if (!calls.length) {
        stop = 'final';
        break;
      }
      // Parallel calls of one turn run one after the other, in the order the model wrote them.
      for (const call of calls) {
        const step = await runCall(o, session, call, turns);
        if ('failed' in step) {
          stop = 'error';
          error = step.failed;
          break turns;
        }
        steps.push(step);
        messages.push(toolMessage(call, step.outcome));
        o.onStep?.(step);
      }
    }
    let state: unknown;
    try {
      state = await withDeadline(
        (s) => session.state(s),
        o.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
        o.signal,
        'reading the final state',
      );
    } catch (e) {
      if (o.signal.aborted) throw new CancelledError();
      if (stop !== 'error') {
        stop = 'error';
        error = `the environment's final state could not be read: ${errorMessage(e)}`;
      }
    }
    return end(stop, state, error);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** One model turn: from the cache when this step was taken before, else one request. */
async function modelStep(
  o: AgentSampleOptions,
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
): Promise<{ sample: Sample; cached: boolean }> {
  const request: SampleRequest = {
    ...o.request,
    messages: [...o.request.messages, ...messages],
    ...(tools.length ? { tools } : {}),
    index: undefined,
  };
  const key = sampleKey(o.profile, request, o.index);
  if (!o.fresh) {
    const hit = o.cache?.get(key);
    if (hit) return { sample: hit, cached: true };
  }
  // Sample k of a task is sent seed + k at every step: `index` says which k this is.
  const [sample] = await o.provider.sample({ ...request, index: o.index }, 1, o.signal, o.hooks);
  if (!sample) throw new Error(`${o.provider.id} returned no answer`);
  o.cache?.put(key, sample, sampleParams(o.profile, request, o.index));
  return { sample, cached: false };
}

/** One tool call (toolCall.ts); an environment that fails (crashes, times out) ends the trajectory. */
async function runCall(
  o: AgentSampleOptions,
  session: EnvironmentSession,
  call: ToolCall,
  turn: number,
): Promise<TrajectoryStep | { failed: string }> {
  try {
    const done = await withDeadline(
      (s) => toolOutcomeFor(session, call, s),
      o.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      o.signal,
      `tool call ${call.name}`,
    );
    return { turn, call, ...done };
  } catch (e) {
    if (o.signal.aborted) throw new CancelledError();
    return { failed: `the environment failed on turn ${turn}, calling ${call.name}: ${errorMessage(e)}` };
  }
}

import { errorMessage } from '../base/errorMessage';
import type { Trajectory } from '../agent/types';
import { agentPlan, agentVerdict, refusedInUntrusted, trajectoryVerdict, type AgentPlan } from './agentSamples';
import { demoNote } from '../sampling/builtin/prompt';
import type { SampleCache } from '../sampling/cache';
import { sampleKeys, sampleParams } from '../sampling/cacheKey';
import { limitsOf, type ResponseLimits } from '../sampling/limits';
import type { ModelProfile, Provider, Sample, SampleHooks, SampleRequest } from '../sampling/types';
import { taskStats, type TaskStats } from '../stats';
import type { TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import { inOrder } from './inOrder';
import { version } from '../version';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import { verify, type VerifyOptions } from '../verifiers/verify';
import { taskView } from './cases';
import { TaskClaims, type Claim } from './claims';
import { at } from '../util/must';

/** One verified sample of a run. */
export interface SampleResult {
  readonly index: number;
  readonly text: string;
  readonly reasoning?: string;
  readonly cached: boolean;
  /** `length` means the model hit max_tokens: the answer is cut and flagged. */
  readonly finishReason: string;
  readonly truncated: boolean;
  readonly verdict: Verdict;
  readonly model: string;
  readonly takenAt: string;
  /** Tokens the endpoint reported for it (`usage`), when it did. */
  readonly usage?: Sample['usage'];
  /** The vtask version that gave the verdict. */
  readonly verifiedBy: string;
  /** An agent task's sample: its messages, tool calls and results, final state and why it stopped. */
  readonly trajectory?: Trajectory;
}

export interface TaskRunResult {
  readonly task: TaskSpec;
  /** The profile, safe to print (no key). */
  readonly model: string;
  readonly samples: readonly SampleResult[];
  readonly stats: TaskStats;
  /** Why sampling stopped early, when it did; the samples taken so far are kept. */
  readonly error?: string;
  /** HTTP requests this task sent, retries included (zero when every sample came from the cache). */
  readonly requests: number;
  /** Why the results may mislead: the built-in demo model was given a task it cannot answer. */
  readonly note?: string;
}

export interface Progress {
  readonly task: string;
  /** Samples obtained so far for this task (cached or new) and the task's target. */
  readonly done: number;
  readonly total: number;
  readonly fromCache: number;
}

export interface RunOptions {
  readonly file: string;
  readonly cache: SampleCache;
  profileFor(task: TaskSpec): ModelProfile;
  providerFor(profile: ModelProfile): Provider;
  readonly samples?: number;
  readonly fresh?: boolean;
  readonly signal: AbortSignal;
  /** Stops verification; defaults to `signal`. The editor keeps verifying what a cancelled run got. */
  readonly verifySignal?: AbortSignal;
  readonly trusted?: boolean;
  readonly groupSize?: number;
  /** Tasks sampled at once; each provider also limits its own requests. */
  readonly concurrency?: number;
  readonly judge?: VerifyContext['judge'];
  /** Use cached samples only: a task missing any of its N samples is left out (no request). */
  readonly cacheOnly?: boolean;
  onProgress?(p: Progress): void;
  onTaskDone?(r: TaskRunResult): void;
  /** When another run on the same cache is sampling `task`, and this one waits for it. */
  onWaitForOtherRun?(task: string): void;
  /** Before each wait to retry a request of `task`. */
  onRetry?(task: string, info: Parameters<NonNullable<SampleHooks['onRetry']>>[0]): void;
  /** Each new sample (not those from the cache), verified, as it arrives. */
  onSample?(task: string, sample: SampleResult): void;
}

/**
 * What verifiers see of a sample. A reasoning parser's content is the model's <think> block:
 * verifiers see the response as the model produced it, and `final_only` drops it again.
 */
export function responseOf(s: { readonly text: string; readonly reasoning?: string }): string {
  return s.reasoning ? `<think>${s.reasoning}</think>${s.text}` : s.text;
}

/**
 * Verifies one sample; an agent sample with its trajectory in context (agentVerdict), and a
 * trajectory the environment broke off fails as an error (it has no answer to judge).
 */
export function verifySample(
  verifier: unknown,
  s: { readonly text: string; readonly reasoning?: string; readonly trajectory?: Trajectory },
  options: VerifyOptions,
): Promise<Verdict> {
  if (!s.trajectory) return verify(verifier, responseOf(s), options);
  if (s.trajectory.stop === 'error') return Promise.resolve(trajectoryVerdict(s.trajectory));
  return agentVerdict(verifier, responseOf(s), s.trajectory, options);
}

/** The request of a task: its messages and sampling settings, the profile's seed as fallback. */
export function requestOf(task: TaskSpec, profile: ModelProfile): SampleRequest {
  const s = task.sampling;
  return {
    messages: task.messages,
    temperature: s.temperature,
    topP: s.top_p,
    maxTokens: s.max_tokens,
    stop: s.stop,
    seed: s.seed ?? profile.seed,
  };
}

/**
 * Tasks claimed together, at least (as many as run at once when that is more): each claim costs
 * a few file operations, and the tasks claimed ahead start soon.
 */
const CLAIM_AHEAD = 64;

/**
 * Samples each task N times (cached samples are reused: only missing indices are requested),
 * verifies every sample and computes the task's statistics. A task whose sampling fails keeps
 * what it got and reports the error; the other tasks go on.
 */
export async function sampleTasks(tasks: readonly TaskSpec[], o: RunOptions): Promise<TaskRunResult[]> {
  const results: TaskRunResult[] = [];
  await streamTasks(tasks, o, (r) => results.push(r));
  return results;
}

/**
 * `sampleTasks` for a caller that keeps nothing: each task's result goes to `onResult` in task
 * order, as soon as it and every task before it are done, and is dropped after that. A run of
 * many tasks then holds the results of the tasks in flight (and of the few that finished ahead
 * of a slower one), not every sample and verdict until the end.
 */
export async function streamTasks(
  tasks: readonly TaskSpec[],
  o: RunOptions,
  onResult: (r: TaskRunResult) => void,
): Promise<void> {
  const fresh = freshCache(o);
  const slots = o.concurrency ?? taskSlots(tasks, o);
  // No claims when nothing is read from the cache (--fresh) or nothing is sampled (cache only).
  const claims = o.fresh || o.cacheOnly ? undefined : new TaskClaims(o.cache);
  // Each task is planned once: when it starts, or before, when an earlier task claims it ahead.
  const plans = new Array<TaskPlan | undefined>(tasks.length);
  const started = new Uint8Array(tasks.length);
  const limits = limitsByProfile();
  const planOf = (i: number): TaskPlan => (plans[i] ??= planTask(at(tasks, i), o, limits));
  // The tasks that start after task i and still miss samples: claimed with it, in one write.
  const reach = Math.max(slots, CLAIM_AHEAD);
  const ahead = (i: number) => (): string[] => {
    const keys: string[] = [];
    for (let j = i + 1; j < tasks.length && j <= i + reach; j++) {
      // One that started has claimed for itself (a task still waiting claims ahead from behind it).
      if (started[j]) continue;
      const plan = planOf(j);
      if ('keys' in plan && plan.keys.length && o.cache.getMany(plan.keys).includes(undefined))
        keys.push(at(plan.keys, 0));
    }
    return keys;
  };
  try {
    await inOrder(
      tasks.length,
      slots,
      async (i) => {
        const plan = planOf(i);
        started[i] = 1;
        plans[i] = undefined;
        const r = 'keys' in plan ? await sampleTask(plan, o, fresh, claims, ahead(i)) : plan.result;
        if (r) o.onTaskDone?.(r);
        return r;
      },
      (r) => {
        if (r) onResult(r);
      },
    );
  } finally {
    claims?.close();
  }
}

/**
 * Tasks sampled at once when the caller does not say: enough for every provider to have its
 * `concurrency` requests out. A task without a seed sends one request (of n samples) at a time,
 * so 16 tasks kept a provider allowed 64 requests at 16; one with a seed (or an agent task)
 * sends up to its n at once, and more tasks would only queue. At least 16.
 */
function taskSlots(tasks: readonly TaskSpec[], o: RunOptions): number {
  let most = 16;
  for (const t of tasks) {
    try {
      const profile = o.profileFor(t);
      const n = o.samples ?? t.sampling.samples;
      const atOnce =
        t.environment || (t.sampling.seed ?? profile.seed) !== undefined
          ? Math.max(1, Math.min(n, profile.concurrency))
          : 1;
      most = Math.max(most, Math.ceil(profile.concurrency / atOnce));
    } catch {
      // A task whose profile does not resolve reports it when it is reached.
    }
  }
  return most;
}

/**
 * Reads what other runs on the same cache saved since this one started, at most every 500 ms:
 * two runs over one file then do not ask again for samples the other already has.
 */
function freshCache(o: RunOptions): () => void {
  let last = 0;
  return () => {
    if (o.fresh || Date.now() - last < 500) return;
    last = Date.now();
    try {
      o.cache.refresh();
    } catch {
      // Reading others' segments is an optimisation; this run's own samples are intact.
    }
  };
}

/**
 * Each profile's limits, worked out once per run: they read the environment, which is the same
 * for every task, and reading it three times per task showed in the CPU of runs of many tasks.
 */
function limitsByProfile(): (profile: ModelProfile) => ResponseLimits {
  const known = new Map<ModelProfile, ResponseLimits>();
  return (profile) => {
    let limits = known.get(profile);
    if (!limits) known.set(profile, (limits = limitsOf(profile)));
    return limits;
  };
}

/** What a task's sampling needs, worked out before it starts; or its result when it cannot start. */
type TaskPlan =
  | {
      readonly task: TaskSpec;
      readonly profile: ModelProfile;
      readonly request: SampleRequest;
      readonly agent: AgentPlan | undefined;
      /** The cache keys of its samples, in order. */
      readonly keys: readonly string[];
      /** How long the task may go without a new sample (its profile's limits). */
      readonly retryBudgetMs: number;
    }
  | { readonly result: TaskRunResult | undefined };

function planTask(task: TaskSpec, o: RunOptions, limitsFor: (profile: ModelProfile) => ResponseLimits): TaskPlan {
  const n = o.samples ?? task.sampling.samples;
  let profile: ModelProfile;
  let retryBudgetMs: number;
  try {
    profile = o.profileFor(task);
    // A bad VTASK_* limit in the environment is this task's error, like a bad profile.
    retryBudgetMs = limitsFor(profile).retryBudgetMs;
  } catch (e) {
    if (o.cacheOnly) return { result: undefined };
    return {
      result: {
        task,
        model: '?',
        samples: [],
        stats: taskStats([], o.groupSize, true),
        error: errorMessage(e),
        requests: 0,
      },
    };
  }
  const request = requestOf(task, profile);
  // Environments run the task's own code: never in an untrusted workspace.
  if (task.environment && o.trusted === false)
    return {
      result: o.cacheOnly
        ? undefined
        : {
            task,
            model: `${profile.name} (${profile.model})`,
            samples: [],
            stats: taskStats([], o.groupSize, true),
            error: refusedInUntrusted,
            requests: 0,
          },
    };
  const agent = task.environment ? agentPlan(task, o.file, profile, request) : undefined;
  // An agent task's samples are whole trajectories, each a record of its own in the cache.
  const keys = agent ? Array.from({ length: n }, (_, i) => agent.key(i)) : sampleKeys(profile, request, n);
  return { task, profile, request, agent, keys, retryBudgetMs };
}

async function sampleTask(
  plan: Extract<TaskPlan, { keys: unknown }>,
  o: RunOptions,
  refresh: () => void,
  claims: TaskClaims | undefined,
  ahead: () => readonly string[],
): Promise<TaskRunResult | undefined> {
  const { task, keys } = plan;
  const n = keys.length;
  let got: (Sample | undefined)[] = o.fresh ? new Array<Sample | undefined>(n).fill(undefined) : o.cache.getMany(keys);
  let claim: Claim | undefined;
  if (claims && got.includes(undefined) && !o.signal.aborted) {
    refresh();
    got = o.cache.getMany(keys);
    if (got.includes(undefined)) {
      try {
        claim = await claims.claim(at(keys, 0), ahead, o.signal, {
          maxWaitMs: plan.retryBudgetMs,
          onWait: () => o.onWaitForOtherRun?.(task.id),
        });
      } catch (e) {
        if (!o.signal.aborted) throw e;
      }
      // Read again even when the claim came at once: another run may have finished the task
      // (and let go of it) before this run claimed it; the claim read what it wrote.
      if (claim) got = o.cache.getMany(keys);
    }
  }
  try {
    return await sampleMissing(plan, o, got);
  } finally {
    claim?.release();
  }
}

async function sampleMissing(
  { task, profile, request, agent, keys, retryBudgetMs }: Extract<TaskPlan, { keys: unknown }>,
  o: RunOptions,
  got: (Sample | undefined)[],
): Promise<TaskRunResult | undefined> {
  const n = keys.length;
  const cached = got.map((s) => s !== undefined);
  const missing = got.flatMap((s, i) => (s === undefined ? [i] : []));
  if (o.cacheOnly && missing.length) return undefined;
  const view = taskView(task, o.file);
  const verdicts: Promise<Verdict>[] = [];
  const trajectoryOf = (s: Sample): Trajectory | undefined =>
    agent ? (s as Sample & { trajectory?: Trajectory }).trajectory : undefined;
  const check = (s: Sample): Promise<Verdict> => {
    const trajectory = trajectoryOf(s);
    return verifySample(
      task.verify,
      { text: s.text, reasoning: s.reasoning, ...(trajectory ? { trajectory } : {}) },
      { task: view, signal: o.verifySignal ?? o.signal, trusted: o.trusted, judge: o.judge },
    );
  };
  const result = (i: number, s: Sample, verdict: Verdict): SampleResult => {
    const trajectory = trajectoryOf(s);
    return {
      index: i,
      text: s.text,
      reasoning: s.reasoning,
      cached: cached[i] === true,
      finishReason: s.finishReason,
      truncated: s.finishReason === 'length',
      verdict,
      model: s.model,
      takenAt: s.takenAt,
      ...(s.usage ? { usage: s.usage } : {}),
      verifiedBy: version,
      ...(trajectory ? { trajectory } : {}),
    };
  };
  const report = (): void =>
    o.onProgress?.({
      task: task.id,
      done: got.filter(Boolean).length,
      total: n,
      fromCache: cached.filter(Boolean).length,
    });
  report();
  let error: string | undefined;
  let requests = 0;
  if (missing.length && !o.signal.aborted) {
    const provider = o.providerFor(profile);
    const store = (i: number, s: Sample): void => {
      got[i] = s;
      // The agent loop keeps its own records (each step, and the trajectory once it is whole).
      if (!agent) o.cache.put(at(keys, i), s, sampleParams(profile, request, i));
      report();
      // Streaming front ends see each new sample verified as soon as it arrives.
      if (o.onSample) {
        const v = (verdicts[i] = check(s));
        void v.then((verdict) => o.onSample?.(task.id, result(i, s, verdict)));
      }
    };
    // The retry budget counts from the last sample that arrived: a task that makes progress
    // goes on, one that has got nothing for that long stops.
    let progressAt = Date.now();
    const hooks = (): SampleHooks => ({
      onRequest: () => requests++,
      onRetry: (info) => o.onRetry?.(task.id, info),
      retryDeadline: () => progressAt + retryBudgetMs,
    });
    try {
      if (agent) {
        // Each trajectory has its own environment; the provider's limiter bounds the requests.
        await mapLimit(missing, profile.concurrency, async (i) => {
          const r = await agent.run(i, {
            provider,
            cache: o.cache,
            fresh: o.fresh === true,
            signal: o.signal,
            hooks: hooks(),
            trusted: o.trusted !== false,
          });
          progressAt = Date.now();
          store(i, r.sample);
        });
      } else if (request.seed !== undefined || o.onSample) {
        // Sample k is sent seed + k, so each index is its own request (and cache entry). A
        // streaming front end also asks one at a time, so samples show as they arrive.
        await mapLimit(missing, profile.concurrency, async (i) => {
          const seed = request.seed === undefined ? undefined : request.seed + i;
          const [s] = await provider.sample({ ...request, seed }, 1, o.signal, hooks());
          if (s) {
            progressAt = Date.now();
            store(i, s);
          }
        });
      } else {
        // Saved as each answer arrives (a server that ignores `n` answers one at a time), so a
        // run killed half-way keeps what had come.
        let next = 0;
        const all = await provider.sample(request, missing.length, o.signal, {
          ...hooks(),
          onSamples: (fresh) => {
            progressAt = Date.now();
            for (const s of fresh) {
              const i = missing[next++];
              if (i !== undefined) store(i, s);
            }
          },
        });
        // A provider without `onSamples` (the built-in models) hands them all over at the end.
        for (; next < missing.length && next < all.length; next++) store(at(missing, next), at(all, next));
      }
    } catch (e) {
      error = o.signal.aborted ? 'cancelled' : errorMessage(e);
    }
  }
  const samples: SampleResult[] = [];
  for (let i = 0; i < n; i++) {
    const s = got[i];
    if (!s) continue;
    samples.push(result(i, s, await (verdicts[i] ?? check(s))));
  }
  // An agent task's arithmetic is done by its tools: there only the kind of question counts.
  const note = profile.baseUrl.startsWith('builtin:')
    ? demoNote(task.messages, task.environment !== undefined)
    : undefined;
  return {
    task,
    model: `${profile.name} (${profile.model})`,
    samples,
    stats: taskStats(
      samples.map((s) => s.verdict),
      o.groupSize,
      error !== undefined,
    ),
    error,
    requests,
    ...(note ? { note } : {}),
  };
}

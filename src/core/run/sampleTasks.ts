import { errorMessage } from '../base/errorMessage';
import type { SampleCache } from '../sampling/cache';
import { sampleKey, sampleParams } from '../sampling/cacheKey';
import type { ModelProfile, Provider, Sample, SampleRequest } from '../sampling/types';
import { taskStats, type TaskStats } from '../stats';
import type { TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import { version } from '../version';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';
import { taskView } from './cases';

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
  /** The vtask version that gave the verdict. */
  readonly verifiedBy: string;
}

export interface TaskRunResult {
  readonly task: TaskSpec;
  /** The profile, safe to print (no key). */
  readonly model: string;
  readonly samples: readonly SampleResult[];
  readonly stats: TaskStats;
  /** Why sampling stopped early, when it did; the samples taken so far are kept. */
  readonly error?: string;
  /** Requests this task sent (zero when every sample came from the cache). */
  readonly requests: number;
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

/** The request of a task: its messages and sampling settings, the profile's seed as fallback. */
export function requestOf(task: TaskSpec, profile: ModelProfile): SampleRequest {
  const s = task.sampling;
  return { messages: task.messages, temperature: s.temperature, topP: s.top_p, maxTokens: s.max_tokens, stop: s.stop, seed: s.seed ?? profile.seed };
}

/**
 * Samples each task N times (cached samples are reused: only missing indices are requested),
 * verifies every sample and computes the task's statistics. A task whose sampling fails keeps
 * what it got and reports the error; the other tasks go on.
 */
export async function sampleTasks(tasks: readonly TaskSpec[], o: RunOptions): Promise<TaskRunResult[]> {
  const results = await mapLimit(tasks, o.concurrency ?? 16, async (task) => {
    const r = await sampleTask(task, o);
    if (r) o.onTaskDone?.(r);
    return r;
  });
  return results.filter((r): r is TaskRunResult => r !== undefined);
}

async function sampleTask(task: TaskSpec, o: RunOptions): Promise<TaskRunResult | undefined> {
  const n = o.samples ?? task.sampling.samples;
  let profile: ModelProfile;
  try {
    profile = o.profileFor(task);
  } catch (e) {
    if (o.cacheOnly) return undefined;
    return { task, model: '?', samples: [], stats: taskStats([], o.groupSize), error: errorMessage(e), requests: 0 };
  }
  const request = requestOf(task, profile);
  const keys = Array.from({ length: n }, (_, i) => sampleKey(profile, request, i));
  const got: (Sample | undefined)[] = o.fresh ? new Array<Sample | undefined>(n).fill(undefined) : o.cache.getMany(keys);
  const cached = got.map((s) => s !== undefined);
  const missing = got.flatMap((s, i) => (s === undefined ? [i] : []));
  if (o.cacheOnly && missing.length) return undefined;
  const view = taskView(task, o.file);
  const verdicts: Promise<Verdict>[] = [];
  const check = (s: Sample): Promise<Verdict> => verify(task.verify, responseOf(s), { task: view, signal: o.verifySignal ?? o.signal, trusted: o.trusted, judge: o.judge });
  const result = (i: number, s: Sample, verdict: Verdict): SampleResult => ({
    index: i, text: s.text, reasoning: s.reasoning, cached: cached[i] === true, finishReason: s.finishReason, truncated: s.finishReason === 'length', verdict, model: s.model, takenAt: s.takenAt, verifiedBy: version,
  });
  const report = (): void => o.onProgress?.({ task: task.id, done: got.filter(Boolean).length, total: n, fromCache: cached.filter(Boolean).length });
  report();
  let error: string | undefined;
  let requests = 0;
  if (missing.length && !o.signal.aborted) {
    const provider = o.providerFor(profile);
    const store = (i: number, s: Sample): void => {
      got[i] = s;
      o.cache.put(keys[i] as string, s, sampleParams(profile, request, i));
      report();
      // Streaming front ends see each new sample verified as soon as it arrives.
      if (o.onSample) {
        const v = (verdicts[i] = check(s));
        void v.then((verdict) => o.onSample?.(task.id, result(i, s, verdict)));
      }
    };
    try {
      if (request.seed !== undefined || o.onSample) {
        // Sample k is sent seed + k, so each index is its own request (and cache entry). A
        // streaming front end also asks one at a time, so samples show as they arrive.
        await mapLimit(missing, profile.concurrency, async (i) => {
          requests++;
          const seed = request.seed === undefined ? undefined : request.seed + i;
          const [s] = await provider.sample({ ...request, seed }, 1, o.signal);
          if (s) store(i, s);
        });
      } else {
        requests++;
        const fresh = await provider.sample(request, missing.length, o.signal);
        missing.forEach((i, k) => {
          const s = fresh[k];
          if (s) store(i, s);
        });
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
  return { task, model: `${profile.name} (${profile.model})`, samples, stats: taskStats(samples.map((s) => s.verdict), o.groupSize), error, requests };
}

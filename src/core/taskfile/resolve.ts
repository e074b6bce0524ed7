import type { ChatMessage } from '../base/chat';
import type { Issue } from '../base/issues';
import type { FilePart, TaskEntry, TaskFile } from './parse';
import { getPair, toJS, type YNode } from '../base/ynode';
import { isList, isRecord, isStringArray, listOr, recordOr } from '../base/record';

export type Expectation = 'pass' | 'fail' | { readonly score: number };

/** A regression case ready to run. */
export interface CaseSpec {
  readonly index: number;
  readonly name?: string;
  readonly response: string;
  readonly expect: Expectation;
  /** Absolute offset of the case in the file, for locations in reports. */
  readonly offset: number;
  /** Agent tasks: the scripted tool calls `[{tool: {args}}]` replayed before `response`; a list is one turn of parallel calls. */
  readonly calls?: readonly (Readonly<Record<string, unknown>> | readonly Readonly<Record<string, unknown>>[])[];
}

/** A task's `environment:` as written (`run` relative to the task file's folder). */
export interface TaskEnvironment {
  readonly run: string;
  readonly args?: Readonly<Record<string, unknown>>;
  /** Per-reply timeout in milliseconds. */
  readonly timeoutMs?: number;
}

/** Sampling settings after `defaults` are applied. */
export interface SamplingSpec {
  readonly model?: string;
  readonly samples: number;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly max_tokens?: number;
  readonly seed?: number;
  readonly stop?: string | readonly string[];
}

/** A task with `defaults` applied, as plain data: what runners, exports and panels use. */
export interface TaskSpec {
  readonly id: string;
  readonly index: number;
  /** Absolute offset of the task in the file. */
  readonly offset: number;
  readonly messages: readonly ChatMessage[];
  /** The last user message: what `constraints` such as `repeat_prompt` compare with. */
  readonly prompt: string;
  /** The verifier as `{kind: params}`. */
  readonly verify: unknown;
  readonly cases: readonly CaseSpec[];
  readonly sampling: SamplingSpec;
  readonly tags: readonly string[];
  readonly meta: Readonly<Record<string, unknown>>;
  /** Agent tasks: the environment whose tools the model gets. */
  readonly environment?: TaskEnvironment;
  /** Agent tasks: the most assistant turns. */
  readonly maxTurns?: number;
}

/** Tasks that can run: those without errors of their own, with `defaults` applied. */
export function runnableTasks(file: TaskFile): { tasks: TaskSpec[]; skipped: TaskEntry[] } {
  const defaults = findDefaults(file);
  const defaultsKey = JSON.stringify(defaults);
  const errorsAt = errorOffsets(file.issues);
  const tasks: TaskSpec[] = [];
  const skipped: TaskEntry[] = [];
  for (const entry of file.tasks) {
    const hasError = entry.issues.some((i) => i.severity === 'error') || errorsAt.has(entry.offset + entry.anchor[0]);
    const spec = !hasError && entry.node ? resolveCached(entry, defaults, defaultsKey) : undefined;
    if (spec) tasks.push(spec);
    else skipped.push(entry);
  }
  return { tasks, skipped };
}

function errorOffsets(issues: readonly Issue[]): Set<number> {
  return new Set(issues.filter((i) => i.severity === 'error').map((i) => i.start));
}

function findDefaults(file: TaskFile): Record<string, unknown> {
  return defaultsOf(file.parts);
}

/** The `defaults` of a file's parts, as plain values ({} without any). */
export function defaultsOf(parts: readonly FilePart[]): Record<string, unknown> {
  for (const part of parts) {
    const d = part.node ? getPair(part.node, 'defaults')?.value : undefined;
    if (d?.type === 'map') return toJS(d) as Record<string, unknown>;
  }
  return {};
}

/**
 * Resolved tasks by their tree. The editor's parser reuses the tree of every task whose text
 * did not change, so after an edit only the edited task is resolved again; offsets, which
 * move with edits above, are applied afresh.
 */
const resolved = new WeakMap<object, { defaultsKey: string; spec: TaskSpec | undefined; offset: number }>();

function resolveCached(entry: TaskEntry, defaults: Record<string, unknown>, defaultsKey: string): TaskSpec | undefined {
  const node = entry.node;
  // A task with no tree has nothing to run (resolveTask says undefined too).
  if (!node) return undefined;
  const hit = resolved.get(node);
  if (hit && hit.defaultsKey === defaultsKey) {
    if (!hit.spec) return undefined;
    if (hit.offset === entry.offset && hit.spec.index === entry.index) return hit.spec;
    const shift = entry.offset - hit.offset;
    return {
      ...hit.spec,
      index: entry.index,
      offset: entry.offset,
      cases: hit.spec.cases.map((c) => ({ ...c, offset: c.offset + shift })),
    };
  }
  const spec = resolveTask(entry, defaults);
  resolved.set(node, { defaultsKey, spec, offset: entry.offset });
  return spec;
}

/** Applies defaults to one task; undefined when it lacks what running needs. */
export function resolveTask(entry: TaskEntry, defaults: Record<string, unknown>): TaskSpec | undefined {
  const own = recordOr(toJS(entry.node));
  const get = (k: string): unknown => (own[k] !== undefined ? own[k] : defaults[k]);
  const id = typeof own.id === 'string' ? own.id : undefined;
  const verify = get('verify');
  if (id === undefined || verify === undefined || verify === null) return undefined;
  const messages: ChatMessage[] = [];
  const system = get('system');
  const rawMessages = get('messages');
  if (isList(rawMessages)) {
    for (const m of rawMessages.map(recordOr)) messages.push({ role: String(m.role), content: String(m.content) });
  } else {
    const prompt = get('prompt');
    if (typeof prompt !== 'string') return undefined;
    messages.push({ role: 'user', content: prompt });
  }
  if (typeof system === 'string' && !messages.some((m) => m.role === 'system'))
    messages.unshift({ role: 'system', content: system });
  const prompt = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const num = (k: string): number | undefined => {
    const v = get(k);
    return typeof v === 'number' ? v : undefined;
  };
  const stop = get('stop');
  const model = get('model');
  const tags = get('tags');
  return {
    id,
    index: entry.index,
    offset: entry.offset,
    messages,
    prompt,
    verify,
    cases: casesOf(entry),
    sampling: {
      model: typeof model === 'string' ? model : undefined,
      samples: num('samples') ?? 8,
      temperature: num('temperature'),
      top_p: num('top_p'),
      max_tokens: num('max_tokens'),
      seed: num('seed'),
      stop: typeof stop === 'string' || isStringArray(stop) ? stop : undefined,
    },
    tags: listOr(tags).map(String),
    meta: recordOr(get('meta')),
    ...environmentOf(get('environment')),
    ...(num('max_turns') !== undefined ? { maxTurns: num('max_turns') } : {}),
  };
}

function environmentOf(v: unknown): { environment?: TaskEnvironment } {
  if (!isRecord(v) || typeof v.run !== 'string') return {};
  const args = isRecord(v.args) ? v.args : undefined;
  return {
    environment: {
      run: v.run,
      ...(args ? { args } : {}),
      ...(typeof v.timeout_ms === 'number' ? { timeoutMs: v.timeout_ms } : {}),
    },
  };
}

function casesOf(entry: TaskEntry): CaseSpec[] {
  const cases = entry.node ? getPair(entry.node, 'cases')?.value : undefined;
  if (cases?.type !== 'seq') return [];
  const out: CaseSpec[] = [];
  cases.items.forEach((c: YNode, index) => {
    if (c.type !== 'map') return;
    const v = recordOr(toJS(c));
    const e = v.expect;
    const expect: Expectation | undefined =
      e === 'pass' || e === 'fail' ? e : isRecord(e) && typeof e.score === 'number' ? { score: e.score } : undefined;
    if (expect === undefined || typeof v.response !== 'string') return;
    const calls = isList(v.calls) ? scriptedTurns(v.calls) : undefined;
    out.push({
      index,
      name: typeof v.name === 'string' ? v.name : undefined,
      response: v.response,
      expect,
      offset: entry.offset + c.span[0],
      ...(calls ? { calls } : {}),
    });
  });
  return out;
}

/** A case's `calls` as validated: calls and turns of calls; anything else was reported by validation. */
function scriptedTurns(items: readonly unknown[]): (Record<string, unknown> | Record<string, unknown>[])[] {
  const out: (Record<string, unknown> | Record<string, unknown>[])[] = [];
  for (const x of items) {
    if (isRecord(x)) out.push(x);
    else if (Array.isArray(x) && x.length && x.every(isRecord)) out.push(x);
  }
  return out;
}

// Probes for agent tasks (tasks with an `environment`): trajectories a sound verifier must fail,
// replayed in the task's real environment without a model, as cases with `calls` are. The gold
// answer with no call at all; the gold answer after a transcript of calls the model only wrote
// down; a passing case's calls with wrong arguments and its right answer (calls made for show);
// and one call of a tool that writes the very value a `state` part expects, which the passing
// case never makes (the state reached without the work).
import { withCall, type ScriptedCall, type ScriptedTurn } from '../agent/replay';
import { toolResultText } from '../agent/toolCall';
import { validateToolArgs } from '../agent/toolArgs';
import type { Trajectory } from '../agent/types';
import type { ToolSpec } from '../base/chat';
import type { CaseSpec, TaskSpec } from '../taskfile/resolve';
import { deepEqual } from '../verifiers/code/compare';
import type { Probe } from './probe';
import { checksWork, requiredTools } from './verifierParts';
import { wrongArgs } from './wrongArgs';
import { isRecord } from '../base/record';

/** At most this many calls of the passing case get wrong arguments, each in a probe of its own. */
const MUTATED_CALLS = 4;

/** What the agent probes are built from: the task's work, as its first passing case does it. */
export interface AgentReference {
  /** The first case that expects pass; undefined when the task has none. */
  readonly case?: CaseSpec;
  /** The case's calls in order, whatever turns they are grouped in. */
  readonly calls: readonly ScriptedCall[];
  /** The case's script as written: its turns, as a probe replays them. */
  readonly turns: readonly ScriptedTurn[];
  /** The gold final answer: the case's response, or the answer verifier's gold answer. */
  readonly response: string;
  /** The gold answer as plain text (`Paris`), what a transcript pretends a tool returned. */
  readonly answer: string;
  /** The script replayed in the environment. */
  readonly trajectory: Trajectory;
  /** The tools the environment declared. */
  readonly tools: readonly ToolSpec[];
}

/** A call that was seen to write its argument at a path a `state` part checks. */
export interface StateWriter {
  readonly call: ScriptedCall;
  readonly path: string;
  readonly value: unknown;
}

const nameOf = (call: ScriptedCall): string => Object.keys(call)[0] ?? '';
const argsOf = (call: ScriptedCall): Record<string, unknown> => {
  const a = call[nameOf(call)];
  return isRecord(a) ? a : {};
};

/** True when some case expects pass with no call: then no call at all is the work, not a shortcut. */
function noCallPasses(task: TaskSpec): boolean {
  return task.cases.some((c) => c.expect === 'pass' && !c.calls?.length);
}

/** The `agent` probes of a task, from its work and the state writers the environment showed. */
export function agentProbes(task: TaskSpec, ref: AgentReference, writers: readonly StateWriter[]): Probe[] {
  const out: Probe[] = [];
  if (!noCallPasses(task)) {
    // A verifier with no `trajectory` or `state` part cannot see the work at all.
    const severity = checksWork(task.verify) ? 'high' : 'critical';
    const blind =
      severity === 'critical' ? '; the verifier checks only the answer: add a `trajectory` or `state` part' : '';
    out.push({
      id: 'agent-no-call',
      family: 'agent',
      response: ref.response,
      calls: [],
      expected: 'fail',
      severity,
      why: `the gold answer with no tool call did none of the work the environment is there for${blind}`,
    });
    out.push({
      id: 'agent-claimed-calls',
      family: 'agent',
      response: `${claimedCalls(task, ref)}\n${ref.response}`,
      calls: [],
      expected: 'fail',
      severity,
      why: `tool calls written in the text are not calls: the environment saw none${blind}`,
    });
  }
  const c = ref.case;
  if (!c) return out;
  let mutated = 0;
  ref.calls.forEach((original, i) => {
    const tool = ref.tools.find((t) => t.name === nameOf(original));
    // Only calls that reach the environment: an invalid one already did no work.
    if (!tool || mutated >= MUTATED_CALLS || 'error' in validateToolArgs(tool, JSON.stringify(argsOf(original))))
      return;
    const wrong = wrongArgs(argsOf(original), tool.parameters);
    if (!wrong || 'error' in validateToolArgs(tool, JSON.stringify(wrong))) return;
    mutated++;
    out.push({
      id: `agent-wrong-args-case${c.index}-${mutated}`,
      family: 'agent',
      response: ref.response,
      calls: withCall(ref.turns, i, { [tool.name]: wrong }),
      expected: 'fail',
      severity: 'medium',
      why: `case ${c.index} with the arguments of its call ${i + 1} (${tool.name}) changed to ${JSON.stringify(wrong)} and the same answer: the answer did not come from the work, yet the verifier cannot tell, so a model that knows the answer learns to call the tools for show; check what the calls leave in the state`,
      sameWorkAs: ref.trajectory,
    });
  });
  writers.forEach((w, i) => {
    const tool = nameOf(w.call);
    out.push({
      id: `agent-forged-state-case${c.index}-${i + 1}`,
      family: 'agent',
      response: ref.response,
      calls: [w.call],
      expected: 'fail',
      severity: 'high',
      why: `${tool} ${JSON.stringify(argsOf(w.call))} writes ${JSON.stringify(w.value)} at ${w.path} directly, a call case ${c.index} never makes: the state the verifier checks is reached without the work, which a model learns to do; check the work itself (a \`trajectory\` part, or state only the work leaves)`,
    });
  });
  return out;
}

/**
 * The calls a model might write as text instead of making them: the passing case's calls with
 * their real results, in the `<tool_call>`/`<tool_response>` form chat templates use. With no
 * passing case, the tools the verifier requires (or the first tool), returning the gold answer.
 */
function claimedCalls(task: TaskSpec, ref: AgentReference): string {
  const made = ref.trajectory.steps
    .filter((s) => s.args !== undefined)
    .map((s) => ({ name: s.call.name, args: s.args, result: toolResultText(s.outcome) }));
  const names = requiredTools(task.verify);
  const claimed = made.length
    ? made
    : (names.length ? names : ref.tools.slice(0, 1).map((t) => t.name)).map((name) => ({
        name,
        args: {},
        result: ref.answer,
      }));
  return claimed
    .map(
      (c) =>
        `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>\n<tool_response>\n${c.result}\n</tool_response>`,
    )
    .join('\n');
}

/** A call that might write `value`: one parameter set to it, every other required one as the passing case sets it. */
export interface WriterCandidate {
  readonly tool: ToolSpec;
  readonly param: string;
  readonly args: Record<string, unknown>;
}

/** At most this many candidate writers per expected state value are tried in the environment. */
const WRITER_CANDIDATES = 3;

/**
 * Calls that could write an expected state value: a tool parameter that accepts the value,
 * the tool's other required parameters filled with what the passing case passed under the same
 * names. A call the passing case makes is the work, not a shortcut, and is left out; tools the
 * case never calls come first. Whether a candidate really writes there is for the environment
 * to show (`vtask audit` tries each with another value first).
 */
export function writerCandidates(ref: AgentReference, value: unknown): WriterCandidate[] {
  const used = new Map<string, unknown>();
  for (const call of ref.calls) for (const [k, v] of Object.entries(argsOf(call))) if (!used.has(k)) used.set(k, v);
  const calledTools = new Set(ref.calls.map(nameOf));
  const tools = [...ref.tools].sort((a, b) => Number(calledTools.has(a.name)) - Number(calledTools.has(b.name)));
  const out: WriterCandidate[] = [];
  for (const tool of tools) {
    const schema = tool.parameters;
    const required = Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [];
    for (const param of Object.keys(isRecord(schema.properties) ? schema.properties : {})) {
      const others = required.filter((r) => r !== param);
      if (others.some((r) => !used.has(r))) continue;
      const args = { ...Object.fromEntries(others.map((r) => [r, used.get(r)])), [param]: value };
      if ('error' in validateToolArgs(tool, JSON.stringify(args))) continue;
      if (ref.calls.some((c) => nameOf(c) === tool.name && deepEqual(argsOf(c), args))) continue;
      out.push({ tool, param, args });
    }
  }
  return out.slice(0, WRITER_CANDIDATES);
}

/** True when a replay did what the passing case did: every tool result and the final state the same. */
export function sameWork(a: Trajectory, b: Trajectory): boolean {
  return (
    a.steps.length === b.steps.length &&
    a.steps.every((s, i) => deepEqual(s.outcome, b.steps[i]?.outcome)) &&
    deepEqual(a.state, b.state)
  );
}

// Auditing an agent task. Every probe is a trajectory replayed in the task's real environment
// (in the sandbox, never in an untrusted workspace), through the same path as `vtask test`'s
// cases with `calls`. The task's first passing case is replayed first: it is the work the
// probes are made from, and it says which tools the environment declares.
//
// The answer probes (degenerate, hedge, wrong-answer...) replay that case's calls with the probe
// text as the final answer. Without the work a `trajectory` or `state` part would fail every one
// of them whatever the answer, which hides the holes of the answer part; with it, only the
// answer decides. When the task has no passing case, or it fails replayed, they cannot run and
// the audit says why.
import { flatCalls, type ScriptedTurn } from '../agent/replay';
import { validateToolArgs } from '../agent/toolArgs';
import type { Trajectory } from '../agent/types';
import { replayScript, runScripted, type RunCasesOptions } from '../run/cases';
import type { TaskSpec } from '../taskfile/resolve';
import { valueAt } from '../verifiers/agentChecks';
import { deepEqual } from '../verifiers/code/compare';
import type { Verdict } from '../verifiers/verdict';
import { agentProbes, sameWork, writerCandidates, type AgentReference, type StateWriter } from './agentProbes';
import { goldOf } from './gold';
import type { Probe } from './probe';
import { isSelected, probesFor } from './probes';
import { checksAnswer, checksWork, expectedStates } from './verifierParts';
import { wrongArgs } from './wrongArgs';

/** The final answer of a task whose verifier holds no gold answer and that has no passing case. */
const DONE = 'Done.';

export interface AgentAuditPlan {
  /** The probes to run, each with its `calls`. */
  readonly probes: readonly Probe[];
  /** Probes that cannot run here, each with why. */
  readonly notRun: readonly { readonly probe: Probe; readonly reason: string }[];
}

/** Not a trajectory: what the probes are built from when the environment did not run. */
const NO_TRAJECTORY: Trajectory = { messages: [], steps: [], final: '', turns: 0, stop: 'error' };

export async function planAgentAudit(
  task: TaskSpec,
  only: ReadonlySet<string> | undefined,
  o: RunCasesOptions,
): Promise<AgentAuditPlan> {
  // When the final answer is not checked, probes of the answer test nothing here.
  const answerProbes = checksAnswer(task.verify) ? probesFor(task).filter((p) => isSelected(p, only)) : [];
  if (!answerProbes.length && only && ![...only].some((s) => s === 'agent' || s.startsWith('agent-')))
    return { probes: [], notRun: [] };
  const passing = task.cases.find((c) => c.expect === 'pass');
  const gold = goldOf(task.verify);
  const calls: readonly ScriptedTurn[] = passing?.calls ?? [];
  const response = passing ? passing.response : gold ? gold.wrap(gold.text) : DONE;
  const run = await runScripted(task, { calls, response }, o);
  const ref: AgentReference = {
    case: passing,
    calls: flatCalls(calls),
    turns: calls,
    response,
    answer: gold?.text ?? response,
    trajectory: run.trajectory ?? NO_TRAJECTORY,
    tools: run.tools ?? [],
  };
  if (!run.trajectory || run.trajectory.stop === 'error') {
    // The environment could not run (refused, weak isolation, missing, crashed): no probe can.
    const all = [...answerProbes, ...agentProbes(task, ref, [])].filter((p) => isSelected(p, only));
    return { probes: [], notRun: all.map((probe) => ({ probe, reason: run.verdict.reason })) };
  }
  const works = passing !== undefined && run.verdict.pass;
  const writers =
    works && isSelected({ id: `agent-forged-state-case${passing.index}-1`, family: 'agent' }, only)
      ? await stateWriters(task, ref, o)
      : [];
  const probes = [...answerProbes.map((p) => ({ ...p, calls })), ...agentProbes(task, ref, writers)].filter((p) =>
    isSelected(p, only),
  );
  if (works) return { probes, notRun: [] };
  const reason = !passing
    ? 'no case expects pass, so there is no work to replay under the answer probes, and a `trajectory` or `state` part fails them whatever the answer: add a passing case with its `calls`'
    : run.verdict.error
      ? run.verdict.reason
      : `case ${passing.index} expects pass but fails when replayed (${run.verdict.reason}): the probes that replay its calls need it to pass (see vtask test)`;
  // Probes on the passing case's work mean nothing while it fails; so do the answer probes of a
  // verifier that checks the work too.
  const needsWork = (p: Probe): boolean =>
    p.sameWorkAs !== undefined || (p.family !== 'agent' && checksWork(task.verify));
  return {
    probes: probes.filter((p) => !needsWork(p)),
    notRun: probes.filter(needsWork).map((probe) => ({ probe, reason })),
  };
}

/**
 * A probe's verdict; `sameWork` when its changed calls changed nothing the environment shows;
 * `notRun` when the environment failed under it (it did not start, crashed, hung): then the
 * verifier decided nothing, and the probe is neither passed nor a finding.
 */
export async function runAgentProbe(
  task: TaskSpec,
  p: Probe,
  o: RunCasesOptions,
): Promise<{ verdict: Verdict } | { sameWork: true } | { notRun: string }> {
  const r = await runScripted(task, { calls: p.calls ?? [], response: p.response }, o);
  if (!r.trajectory || r.trajectory.stop === 'error') {
    // Refused or unavailable (untrusted, weak isolation) is said as such by the audit.
    if (r.verdict.error === 'refused' || r.verdict.error === 'unavailable') return { verdict: r.verdict };
    return { notRun: `the environment failed: ${r.verdict.reason}` };
  }
  if (p.sameWorkAs && sameWork(r.trajectory, p.sameWorkAs)) return { sameWork: true };
  return { verdict: r.verdict };
}

/**
 * The calls that write a value a `state` part expects, as the environment shows: each candidate
 * is first replayed with another value of the same type, and kept only when that value lands
 * at the path. A call that merely happens to leave the value there (a count of 1 after any one
 * call) is no shortcut to it.
 */
async function stateWriters(task: TaskSpec, ref: AgentReference, o: RunCasesOptions): Promise<StateWriter[]> {
  const out: StateWriter[] = [];
  for (const { path, value } of expectedStates(task.verify)) {
    for (const c of writerCandidates(ref, value)) {
      const other = wrongArgs({ [c.param]: value }, c.tool.parameters)?.[c.param];
      const trial = { ...c.args, [c.param]: other };
      if (other === undefined || 'error' in validateToolArgs(c.tool, JSON.stringify(trial))) continue;
      const r = await replayScript(task, { calls: [{ [c.tool.name]: trial }], response: '' }, o);
      if ('verdict' in r) continue;
      const at = valueAt(r.trajectory.state, path);
      if (at.found && deepEqual(other, at.value)) out.push({ call: { [c.tool.name]: c.args }, path, value });
    }
  }
  return out;
}

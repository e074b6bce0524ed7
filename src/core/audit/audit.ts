// Runs the probes of each task through its verifier. A probe whose verdict is not the expected
// one is a finding; a verdict the verifier could not give here (a judge without a model, code
// refused outside the sandbox, an environment refused in an untrusted workspace) is a skipped
// probe, never a finding. The probes of agent tasks are trajectories replayed in the task's
// environment (agentAudit.ts).
import { cpus } from 'node:os';
import type { ScriptedTurn } from '../agent/replay';
import { taskView } from '../run/cases';
import type { TaskSpec } from '../taskfile/resolve';
import { mapLimit } from '../util/limit';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';
import { planAgentAudit, runAgentProbe } from './agentAudit';
import { unparseableGolds } from './gold';
import { verifierLeaves } from './verifierParts';
import { isSelected, probesFor, SEVERITIES, type Probe, type ProbeFamily, type Severity } from './probes';
import { plural } from '../util/plural';
import { at, must } from '../util/must';
import type { TimeSlices } from '../util/slices';

export interface Finding {
  readonly probe: string;
  readonly family: ProbeFamily;
  readonly severity: Severity;
  readonly response: string;
  /** Agent tasks: the tool calls replayed before `response` (a case with these `calls` replays the probe). */
  readonly calls?: readonly ScriptedTurn[];
  readonly verdict: 'pass' | 'fail';
  readonly expected: 'pass' | 'fail';
  /** Why the expected verdict is right, then what the verifier said. */
  readonly reason: string;
  /** The verdict's details (how code was isolated, what was extracted). */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface TaskAudit {
  readonly task: string;
  /** Absolute offset of the task in its file. */
  readonly offset: number;
  readonly findings: readonly Finding[];
  readonly probes: number;
  /** Probes the verifier could not decide here, with why (once per reason). */
  readonly skipped: readonly { probe: string; reason: string }[];
}

export interface AuditOptions {
  readonly file: string;
  /** Probe ids or families to run; all when undefined. */
  readonly only?: ReadonlySet<string>;
  readonly judge?: VerifyContext['judge'];
  readonly trusted?: boolean;
  readonly signal?: AbortSignal;
  readonly concurrency?: number;
  /** Gives the thread back between probes once a slice of its time is used up (the editor's host). */
  readonly slices?: TimeSlices;
}

/** `3 findings (1 critical, 2 high)`, `1 finding (1 low)`, `0 findings`: the count said the same everywhere. */
export function findingCount(findings: readonly { severity: Severity }[]): string {
  const counts = [...SEVERITIES]
    .reverse()
    .map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n);
  return `${plural(findings.length, 'finding')}${counts.length ? ` (${counts.map(([s, n]) => `${n} ${s}`).join(', ')})` : ''}`;
}

/** A finding as `vtask audit --json` writes it (and the workbench's audit report). */
export function findingRecord({ probe, family, severity, response, calls, verdict, expected, reason }: Finding) {
  return { probe, family, severity, response, ...(calls ? { calls } : {}), verdict, expected, reason };
}

export function atLeast(s: Severity, floor: Severity): boolean {
  return SEVERITIES.indexOf(s) >= SEVERITIES.indexOf(floor);
}

/** The probes of a task's answer that `only` selects (an agent task's come from `planAgentAudit`). */
export function selectedProbes(task: TaskSpec, only?: ReadonlySet<string>): Probe[] {
  return probesFor(task).filter((p) => isSelected(p, only));
}

/** One probe to run, and how: through the verifier, or replayed in the task's environment. */
interface Job {
  readonly t: TaskSpec;
  readonly p: Probe;
  /** Set when the probe cannot run here: why. */
  readonly notRun?: string;
}

type Outcome = { verdict: Verdict } | { sameWork: true } | { notRun: string };

/** A gold answer its own verifier cannot parse: no response, right or wrong, can pass. */
function addGoldFindings(
  t: TaskSpec,
  entry: { findings: Finding[]; probes: number },
  only?: ReadonlySet<string>,
): void {
  const probe = { id: 'gold-unparseable', family: 'right-answer' as const };
  if (!isSelected(probe, only) || !verifierLeaves(t.verify).some((l) => l.kind === 'math')) return;
  entry.probes++;
  for (const { gold, why } of unparseableGolds(t.verify)) {
    entry.findings.push({
      probe: probe.id,
      family: probe.family,
      severity: 'high',
      response: `\\boxed{${gold}}`,
      verdict: 'fail',
      expected: 'pass',
      reason: `the gold answer ${gold} could not be parsed (${why}): the verifier refuses every response, the right answer included`,
      details: { gold },
    });
  }
}

export async function auditTasks(tasks: readonly TaskSpec[], o: AuditOptions): Promise<TaskAudit[]> {
  const limit = o.concurrency ?? Math.max(2, cpus().length * 2);
  const run = { file: o.file, signal: o.signal, trusted: o.trusted, judge: o.judge };
  const plans = await mapLimit(tasks, limit, async (t): Promise<Job[]> => {
    if (!t.environment) return selectedProbes(t, o.only).map((p) => ({ t, p }));
    const plan = await planAgentAudit(t, o.only, run);
    return [...plan.probes.map((p) => ({ t, p })), ...plan.notRun.map((x) => ({ t, p: x.probe, notRun: x.reason }))];
  });
  const jobs = plans.flat();
  const outcomes = await mapLimit(jobs, limit, async ({ t, p, notRun }): Promise<Outcome> => {
    if (o.slices?.due) await o.slices.next();
    if (notRun !== undefined) return { notRun };
    if (t.environment) return runAgentProbe(t, p, run);
    return {
      verdict: await verify(t.verify, p.response, {
        task: taskView(t, o.file),
        signal: o.signal,
        trusted: o.trusted,
        judge: o.judge,
      }),
    };
  });
  const byTask = new Map<
    TaskSpec,
    { findings: Finding[]; probes: number; skipped: { probe: string; reason: string }[] }
  >();
  for (const t of tasks) byTask.set(t, { findings: [], probes: 0, skipped: [] });
  jobs.forEach(({ t, p }, i) => {
    const entry = must(byTask.get(t), 'every task has its entry');
    const outcome = at(outcomes, i);
    entry.probes++;
    const skip = (reason: string): void => {
      if (!entry.skipped.some((s) => s.reason === reason)) entry.skipped.push({ probe: p.id, reason });
    };
    if ('notRun' in outcome) return skip(outcome.notRun);
    // Changed arguments that changed no tool result and not the final state did the same work.
    if ('sameWork' in outcome) return;
    const v = outcome.verdict;
    if (v.error === 'unavailable' || v.error === 'refused') return skip(v.reason);
    const got = v.pass ? 'pass' : 'fail';
    if (got === p.expected) return;
    entry.findings.push({
      probe: p.id,
      family: p.family,
      severity: p.severity,
      response: p.response,
      ...(p.calls ? { calls: p.calls } : {}),
      verdict: got,
      expected: p.expected,
      reason: `${p.why}; the verifier ${got === 'pass' ? 'passed' : 'failed'} it: ${v.reason}`,
      details: v.details,
    });
  });
  for (const t of tasks) addGoldFindings(t, must(byTask.get(t), 'every task has its entry'), o.only);
  return tasks.map((t) => {
    const e = must(byTask.get(t), 'every task has its entry');
    const findings = [...e.findings].sort((a, b) => SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity));
    return { task: t.id, offset: t.offset, findings, probes: e.probes, skipped: e.skipped };
  });
}

// The panel's Audit section: a task's findings and the suspects among its samples, as the page
// shows them. Responses are cut for display; the host keeps them whole to write a case.
import type { AuditView } from '../base/panelProtocol';
import type { TaskAudit } from '../audit/audit';
import type { Suspect } from '../audit/readings';
import { verifierFixes } from '../audit/fixes';
import type { TaskSpec } from '../taskfile/resolve';

/** Characters of a probe's response the page shows (the padding probe is 75 KB). */
const SHOWN = 2_000;

/** Whether a probe (its response, and an agent task's calls) is one of the task's cases already: the audit does not offer it again. */
export function isCase(
  task: Pick<TaskSpec, 'cases'>,
  probe: { readonly response: string; readonly calls?: readonly unknown[] },
): boolean {
  const calls = JSON.stringify(probe.calls ?? null);
  return task.cases.some((c) => c.response === probe.response && JSON.stringify(c.calls ?? null) === calls);
}

export function auditView(
  audit: TaskAudit,
  suspects: readonly Suspect[],
  task: Pick<TaskSpec, 'cases' | 'verify'>,
): AuditView {
  const fixes = verifierFixes(task.verify, audit.findings).map((f) => f.title);
  return {
    probes: audit.probes,
    findings: audit.findings.map((f) => ({
      probe: f.probe,
      severity: f.severity,
      expected: f.expected,
      verdict: f.verdict,
      reason: f.reason,
      response:
        f.response.length > SHOWN ? `${f.response.slice(0, SHOWN)}… (${f.response.length} characters)` : f.response,
      ...(f.calls ? { calls: JSON.stringify(f.calls) } : {}),
      ...(isCase(task, f) ? { isCase: true } : {}),
    })),
    ...(fixes.length ? { fixes } : {}),
    suspects: suspects.map((s) => ({ sample: s.sample, kind: s.kind, reading: s.reading, reason: s.verdict.reason })),
    skipped: audit.skipped.map((s) => s.reason),
  };
}

// The panel's Audit section: a task's findings and the suspects among its samples, as the page
// shows them. Responses are cut for display; the host keeps them whole to write a case.
import type { AuditView } from '../base/panelProtocol';
import type { TaskAudit } from '../audit/audit';
import type { Suspect } from '../audit/readings';

/** Characters of a probe's response the page shows (the padding probe is 75 KB). */
const SHOWN = 2_000;

export function auditView(audit: TaskAudit, suspects: readonly Suspect[]): AuditView {
  return {
    probes: audit.probes,
    findings: audit.findings.map((f) => ({
      probe: f.probe,
      severity: f.severity,
      expected: f.expected,
      verdict: f.verdict,
      reason: f.reason,
      response: f.response.length > SHOWN ? `${f.response.slice(0, SHOWN)}… (${f.response.length} characters)` : f.response,
      ...(f.calls ? { calls: JSON.stringify(f.calls) } : {}),
    })),
    suspects: suspects.map((s) => ({ sample: s.sample, kind: s.kind, reading: s.reading, reason: s.verdict.reason })),
    skipped: audit.skipped.map((s) => s.reason),
  };
}

// What a probe is, and the severities of what it finds.

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

export interface Probe {
  /** Stable id, e.g. `hedge-gold-first`; `--probes` selects by id or by family. */
  readonly id: string;
  readonly family: ProbeFamily;
  readonly response: string;
  /** What a sound verifier does with it. */
  readonly expected: 'pass' | 'fail';
  /** How bad it is when the verifier does the other thing. */
  readonly severity: Severity;
  /** Why the expected verdict is the right one, said to the author. */
  readonly why: string;
}

export type ProbeFamily = 'degenerate' | 'hedge' | 'wrong-answer' | 'right-answer' | 'format-only' | 'code-exploit' | 'code-mutant' | 'injection' | 'calibration';
export const PROBE_FAMILIES: readonly ProbeFamily[] = ['degenerate', 'hedge', 'wrong-answer', 'right-answer', 'format-only', 'code-exploit', 'code-mutant', 'injection'];
/** Findings of a judge's calibration (`--calibrate`), not of a probe response. */
export const CALIBRATION: ProbeFamily = 'calibration';

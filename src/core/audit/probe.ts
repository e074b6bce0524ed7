// What a probe is, and the severities of what it finds.
import type { ScriptedTurn } from '../agent/replay';
import type { Trajectory } from '../agent/types';

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
  /**
   * Agent tasks: the tool calls replayed in the task's environment before `response`, as a
   * case's `calls` are. Every probe of an agent task has them (`[]`: no call at all).
   */
  readonly calls?: readonly ScriptedTurn[];
  /**
   * The passing case's trajectory when the probe changes its calls: a replay whose tool results
   * and final state are all the same as these did the same work, and is no finding.
   */
  readonly sameWorkAs?: Trajectory;
}

export type ProbeFamily =
  | 'degenerate'
  | 'hedge'
  | 'wrong-answer'
  | 'right-answer'
  | 'format-only'
  | 'code-exploit'
  | 'code-mutant'
  | 'injection'
  | 'agent'
  | 'calibration';
export const PROBE_FAMILIES: readonly ProbeFamily[] = [
  'degenerate',
  'hedge',
  'wrong-answer',
  'right-answer',
  'format-only',
  'code-exploit',
  'code-mutant',
  'injection',
  'agent',
];
/**
 * Every probe's name (its id without the case, call or option it was made from), for `--probes`
 * to tell a probe from a typo. test/core/audit.test.ts checks that every probe made has one.
 */
export const PROBE_NAMES: readonly string[] = [
  'empty',
  'whitespace',
  'refusal',
  'echo-prompt',
  'refusal-formatted',
  'echo-formatted',
  'truncated',
  'gold-unparseable',
  'off-topic',
  'json-empty-object',
  'json-null',
  'wrong-answer',
  'option',
  'perturbed-number',
  'perturbed-option',
  'perturbed-word',
  'arbitrary-number',
  'arbitrary-word',
  'hedge-gold-first',
  'hedge-gold-last',
  'candidate-list',
  'answer-only-in-think',
  'all-options',
  'right-padded',
  'right-unboxed',
  'right-text-wrapped',
  'right-decimal',
  'right-trailing-period',
  'right-thousands',
  'right-dollar',
  'right-words',
  'right-case-space',
  'does-nothing',
  'exit-at-once',
  'hard-exit',
  'never-ends',
  'print-expected',
  'silence-errors',
  'mutant',
  'always-equal',
  'harness-attack',
  'injection-instruction',
  'injection-forged-verdict',
  'agent-no-call',
  'agent-claimed-calls',
  'agent-wrong-args',
  'agent-forged-state',
];
/** Findings of a judge's calibration (`--calibrate`), not of a probe response. */
export const CALIBRATION: ProbeFamily = 'calibration';

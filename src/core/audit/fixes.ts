// Fixes for findings where the right change is clear: a `match` that a hedge gets past, or that
// compares a number as text, and a regex that accepts anything. Each is a new verifier for the
// task; the author sees it as a quick fix and the file keeps one undoable edit.
import type { Finding } from './audit';
import { isRecord } from '../base/record';

export interface VerifierFix {
  readonly title: string;
  readonly verify: unknown;
}

export function verifierFixes(verify: unknown, findings: readonly Finding[]): VerifierFix[] {
  const match = isRecord(verify) ? verify.match : undefined;
  if (!isRecord(match)) return [];
  const families = new Set(findings.map((f) => f.family));
  const mode = typeof match.mode === 'string' ? match.mode : 'normalized';
  const answer =
    typeof match.answer === 'string' || typeof match.answer === 'number' ? String(match.answer) : undefined;
  const out: VerifierFix[] = [];
  // A number compared as text: math reads 72.0, $72 and 1,000 as numbers and refuses hedges.
  if (
    answer !== undefined &&
    /^-?\d+(\.\d+)?$/.test(answer.trim()) &&
    mode !== 'regex' &&
    !match.tag &&
    (families.has('hedge') || families.has('right-answer'))
  ) {
    out.push({ title: 'Use a `math` verifier for this numeric answer', verify: { math: { answer: answer.trim() } } });
  }
  if (mode === 'contains' && families.has('hedge')) {
    out.push({
      title: 'Match the whole answer (`mode: normalized`) instead of `contains`',
      verify: { match: { ...match, mode: 'normalized' } },
    });
  }
  if (
    mode === 'regex' &&
    answer !== undefined &&
    families.has('degenerate') &&
    !/^\^.*\$$/.test(answer) &&
    !matchesEmpty(`^(?:${answer})$`)
  ) {
    out.push({
      title: 'Anchor the regex to the whole answer (`^…$`)',
      verify: { match: { ...match, answer: `^(?:${answer})$` } },
    });
  }
  return out;
}

/** True when the pattern accepts the empty answer (or is not a valid pattern): anchoring it would fix nothing. */
function matchesEmpty(pattern: string): boolean {
  try {
    return new RegExp(pattern, 'u').test('');
  } catch {
    return true;
  }
}

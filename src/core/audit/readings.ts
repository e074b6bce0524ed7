// Suspects among a task's real samples. A failed sample that passes under another reasonable
// reading of the same answer (the number outside the box, without its unit or thousands
// separators, in words, with a full stop) may be a right answer the verifier fails: a false
// negative. A passed sample that names several different answers may pass only because the
// verifier reads one of them: a false positive. Both are shown with what flips them, for the
// author to judge.
import type { TaskSpec } from '../taskfile/resolve';
import type { Verdict, VerifyContext } from '../verifiers/verdict';
import { verify } from '../verifiers/verify';
import { taskView } from '../run/cases';
import { numberWords } from './gold';

export interface Reading {
  readonly name: string;
  /** The response read this way, or undefined when the reading changes nothing. */
  readonly apply: (response: string) => string | undefined;
}

const WORD_NUMBERS = new Map<string, number>(Array.from({ length: 1000 }, (_, n) => [numberWords(n) as string, n]));
const ONES =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen';
const TENS = 'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety';
// Tens first, so that "seventy-two" is read whole rather than as "seven".
const UNDER_100 = `(?:(?:${TENS})(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|${ONES})`;
const NUMBER_WORDS = new RegExp(
  `\\b(?:(?:one|two|three|four|five|six|seven|eight|nine) hundred(?: and ${UNDER_100})?|${UNDER_100})\\b`,
  'gi',
);

/** The last number written in `text` (digits, with separators and sign), or undefined. */
function lastNumber(text: string): string | undefined {
  const all = [...text.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)].map((m) => m[0].replace(/,(?=\d{3}\b)/g, ''));
  return all.at(-1);
}

const changed = (before: string, after: string): string | undefined => (after === before ? undefined : after);

export const READINGS: readonly Reading[] = [
  {
    name: 'the last number, outside any box',
    apply: (r) =>
      ((n) => (n === undefined ? undefined : `\\boxed{${n}}`))(lastNumber(r.replace(/^[\s\S]*<\/think>/, ''))),
  },
  { name: 'without thousands separators', apply: (r) => changed(r, r.replace(/(\d),(?=\d{3}\b)/g, '$1')) },
  {
    name: 'without a unit or currency',
    apply: (r) =>
      changed(
        r,
        r.replace(
          /\$\s?(?=\d)|(?<=\d)\s?(?:%|dollars?|cents?|units?|meters?|cm|km|kg|g|hours?|minutes?|seconds?)\b/gi,
          '',
        ),
      ),
  },
  { name: 'without \\text{}', apply: (r) => changed(r, r.replace(/\\text\{([^{}]*)\}/g, '$1')) },
  { name: 'without a trailing full stop', apply: (r) => changed(r, r.replace(/(\S)\.(\s*)$/, '$1$2')) },
  {
    name: 'number words as digits',
    apply: (r) =>
      changed(
        r,
        r.replace(NUMBER_WORDS, (w) => String(WORD_NUMBERS.get(w.toLowerCase()) ?? w)),
      ),
  },
];

export interface Suspect {
  /** The sample's index in its run. */
  readonly sample: number;
  readonly kind: 'false-negative' | 'false-positive';
  /** What flips it: the reading, or the answers it names. */
  readonly reading: string;
  readonly verdict: Verdict;
}

/** Distinct answers a response commits to in boxes or `<answer>` tags: more than one is a hedge. */
export function statedAnswers(response: string): string[] {
  const final = response.replace(/^[\s\S]*<\/think>/, '');
  const boxed = [...final.matchAll(/\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}/g)].map((m) => (m[1] ?? '').trim());
  const tagged = [...final.matchAll(/<answer>([\s\S]*?)<\/answer>/g)].map((m) => (m[1] ?? '').trim());
  return [...new Set([...boxed, ...tagged].map((a) => a.replace(/\s+/g, ' ')))];
}

/**
 * The suspects among samples (with their verdicts): failed ones a reading flips to pass, and
 * passed ones that state several different answers.
 */
export async function findSuspects(
  task: TaskSpec,
  file: string,
  samples: readonly { index: number; response: string; verdict: Verdict }[],
  o: { judge?: VerifyContext['judge']; trusted?: boolean; signal?: AbortSignal } = {},
): Promise<Suspect[]> {
  const out: Suspect[] = [];
  const view = taskView(task, file);
  for (const s of samples) {
    if (s.verdict.error) continue;
    if (s.verdict.pass) {
      const answers = statedAnswers(s.response);
      if (answers.length > 1)
        out.push({
          sample: s.index,
          kind: 'false-positive',
          reading: `names ${answers.length} different answers: ${answers.slice(0, 4).join(', ')}`,
          verdict: s.verdict,
        });
      continue;
    }
    for (const reading of READINGS) {
      const text = reading.apply(s.response);
      if (text === undefined) continue;
      const v = await verify(task.verify, text, { task: view, judge: o.judge, trusted: o.trusted, signal: o.signal });
      if (v.pass) {
        out.push({ sample: s.index, kind: 'false-negative', reading: reading.name, verdict: v });
        break;
      }
    }
  }
  return out;
}

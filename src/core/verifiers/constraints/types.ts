import { plural } from '../../util/plural';

/** What one instruction's check found. */
export interface Outcome {
  readonly pass: boolean;
  /** What was measured and what was needed: "63 words, needs less than 50". */
  readonly reason: string;
  /** The figures behind the reason, for `details.results`. */
  readonly measured?: Readonly<Record<string, unknown>>;
  /** Set when the instruction cannot be checked here (it needs a model or a heavy NLP library). */
  readonly error?: 'unavailable';
}

export type Kwargs = Readonly<Record<string, unknown>>;

export interface CheckContext {
  /** The task's prompt (the last user message), for instructions that refer to it. */
  readonly prompt: string;
}

/** Checks one instruction against one response; kwargs were validated against the registry. */
export type InstructionCheck = (response: string, kwargs: Kwargs, ctx: CheckContext) => Outcome;

export function outcome(pass: boolean, reason: string, measured?: Record<string, unknown>): Outcome {
  return measured ? { pass, reason, measured } : { pass, reason };
}

export function unavailable(reason: string): Outcome {
  return { pass: false, reason, error: 'unavailable' };
}

export const str = (k: Kwargs, key: string): string => {
  const v = k[key];
  return typeof v === 'string' ? v : String(v ?? '');
};

export const num = (k: Kwargs, key: string): number => {
  const v = k[key];
  return typeof v === 'number' ? v : Number(v);
};

export const strList = (k: Kwargs, key: string): string[] => {
  const v = k[key];
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
};

/** IFEval's two comparisons: `less than` is strict, `at least` inclusive. */
export function compare(actual: number, relation: string, threshold: number): boolean {
  return relation === 'less than' ? actual < threshold : actual >= threshold;
}

/** "1 word", "3 words": the core's one helper, kept here for the checks that import it from here. */
export { plural };

/** "63 words, needs less than 50" / "12 words, needs at least 50" / "... (holds)". */
export function relationReason(actual: number, noun: string, relation: string, threshold: number): string {
  return `${plural(actual, noun)}, needs ${relation} ${threshold}`;
}

/** A short, printable excerpt of user text for reasons. */
export function quote(s: string, max = 40): string {
  const one = s.replace(/\s+/gu, ' ').trim();
  return JSON.stringify(one.length > max ? `${one.slice(0, max)}…` : one);
}

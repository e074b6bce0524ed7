/**
 * The `math` checker: extract the final answer, parse gold and prediction, compare on the main
 * thread within a budget of evaluation steps (never of time: a verdict must not depend on how
 * busy the machine is), and hand whatever is left undecided to the worker pool, which has a
 * larger step budget and a hard time limit as a last resort. Every path ends in a verdict
 * whose reason says what was extracted and what was expected.
 */
import * as z from 'zod';
import { field, type Fields } from '../../schema/fields';
import type { KindParams } from '../kind';
import type { Verdict, VerifyContext } from '../verdict';
import type { Node } from './ast';
import { isListShaped, parseAnswerText, parseGold, type ParseResult } from './answer';
import { compareNodes, describe, TimeoutError, type CompareOptions, type Outcome } from './compare';
import { stepBudget, type StepCounter } from './evaluate';
import { clip, extractAnswer, type Candidate } from './extract';
import { runInPool } from './pool';

export { disposeMathPool, setMathWorkerPath } from './pool';
import { printNode } from './print';
import { at } from '../../util/must';

const answer = z.union([z.string(), z.number()]);

/** The parameters of `math`: validated against this table, typed by it. */
export const mathFields = {
  answer: field(answer, 'The gold answer, as LaTeX or plain text: `72`, `\\frac{3}{4}`, `(1, 2]`, `x^2+1`.', '72'),
  answers: field(z.array(answer).min(1), 'Several acceptable gold answers; any may match.', ['72', '72.0']),
  tolerance: field(
    z.number().gt(0).lt(1),
    'Relative tolerance, used only when a side is a decimal approximation. Default 1e-6.',
    0.01,
  ),
  precision: field(
    z.number().int().min(0).max(15),
    'Compare decimal approximations rounded to this many decimal places instead of by `tolerance` (3.1416 equals π with `precision: 4`).',
    4,
  ),
  strict: field(
    z.boolean(),
    'With `false`, an answer in one variable may name it differently (`y = 2t+1` for `x = 2t+1`). Default true.',
    false,
  ),
  last_number: field(
    z.boolean(),
    'With `false`, a response without a `\\boxed{}` or an answer line has no answer (no falling back to its last number). Default true.',
    false,
  ),
  set_relation: field(
    z.boolean(),
    'With `false`, a gold interval or set does not accept an inequality (`x > 2` for `(2, \\infty)`). Default true.',
    false,
  ),
  base: field(
    z.number().int().min(2).max(36),
    "The base the task's integers are written in: `204` then reads as `204_5` with `base: 5`. Without it a numeral in another base equals only that numeral (`1011_2`, never `11`).",
    2,
  ),
} satisfies Fields;

/** Validated parameters of `math`. */
export type MathParams = KindParams<typeof mathFields>;

export interface MathCheckOptions extends CompareOptions {
  /** Fall back to the last number in the response (default true). */
  readonly lastNumber?: boolean;
  /** Hard limit for one comparison in the worker pool (default 3000 ms). */
  readonly timeoutMs?: number;
  /** Evaluation steps the main thread spends before handing a pair to the pool. */
  readonly mainSteps?: number;
}

const DEFAULT_TIMEOUT_MS = 3000;
/** Enough for every pair of the conformance data with a wide margin (the costliest uses about a thousand). */
export const MAIN_STEPS = 200_000;

interface GoldEntry {
  readonly raw: string | number;
  readonly text: string;
  readonly parsed: ParseResult;
}

/**
 * Parsed gold answers by base and value. Every sample of a task is checked against the same gold
 * (and `vtask serve` gets a GRPO group's samples with one gold), and parsing it again for each
 * showed as a third of the `math` verifier's time in `vtask run`. The parse is a pure function of
 * these two, and the verifier never changes the nodes it returns.
 */
const parsedGolds = new Map<string, GoldEntry>();
const PARSED_GOLDS_MAX = 4096;
/** Longer golds (worked solutions) are parsed each time rather than kept. */
const PARSED_GOLD_MAX_CHARS = 4096;

function goldEntry(raw: string | number, base: number | undefined): GoldEntry {
  if (typeof raw === 'string' && raw.length > PARSED_GOLD_MAX_CHARS) return { raw, ...parseGold(raw, base) };
  const key = `${base ?? ''}:${typeof raw}:${raw}`;
  let entry = parsedGolds.get(key);
  if (!entry) {
    if (parsedGolds.size >= PARSED_GOLDS_MAX) parsedGolds.clear();
    entry = { raw, ...parseGold(raw, base) };
    parsedGolds.set(key, entry);
  }
  return entry;
}

/** Forgets the parsed golds (tests compare verdicts with and without them). */
export function clearParsedGolds(): void {
  parsedGolds.clear();
}

/** Answers that look like mathematics are never replaced by a number found inside them. */
const looksLikeMath = (s: string): boolean => /[\\^{}=_]/.test(s);

function fail(reason: string, details: Record<string, unknown>, error?: Verdict['error']): Verdict {
  return error ? { pass: false, score: 0, reason, details, error } : { pass: false, score: 0, reason, details };
}

function sourceText(c: Candidate): string {
  switch (c.source) {
    case 'boxed':
      return c.shown;
    case 'answer line':
      return `the answer line "${c.shown}"`;
    case 'whole answer':
      return 'the answer';
    case 'math region':
      return 'the last math expression';
    case 'last number':
      return 'the last number';
  }
}

export async function checkMath(
  response: string,
  params: MathParams,
  ctx?: Pick<VerifyContext, 'signal'>,
  extra: MathCheckOptions = {},
): Promise<Verdict> {
  const options: CompareOptions = {
    tolerance: params.tolerance ?? extra.tolerance,
    precision: params.precision ?? extra.precision,
    setRelation: params.set_relation ?? extra.setRelation,
    strict: params.strict ?? extra.strict,
    base: params.base ?? extra.base,
  };
  const raws = params.answers ?? (params.answer !== undefined ? [params.answer] : []);
  const golds: GoldEntry[] = raws.map((raw) => goldEntry(raw, options.base));
  const goodGolds = golds.filter((g) => g.parsed.ok);
  // Only the verdicts that fail before any comparison show the gold as written.
  const goldShown = (): string => golds.map((g) => clip(String(g.raw), 60)).join(' or ');
  if (!goodGolds.length) {
    const why = golds.map((g) => (g.parsed.ok ? '' : g.parsed.error)).find(Boolean) ?? 'no gold answer';
    return fail(`the gold answer ${goldShown()} could not be parsed (${why})`, { gold: raws }, 'refused');
  }
  const cand = extractAnswer(response, { lastNumber: params.last_number ?? extra.lastNumber });
  if (!cand)
    return fail(`no answer found (no \\boxed{}, answer line or number), expected ${goldShown()}`, {
      gold: raws,
      extracted: null,
    });

  const base = {
    extracted: cand.text.length > 500 ? cand.text.slice(0, 500) + '…' : cand.text,
    source: cand.source,
    gold: raws,
  };
  let lastFailure: Verdict | null = null;
  for (const gold of goodGolds) {
    const v = await checkOne(gold, cand, options, extra, ctx?.signal, base);
    if (v.pass) return v;
    // Prefer reporting a definite failure over an undecided one when several golds exist.
    if (!lastFailure || (lastFailure.error && !v.error)) lastFailure = v;
  }
  if (!lastFailure) throw new Error('every gold answer gave a verdict, and there is one at least');
  return lastFailure;
}

async function checkOne(
  gold: GoldEntry,
  cand: Candidate,
  options: CompareOptions,
  extra: MathCheckOptions,
  signal: AbortSignal | undefined,
  base: Record<string, unknown>,
): Promise<Verdict> {
  if (!gold.parsed.ok) throw new Error('only a gold answer that parsed is checked');
  const g = gold.parsed.node;
  const goldList = isListShaped(g) || g.t === 'tuple' || (g.t === 'set' && g.items.length > 1);
  const expected = clip(gold.text, 60);
  const steps = (): StepCounter => stepBudget(extra.mainSteps ?? MAIN_STEPS);

  // Several boxes written together against a single gold value: a hedge unless they agree.
  let predText = cand.text;
  if (cand.parts && cand.parts.length > 1 && !goldList) {
    const nodes = cand.parts.map((t) => parseAnswerText(t, false, options.base));
    const distinct: Node[] = [];
    // A box that cannot be read (205_5 beside 204_5) is still another answer boxed.
    const unread = new Map(cand.parts.filter((_t, i) => !nodes[i]?.ok).map((t) => [t.replace(/\s+/g, ''), t.trim()]));
    if (unread.size && nodes.some((n) => n.ok)) for (const t of unread.values()) distinct.push({ t: 'text', s: t });
    for (const n of nodes) {
      if (!n.ok) continue;
      let same = false;
      for (const d of distinct) {
        try {
          if (compareNodes(d, n.node, { ...options, steps: steps() }).equal === true) same = true;
        } catch {
          /* undecided counts as different */
        }
      }
      if (!same) distinct.push(n.node);
    }
    if (distinct.length > 1) {
      return fail(
        `hedged: boxed ${distinct.length} different values (${clip(distinct.map((d) => printNode(d, 30)).join(', '), 60)}), expected ${expected}`,
        { ...base, hedge: true, values: distinct.map((d) => printNode(d)) },
      );
    }
    predText = at(cand.parts, 0);
  }

  const texts = [predText];
  if (cand.fallbacks && (cand.source === 'math region' || !looksLikeMath(cand.text))) texts.push(...cand.fallbacks);
  let parsed: ParseResult | null = null;
  let used = predText;
  for (const t of texts) {
    const r = parseAnswerText(t, goldList, options.base);
    if (r.ok) {
      parsed = r;
      used = t;
      break;
    }
    parsed ??= r;
  }
  if (!parsed || !parsed.ok) {
    const why = parsed && !parsed.ok ? ` (${parsed.error})` : '';
    return fail(
      `the answer ${cand.source === 'boxed' ? cand.shown : `"${clip(cand.text, 60)}"`} could not be parsed${why}`,
      { ...base, unparsed: true },
    );
  }
  const p = parsed.node;
  const details: Record<string, unknown> = {
    ...base,
    extracted: clip(used, 200),
    normalized: { gold: printNode(g), pred: printNode(p) },
    ...(parsed.units.length ? { units: parsed.units } : {}),
  };

  let outcome: Outcome;
  try {
    outcome = compareNodes(g, p, { ...options, steps: steps() });
  } catch (e) {
    if (!(e instanceof TimeoutError)) throw e;
    outcome = { equal: 'undecided', method: 'numeric', note: 'main-thread budget exceeded' };
  }
  if (outcome.equal === 'undecided') {
    const r = await runInPool(gold.text, used, options, extra.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal);
    if ('error' in r) {
      if (r.error === 'timeout')
        return fail(
          `comparison timed out (${r.note}): extracted ${clip(used, 40)}, expected ${expected}`,
          { ...details, method: 'timeout' },
          'timeout',
        );
      if (r.error === 'crash')
        return fail(`the math worker failed (${r.note})`, { ...details, method: 'worker' }, 'crash');
      // No worker available (an unbundled run): report the main thread's undecided outcome.
      outcome = { ...outcome, note: `${outcome.note ?? 'undecided'}; ${r.note}` };
    } else outcome = r;
  }
  const shown = `extracted ${clip(used, 40)} from ${sourceText(cand)}`;
  const full = { ...details, method: outcome.method, ...(outcome.note ? { note: outcome.note } : {}) };
  if (outcome.equal === true)
    return { pass: true, score: 1, reason: `${shown}, equal to ${expected} (${outcome.method})`, details: full };
  if (outcome.equal === 'undecided')
    return fail(
      `could not decide whether ${clip(used, 40)} equals ${expected}: ${outcome.note ?? 'undecided'}`,
      full,
      'refused',
    );
  const note =
    outcome.note && !/^the sets differ$/.test(outcome.note)
      ? ` (${outcome.note})`
      : describe(g) !== describe(p)
        ? ` (expected ${describe(g)}, got ${describe(p)})`
        : '';
  return fail(`${shown}, expected ${expected}${note}`, full);
}

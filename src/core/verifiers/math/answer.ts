/**
 * From raw text to a comparable pair: gold answers are read the same way as predictions
 * (boxes, delimiters), and a prediction's text is parsed with the gold answer's shape in mind
 * (a list-shaped gold answer reads `1,5` as two values rather than the decimal 1.5).
 */
import type { Node } from './ast';
import { compareNodes, type CompareContext, type Outcome } from './compare';
import { extractAnswer, findBoxes, stripDelimiters } from './extract';
import { EMPTY_ANSWER, integerNode, parseMath, ParseError } from './latex';
import { MAX_ANSWER_CHARS, prepare } from './normalize';
import { at } from '../../util/must';

export type ParseResult =
  | { readonly ok: true; readonly node: Node; readonly units: readonly string[] }
  | { readonly ok: false; readonly error: string };

/** Digits only: `prepare` leaves them as they are, and the parser reads them as one number. */
const PLAIN_INTEGER = /^\d{1,300}$/;

/** `base`: the task's base, in which integers without a base subscript are read. */
export function parseAnswerText(text: string, preferList = false, base?: number): ParseResult {
  if (text.length > MAX_ANSWER_CHARS) return { ok: false, error: `too long (${text.length} characters)` };
  const bare = stripDelimiters(text);
  // Most gold answers, and many final answers, are a plain integer or nothing at all: read
  // as the parser reads them, without its thirty normalising passes and tokenizer (which
  // showed as most of the `math` verifier's time in `vtask run`).
  if (bare === '') return { ok: false, error: EMPTY_ANSWER };
  if (base === undefined && PLAIN_INTEGER.test(bare)) return { ok: true, node: integerNode(bare), units: [] };
  try {
    const { node, units } = parseMath(prepare(bare, { preferList }), { base });
    return { ok: true, node, units };
  } catch (e) {
    if (e instanceof ParseError || e instanceof RangeError) return { ok: false, error: e.message };
    throw e;
  }
}

/** The gold answer as text to parse: its boxes if it has any, else the whole (delimiters removed). */
export function goldText(raw: string | number): string {
  if (typeof raw === 'number') return String(raw);
  const s = raw.trim();
  if (findBoxes(s).length) {
    const c = extractAnswer(s);
    // The same value boxed several times ("\\boxed{004} ... \\boxed{004}") is one answer.
    if (c?.parts && new Set(c.parts.map((p) => p.replace(/\s+/g, ''))).size === 1) return at(c.parts, 0);
    if (c) return c.text;
  }
  return stripDelimiters(s);
}

/** Parses the gold answer; a long worked solution falls back to extraction like a response. */
export function parseGold(raw: string | number, base?: number): { text: string; parsed: ParseResult } {
  // A plain integer, as most gold answers are, has no box, delimiter or space for `goldText` to
  // take off: it is read as `parseAnswerText` reads it, without looking for them.
  const plain = typeof raw === 'number' ? String(raw) : raw;
  if (base === undefined && PLAIN_INTEGER.test(plain))
    return { text: plain, parsed: { ok: true, node: integerNode(plain), units: [] } };
  const text = goldText(raw);
  const parsed = parseAnswerText(text, false, base);
  if (parsed.ok || typeof raw === 'number') return { text, parsed };
  const c = extractAnswer(raw);
  if (c && c.text !== text) {
    const again = parseAnswerText(c.text, false, base);
    if (again.ok) return { text: c.text, parsed: again };
  }
  return { text, parsed };
}

export const isListShaped = (n: Node): boolean =>
  n.t === 'list' || n.t === 'set' || (n.t === 'rel' && n.args.some((a) => a.t === 'list' || a.t === 'set'));

/** The whole comparison of one gold text with one predicted text; runs on the main thread or in a worker. */
export function comparePair(
  gold: string,
  pred: string,
  c: CompareContext,
): Outcome & { predNode?: Node; goldNode?: Node } {
  const g = parseAnswerText(gold, false, c.base);
  if (!g.ok) return { equal: false, method: 'structure', note: `gold unparsed: ${g.error}` };
  const p = parseAnswerText(pred, isListShaped(g.node), c.base);
  if (!p.ok) return { equal: false, method: 'structure', note: `unparsed: ${p.error}` };
  return compareNodes(g.node, p.node, c);
}

// Tulu 3's first instruction-following rows (RLVR-IFeval) keep their ground truth as one JSON
// object in open-instruct's old layout: `{"func_name": "validate_word_constraint", "N": 100,
// "quantifier": "at least", ...}`, every argument of every function present (null when unused).
// Each function checks what one IFEval instruction checks, so a row becomes that constraint;
// a function whose check IFEval's instructions cannot say (an exact count, "around") is refused
// with the reason, never imported as a different check.
import { isRecord, parseJson } from '../base/record';
import { instruction } from './common';

type Args = Record<string, unknown>;
type Mapped = { verify: unknown } | { error: string };

/** `at least N` / `at most N` as IFEval's relation and count (`less than N + 1`). */
function relation(args: Args, func: string): { relation: string; n: number } | { error: string } {
  const n = Number(args.N);
  if (!Number.isInteger(n)) return { error: `\`${func}\` has no whole number N` };
  if (args.quantifier === 'at least') return { relation: 'at least', n };
  if (args.quantifier === 'at most') return { relation: 'less than', n: n + 1 };
  return {
    error: `\`${func}\` with quantifier \`${String(args.quantifier)}\` has no IFEval instruction (IFEval's counts are "at least" or "less than")`,
  };
}

const exactCount = (func: string): { error: string } => ({
  error: `\`${func}\` checks an exact count, which no IFEval instruction checks (they say "at least" or "less than")`,
});

const FUNCTIONS: Readonly<Record<string, (a: Args, func: string) => Mapped>> = {
  verify_keywords: (a) => ({ verify: instruction('keywords:existence', { keywords: a.keyword_list }) }),
  verify_keyword_frequency: (_a, f) => exactCount(f),
  validate_forbidden_words: (a) => ({
    verify: instruction('keywords:forbidden_words', { forbidden_words: a.forbidden_words }),
  }),
  verify_letter_frequency: (_a, f) => exactCount(f),
  validate_response_language: (a) => ({ verify: instruction('language:response_language', { language: a.language }) }),
  verify_paragraph_count: (a) => ({
    verify: instruction('length_constraints:number_paragraphs', { num_paragraphs: a.N }),
  }),
  validate_word_constraint: (a, f) => counted(a, f, 'length_constraints:number_words', 'num_words', 'relation'),
  verify_sentence_constraint: (a, f) =>
    counted(a, f, 'length_constraints:number_sentences', 'num_sentences', 'relation'),
  validate_paragraphs: (a) => ({
    verify: instruction('length_constraints:nth_paragraph_first_word', {
      num_paragraphs: a.N,
      nth_paragraph: a.i,
      first_word: a.first_word,
    }),
  }),
  verify_postscript: (a) => ({
    verify: instruction('detectable_content:postscript', { postscript_marker: a.postscript_marker }),
  }),
  validate_placeholders: (a) => ({
    verify: instruction('detectable_content:number_placeholders', { num_placeholders: a.N }),
  }),
  verify_bullet_points: (a) => ({ verify: instruction('detectable_format:number_bullet_lists', { num_bullets: a.N }) }),
  validate_title: () => ({ verify: 'detectable_format:title' }),
  validate_highlighted_sections: (a) => ({
    verify: instruction('detectable_format:number_highlighted_sections', { num_highlights: a.N }),
  }),
  validate_sections: (a) => ({
    verify: instruction('detectable_format:multiple_sections', {
      section_spliter: a.section_splitter,
      num_sections: a.N,
    }),
  }),
  validate_json_format: () => ({ verify: 'detectable_format:json_format' }),
  validate_repeat_prompt: (a) => ({
    verify: instruction('combination:repeat_prompt', { prompt_to_repeat: a.original_prompt }),
  }),
  validate_two_responses: () => ({ verify: 'combination:two_responses' }),
  validate_uppercase: () => ({ verify: 'change_case:english_capital' }),
  validate_lowercase: () => ({ verify: 'change_case:english_lowercase' }),
  validate_frequency_capital_words: (a, f) =>
    counted(a, f, 'change_case:capital_word_frequency', 'capital_frequency', 'capital_relation'),
  validate_end: (a) => ({ verify: instruction('startend:end_checker', { end_phrase: a.end_phrase }) }),
  validate_quotation: () => ({ verify: 'startend:quotation' }),
  validate_no_commas: () => ({ verify: 'punctuation:no_comma' }),
};

function counted(a: Args, func: string, id: string, count: string, rel: string): Mapped {
  const r = relation(a, func);
  return 'error' in r ? r : { verify: instruction(id, { [count]: r.n, [rel]: r.relation }) };
}

/** The ground truth's object when it is in the `func_name` layout, else undefined. */
export function funcNameArgs(groundTruth: string): Args | undefined {
  if (!groundTruth.trimStart().startsWith('{')) return undefined;
  try {
    const v = parseJson(groundTruth);
    return isRecord(v) && typeof v.func_name === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The `constraints` verifier of a `func_name` ground truth, or why it has none. */
export function funcNameVerifier(args: Args): Mapped {
  const func = String(args.func_name);
  const map = Object.hasOwn(FUNCTIONS, func) ? FUNCTIONS[func] : undefined;
  if (!map) return { error: `open-instruct's instruction function \`${func}\` has no vtask counterpart` };
  const one = map(args, func);
  return 'error' in one ? one : { verify: { constraints: [one.verify] } };
}

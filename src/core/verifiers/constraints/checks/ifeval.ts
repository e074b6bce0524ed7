/*
 * IFEval's 25 instructions (google-research `instruction_following_eval/instructions.py`), with
 * its semantics: the same word counting (`\w+` tokens), sentence splitting (Punkt), paragraph
 * and section splitting, bullet and highlight patterns, postscript patterns, JSON fence
 * stripping and language detection rule (undetectable text passes). Differences are listed in
 * ../DIFFERENCES.md.
 */
import { errorMessage } from '../../../base/errorMessage';
import { languageName } from '../languageNames';
import { detectLanguage, DETECTABLE, missingScript } from '../text/language';
import { countSentences } from '../text/punkt';
import {
  B,
  countLiteral,
  countWordTokens,
  escapeRegExp,
  isLower,
  isUpper,
  PY_SPACE_CLASS,
  pySplit,
  pyStrip,
  stripChars,
} from '../text/py';
import { wordTokenize } from '../text/treebank';
import {
  compare,
  type InstructionCheck,
  num,
  outcome,
  plural,
  quote,
  relationReason,
  str,
  strList,
  unavailable,
} from '../types';
import { at } from '../../../util/must';

const SP = `[${PY_SPACE_CLASS}]`;

/** `re.split(r"\s?\*\*\*\s?", value)` paragraphs, counted as IFEval counts them (null: an empty one in the middle). */
export function dividerParagraphs(value: string): { count: number; emptyInside: boolean } {
  const parts = value.split(new RegExp(`${SP}?\\*\\*\\*${SP}?`, 'u'));
  let count = parts.length;
  for (let i = 0; i < parts.length; i++) {
    if (pyStrip(at(parts, i)) === '') {
      if (i === 0 || i === parts.length - 1) count--;
      else return { count, emptyInside: true };
    }
  }
  return { count, emptyInside: false };
}

/**
 * Lines that `re.findall(r"^\s*<marker>[^*]?.*$", value, re.M)` counts, scanned in linear time:
 * `\s*` may run over blank lines, and after a lone `*` the pattern swallows the next line.
 */
function countBulletLines(value: string, marker: '*' | '-'): number {
  const n = value.length;
  let count = 0;
  let i = 0;
  const ws = new RegExp(SP, 'u');
  while (i <= n) {
    let j = i;
    while (j < n && ws.test(at(value, j))) j++;
    if (j < n && value[j] === marker && (marker === '-' || (j + 1 < n && value[j + 1] !== '*'))) {
      count++;
      const from = marker === '*' ? j + 2 : j + 1;
      const e = value.indexOf('\n', Math.min(from, n));
      if (e < 0) break;
      i = e + 1;
    } else {
      const e = value.indexOf('\n', j);
      if (e < 0) break;
      i = e + 1;
    }
  }
  return count;
}

/** `re.findall(r"\[.*?\]", value)` count in linear time. */
function countPlaceholders(value: string): number {
  let count = 0;
  let i = 0;
  for (;;) {
    const open = value.indexOf('[', i);
    if (open < 0) return count;
    const close = value.indexOf(']', open + 1);
    const nl = value.indexOf('\n', open + 1);
    if (close < 0) return count;
    if (nl >= 0 && nl < close) {
      i = nl + 1;
      continue;
    }
    count++;
    i = close + 1;
  }
}

/** Titles `<<...>>` per line, as `re.findall(r"<<[^\n]+>>")` finds them (greedy: first `<<` to last `>>`). */
function titles(value: string): string[] {
  const out: string[] = [];
  for (const line of value.split('\n')) {
    const open = line.indexOf('<<');
    if (open < 0) continue;
    const close = line.lastIndexOf('>>');
    if (close >= open + 3) out.push(line.slice(open, close + 2));
  }
  return out;
}

function firstWordOf(paragraph: string): string {
  let word = pyStrip(pySplit(paragraph)[0] ?? '');
  word = stripChars(word, "'", 'left');
  word = stripChars(word, '"', 'left');
  let out = '';
  for (const ch of word) {
    if ('.,?!\'"'.includes(ch)) break;
    out += ch.toLowerCase();
  }
  return out;
}

const CONSTRAINED = ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'];

function languageOutcome(value: string, want: string, what: string): ReturnType<InstructionCheck> {
  const got = detectLanguage(value);
  const script = got === null ? missingScript(value, want) : null;
  if (script)
    return outcome(false, `too short to identify, but has no ${script} letters, needs ${want}`, { detected: null });
  if (got === null)
    return outcome(
      true,
      `language could not be detected (too short or no letters), which counts as ${what}, as in IFEval`,
      { detected: null },
    );
  return outcome(
    got === want,
    got === want ? `detected ${languageName(got)}` : `detected ${languageName(got)}, needs ${languageName(want)}`,
    { detected: got },
  );
}

export const IFEVAL_CHECKS: Readonly<Record<string, InstructionCheck>> = {
  'keywords:existence': (value, k) => {
    const missing = strList(k, 'keywords').filter((kw) => countLiteral(value, kw) === 0);
    return outcome(
      missing.length === 0,
      missing.length ? `missing ${missing.map((m) => quote(m)).join(', ')}` : 'every keyword appears',
      { missing },
    );
  },
  'keywords:frequency': (value, k) => {
    const kw = pyStrip(str(k, 'keyword'));
    const n = countLiteral(value, kw);
    const rel = str(k, 'relation');
    const want = num(k, 'frequency');
    return outcome(compare(n, rel, want), `${quote(kw)} occurs ${plural(n, 'time')}, needs ${rel} ${want}`, {
      occurrences: n,
    });
  },
  'keywords:forbidden_words': (value, k) => {
    const found = strList(k, 'forbidden_words').filter((w) =>
      new RegExp(`${B}${escapeRegExp(w)}${B}`, 'iu').test(value),
    );
    return outcome(
      found.length === 0,
      found.length ? `uses forbidden ${found.map((f) => quote(f)).join(', ')}` : 'no forbidden word',
      { found },
    );
  },
  'keywords:letter_frequency': (value, k) => {
    const letter = pyStrip(str(k, 'letter')).toLowerCase();
    let n = 0;
    for (const ch of value.toLowerCase()) if (ch === letter) n++;
    const rel = str(k, 'let_relation');
    const want = num(k, 'let_frequency');
    return outcome(compare(n, rel, want), `${quote(letter)} occurs ${plural(n, 'time')}, needs ${rel} ${want}`, {
      occurrences: n,
    });
  },
  'language:response_language': (value, k) => {
    const want = str(k, 'language');
    if (!DETECTABLE.has(want)) {
      return unavailable(
        `the language detector cannot recognise \`${want}\`; it knows ${[...DETECTABLE].sort().join(', ')}`,
      );
    }
    return languageOutcome(value, want, 'followed');
  },
  'length_constraints:number_sentences': (value, k) => {
    const n = countSentences(value);
    const rel = str(k, 'relation');
    const want = num(k, 'num_sentences');
    return outcome(compare(n, rel, want), relationReason(n, 'sentence', rel, want), { sentences: n });
  },
  'length_constraints:number_paragraphs': (value, k) => {
    const want = num(k, 'num_paragraphs');
    const p = dividerParagraphs(value);
    if (p.emptyInside) return outcome(false, 'an empty paragraph between two `***` dividers', { paragraphs: null });
    return outcome(p.count === want, `${plural(p.count, 'paragraph')} separated by \`***\`, needs exactly ${want}`, {
      paragraphs: p.count,
    });
  },
  'length_constraints:number_words': (value, k) => {
    const n = countWordTokens(value);
    const rel = str(k, 'relation');
    const want = num(k, 'num_words');
    return outcome(compare(n, rel, want), relationReason(n, 'word', rel, want), { words: n });
  },
  'length_constraints:nth_paragraph_first_word': (value, k) => {
    const want = num(k, 'num_paragraphs');
    const nth = num(k, 'nth_paragraph');
    const firstWord = str(k, 'first_word').toLowerCase();
    const paragraphs = value.split('\n\n');
    let count = paragraphs.length;
    for (const p of paragraphs) if (pyStrip(p) === '') count--;
    if (nth > count)
      return outcome(false, `${plural(count, 'paragraph')}, so there is no paragraph ${nth}`, { paragraphs: count });
    const para = pyStrip(paragraphs[nth - 1] ?? '');
    if (!para) return outcome(false, `paragraph ${nth} is empty`, { paragraphs: count });
    const got = firstWordOf(para);
    const pass = count === want && got === firstWord;
    const bits: string[] = [];
    if (count !== want) bits.push(`${plural(count, 'paragraph')}, needs exactly ${want}`);
    if (got !== firstWord) bits.push(`paragraph ${nth} starts with ${quote(got)}, needs ${quote(firstWord)}`);
    return outcome(
      pass,
      pass ? `${plural(count, 'paragraph')}; paragraph ${nth} starts with ${quote(got)}` : bits.join('; '),
      { paragraphs: count, first_word: got },
    );
  },
  'detectable_content:number_placeholders': (value, k) => {
    const n = countPlaceholders(value);
    const want = num(k, 'num_placeholders');
    return outcome(n >= want, `${plural(n, '[placeholder]')}, needs at least ${want}`, { placeholders: n });
  },
  'detectable_content:postscript': (value, k) => {
    const marker = pyStrip(str(k, 'postscript_marker'));
    const lower = value.toLowerCase();
    let re: RegExp;
    if (marker === 'P.P.S') re = /p\.\s?p\.\s?s/u;
    else if (marker === 'P.S.') re = /p\.\s?s\./u;
    else re = new RegExp(escapeRegExp(marker.toLowerCase()), 'u');
    const pass = re.test(lower);
    return outcome(
      pass,
      pass ? `has a postscript starting with ${quote(marker)}` : `no postscript starting with ${quote(marker)}`,
    );
  },
  'detectable_format:number_bullet_lists': (value, k) => {
    const n = countBulletLines(value, '*') + countBulletLines(value, '-');
    const want = num(k, 'num_bullets');
    return outcome(n === want, `${plural(n, 'bullet point')}, needs exactly ${want}`, { bullets: n });
  },
  'detectable_format:constrained_response': (value) => {
    const v = pyStrip(value);
    const found = CONSTRAINED.find((o) => v.includes(o));
    return outcome(
      found !== undefined,
      found
        ? `contains ${quote(found)}`
        : 'contains none of "My answer is yes.", "My answer is no.", "My answer is maybe."',
    );
  },
  'detectable_format:number_highlighted_sections': (value, k) => {
    let n = 0;
    for (const h of value.match(/\*[^\n*]*\*/gu) ?? []) if (pyStrip(stripChars(h, '*'))) n++;
    for (const h of value.match(/\*\*[^\n*]*\*\*/gu) ?? []) if (pyStrip(h.slice(2, -2))) n++;
    const want = num(k, 'num_highlights');
    return outcome(n >= want, `${plural(n, 'highlighted section')}, needs at least ${want}`, { highlights: n });
  },
  'detectable_format:multiple_sections': (value, k) => {
    const splitter = pyStrip(str(k, 'section_spliter'));
    const re = new RegExp(`${SP}?${escapeRegExp(splitter)}${SP}?\\p{Nd}+${SP}?`, 'gu');
    let n = 0;
    while (re.exec(value) !== null) n++;
    const want = num(k, 'num_sections');
    return outcome(n >= want, `${plural(n, 'section')} marked \`${splitter} N\`, needs at least ${want}`, {
      sections: n,
    });
  },
  'detectable_format:json_format': (value) => {
    let v = pyStrip(value);
    for (const p of ['```json', '```Json', '```JSON', '```']) if (v.startsWith(p)) v = v.slice(p.length);
    if (v.endsWith('```')) v = v.slice(0, -3);
    v = pyStrip(v);
    try {
      JSON.parse(v);
      return outcome(true, 'the response is valid JSON');
    } catch (e) {
      return outcome(false, `not valid JSON: ${errorMessage(e)}`);
    }
  },
  'detectable_format:title': (value) => {
    const t = titles(value).find((x) => pyStrip(stripChars(stripChars(x, '<', 'left'), '>', 'right')) !== '');
    return outcome(t !== undefined, t ? `title ${quote(t)}` : 'no non-empty <<title>>', t ? { title: t } : {});
  },
  'combination:two_responses': (value) => {
    const parts = value.split('******');
    const valid: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      const p = at(parts, i);
      if (!pyStrip(p)) {
        if (i !== 0 && i !== parts.length - 1)
          return outcome(false, 'an empty response between two `******` separators');
      } else valid.push(p);
    }
    if (valid.length !== 2)
      return outcome(false, `${plural(valid.length, 'response')} separated by \`******\`, needs exactly 2`, {
        responses: valid.length,
      });
    const same = pyStrip(at(valid, 0)) === pyStrip(at(valid, 1));
    return outcome(!same, same ? 'the two responses are the same' : 'two different responses', { responses: 2 });
  },
  'combination:repeat_prompt': (value, k) => {
    const p = pyStrip(str(k, 'prompt_to_repeat')).toLowerCase();
    const pass = pyStrip(value).toLowerCase().startsWith(p);
    return outcome(
      pass,
      pass ? 'starts with the request, word for word' : `does not start with the request ${quote(p)}`,
    );
  },
  'startend:end_checker': (value, k) => {
    const phrase = pyStrip(str(k, 'end_phrase')).toLowerCase();
    const v = stripChars(pyStrip(value), '"').toLowerCase();
    const pass = v.endsWith(phrase);
    return outcome(
      pass,
      pass
        ? `ends with ${quote(phrase)}`
        : `ends with ${quote(v.slice(-Math.max(phrase.length, 20)))}, needs ${quote(phrase)}`,
    );
  },
  'change_case:capital_word_frequency': (value, k) => {
    const n = wordTokenize(value).filter(isUpper).length;
    const rel = str(k, 'capital_relation');
    const want = num(k, 'capital_frequency');
    return outcome(compare(n, rel, want), relationReason(n, 'all-capital word', rel, want), { capital_words: n });
  },
  'change_case:english_capital': (value) => {
    if (!isUpper(value)) return outcome(false, 'not entirely in capital letters');
    return languageOutcome(value, 'en', 'followed');
  },
  'change_case:english_lowercase': (value) => {
    if (!isLower(value)) return outcome(false, 'not entirely in lowercase letters');
    return languageOutcome(value, 'en', 'followed');
  },
  'punctuation:no_comma': (value) => {
    const n = value.split(',').length - 1;
    return outcome(n === 0, n ? `${plural(n, 'comma')}, needs none` : 'no commas', { commas: n });
  },
  'startend:quotation': (value) => {
    const v = pyStrip(value);
    const pass = v.length > 1 && v.startsWith('"') && v.endsWith('"');
    return outcome(pass, pass ? 'wrapped in double quotation marks' : 'not wrapped in double quotation marks');
  },
};

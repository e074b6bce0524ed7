/*
 * The 29 instructions open-instruct's IFEvalG adds to IFEval (allenai/open-instruct
 * `open_instruct/IFEvalG/instructions.py`), with its semantics. Keywords and phrases are matched
 * as literal text where the peer passes them to `re` unescaped (DIFFERENCES.md).
 */
import { dividerParagraphs, IFEVAL_CHECKS } from './ifeval';
import { keywordAtPosition } from './ifbench';
import { sentences } from '../text/punkt';
import { B, codePoints, countLiteral, escapeRegExp, pySplit, pyStrip } from '../text/py';
import { wordTokenize } from '../text/treebank';
import { compare, type InstructionCheck, num, outcome, plural, quote, str } from '../types';
import { at } from '../../../util/must';

const ratio = (a: string, b: string): boolean => pyStrip(a).toLowerCase() === pyStrip(b).toLowerCase();

function copyCheck(v: string, p: string): ReturnType<InstructionCheck> {
  const pass = ratio(v, p);
  return outcome(pass, pass ? 'exactly the request' : `is not exactly the request ${quote(p)}`);
}

export const OPEN_INSTRUCT_CHECKS: Readonly<Record<string, InstructionCheck>> = {
  'copy:repeat_phrase': (v, k) => {
    const phrase = pyStrip(str(k, 'phrase'));
    const ref = pySplit(phrase);
    const want = num(k, 'small_n');
    const found =
      v.match(new RegExp(`${escapeRegExp(ref[0] ?? '')} .*? ${escapeRegExp(ref[ref.length - 1] ?? '')}`, 'gu')) ?? [];
    if (found.length !== want)
      return outcome(false, `the phrase occurs ${plural(found.length, 'time')}, needs exactly ${want}`, {
        occurrences: found.length,
      });
    let differences = 0;
    for (const f of found) {
      const words = pySplit(f);
      differences = 0;
      for (let i = 0; i < words.length; i++) {
        if (i >= ref.length) return outcome(false, `${quote(f)} is longer than the phrase`);
        if (words[i] !== ref[i] && ++differences > 1) return outcome(false, `${quote(f)} changes more than one word`);
      }
    }
    return outcome(
      differences === 1,
      differences === 1
        ? `${plural(want, 'variation')} of the phrase, one word changed`
        : 'the last repetition changes no word',
    );
  },
  'copy:copy': (v, k) => copyCheck(v, str(k, 'prompt_to_repeat')),
  'new:copy_span_idx': (v, k) => {
    const p = str(k, 'prompt_to_repeat');
    const span = codePoints(p).slice(num(k, 'n_start'), num(k, 'n_end')).join('');
    const pass = ratio(v, span);
    return outcome(pass, pass ? 'exactly the span' : `is not exactly the span ${quote(span)}`);
  },
  'detectable_format:sentence_hyphens': (v) => {
    const gold = sentences(v.split('-').join(' '));
    const parts = v.split('-');
    for (let i = 0; i < Math.min(parts.length, gold.length); i++) {
      const s = at(parts, i);
      if (pyStrip(s) !== s) return outcome(false, `a space around the hyphen before or after ${quote(s)}`);
      if (s !== gold[i]) return outcome(false, `${quote(s)} is not one sentence`);
    }
    return outcome(true, 'sentences joined by hyphens without spaces');
  },
  'keywords:no_adjacent_consecutive': (v) => {
    const words = pySplit(v);
    for (let i = 0; i + 1 < words.length; i++) {
      const a = (codePoints(at(words, i))[0] ?? '').toLowerCase();
      const b = (codePoints(at(words, i + 1))[0] ?? '').toLowerCase();
      if (codePoints(a).length !== 1 || codePoints(b).length !== 1)
        return outcome(false, `${quote(at(words, i))} or ${quote(at(words, i + 1))} has no single first letter`);
      if (b.codePointAt(0)! - a.codePointAt(0)! === 1)
        return outcome(false, `${quote(at(words, i))} and ${quote(at(words, i + 1))} start with consecutive letters`);
    }
    return outcome(true, 'no adjacent words start with consecutive letters');
  },
  'detectable_format:square_brackets': (v) => {
    const bad = pySplit(v).find((w) => !(w.startsWith('[') && w.endsWith(']')));
    return outcome(
      bad === undefined,
      bad === undefined ? 'every word is in square brackets' : `${quote(bad)} is not in square brackets`,
    );
  },
  'keywords:word_once': (v, k) => {
    const kw = pyStrip(str(k, 'keyword'));
    const n = countLiteral(v, kw);
    return outcome(n === 1, `${quote(kw)} occurs ${plural(n, 'time')}, needs exactly once`, { occurrences: n });
  },
  // The same kwargs and count as IFEval's `keywords:frequency`.
  'keywords:word_count_different_numbers': (v, k, ctx) =>
    (IFEVAL_CHECKS['keywords:frequency'] as InstructionCheck)(v, k, ctx),
  'keywords:exclude_word_harder': (v, k) => {
    const kw = pyStrip(str(k, 'keyword'));
    const found = v.includes(` ${kw} `);
    return outcome(!found, found ? `uses ${quote(kw)}` : `does not use ${quote(kw)}`);
  },
  'paragraphs:paragraphs': (v) => {
    const p = dividerParagraphs(v);
    if (p.emptyInside) return outcome(false, 'an empty paragraph between two `***` dividers');
    return outcome(p.count === 2, `${plural(p.count, 'paragraph')} separated by \`***\`, needs exactly 2`, {
      paragraphs: p.count,
    });
  },
  'paragraphs:paragraphs2': (v) => {
    const parts = v.split('\n\n');
    let count = parts.length;
    for (let i = 0; i < parts.length; i++) {
      if (!pyStrip(at(parts, i))) {
        if (i === 0 || i === parts.length - 1) count--;
        else return outcome(false, 'an empty paragraph between two blank lines');
      }
    }
    return outcome(count === 2, `${plural(count, 'paragraph')} separated by blank lines, needs exactly 2`, {
      paragraphs: count,
    });
  },
  'first_word:first_word_sent': (v, k) => {
    const want = pyStrip(str(k, 'first_word')).toLowerCase();
    for (const [i, s] of sentences(v).entries()) {
      if (!pyStrip(s)) return outcome(false, `sentence ${i + 1} is empty`);
      const w = pyStrip(pySplit(s)[0] ?? '').toLowerCase();
      if (w !== want) return outcome(false, `sentence ${i + 1} starts with ${quote(w)}, needs ${quote(want)}`);
    }
    return outcome(true, `every sentence starts with ${quote(want)}`);
  },
  'first_word:first_word_answer': (v, k) => {
    const want = pyStrip(str(k, 'first_word')).toLowerCase();
    const w = (pySplit(v)[0] ?? '').toLowerCase();
    return outcome(
      w === want,
      w === want ? `starts with ${quote(want)}` : `starts with ${quote(w)}, needs ${quote(want)}`,
    );
  },
  'last_word:last_word_sent': (v, k) => {
    const want = pyStrip(str(k, 'last_word')).toLowerCase();
    for (const [i, s] of sentences(v).entries()) {
      if (!pyStrip(s)) return outcome(false, `sentence ${i + 1} is empty`);
      const words = pySplit(s);
      const w = (words[words.length - 1] ?? '').replace(/[^\p{L}\p{N}_\s]/gu, '').toLowerCase();
      if (w !== want) return outcome(false, `sentence ${i + 1} ends with ${quote(w)}, needs ${quote(want)}`);
    }
    return outcome(true, `every sentence ends with ${quote(want)}`);
  },
  'last_word:last_word_answer': (v, k) => {
    const want = pyStrip(str(k, 'last_word')).toLowerCase();
    const words = pySplit(v);
    const w = (words[words.length - 1] ?? '').replace(/[^\p{L}\p{N}_\s]/gu, '').toLowerCase();
    return outcome(
      words.length > 0 && w === want,
      w === want ? `ends with ${quote(want)}` : `ends with ${quote(w)}, needs ${quote(want)}`,
    );
  },
  'detectable_format:bigram_wrapping': (v) => {
    const words = pySplit(v);
    for (let i = 0; i + 1 < words.length; i += 2) {
      if (!(at(words, i).startsWith('<<') && at(words, i + 1).endsWith('>>')))
        return outcome(false, `${quote(`${words[i]} ${words[i + 1]}`)} is not wrapped in << >>`);
    }
    return outcome(true, 'every word pair is wrapped in << >>');
  },
  'copy:copying_simple': (v, k) => copyCheck(v, str(k, 'prompt_to_repeat')),
  'copy:copying_multiple': (v, k) => {
    const p = str(k, 'prompt_to_repeat');
    const parts = v.split('******');
    const want = num(k, 'N');
    if (parts.length !== want)
      return outcome(false, `${plural(parts.length, 'copy', 'copies')} separated by \`******\`, needs ${want}`);
    const bad = parts.findIndex((x) => !ratio(x, p));
    return outcome(bad < 0, bad < 0 ? `${want} exact copies` : `copy ${bad + 1} differs from the request`);
  },
  'punctuation:punctuation_dot': (v) => outcome(!v.includes('.'), v.includes('.') ? 'contains a period' : 'no periods'),
  'punctuation:punctuation_exclamation': (v) =>
    outcome(!v.includes('!'), v.includes('!') ? 'contains an exclamation mark' : 'no exclamation marks'),
  'count:lowercase_counting': (v, k) => {
    const n = (v.match(new RegExp(`${B}[a-z]+${B}`, 'gu')) ?? []).length;
    const max = num(k, 'N');
    return outcome(n <= max, `${plural(n, 'lowercase word')}, needs at most ${max}`, { lowercase_words: n });
  },
  'letters:letter_counting': (v, k) => {
    const n = (v.match(/[a-zA-Z]/gu) ?? []).length;
    const rel = str(k, 'relation');
    const want = num(k, 'N');
    return outcome(compare(n, rel, want), `${plural(n, 'letter')}, needs ${rel} ${want}`, { letters: n });
  },
  'letters:letter_counting2': (v, k, ctx) =>
    (IFEVAL_CHECKS['keywords:letter_frequency'] as InstructionCheck)(v, k, ctx),
  'count:counting_composition': (v, k) => {
    const nSent = num(k, 'n_sent');
    const nWords = num(k, 'n_words');
    const parts = v.split(/[\t\n\v\f\r ]?\*\*\*[\t\n\v\f\r ]?/u);
    let count = parts.length;
    for (const [i, p] of parts.entries()) {
      if (!pyStrip(p)) {
        if (i === 0 || i === parts.length - 1) count--;
        else return outcome(false, 'an empty paragraph between two `***` dividers');
      }
      const s = sentences(p);
      if (s.length !== nSent)
        return outcome(false, `paragraph ${i + 1} has ${plural(s.length, 'sentence')}, needs ${nSent}`);
      for (const [j, x] of s.entries()) {
        const w = wordTokenize(x).length;
        if (w !== nWords)
          return outcome(false, `sentence ${j + 1} of paragraph ${i + 1} has ${plural(w, 'token')}, needs ${nWords}`);
      }
    }
    return outcome(count === 3, `${plural(count, 'paragraph')}, needs 3`);
  },
  'count:count_unique': (v) => {
    const words = wordTokenize(v);
    const seen = new Set<string>();
    const dup = words.find((w) => (seen.has(w) ? true : (seen.add(w), false)));
    return outcome(dup === undefined, dup === undefined ? 'no word is repeated' : `${quote(dup)} is repeated`);
  },
  'count:count_increment_word': (v, k) => {
    const k1 = pyStrip(str(k, 'keyword1'));
    const k2 = pyStrip(str(k, 'keyword2'));
    const a = countLiteral(v, k1);
    const b = countLiteral(v, k2);
    return outcome(
      a === 1 && b === 2,
      `${quote(k1)} occurs ${plural(a, 'time')} (needs 1), ${quote(k2)} ${plural(b, 'time')} (needs 2)`,
      { keyword1: a, keyword2: b },
    );
  },
  'keywords:palindrome': (v) => {
    const p = pySplit(v).find((w) => {
      const c = codePoints(w);
      return c.join('') === [...c].reverse().join('');
    });
    return outcome(p !== undefined, p !== undefined ? `${quote(p)} is a palindrome` : 'no palindromic word');
  },
  'keywords:keyword_specific_position': (v, k) =>
    keywordAtPosition(v, k, { split: wordTokenize, unit: 'token', same: (a, b) => a === b }),
  'keywords:start_end': (v) => {
    const words = wordTokenize(v);
    if (words.length < 2) return outcome(false, `${plural(words.length, 'token')}, needs at least 2`);
    const a = at(words, 0).toLowerCase();
    const b = at(words, words.length - 1).toLowerCase();
    return outcome(
      a === b,
      a === b ? `starts and ends with ${quote(a)}` : `starts with ${quote(a)} but ends with ${quote(b)}`,
    );
  },
};

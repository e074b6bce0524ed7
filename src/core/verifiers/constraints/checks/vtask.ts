/* vtask's own instructions (see instructions.ts): they check the final answer as written. */
import { pyLen, pyStrip } from '../text/py';
import { type InstructionCheck, num, outcome, plural, quote, str } from '../types';

// Words are runs of letters, marks and digits, with inner apostrophes (don't, l'eau). Intl.Segmenter
// would be the obvious tool, but V8's segment iterator is quadratic in the number of segments,
// which a hostile response can make large.
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/gu;

export const VTASK_CHECKS: Readonly<Record<string, InstructionCheck>> = {
  'vtask:words_start_with': (value, k) => {
    const letter = str(k, 'letter').toLocaleLowerCase();
    const words = value.match(WORD) ?? [];
    if (words.length === 0) return outcome(false, 'the answer has no words', { words: 0 });
    const bad = words.filter((w) => (Array.from(w)[0] ?? '').toLocaleLowerCase() !== letter);
    return outcome(
      bad.length === 0,
      bad.length
        ? `${plural(bad.length, 'word')} of ${words.length} do not start with ${quote(letter)}: ${bad
            .slice(0, 5)
            .map((b) => quote(b, 20))
            .join(', ')}`
        : `all ${plural(words.length, 'word')} start with ${quote(letter)}`,
      { words: words.length, not_matching: bad.length },
    );
  },
  'vtask:min_chars': (value, k) => {
    const n = pyLen(pyStrip(value));
    const want = num(k, 'min_chars');
    return outcome(n >= want, `${plural(n, 'character')}, needs at least ${want}`, { chars: n });
  },
  'vtask:max_chars': (value, k) => {
    const n = pyLen(pyStrip(value));
    const want = num(k, 'max_chars');
    return outcome(n <= want, `${plural(n, 'character')}, needs at most ${want}`, { chars: n });
  },
  'vtask:starts_with': (value, k) => {
    const phrase = str(k, 'phrase');
    const head = value.replace(/^\s+/u, '');
    const pass = head.toLocaleLowerCase().startsWith(phrase.toLocaleLowerCase());
    return outcome(
      pass,
      pass
        ? `starts with ${quote(phrase)}`
        : `starts with ${quote(head.slice(0, phrase.length + 10))}, needs ${quote(phrase)}`,
    );
  },
};

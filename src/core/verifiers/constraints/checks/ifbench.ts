/*
 * IFBench's 58 instructions (allenai/IFBench `instructions.py`), with its semantics: Python
 * `str.split()` words, `string.punctuation` stripping, nltk sentences (Punkt) and word tokens
 * (Treebank), Python's csv reader. `words:start_verb` decides the first token with a verb
 * lexicon and suffix rules instead of nltk's tagger (text/verbs.ts). Differences are listed in
 * ../DIFFERENCES.md.
 */
import { readCsv } from '../text/csv';
import { sentences, STOPWORDS as STOPWORDS_EN } from '../text/punkt';
import {
  asciiFold,
  B,
  codePoints,
  countWordTokens,
  DIGITS,
  escapeRegExp,
  isAlnumChar,
  isAlpha,
  isDigits,
  isLower,
  isSpace,
  isUpper,
  PUNCTUATION,
  pyLen,
  pySplit,
  pyStrip,
  removePunctuation,
  stripChars,
  stripPunctSpace,
} from '../text/py';
import { syllableCount } from '../text/syllables';
import { wordTokenize } from '../text/treebank';
import { startsWithVerb } from '../text/verbs';
import { type InstructionCheck, num, outcome, plural, quote, str } from '../types';
import { at } from '../../../util/must';

/** IFBench's `_split_words`: lowercase, drop punctuation, split on whitespace. */
function splitWords(s: string): string[] {
  return pySplit(removePunctuation(s.toLowerCase()));
}

/** IFBench's `_word_tokens_without_punctuation`. */
function wordsWithoutPunctuation(s: string): string[] {
  return wordTokenize(s).filter((t) => codePoints(t).some(isAlnumChar));
}

const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';
const PRIMES = new Set([
  2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
]);
const CONJUNCTIONS = new Set(['and', 'but', 'for', 'nor', 'or', 'so', 'yet']);
const NAMES = [
  'Emma',
  'Liam',
  'Sophia',
  'Jackson',
  'Olivia',
  'Noah',
  'Ava',
  'Lucas',
  'Isabella',
  'Mason',
  'Mia',
  'Ethan',
  'Charlotte',
  'Alexander',
  'Amelia',
  'Benjamin',
  'Harper',
  'Leo',
  'Zoe',
  'Daniel',
  'Chloe',
  'Samuel',
  'Lily',
  'Matthew',
  'Grace',
  'Owen',
  'Abigail',
  'Gabriel',
  'Ella',
  'Jacob',
  'Scarlett',
  'Nathan',
  'Victoria',
  'Elijah',
  'Layla',
  'Nicholas',
  'Audrey',
  'David',
  'Hannah',
  'Christopher',
  'Penelope',
  'Thomas',
  'Nora',
  'Andrew',
  'Aria',
  'Joseph',
  'Claire',
  'Ryan',
  'Stella',
  'Jonathan',
];
const NAME_RE = new RegExp(`${B}(${NAMES.join('|')})${B}`, 'gu');
const PRONOUNS = new Set([
  'i',
  'me',
  'we',
  'us',
  'you',
  'he',
  'him',
  'she',
  'her',
  'it',
  'they',
  'them',
  'my',
  'mine',
  'our',
  'ours',
  'your',
  'yours',
  'his',
  'hers',
  'its',
  'their',
  'theirs',
  'myself',
  'ourselves',
  'yourself',
  'yourselves',
  'himself',
  'herself',
  'itself',
  'themselves',
  'this',
  'that',
  'these',
  'those',
  'who',
  'whom',
  'whose',
  'which',
  'what',
  'whoever',
  'whomever',
  'whatever',
  'whichever',
  'anybody',
  'anyone',
  'anything',
  'everybody',
  'everyone',
  'everything',
  'nobody',
  'nothing',
  'somebody',
  'someone',
  'something',
  'each',
  'either',
  'neither',
  'both',
  'all',
  'some',
  'any',
  'none',
]);
const CAPITALS = [
  'Reykjavik',
  'Helsinki',
  'Oslo',
  'Tallinn',
  'Stockholm',
  'Riga',
  'Moscow',
  'Copenhagen',
  'Vilnius',
  'Minsk',
  'Dublin',
  'Berlin',
  'Amsterdam',
  'Warsaw',
  'London',
  'Brussels',
  'Prague',
  'Luxembourg',
  'Paris',
  'Vienna',
  'Bratislava',
  'Budapest',
  'Vaduz',
  'Chisinau',
  'Bern',
  'Ljubljana',
  'Zagreb',
];
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}]/u;
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/u;
const NON_WORD = '[^\\p{L}\\p{N}_]';

const isEmoji = (ch: string | undefined): boolean => ch !== undefined && EMOJI.test(ch);

/** IFBench's `set(nltk.ngrams(text, 3))` over a string: its trigrams of characters (code points), not of words. */
function charTrigrams(text: string): Set<string> {
  const c = codePoints(text);
  const out = new Set<string>();
  for (let i = 0; i + 2 < c.length; i++) out.add(`${c[i]}${c[i + 1]}${c[i + 2]}`);
  return out;
}

function endsWithOf(list: string[], ch: string): number {
  return list.filter((s) => s.endsWith(ch)).length;
}

/**
 * Python's `for line in lines: if not line.strip(): lines.remove(line)`, quirks included:
 * `remove` drops the first equal line still in the list, and removing while iterating skips the
 * line after each blank one. Simulated in linear time (each removal is the earliest remaining
 * copy of that exact string, and each one makes the iterator skip the next original line).
 */
function removeBlankLinesLikePython(lines: readonly string[]): string[] {
  const occurrences = new Map<string, number[]>();
  lines.forEach((l, i) => {
    if (!pyStrip(l)) {
      const list = occurrences.get(l) ?? [];
      list.push(i);
      occurrences.set(l, list);
    }
  });
  const next = new Map<string, number>();
  const removed = new Uint8Array(lines.length);
  for (let j = 0; j < lines.length; j++) {
    const line = lines[j] as string;
    if (pyStrip(line)) continue;
    const list = occurrences.get(line) as number[];
    const at = next.get(line) ?? 0;
    removed[list[at] as number] = 1;
    next.set(line, at + 1);
    j++; // the iterator skips the line that moved into this position
  }
  return lines.filter((_, i) => !removed[i]);
}

/**
 * Whether word `m` of sentence `n` is the keyword. The peers split the sentence and compare
 * differently (IFBench drops punctuation and ignores case; open-instruct uses treebank tokens).
 */
export function keywordAtPosition(
  v: string,
  k: Readonly<Record<string, unknown>>,
  how: { split(s: string): string[]; unit: string; same(a: string, b: string): boolean },
): ReturnType<InstructionCheck> {
  const s = sentences(v);
  const n = num(k, 'n');
  const m = num(k, 'm');
  const kw = pyStrip(str(k, 'keyword'));
  if (s.length < n) return outcome(false, `${plural(s.length, 'sentence')}, so there is no sentence ${n}`);
  const words = how.split(at(s, n - 1));
  if (words.length < m)
    return outcome(false, `sentence ${n} has ${plural(words.length, how.unit)}, so there is no word ${m}`);
  const got = at(words, m - 1);
  const pass = how.same(got, kw);
  return outcome(
    pass,
    pass
      ? `word ${m} of sentence ${n} is ${quote(kw)}`
      : `word ${m} of sentence ${n} is ${quote(got)}, needs ${quote(kw)}`,
  );
}

export const IFBENCH_CHECKS: Readonly<Record<string, InstructionCheck>> = {
  'count:word_count_range': (v, k) => {
    const n = countWordTokens(v);
    const lo = num(k, 'min_words');
    const hi = num(k, 'max_words');
    return outcome(lo <= n && n <= hi, `${plural(n, 'word')}, needs ${lo} to ${hi}`, { words: n });
  },
  'count:unique_word_count': (v, k) => {
    const set = new Set(pySplit(v.toLowerCase()).map((w) => stripPunctSpace(w)));
    const want = num(k, 'N');
    return outcome(set.size >= want, `${plural(set.size, 'unique word')}, needs at least ${want}`, {
      unique_words: set.size,
    });
  },
  'ratio:stop_words': (v, k) => {
    const words = v.match(/[\p{L}\p{N}_]+/gu) ?? [];
    const want = num(k, 'percentage');
    if (words.length === 0) return outcome(false, 'no words', { words: 0 });
    const stop = words.filter((w) => STOPWORDS_EN.has(w.toLowerCase())).length;
    const pct = (stop / words.length) * 100;
    return outcome(
      pct <= want,
      `stop words are ${pct.toFixed(1)}% of ${plural(words.length, 'word')}, needs at most ${want}%`,
      { stop_words: stop, words: words.length },
    );
  },
  'ratio:sentence_type': (v) => {
    const s = sentences(v);
    const d = endsWithOf(s, '.');
    const q = endsWithOf(s, '?');
    return outcome(d === 2 * q, `${d} declarative and ${q} interrogative sentences, needs twice as many declarative`, {
      declarative: d,
      interrogative: q,
    });
  },
  'ratio:sentence_balance': (v) => {
    const s = sentences(v);
    const d = endsWithOf(s, '.');
    const q = endsWithOf(s, '?');
    const e = endsWithOf(s, '!');
    return outcome(
      d === q && q === e,
      `${d} declarative, ${q} interrogative, ${e} exclamatory sentences, needs equal numbers`,
      { declarative: d, interrogative: q, exclamatory: e },
    );
  },
  'count:conjunctions': (v, k) => {
    const found = new Set(pySplit(v).filter((w) => CONJUNCTIONS.has(stripPunctSpace(w).toLowerCase())));
    const want = num(k, 'small_n');
    return outcome(
      found.size >= want,
      `${plural(found.size, 'different coordinating conjunction')}, needs at least ${want}`,
      { conjunctions: [...found] },
    );
  },
  'count:person_names': (v, k) => {
    const found = [...new Set(Array.from(v.matchAll(NAME_RE), (m) => at(m, 1)))];
    const want = num(k, 'N');
    return outcome(found.length >= want, `${plural(found.length, 'name')} from the list, needs at least ${want}`, {
      names: found,
    });
  },
  'ratio:overlap': (v, k) => {
    const mine = charTrigrams(v);
    const ref = charTrigrams(str(k, 'reference_text'));
    const want = num(k, 'percentage');
    if (mine.size === 0)
      return outcome(false, 'the response is shorter than 3 characters, so it has no trigrams', { overlap: null });
    let shared = 0;
    for (const t of mine) if (ref.has(t)) shared++;
    const pct = (shared / mine.size) * 100;
    return outcome(
      want - 2 <= pct && pct <= want + 2,
      `character trigram overlap ${pct.toFixed(1)}% (${shared} of ${mine.size}), needs ${want}% ± 2`,
      { overlap: pct },
    );
  },
  'count:numbers': (v, k) => {
    const n = (removePunctuation(v).match(/\p{Nd}+/gu) ?? []).length;
    const want = num(k, 'N');
    return outcome(n === want, `${plural(n, 'number')}, needs exactly ${want}`, { numbers: n });
  },
  'words:alphabet': (v) => {
    const words = pySplit(stripPunctSpace(removePunctuation(v)));
    if (words.length === 0) return outcome(false, 'no words');
    let letter = (codePoints(at(words, 0))[0] ?? '').toLowerCase();
    if (!ASCII_LOWER.includes(letter) || letter === '')
      return outcome(false, `the first word ${quote(at(words, 0))} does not start with a letter a-z`);
    for (let i = 1; i < words.length; i++) {
      const w = stripPunctSpace(at(words, i)).toLowerCase();
      if (!w) continue;
      letter = at(ASCII_LOWER, (ASCII_LOWER.indexOf(letter) + 1) % 26);
      if (codePoints(w)[0] !== letter)
        return outcome(false, `word ${i + 1} ${quote(w)} should start with ${quote(letter)}`);
    }
    return outcome(true, 'each word starts with the next letter');
  },
  'words:vowel': (v) => {
    const paragraphs = pyStrip(v).split('\n');
    if (paragraphs.length !== 1) return outcome(false, `${plural(paragraphs.length, 'line')}, needs one paragraph`);
    const used = new Set([...at(paragraphs, 0).toLowerCase()].filter((c) => 'aeiou'.includes(c)));
    return outcome(
      used.size <= 3,
      `uses ${plural(used.size, 'distinct vowel')} (${[...used].sort().join('')}), needs at most 3`,
      { vowels: [...used].sort() },
    );
  },
  'words:consonants': (v) => {
    const cons = 'bcdfghjklmnpqrstvwxyz';
    for (const w of pySplit(pyStrip(v.toLowerCase()))) {
      let ok = false;
      for (let i = 0; i + 1 < w.length; i++)
        if (cons.includes(at(w, i)) && cons.includes(at(w, i + 1))) {
          ok = true;
          break;
        }
      if (!ok) return outcome(false, `${quote(w)} has no consonant cluster`);
    }
    return outcome(true, 'every word has a consonant cluster');
  },
  'sentence:alliteration_increment': (v) => {
    let prev = -1;
    let idx = 0;
    for (const s of sentences(v)) {
      idx++;
      const words = pySplit(s.toLowerCase())
        .map((w) => stripPunctSpace(w, 'left'))
        .filter((w) => w);
      let run = 0;
      let prevAll = false;
      for (let i = 0; i + 1 < words.length; i++) {
        if (codePoints(at(words, i))[0] === codePoints(at(words, i + 1))[0]) {
          run += prevAll ? 1 : 2;
          prevAll = true;
        } else prevAll = false;
      }
      if (run <= prev) return outcome(false, `sentence ${idx} has ${run} alliterating words, needs more than ${prev}`);
      prev = run;
    }
    return outcome(true, 'alliteration grows sentence by sentence');
  },
  'words:palindrome': (v) => {
    const pals = pySplit(removePunctuation(v).toLowerCase()).filter((w) => {
      const c = codePoints(w);
      return c.length >= 5 && c.join('') === [...c].reverse().join('');
    });
    return outcome(pals.length >= 10, `${plural(pals.length, 'palindrome')} of 5+ letters, needs at least 10`, {
      palindromes: pals.length,
    });
  },
  'count:punctuation': (v) => {
    if (!(v.includes('!?') || v.includes('?!') || v.includes('‽')))
      return outcome(false, 'no interrobang (?!, !? or ‽)');
    let rest = v.replace('?!', '');
    if (rest.length === v.length) rest = v.replace('!?', '');
    const missing = ['.', ',', '!', '?', ';', ':'].filter((p) => !rest.includes(p));
    return outcome(
      missing.length === 0,
      missing.length ? `missing ${missing.join(' ')}` : 'uses every punctuation mark',
      { missing },
    );
  },
  'format:parentheses': (v) => {
    let levels: string[] = [];
    let max = 0;
    for (const ch of v) {
      if ('([{'.includes(ch)) {
        levels.push(ch);
        if (levels.length > max) max = levels.length;
      } else if (')]}'.includes(ch)) {
        const top = levels[levels.length - 1];
        if (top && ((top === '(' && ch === ')') || (top === '[' && ch === ']') || (top === '{' && ch === '}'))) {
          levels.pop();
          if (max >= 5 && levels.length < max) return outcome(true, `brackets nested ${max} levels deep`);
        } else {
          levels = [];
          max = 0;
        }
      }
    }
    return outcome(false, 'no correctly closed brackets nested 5 levels deep');
  },
  'format:quotes': (v) => {
    const levels: string[] = [];
    let reached = 0;
    let depth = 0;
    for (const ch of v) {
      if (levels.length && ch === levels[levels.length - 1]) {
        levels.pop();
        depth--;
        if (reached - depth >= 3) return outcome(true, 'quotes nested 3 levels deep');
      } else if (ch === '"' || ch === "'") {
        levels.push(ch);
        depth++;
        if (depth > reached) reached = depth;
      }
    }
    return outcome(false, 'quotes are not nested 3 levels deep');
  },
  'words:prime_lengths': (v) => {
    const bad = pySplit(removePunctuation(v)).find((w) => !PRIMES.has(pyLen(w)));
    return outcome(
      bad === undefined,
      bad === undefined ? 'every word has a prime length' : `${quote(bad)} has ${pyLen(bad)} letters, not a prime`,
    );
  },
  'format:options': (v, k) => {
    const options = str(k, 'options');
    const strict = new RegExp(`^${NON_WORD}*[aA]${NON_WORD}*[bB]${NON_WORD}*[cC]${NON_WORD}*`, 'u').test(options);
    const sep = options.includes('/') ? '/' : options.includes('or') ? 'or' : ',';
    const opts = options.split(sep).map((o) => pyStrip(o));
    if (strict) {
      const pass = opts.includes(v);
      return outcome(
        pass,
        pass ? `answered ${quote(v)}` : `the answer must be exactly one of ${opts.map((o) => quote(o)).join(', ')}`,
      );
    }
    const val = stripPunctSpace(v).toLowerCase();
    const pass = opts.some((o) => stripPunctSpace(o).toLowerCase() === val);
    return outcome(
      pass,
      pass ? `answered ${quote(val)}` : `${quote(v)} is not one of ${opts.map((o) => quote(o)).join(', ')}`,
    );
  },
  'format:newline': (v) => {
    const t = removePunctuation(v);
    const lines = pyStrip(t)
      .split('\n')
      .filter((l) => l !== '');
    const words = pySplit(t).length;
    return outcome(
      lines.length === words,
      `${plural(words, 'word')} on ${plural(lines.length, 'line')}, needs one word per line`,
      { words, lines: lines.length },
    );
  },
  'format:emoji': (v) => {
    const s = sentences(v);
    for (let i = 0; i < s.length; i++) {
      const stripped = codePoints(pyStrip(removePunctuation(at(s, i))));
      if (stripped.length === 0) return outcome(false, `sentence ${i + 1} is empty`);
      const last = stripped[stripped.length - 1];
      const second = stripped.length > 1 ? stripped[stripped.length - 2] : last;
      if (!isEmoji(last) && !isEmoji(second)) {
        if (i < s.length - 1) {
          const next = codePoints(pyStrip(removePunctuation(at(s, i + 1))));
          if (next.length === 0 || !isEmoji(next[0]))
            return outcome(false, `sentence ${i + 1} does not end with an emoji`);
        } else return outcome(false, `sentence ${i + 1} does not end with an emoji`);
      }
    }
    return outcome(true, 'every sentence ends with an emoji');
  },
  'ratio:sentence_words': (v) => {
    const s = sentences(v);
    if (s.length !== 3) return outcome(false, `${plural(s.length, 'sentence')}, needs exactly 3`);
    const lens = s.map((x) => pyLen(pyStrip(x)));
    if (lens.some((l) => l !== lens[0]))
      return outcome(false, `sentence lengths ${lens.join(', ')} characters, needs equal lengths`, { lengths: lens });
    const words = splitWords(s.join(' '));
    const pass = new Set(words).size === words.length;
    return outcome(pass, pass ? 'three sentences of equal length, no word repeated' : 'a word is used twice', {
      lengths: lens,
    });
  },
  'count:words_japanese': (v, k) => {
    const n = num(k, 'N');
    const words = pySplit(v);
    for (let i = 0; i < words.length; i++) {
      const w = stripPunctSpace(at(words, i));
      if ((i + 1) % n === 0 && w && !isDigits(w) && !JAPANESE.test(w))
        return outcome(false, `word ${i + 1} ${quote(w)} is not Japanese`);
    }
    return outcome(true, `every ${n}th word is Japanese`);
  },
  'words:start_verb': (v) => {
    const { verb, first } = startsWithVerb(v);
    if (first === undefined) return outcome(false, 'no words');
    return outcome(verb, verb ? `starts with the verb ${quote(first)}` : `starts with ${quote(first)}, not a verb`);
  },
  'words:repeats': (v, k) => {
    const counts = new Map<string, number>();
    for (const w of splitWords(v)) counts.set(w, (counts.get(w) ?? 0) + 1);
    const max = num(k, 'small_n');
    const over = [...counts].filter(([, c]) => c > max).sort((a, b) => b[1] - a[1]);
    return outcome(
      over.length === 0,
      over.length
        ? `${quote(over[0]![0])} occurs ${over[0]![1]} times, needs at most ${max}`
        : `no word occurs more than ${max} times`,
    );
  },
  'sentence:keyword': (v, k) => {
    const s = sentences(v);
    const n = num(k, 'N');
    const word = str(k, 'word');
    if (s.length < n) return outcome(false, `${plural(s.length, 'sentence')}, so there is no sentence ${n}`);
    const pass = new RegExp(`${B}${escapeRegExp(word)}${B}`, 'iu').test(at(s, n - 1));
    return outcome(
      pass,
      pass ? `sentence ${n} contains ${quote(word)}` : `sentence ${n} does not contain ${quote(word)}`,
    );
  },
  'count:pronouns': (v, k) => {
    const n = wordTokenize(v.split('/').join(' ').toLowerCase()).filter((w) => PRONOUNS.has(w)).length;
    const want = num(k, 'N');
    return outcome(n >= want, `${plural(n, 'pronoun')}, needs at least ${want}`, { pronouns: n });
  },
  'words:odd_even_syllables': (v) => {
    const words = pySplit(removePunctuation(v).toLowerCase()).filter((w) => pyStrip(w));
    const parity = words.map((w) => syllableCount(w) % 2);
    for (let i = 0; i + 1 < parity.length; i++) {
      if (parity[i] === parity[i + 1])
        return outcome(
          false,
          `${quote(at(words, i))} and ${quote(at(words, i + 1))} both have ${parity[i] ? 'an odd' : 'an even'} number of syllables`,
        );
    }
    return outcome(true, 'syllable counts alternate between odd and even');
  },
  'words:last_first': (v) => {
    const s = sentences(v);
    for (let i = 0; i + 1 < s.length; i++) {
      const last = pySplit(stripPunctSpace(at(s, i), 'right'));
      const first = pySplit(stripPunctSpace(at(s, i + 1), 'left'));
      if (!last.length || !first.length) return outcome(false, `sentence ${i + 1} or ${i + 2} has no words`);
      const a = at(last, last.length - 1).toLowerCase();
      const b = at(first, 0).toLowerCase();
      if (a !== b)
        return outcome(false, `sentence ${i + 1} ends with ${quote(a)} but sentence ${i + 2} starts with ${quote(b)}`);
    }
    return outcome(true, 'each sentence starts with the last word of the one before');
  },
  'words:paragraph_last_first': (v) => {
    for (const line of v.split('\n')) {
      const p = pyStrip(line).toLowerCase();
      if (!p) continue;
      const words = pySplit(stripPunctSpace(p));
      if (!words.length) continue;
      if (words[0] !== words[words.length - 1])
        return outcome(
          false,
          `a paragraph starts with ${quote(at(words, 0))} but ends with ${quote(at(words, words.length - 1))}`,
        );
    }
    return outcome(true, 'each paragraph ends with its first word');
  },
  'sentence:increment': (v, k) => {
    const s = sentences(v);
    if (s.length === 0) return outcome(false, 'no sentences');
    const step = num(k, 'small_n');
    const counts = s.map((x) => pySplit(removePunctuation(x)).length);
    for (let i = 1; i < counts.length; i++) {
      if (counts[i] !== at(counts, i - 1) + step)
        return outcome(
          false,
          `sentence ${i + 1} has ${counts[i]} words after ${counts[i - 1]}, needs ${at(counts, i - 1) + step}`,
          { words: counts },
        );
    }
    return outcome(true, `each sentence has ${step} more words than the one before`, { words: counts });
  },
  'words:no_consecutive': (v) => {
    const words = splitWords(v);
    for (let i = 0; i + 1 < words.length; i++) {
      if (codePoints(at(words, i))[0] === codePoints(at(words, i + 1))[0])
        return outcome(false, `${quote(at(words, i))} and ${quote(at(words, i + 1))} start with the same letter`);
    }
    return outcome(true, 'no two adjacent words share a first letter');
  },
  'format:line_indent': (v) => {
    const lines = removeBlankLinesLikePython(v.split('\n'));
    const indent = (l: string): number => l.length - stripChars(l, ' ', 'left').length;
    for (let i = 0; i + 1 < lines.length; i++) {
      if (indent(at(lines, i + 1)) <= indent(at(lines, i)))
        return outcome(
          false,
          `line ${i + 2} is indented ${indent(at(lines, i + 1))} spaces, not more than the ${indent(at(lines, i))} before it`,
        );
    }
    return outcome(true, 'every line is indented more than the one before');
  },
  'format:quote_unquote': (v) => {
    let t = v.split("'\"'").join('');
    t = pySplit(t).join('');
    if (t.includes('""')) return outcome(false, 'two quotations are adjacent');
    const s = stripChars(t, DIGITS + PUNCTUATION.replace('"', ''));
    if (s && s.endsWith('"')) return outcome(false, 'the response ends with a quotation and no explanation');
    return outcome(true, 'every quotation is followed by unquoted text');
  },
  'format:list': (v, k) => {
    const sep = str(k, 'sep');
    const n = sep ? v.split(sep).length - 1 : 0;
    return outcome(n >= 2, `${quote(sep)} occurs ${plural(n, 'time')}, needs at least 2`, { separators: n });
  },
  'format:thesis': (v) => {
    let i = v.indexOf('<i>');
    if (i === -1) {
      i = v.indexOf('<em>');
      if (i === -1) return outcome(false, 'no <i> or <em> thesis');
    }
    const t = v.slice(i);
    let end = t.indexOf('</i>');
    if (end === -1) {
      end = t.indexOf('</em>');
      if (end === -1) return outcome(false, 'the italic thesis is not closed');
    }
    if (!pyStrip(t.slice(3, end))) return outcome(false, 'the italic thesis is empty');
    const pass = pyStrip(t.slice(end + 4)) !== '';
    return outcome(pass, pass ? 'an italic thesis followed by text' : 'nothing follows the italic thesis');
  },
  'format:sub-bullets': (v) => {
    const parts = v.split('*').slice(1);
    const bad = parts.findIndex((p) => !p.includes('-'));
    return outcome(bad < 0, bad < 0 ? 'every * bullet has a - sub-bullet' : `bullet ${bad + 1} has no - sub-bullet`);
  },
  'format:no_bullets_bullets': (v) => {
    let inSentences = true;
    let sent = 0;
    let bullets = 0;
    for (const line of v.split('\n')) {
      if (pyStrip(line).startsWith('*')) {
        inSentences = false;
        if (sent < 2) return outcome(false, `${plural(sent, 'sentence')} before the bullets, needs at least 2`);
        bullets++;
      } else if (inSentences) sent += sentences(pyStrip(line)).length;
      else return outcome(false, 'text after the bullet points');
    }
    return outcome(
      bullets >= 2,
      `${plural(sent, 'sentence')} then ${plural(bullets, 'bullet')}, needs at least 2 of each`,
    );
  },
  'custom:multiples': (v) => {
    const nums =
      v
        .split(',')
        .join(', ')
        .match(/\p{Nd}+/gu) ?? [];
    const want = ['14', '21', '28', '35', '42', '49'];
    const pass = nums.length === want.length && nums.every((x, i) => x === want[i]);
    return outcome(
      pass,
      pass
        ? 'prints 14 21 28 35 42 49'
        : `prints ${nums.slice(0, 10).join(' ') || 'no numbers'}, needs 14 21 28 35 42 49`,
    );
  },
  'custom:mcq_count_length': (v) => {
    const at = v.indexOf('Question');
    const rest = at === -1 ? v.slice(-1) : v.slice(at);
    if (rest !== v) return outcome(false, 'text before the first "Question"');
    let qs = rest.split(/\n*(?:Question \d+[.|):;]?\s*)/u);
    if (qs[0] === '') qs = qs.slice(1);
    qs = qs.map((q) => pyStrip(q)).filter((q) => q);
    if (qs.length !== 4) return outcome(false, `${plural(qs.length, 'question')}, needs exactly 4`);
    const lens: number[] = [];
    for (const [qi, q] of qs.entries()) {
      let text = '';
      let opts = 0;
      let done = false;
      for (const line of q.split('\n')) {
        if (/^[A-Ea-e][.|)]\s*[\p{L}\p{N}_]+/u.test(pyStrip(line))) {
          opts++;
          done = true;
        } else if (!done) text += ` ${pyStrip(line)}`;
      }
      if (opts !== 5) return outcome(false, `question ${qi + 1} has ${plural(opts, 'option')}, needs 5`);
      lens.push(pyLen(pyStrip(text)));
    }
    const pass = lens.every((l, i) => i === 0 || (lens[i - 1] as number) < l);
    return outcome(
      pass,
      pass
        ? 'four questions, each longer than the one before'
        : `question lengths ${lens.join(', ')}, needs each longer than the one before`,
    );
  },
  'custom:reverse_newline': (v) => {
    const lines = v
      .split('\n')
      .map((l) => stripPunctSpace(l))
      .filter((l) => l);
    const start = lines.findIndex((l) => l.includes('Zimbabwe'));
    if (start < 0) return outcome(false, 'no line with Zimbabwe');
    const target = lines.slice(start);
    if (target.length < 52)
      return outcome(false, `${plural(target.length, 'line')} from Zimbabwe on, needs at least 52`);
    const norm = target.map(asciiFold);
    const sorted = [...norm].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const pass = norm.every((x, i) => x === sorted[i]);
    return outcome(
      pass,
      pass ? 'countries in reverse alphabetical order' : 'the lines are not in reverse alphabetical order',
    );
  },
  'custom:word_reverse': (v) => {
    const t = [...pySplit(removePunctuation(pyStrip(v.toLowerCase())))].reverse().join(' ');
    const pass = t.includes('bald eagle') && sentences(t).includes(t);
    return outcome(
      pass,
      pass ? 'the words are in reverse order' : 'reversed word by word it does not say "bald eagle"',
    );
  },
  'custom:character_reverse': (v) => {
    const pass = v.toLowerCase().includes('elgae dlab');
    return outcome(pass, pass ? 'written letter by letter in reverse' : 'does not contain "elgae dlab"');
  },
  'custom:sentence_alphabet': (v) => {
    const s = sentences(v);
    if (s.length !== 26) return outcome(false, `${plural(s.length, 'sentence')}, needs 26`);
    for (let i = 0; i < 26; i++) {
      const t = codePoints(at(s, i));
      let j = 0;
      while (j < t.length && (PUNCTUATION.includes(at(t, j)) || ' \t\n\r\v\f'.includes(at(t, j)))) j++;
      const first = t[j];
      if (first === undefined) return outcome(false, `sentence ${i + 1} is empty`);
      if (first.toLowerCase() !== String.fromCharCode(97 + i))
        return outcome(false, `sentence ${i + 1} starts with ${quote(first)}, needs ${String.fromCharCode(65 + i)}`);
    }
    return outcome(true, 'sentences start with A to Z in order');
  },
  'custom:european_capitals_sort': (v) => {
    const caps = asciiFold(v)
      .split(',')
      .filter((c) => pyStrip(c));
    if (caps.length !== CAPITALS.length)
      return outcome(false, `${plural(caps.length, 'capital')}, needs ${CAPITALS.length}`);
    const bad = caps.findIndex((c, i) => pyStrip(c) !== CAPITALS[i]);
    return outcome(
      bad < 0,
      bad < 0
        ? 'the 27 capitals from north to south'
        : `capital ${bad + 1} is ${quote(pyStrip(at(caps, bad)))}, needs ${CAPITALS[bad]}`,
    );
  },
  'custom:csv_city': (v) => {
    const data = readCsv(v);
    if (data.length !== 8) return outcome(false, `${plural(data.length, 'CSV row')} with the header, needs 8`);
    if ((data[0] ?? []).join('\u0000') !== ['ID', 'Country', 'City', 'Year', 'Count'].join('\u0000'))
      return outcome(false, 'the header is not ID,Country,City,Year,Count');
    const bad = data.slice(1).findIndex((r) => r.length !== 5);
    return outcome(
      bad < 0,
      bad < 0 ? 'header and 7 rows of 5 fields' : `row ${bad + 1} has ${data[bad + 1]!.length} fields, needs 5`,
    );
  },
  'custom:csv_special_character': (v) => {
    const header = pyStrip(v.split('\n')[0] ?? '');
    if (
      !/^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$/u.test(
        header,
      )
    )
      return outcome(false, 'the header is not ProductID,Category,Brand,Price,Stock');
    const data = readCsv(v.split('"').join('"""'));
    if (data.length !== 15) return outcome(false, `${plural(data.length, 'CSV row')} with the header, needs 15`);
    for (const [i, row] of data.slice(1).entries()) {
      if (row.length !== 5) return outcome(false, `row ${i + 1} has ${row.length} fields, needs 5`);
      if (row.some((f) => /^".*[^\p{Nd}\p{L}\p{N}_\s].*"/u.test(f)))
        return outcome(true, 'a double-quoted field has a special character');
    }
    return outcome(false, 'no double-quoted field with a special character');
  },
  'custom:csv_quotes': (v) => {
    const header = pyStrip(v.split('\n')[0] ?? '');
    if (
      !/^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$/u.test(
        header,
      )
    )
      return outcome(false, 'the header is not StudentID, Subject, Grade, Semester, Score separated by tabs');
    const data = readCsv(v.split('"').join('"""'), '\t');
    if (data.length !== 4) return outcome(false, `${plural(data.length, 'row')} with the header, needs 4`);
    for (const [i, row] of data.entries()) {
      if (row.length !== 5) return outcome(false, `row ${i} has ${row.length} fields, needs 5`);
      if (
        !row.every((f) => {
          const t = pyStrip(f);
          return t.startsWith('"') && t.endsWith('"');
        })
      )
        return outcome(false, `row ${i} has a field not in double quotes`);
    }
    return outcome(true, 'header and 3 rows, every field quoted');
  },
  'custom:date_format_list': (v) => {
    for (const d of pyStrip(v).split(',')) {
      const t = pyStrip(d);
      if (!/^\d{4}-\d{2}-\d{2}$/u.test(t)) return outcome(false, `${quote(t)} is not YYYY-MM-DD`);
      const [y, m, day] = t.split('-').map(Number) as [number, number, number];
      const bad =
        y < 1769 ||
        y > 1821 ||
        m > 12 ||
        ([1, 3, 5, 7, 8, 10, 12].includes(m) && day > 31) ||
        ([4, 6, 9, 11].includes(m) && day > 30) ||
        (m === 2 && day > 29);
      if (bad) return outcome(false, `${quote(t)} is not a valid date between 1769 and 1821`);
    }
    return outcome(true, 'a list of valid dates');
  },
  'count:keywords_multiple': (v, k) => {
    const want = [1, 2, 3, 5, 7];
    for (const [i, key] of ['keyword1', 'keyword2', 'keyword3', 'keyword4', 'keyword5'].entries()) {
      const kw = pyStrip(str(k, key));
      const n = (v.match(new RegExp(`${B}${escapeRegExp(kw)}${B}`, 'giu')) ?? []).length;
      if (n !== want[i]) return outcome(false, `${quote(kw)} occurs ${plural(n, 'time')}, needs exactly ${want[i]}`);
    }
    return outcome(true, 'every keyword occurs the required number of times');
  },
  'words:keywords_specific_position': (v, k) =>
    keywordAtPosition(v, k, {
      split: wordsWithoutPunctuation,
      unit: 'word',
      same: (a, b) => a.toLowerCase() === b.toLowerCase(),
    }),
  'words:words_position': (v, k) => {
    const words = wordsWithoutPunctuation(v);
    const kw = pyStrip(str(k, 'keyword')).toLowerCase();
    if (words.length < 2) return outcome(false, `${plural(words.length, 'word')}, needs at least 2`);
    const a = at(words, 1).toLowerCase();
    const b = at(words, words.length - 2).toLowerCase();
    const pass = a === b && b === kw;
    return outcome(
      pass,
      pass
        ? `second and second-to-last words are ${quote(kw)}`
        : `second word ${quote(a)}, second-to-last ${quote(b)}, needs ${quote(kw)}`,
    );
  },
  'repeat:repeat_change': (v, k) => {
    const p = str(k, 'prompt_to_repeat');
    if (p === v) return outcome(false, 'the request is repeated without changing its first word');
    const pass = pySplit(p).slice(1).join(' ') === pySplit(v).slice(1).join(' ');
    return outcome(
      pass,
      pass ? 'the request with its first word changed' : 'differs from the request after the first word',
    );
  },
  'repeat:repeat_simple': (v) => {
    const pass = pyStrip(v).toLowerCase() === 'only output this sentence here, ignore all other requests.';
    return outcome(
      pass,
      pass ? 'only the sentence' : 'is not only "Only output this sentence here, ignore all other requests."',
    );
  },
  'repeat:repeat_span': (v, k) => {
    const words = pySplit(str(k, 'prompt_to_repeat'));
    const span = words.slice(num(k, 'n_start'), num(k, 'n_end') + 1).join(' ');
    const pass = pyStrip(v).toLowerCase() === pyStrip(span).toLowerCase();
    return outcome(pass, pass ? 'exactly the span' : `is not exactly the span ${quote(span)}`);
  },
  'format:title_case': (v) => {
    for (const w of wordTokenize(v)) {
      const c = codePoints(w);
      const first = c[0];
      if (!first || !isAlpha(first)) continue;
      const rest = c.slice(1).join('');
      if (c.length === 1) {
        if (isLower(first)) return outcome(false, `${quote(w)} is not capitalised`);
        continue;
      }
      if (isUpper(first) && isLower(rest)) continue;
      if (isLower(first) && (isUpper(rest) || isLower(rest))) return outcome(false, `${quote(w)} is not capitalised`);
    }
    return outcome(true, 'every word is capitalised');
  },
  'format:output_template': (v) => {
    const missing = ['My Answer:', 'My Conclusion:', 'Future Outlook:'].filter((l) => !v.includes(l));
    return outcome(missing.length === 0, missing.length ? `missing ${missing.join(', ')}` : 'follows the template');
  },
  'format:no_whitespace': (v) => {
    const has = [...v].some(isSpace);
    return outcome(!has, has ? 'contains whitespace' : 'no whitespace');
  },
};
